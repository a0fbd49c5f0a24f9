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
import type { LegacyFuzzConfig } from './legacy-fuzz-worker.js';
import { casesOfCodec, runFuzzWorker } from './harness.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6c656761);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
const TIME_BUDGET_MS = 30_000;
const STALL_MS = 10_000;
const MIN_CASES = 30_000;

test(`legacy fuzz: >= ${MIN_CASES} hostile magic 0/1 inputs decode or throw KafkaliteError (seed ${SEED})`, { timeout: 120_000 }, async (t) => {
  const cfg: LegacyFuzzConfig = {
    kind: 'legacy-fuzz',
    seed: SEED,
    plainCases: 50_000,
    codecCases: 8_000,
    truncationEntries: 24,
    fileEvery: 40,
    onlyCase: ONLY_CASE,
    progress: new SharedArrayBuffer(8),
  };
  const result = await runFuzzWorker(t, {
    label: 'legacy fuzz',
    workerUrl: new URL('./legacy-fuzz-worker.js', import.meta.url),
    cfg,
    budgetMs: TIME_BUDGET_MS,
    stallMs: STALL_MS,
  });
  if (ONLY_CASE < 0) {
    assert.ok(result.cases >= MIN_CASES, `only ${result.cases} cases ran`);
    assert.ok(result.extraCases > 0, 'some cases also went through FileRecords');
    assert.ok(result.ms < TIME_BUDGET_MS, `legacy fuzz took ${result.ms} ms, budget ${TIME_BUDGET_MS} ms (seed ${SEED})`);
    for (const codec of ['gzip', 'snappy', 'lz4']) {
      const n = casesOfCodec(result, codec);
      assert.ok(n >= 2000, `${codec}: only ${n} cases`);
    }
    // the mutations must get past the CRC check into the layout and wrapper parsers
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > 1000, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.CORRUPT_RECORD ?? 0) > 1000, `too few CORRUPT_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > 5000, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
