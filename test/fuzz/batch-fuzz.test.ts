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
import type { FuzzConfig } from './batch-fuzz-worker.js';
import { casesOfCodec, runFuzzWorker } from './harness.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6b61666b);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
const TIME_BUDGET_MS = 60_000;
/** No progress for this long = a hang. */
const STALL_MS = 10_000;

test(`batch fuzz: >= 100,000 hostile inputs decode or throw KafkaliteError (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
  const cfg: FuzzConfig = {
    kind: 'batch-fuzz',
    seed: SEED,
    plainCases: 100_000,
    codecCases: 3_000,
    truncationBatches: 30,
    onlyCase: ONLY_CASE,
    progress: new SharedArrayBuffer(8),
  };
  const result = await runFuzzWorker(t, {
    label: 'batch fuzz',
    workerUrl: new URL('./batch-fuzz-worker.js', import.meta.url),
    cfg,
    budgetMs: TIME_BUDGET_MS,
    stallMs: STALL_MS,
  });
  if (ONLY_CASE < 0) {
    assert.ok(result.cases >= 100_000, `only ${result.cases} cases ran`);
    assert.ok(result.ms < TIME_BUDGET_MS, `fuzz took ${result.ms} ms, budget ${TIME_BUDGET_MS} ms (seed ${SEED})`);
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      const n = casesOfCodec(result, codec);
      assert.ok(n >= 2000, `${codec}: only ${n} cases`);
    }
    // the mutations must reach the record parser, not only the CRC check
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > 10_000, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > 5_000, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
