/**
 * V8 settings `kafkalite serve` applies to its own process before the broker starts (issue 24),
 * each measured on the small-request path rather than assumed.
 *
 * `--no-parallel-scavenge`: V8 splits each young-generation collection (scavenge) into tasks for
 * its helper threads, and the main thread waits for them. The broker's young generation holds
 * little that survives (the request path allocates about 7 KB per 100 B Produce, nearly all dead
 * by the next scavenge), so one thread does the work in about 0.3 ms; the helpers only add a wait
 * for threads the OS has to schedule. On a loaded 2-vCPU machine that wait was the pause:
 * `--trace-gc` over 40,000 Produce round trips showed the same 41 scavenges taking 0.30-38 ms with
 * helpers (a tenth of them above 5 ms) and 0.21-3.0 ms without (bench/README.md). Concurrent
 * marking and sweeping of the old generation stay as V8 sets them.
 *
 * Larger semi-spaces (`--min-semi-space-size=16`, `64`) were measured too and are not used:
 * fewer scavenges (23 → 11 → 3 per 20,000 requests) but longer ones (0.35 → 0.65 → 1.3-4.4 ms),
 * each touching more fresh memory.
 *
 * `KAFKALITE_V8_DEFAULTS=1` leaves V8 as it is (to compare, or where the helpers have idle cores).
 */
import { setFlagsFromString } from 'node:v8';

export const SERVE_V8_FLAGS = ['--no-parallel-scavenge'] as const;

/** Applies SERVE_V8_FLAGS unless KAFKALITE_V8_DEFAULTS=1; returns the flags applied. */
export function applyServeV8Flags(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  if (env.KAFKALITE_V8_DEFAULTS === '1') return [];
  // V8 reads this flag at every scavenge, so setting it after start-up takes effect from the next one
  for (const flag of SERVE_V8_FLAGS) setFlagsFromString(flag);
  return SERVE_V8_FLAGS;
}
