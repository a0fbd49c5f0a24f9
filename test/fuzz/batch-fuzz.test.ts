/**
 * Hostile-input fuzzing of the batch/record decoder (BatchReader, RecordBatch, record parser and
 * all four decompressors). Valid batches for every codec are generated and then mutated: random
 * byte flips, truncation at every position, length fields inflated (incl. 0x7fffffff), record
 * counts inflated, varints made over-long or replaced by hostile values, attributes/magic changed,
 * multi-batch streams; CRCs are mostly recomputed so the parsers behind the CRC check are reached.
 *
 * Every case must decode or throw a KafkaliteError with a declared code (and a sane position when
 * one is given); pristine batches must decode to what was generated. The loop runs in a worker
 * thread that is terminated if it stops making progress, so a hang fails the test too.
 *
 * Seed: KAFKALITE_FUZZ_SEED (default below); replay one case with KAFKALITE_FUZZ_CASE.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import type { FuzzConfig, FuzzResult } from './batch-fuzz-worker.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6b61666b);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
const TIME_BUDGET_MS = 60_000;
/** No progress for this long = a hang. */
const STALL_MS = 10_000;

test(`batch fuzz: >= 100,000 hostile inputs decode or throw KafkaliteError (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
  const progress = new SharedArrayBuffer(8);
  const cfg: FuzzConfig = {
    kind: 'batch-fuzz',
    seed: SEED,
    plainCases: 100_000,
    codecCases: 3_000,
    truncationBatches: 30,
    onlyCase: ONLY_CASE,
    progress,
  };
  const view = new Int32Array(progress);
  const worker = new Worker(new URL('./batch-fuzz-worker.js', import.meta.url), { workerData: cfg });
  const started = Date.now();

  const result = await new Promise<FuzzResult>((resolve, reject) => {
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
            `fuzz ${stalled ? 'hung' : 'ran far over budget'} at case ${at} after ${done} cases (seed ${SEED}); ` +
              `replay: KAFKALITE_FUZZ_SEED=${SEED} KAFKALITE_FUZZ_CASE=${at}`,
          ),
        );
      }
    }, 250);
    worker.once('message', (m: FuzzResult) => {
      clearInterval(timer);
      resolve(m);
    });
    worker.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`fuzz worker crashed at case ${Atomics.load(view, 0)} (seed ${SEED}): ${err.stack}`));
    });
  });
  await worker.terminate();

  t.diagnostic(`seed ${SEED}: ${result.cases} cases in ${(result.ms / 1000).toFixed(1)} s`);
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
  assert.equal(result.failureCount, 0, `${result.failureCount} failing fuzz cases (seed ${SEED}); first ${result.failures.length}:\n${report}`);
  if (ONLY_CASE < 0) {
    assert.ok(result.cases >= 100_000, `only ${result.cases} cases ran`);
    assert.ok(result.ms < TIME_BUDGET_MS, `fuzz took ${result.ms} ms, budget ${TIME_BUDGET_MS} ms (seed ${SEED})`);
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      const n = Object.entries(result.categories)
        .filter(([k]) => k.startsWith(codec + '/'))
        .reduce((s, [, v]) => s + v, 0);
      assert.ok(n >= 2000, `${codec}: only ${n} cases`);
    }
    // the mutations must reach the record parser, not only the CRC check
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > 10_000, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > 5_000, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
