/**
 * Hostile-input fuzzing of the legacy (magic 0/1) decoder: LegacyRecordBatch, the BatchReader's
 * legacy dispatch, FileRecords, wrapper decompression in gzip/snappy/lz4 (magic-0 lz4 framing
 * included), convertToV2. Entries are generated from the spec layout (legacy-fuzz-worker.ts) and
 * mutated: byte flips, truncation at every position, entry/inner size fields and key/value lengths
 * inflated or made negative, magic/attributes changed (codec bits 4-7, timestamp bit), wrapper
 * offsets below the last inner offset, inner messages compressed or of another magic, empty,
 * truncated or garbage-tailed inner sets, corrupted compressed values, streams of several entries;
 * CRCs mostly recomputed valid, the rest left broken.
 *
 * Every case must decode or throw a KafkaliteError with a declared code (and a position inside the
 * input when one is given); pristine entries must decode to what was generated. The loop runs in a
 * worker thread that is terminated if it stops making progress, so a hang fails the test too.
 *
 * Seed: KAFKALITE_FUZZ_SEED (default below); replay one case with KAFKALITE_FUZZ_CASE.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import type { LegacyFuzzConfig, LegacyFuzzResult } from './legacy-fuzz-worker.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6c656761);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
const TIME_BUDGET_MS = 30_000;
const STALL_MS = 10_000;
const MIN_CASES = 30_000;

test(`legacy fuzz: >= ${MIN_CASES} hostile magic 0/1 inputs decode or throw KafkaliteError (seed ${SEED})`, { timeout: 120_000 }, async (t) => {
  const progress = new SharedArrayBuffer(8);
  const cfg: LegacyFuzzConfig = {
    kind: 'legacy-fuzz',
    seed: SEED,
    plainCases: 50_000,
    codecCases: 8_000,
    truncationEntries: 24,
    fileEvery: 40,
    onlyCase: ONLY_CASE,
    progress,
  };
  const view = new Int32Array(progress);
  const worker = new Worker(new URL('./legacy-fuzz-worker.js', import.meta.url), { workerData: cfg });
  const started = Date.now();

  const result = await new Promise<LegacyFuzzResult>((resolve, reject) => {
    let lastDone = -1;
    let lastChange = Date.now();
    const timer = setInterval(() => {
      const done = Atomics.load(view, 1);
      if (done !== lastDone) {
        lastDone = done;
        lastChange = Date.now();
      }
      const stalled = Date.now() - lastChange > STALL_MS;
      const overBudget = Date.now() - started > TIME_BUDGET_MS + 30_000;
      if (stalled || overBudget) {
        clearInterval(timer);
        const at = Atomics.load(view, 0);
        void worker.terminate();
        reject(
          new Error(
            `legacy fuzz ${stalled ? 'hung' : 'ran far over budget'} at case ${at} after ${done} cases (seed ${SEED}); ` +
              `replay: KAFKALITE_FUZZ_SEED=${SEED} KAFKALITE_FUZZ_CASE=${at}`,
          ),
        );
      }
    }, 250);
    worker.once('message', (m: LegacyFuzzResult) => {
      clearInterval(timer);
      resolve(m);
    });
    worker.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`legacy fuzz worker crashed at case ${Atomics.load(view, 0)} (seed ${SEED}): ${err.stack}`));
    });
  });
  await worker.terminate();

  t.diagnostic(`seed ${SEED}: ${result.cases} cases (${result.fileCases} also through FileRecords) in ${(result.ms / 1000).toFixed(1)} s`);
  t.diagnostic(`outcomes ${JSON.stringify(result.outcomes)}`);
  t.diagnostic(`categories ${JSON.stringify(result.categories)}`);
  t.diagnostic(`slowest case ${result.slowestCase}: ${result.slowestCaseMs.toFixed(1)} ms`);

  const report = result.failures
    .map(
      (f) =>
        `- case ${f.caseIndex} [${f.category}] seed ${f.seed}: ${f.problem}\n  input (${f.inputLength} bytes, first 300): ${f.inputHex}` +
        `\n  replay: KAFKALITE_FUZZ_SEED=${f.seed} KAFKALITE_FUZZ_CASE=${f.caseIndex}`,
    )
    .join('\n');
  assert.equal(result.failureCount, 0, `${result.failureCount} failing legacy fuzz cases (seed ${SEED}); first ${result.failures.length}:\n${report}`);
  if (ONLY_CASE < 0) {
    assert.ok(result.cases >= MIN_CASES, `only ${result.cases} cases ran`);
    assert.ok(result.ms < TIME_BUDGET_MS, `legacy fuzz took ${result.ms} ms, budget ${TIME_BUDGET_MS} ms (seed ${SEED})`);
    for (const codec of ['gzip', 'snappy', 'lz4']) {
      const n = Object.entries(result.categories)
        .filter(([k]) => k.startsWith(codec + '/'))
        .reduce((s, [, v]) => s + v, 0);
      assert.ok(n >= 2000, `${codec}: only ${n} cases`);
    }
    // the mutations must get past the CRC check into the layout and wrapper parsers
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > 1000, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.CORRUPT_RECORD ?? 0) > 1000, `too few CORRUPT_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > 5000, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
