/**
 * What a throttled answer does to its connection (Kafka `ClientQuotaManager.throttle`,
 * `ThrottledChannel` and the `Processor`'s THROTTLE_STARTED / THROTTLE_ENDED channel mutes):
 * an answer carrying throttle_time_ms > 0 mutes the connection for that long (no request read or
 * handled) so a client that ignores the throttle time cannot go on past its quota. From the
 * versions of KIP-219 (Produce v6+, Fetch v8+: `AbstractResponse.shouldClientThrottle`) the answer
 * goes out at once and the client backs off too; to older versions, which do not back off, the
 * answer itself is held for the throttle time, as before KIP-219.
 */
import { ApiKey } from '../../protocol/api-keys.js';

/** The answer's throttle_time_ms, 0 when it has none. */
export function throttleTimeOf(response: unknown): number {
  if (typeof response !== 'object' || response === null || !('throttleTimeMs' in response)) return 0;
  const t = response.throttleTimeMs;
  return typeof t === 'number' && t > 0 ? t : 0;
}

/** `AbstractResponse.shouldClientThrottle`: whether the client of this answer version backs off on its own (KIP-219). */
export function clientThrottles(apiKey: number, version: number): boolean {
  if (apiKey === ApiKey.Produce) return version >= 6;
  if (apiKey === ApiKey.Fetch) return version >= 8;
  return true;
}
