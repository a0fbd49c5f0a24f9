/**
 * Hostile-input fuzzing of the legacy (magic 0/1) decoder: LegacyRecordBatch, the BatchReader's
 * legacy dispatch, FileRecords, wrapper decompression in gzip/snappy/lz4 (magic-0 lz4 framing
 * included), convertToV2. Entries are generated from Kafka's LegacyRecord layout (legacy-fuzz-worker.ts) and
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
import { casesOfCategory, runFuzzWorker } from './harness.js';
import { tierCount } from '../helpers/tier.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6c656761);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
/** The unit tier runs 8% of the cases (test/tiers.ts). */
const PLAIN_CASES = tierCount(50_000, 4_000);
/** No case finishing for this long = a hang (one case takes milliseconds, even on a loaded machine). */
const STALL_MS = 30_000;

test(`legacy fuzz: ${PLAIN_CASES} hostile magic 0/1 inputs and more decode or throw KafkaliteError (seed ${SEED})`, { timeout: 120_000 }, async (t) => {
  const cfg: LegacyFuzzConfig = {
    kind: 'legacy-fuzz',
    seed: SEED,
    plainCases: PLAIN_CASES,
    codecCases: tierCount(8_000, 600),
    truncationEntries: tierCount(24, 2),
    fileEvery: 40,
    onlyCase: ONLY_CASE,
    progress: new SharedArrayBuffer(8),
  };
  const result = await runFuzzWorker(t, {
    label: 'legacy fuzz',
    workerUrl: new URL('./legacy-fuzz-worker.js', import.meta.url),
    cfg,
    stallMs: STALL_MS,
  });
  if (ONLY_CASE < 0) {
    // every case of the plan ran (runFuzzWorker): the plain ones, each codec's, and the truncations
    const truncations = casesOfCategory(result, 'truncate-every-position');
    assert.ok(truncations > 0, 'no truncation cases');
    for (const codec of ['gzip', 'snappy', 'lz4']) assert.equal(casesOfCategory(result, codec), cfg.codecCases, `${codec} cases`);
    assert.equal(result.cases - truncations - 3 * cfg.codecCases, cfg.plainCases, 'plain cases');
    assert.ok(result.extraCases > 0, 'some cases also went through FileRecords');
    // the mutations must get past the CRC check into the layout and wrapper parsers
    assert.ok((result.outcomes.INVALID_RECORD ?? 0) > PLAIN_CASES / 50, `too few INVALID_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.CORRUPT_RECORD ?? 0) > PLAIN_CASES / 50, `too few CORRUPT_RECORD outcomes: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > PLAIN_CASES / 10, `too few decoded outcomes: ${JSON.stringify(result.outcomes)}`);
  }
});
