/**
 * Requests the broker answered, per API: a count and a latency histogram (power-of-two buckets of
 * milliseconds, as Kafka's RequestMetrics keeps RequestsPerSec and TotalTimeMs per request name).
 * Kept by the broker's connections (one array update per request, nothing allocated), read by
 * the console's broker page in serve mode; a broker seen through `--bootstrap` has no such
 * numbers in the Kafka protocol (Kafka publishes them over JMX).
 */

/** Upper bounds in ms of the histogram's buckets; the last bucket holds everything slower. */
export const LATENCY_BUCKETS_MS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] as const;
const MAX_API_KEY = 127;

export class RequestStats {
  readonly since = Date.now();
  private readonly counts = new Float64Array(MAX_API_KEY + 1);
  private readonly totalMs = new Float64Array(MAX_API_KEY + 1);
  private readonly buckets = new Float64Array((MAX_API_KEY + 1) * (LATENCY_BUCKETS_MS.length + 1));

  record(apiKey: number, ms: number): void {
    if (apiKey < 0 || apiKey > MAX_API_KEY) return;
    this.counts[apiKey]!++;
    this.totalMs[apiKey]! += ms;
    let b = 0;
    while (b < LATENCY_BUCKETS_MS.length && ms > LATENCY_BUCKETS_MS[b]!) b++;
    this.buckets[apiKey * (LATENCY_BUCKETS_MS.length + 1) + b]!++;
  }

  /** The APIs asked for so far, with their counts, mean latency and histogram. */
  snapshot(): { apiKey: number; count: number; meanMs: number; histogram: number[] }[] {
    const out: { apiKey: number; count: number; meanMs: number; histogram: number[] }[] = [];
    const width = LATENCY_BUCKETS_MS.length + 1;
    for (let k = 0; k <= MAX_API_KEY; k++) {
      const count = this.counts[k]!;
      if (count === 0) continue;
      out.push({ apiKey: k, count, meanMs: this.totalMs[k]! / count, histogram: Array.from(this.buckets.subarray(k * width, (k + 1) * width)) });
    }
    return out;
  }
}
