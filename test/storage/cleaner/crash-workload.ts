/**
 * The deterministic workload of the cleaner crash test, run identically by the child (which is
 * killed during the final round) and by the verifier (which records every state the final round
 * may leave: before it, after each group's swap, after it).
 */
import { appendRecords, compactConfig, openHarness, type Harness } from './harness.js';

export const CRASH_CONFIG = compactConfig({ segmentBytes: 6 * 1024, deleteRetentionMs: 1000, indexIntervalBytes: 512 });
export const CRASH_CLEANER = { dedupeBufferSize: 1 << 20 };

/** Builds the log up to the final round; `variant` picks one of several deterministic histories. */
export function buildBeforeFinalRound(dataDir: string, variant: number): Harness {
  const h = openHarness(dataDir, CRASH_CONFIG, CRASH_CLEANER);
  let x = 0x9e3779b9 ^ (variant * 7919);
  const rand = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const appends = 60 + rand(60);
  for (let i = 0; i < appends; i++) {
    const records = Array.from({ length: 1 + rand(8) }, () => {
      const key = `k${rand(40)}`;
      return { key, value: rand(10) === 0 ? null : `${key}-${i}-`.padEnd(40 + rand(100), 'v'), timestamp: h.clock.now };
    });
    appendRecords(h.log, records);
    if (rand(4) === 0) h.log.roll();
    if (rand(25) === 0) {
      h.clock.now += 600;
      h.cleaner.compact(h.log);
    }
  }
  h.log.roll();
  appendRecords(h.log, [{ key: 'last', value: 'x', timestamp: h.clock.now }]);
  h.log.flush();
  h.clock.now += 600;
  return h;
}
