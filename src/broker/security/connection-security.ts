/**
 * What a connection knows of its listener's security: the listener (for its advertised endpoint),
 * and the SASL session on a SASL listener. The principal itself is `ConnectionState.principal`,
 * Kafka's principal string (`User:alice`, `User:CN=...`, `User:ANONYMOUS`), read by the authorizer.
 */
import type { ListenerSecurity } from './config.js';
import type { SaslSession } from './sasl-session.js';

export interface ConnectionSecurity {
  readonly listener: ListenerSecurity;
  /** Set on SASL_PLAINTEXT and SASL_SSL listeners. */
  readonly sasl: SaslSession | undefined;
}

export const ANONYMOUS = 'User:ANONYMOUS';
