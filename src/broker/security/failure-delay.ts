/**
 * Kafka delays the answer to a failed authentication, and the close after it, by
 * `connection.failed.authentication.delay.ms` (default 100; Selector.DelayedAuthenticationFailureClose),
 * so a client cannot guess passwords at wire speed.
 */
import type { Broker } from '../broker.js';

export function afterFailureDelay<T>(broker: Broker, value: T): T | Promise<T> {
  const ms = broker.security.failedAuthenticationDelayMs;
  if (ms === 0) return value;
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}
