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
import { casesOfCategory, runFuzzWorker } from './harness.js';
import { tierCount } from '../helpers/tier.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6b61666b);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
/** The unit tier runs 8% of the cases (test/tiers.ts), one truncated batch instead of thirty. */
const PLAIN_CASES = tierCount(100_000, 5_000);
/** No case finishing for this long = a hang (one case takes milliseconds, even on a loaded machine). */
const STALL_MS = 30_000;

test(`batch fuzz: ${PLAIN_CASES} hostile inputs and more decode or throw KafkaliteError (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
  const cfg: FuzzConfig = {
    kind: 'batch-fuzz',
    seed: SEED,
    plainCases: PLAIN_CASES,
    codecCases: tierCount(3_000, 300),
    truncationBatches: tierCount(30, 1),
    onlyCase: ONLY_CASE,
    progress: new SharedArrayBuffer(8),
  };
  const result = await runFuzzWorker(t, {
    label: 'batch fuzz',
    workerUrl: new URL('./batch-fuzz-worker.js', import.meta.url),
    cfg,
    stallMs: STALL_MS,
  });
  if (ONLY_CASE < 0) {
    // every case of the plan ran (runFuzzWorker): the plain ones, each codec's, and the truncations
    const truncations = casesOfCategory(result, 'truncate-every-position');
    assert.ok(truncations > 0, 'no truncation cases');
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) assert.equal(casesOfCategory(result, codec), cfg.codecCases, `${codec} cases`);
    assert.equal(result.cases - truncations - 4 * cfg.codecCases, cfg.plainCases, 'plain cases');
    // the mutations must reach the record parser, not only the CRC check
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > PLAIN_CASES / 10, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > PLAIN_CASES / 20, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
