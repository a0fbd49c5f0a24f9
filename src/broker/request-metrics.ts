/**
 * Per-API request latency, split by where the time goes, as Kafka's `RequestChannel` metrics split
 * it (`RequestQueueTimeMs`, `LocalTimeMs`, `ResponseQueueTimeMs`, `ResponseSendTimeMs`,
 * `TotalTimeMs` per request name, kafka.network.RequestMetrics). The phases here follow this
 * broker's own request path (connection.ts):
 *
 * - `queue`: the frame was complete (read from the socket) → its handler started. Includes waiting
 *   behind earlier requests of the same connection, and a muted connection's wait for its client
 *   to read answers.
 * - `handle`: handler started → its answer encoded and held (a long poll or a rebalance waits here).
 * - `append`: answer held → the held Produce appends it waits for are written (held-appends.ts): the
 *   wait for the end of the event-loop turn (`setImmediate`) plus the `pwritev`. Every answer held
 *   while appends were pending counts here, not only Produce's: they all wait for the same write.
 * - `write`: answer handed to the socket → the socket wrote it (its write callback).
 * - `total`: frame complete → answer written.
 *
 * Cheap enough to stay on: each (API, phase) is a fixed HDR-style histogram in one Float64Array
 * (log2 buckets, {@link SUB_BUCKETS} linear sub-buckets each: at most 12.5% relative error), so a
 * sample is a `Math.clz32`, a shift and an increment, with no allocation. Times are
 * `performance.now()` differences, kept in whole microseconds.
 *
 * The data shape (`RequestMetrics.snapshot()`, `Broker.requestMetrics`), plain JSON for the web
 * console and the debug log:
 *
 * ```
 * RequestMetricsSnapshot {
 *   sinceMs: number            // Date.now() when counting started (or the `since` snapshot's atMs)
 *   atMs: number               // Date.now() of this snapshot
 *   apis: [{                   // APIs with any phase recorded in the window, by apiKey
 *     apiKey: number, name: string, count: number,   // requests that completed `total`
 *     phases: {                // every phase, even with count 0
 *       queue | handle | append | write | total: {
 *         count: number, sumUs: number, maxUs: number,  // maxUs: since start, not per window
 *         p50Us, p90Us, p99Us, p999Us: number,          // bucket upper bounds (0 when count is 0)
 *         buckets: [upperUs: number, count: number][]   // the non-empty buckets, ascending
 *       }
 *     }
 *   }]
 * }
 * ```
 * `snapshot(since)` gives the counts between an earlier snapshot and now (the debug log's interval).
 */
import { ApiKey } from '../protocol/api-keys.js';

export const PHASES = ['queue', 'handle', 'append', 'write', 'total'] as const;
export type Phase = (typeof PHASES)[number];
/** A phase's position in PHASES (connection.ts records with these). */
export const PhaseIndex = { queue: 0, handle: 1, append: 2, write: 3, total: 4 } as const;
export type PhaseIndex = (typeof PhaseIndex)[Phase];

/** Linear sub-buckets per power of two (HdrHistogram's sub-bucket count, 3 significant bits). */
export const SUB_BUCKETS = 8;
const SUB_BITS = 3;
/** Values are capped here (µs; about 134 s): one bucket holds everything slower. */
export const MAX_TRACKED_US = 2 ** 27 - 1;
/** Buckets per histogram: values below 2*SUB_BUCKETS exactly, then SUB_BUCKETS per power of two. */
export const BUCKETS = bucketIndex(MAX_TRACKED_US) + 1;
/** Per histogram: BUCKETS counts, then count, sum and max. */
const STRIDE = BUCKETS + 3;
const PHASE_COUNT = PHASES.length;

/** The bucket of a value in µs (≥ 0; fractions and values past MAX_TRACKED_US are clamped). */
export function bucketIndex(us: number): number {
  const v = us >= MAX_TRACKED_US ? MAX_TRACKED_US : us > 0 ? us | 0 : 0;
  if (v < 2 * SUB_BUCKETS) return v;
  const e = 31 - Math.clz32(v); // floor(log2 v), ≥ SUB_BITS + 1
  return (e - SUB_BITS + 1) * SUB_BUCKETS + ((v >>> (e - SUB_BITS)) - SUB_BUCKETS);
}

/** The lowest value (µs) of a bucket. */
export function bucketLowerBound(index: number): number {
  if (index < 2 * SUB_BUCKETS) return index;
  const e = Math.floor(index / SUB_BUCKETS) + SUB_BITS - 1;
  return ((index % SUB_BUCKETS) + SUB_BUCKETS) * 2 ** (e - SUB_BITS);
}

/** The highest value (µs) of a bucket: what percentiles report, so they never understate. */
export function bucketUpperBound(index: number): number {
  return index + 1 >= BUCKETS ? MAX_TRACKED_US : bucketLowerBound(index + 1) - 1;
}

export interface PhaseStats {
  count: number;
  sumUs: number;
  maxUs: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
  buckets: [upperUs: number, count: number][];
}

export interface ApiRequestMetrics {
  apiKey: number;
  name: string;
  count: number;
  phases: Record<Phase, PhaseStats>;
}

export interface RequestMetricsSnapshot {
  sinceMs: number;
  atMs: number;
  apis: ApiRequestMetrics[];
}

/** The counts behind each snapshot, per apiKey, for `snapshot(since)`: kept out of the plain data. */
const RAW = new WeakMap<RequestMetricsSnapshot, Map<number, Float64Array>>();

const API_NAMES = new Map<number, string>(Object.entries(ApiKey).map(([n, k]): [number, string] => [k, n]));

export class RequestMetrics {
  /** Per apiKey: PHASE_COUNT histograms of STRIDE slots each, made on the API's first request. */
  private readonly byApi: (Float64Array | undefined)[] = [];
  private readonly startedMs = Date.now();

  /** Records one phase of one request of `apiKey`, `us` microseconds long. */
  record(apiKey: number, phase: PhaseIndex, us: number): void {
    if (apiKey < 0 || apiKey > 0xffff) return;
    let h = this.byApi[apiKey];
    if (h === undefined) {
      h = new Float64Array(PHASE_COUNT * STRIDE);
      this.byApi[apiKey] = h;
    }
    const base = phase * STRIDE;
    h[base + bucketIndex(us)]!++;
    h[base + BUCKETS]!++;
    h[base + BUCKETS + 1]! += us;
    if (us > h[base + BUCKETS + 2]!) h[base + BUCKETS + 2] = us;
  }

  /** Everything so far, or (with `since`) what was recorded after that snapshot. */
  snapshot(since?: RequestMetricsSnapshot): RequestMetricsSnapshot {
    const raw = new Map<number, Float64Array>();
    const apis: ApiRequestMetrics[] = [];
    for (let apiKey = 0; apiKey < this.byApi.length; apiKey++) {
      const h = this.byApi[apiKey];
      if (h === undefined) continue;
      const copy = h.slice();
      raw.set(apiKey, copy);
      const before = since === undefined ? undefined : RAW.get(since)?.get(apiKey);
      const phase = (i: PhaseIndex): PhaseStats => phaseStats(copy, before, i * STRIDE);
      const phases: Record<Phase, PhaseStats> = {
        queue: phase(PhaseIndex.queue),
        handle: phase(PhaseIndex.handle),
        append: phase(PhaseIndex.append),
        write: phase(PhaseIndex.write),
        total: phase(PhaseIndex.total),
      };
      if (PHASES.every((p) => phases[p].count === 0)) continue;
      apis.push({ apiKey, name: API_NAMES.get(apiKey) ?? `api${apiKey}`, count: phases.total.count, phases });
    }
    const snapshot: RequestMetricsSnapshot = { sinceMs: since?.atMs ?? this.startedMs, atMs: Date.now(), apis };
    RAW.set(snapshot, raw);
    return snapshot;
  }
}

function phaseStats(h: Float64Array, before: Float64Array | undefined, base: number): PhaseStats {
  const at = (i: number): number => h[base + i]! - (before?.[base + i] ?? 0);
  const count = at(BUCKETS);
  const stats: PhaseStats = { count, sumUs: at(BUCKETS + 1), maxUs: h[base + BUCKETS + 2]!, p50Us: 0, p90Us: 0, p99Us: 0, p999Us: 0, buckets: [] };
  if (count === 0) return stats;
  const targets = [0.5, 0.9, 0.99, 0.999].map((q) => Math.max(1, Math.ceil(q * count)));
  const found: [number, number, number, number] = [0, 0, 0, 0];
  let seen = 0;
  for (let i = 0; i < BUCKETS; i++) {
    const n = at(i);
    if (n === 0) continue;
    seen += n;
    const upper = bucketUpperBound(i);
    stats.buckets.push([upper, n]);
    for (let t = 0; t < 4; t++) if (found[t] === 0 && seen >= targets[t]!) found[t] = upper;
  }
  [stats.p50Us, stats.p90Us, stats.p99Us, stats.p999Us] = found;
  return stats;
}

/** One line per API: count and p50/p99/max per phase, in ms (the debug log's periodic summary). */
export function formatRequestMetrics(s: RequestMetricsSnapshot): string[] {
  const ms = (us: number): string => (us / 1000).toFixed(us < 10_000 ? 3 : 1);
  return s.apis.map((a) => {
    const cells = PHASES.map((p) => {
      const x = a.phases[p];
      return `${p} ${ms(x.p50Us)}/${ms(x.p99Us)}/${ms(x.p999Us)}`;
    });
    return `requests ${a.name} x${a.count} in ${((s.atMs - s.sinceMs) / 1000).toFixed(0)} s, p50/p99/p99.9 ms: ${cells.join(', ')}`;
  });
}
