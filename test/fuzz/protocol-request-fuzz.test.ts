/**
 * Hostile-input fuzzing of the request path: FrameDecoder, readRequestHeader and decodeMessage
 * over >= 100,000 random and mutated request frames of every API and version (see
 * protocol-request-fuzz-worker.ts). Every case must decode or throw a KafkaliteError with a
 * declared code (ProtocolError: Kafka 42) and a position inside the input; pristine frames must
 * decode to the generated values. The loop runs in a worker that is killed if it stops making
 * progress, so a hang fails the test too.
 *
 * Seed: KAFKALITE_FUZZ_SEED (default below); replay one case with KAFKALITE_FUZZ_CASE.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProtocolFuzzConfig } from './protocol-request-fuzz-worker.js';
import { casesOfCategory, runFuzzWorker } from './harness.js';
import { tierCount } from '../helpers/tier.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6b61666c);
const ONLY_CASE = Number(process.env.KAFKALITE_FUZZ_CASE ?? -1);
/** The unit tier runs 8% of the cases (test/tiers.ts). */
const PLAIN_CASES = tierCount(100_000, 8_000);
/** No case finishing for this long = a hang (one case takes milliseconds, even on a loaded machine). */
const STALL_MS = 30_000;

test(`protocol request fuzz: ${PLAIN_CASES} hostile frames and more decode or throw ProtocolError (seed ${SEED})`, { timeout: 150_000 }, async (t) => {
  const cfg: ProtocolFuzzConfig = {
    kind: 'protocol-request-fuzz',
    seed: SEED,
    plainCases: PLAIN_CASES,
    truncationFrames: tierCount(25, 2),
    onlyCase: ONLY_CASE,
    progress: new SharedArrayBuffer(8),
  };
  const result = await runFuzzWorker(t, {
    label: 'protocol request fuzz',
    workerUrl: new URL('./protocol-request-fuzz-worker.js', import.meta.url),
    cfg,
    stallMs: STALL_MS,
  });
  if (ONLY_CASE < 0) {
    // every case of the plan ran (runFuzzWorker): the plain ones and the truncations
    const truncations = casesOfCategory(result, 'truncate-every-position');
    assert.ok(truncations > 0, 'no truncation cases');
    assert.equal(result.cases - truncations, cfg.plainCases, 'plain cases');
    // the mutations must reach the body decoder, and not all be refused
    const errors = Object.entries(result.outcomes).filter(([k]) => k !== 'decoded').reduce((n, [, v]) => n + v, 0);
    assert.ok(errors > PLAIN_CASES / 5, `too few refused frames: ${JSON.stringify(result.outcomes)}`);
    assert.ok((result.outcomes.decoded ?? 0) > PLAIN_CASES / 5, `too few decoded frames: ${JSON.stringify(result.outcomes)}`);
  }
});
