/**
 * A SASL token after a v0 SaslHandshake: a bare size-prefixed frame, no request header
 * (SaslServerAuthenticator.handleSaslToken, the non-header branch; kafka-python uses it). A
 * challenge goes back as a bare frame only when the mechanism has bytes to send (PLAIN's success
 * sends an empty frame: Kafka writes `00 00 00 00`); a failure sends nothing and closes after
 * `connection.failed.authentication.delay.ms`.
 */
import type { Broker } from '../broker.js';
import type { ConnectionState } from '../handler.js';
import { afterFailureDelay } from './failure-delay.js';
import type { SaslSession } from './sasl-session.js';

/** The bare reply frame to write (undefined: none), and whether the connection closes. */
export async function handleRawSaslToken(broker: Broker, state: ConnectionState, sasl: SaslSession, frame: Buffer): Promise<{ reply: Buffer | undefined; close: boolean }> {
  const r = sasl.authenticate(frame, Date.now());
  if (r.fail) {
    broker.logger.info(`SASL authentication failed: ${r.detail ?? r.errorMessage ?? ''}`);
    await afterFailureDelay(broker, undefined);
    return { reply: undefined, close: true };
  }
  if (sasl.authenticated && sasl.principal !== undefined && state.principal !== sasl.principal) {
    state.principal = sasl.principal;
    broker.logger.debug(`connection authenticated as ${sasl.principal} (SASL v0 tokens)`);
  }
  const reply = Buffer.allocUnsafe(4 + r.authBytes.length);
  reply.writeInt32BE(r.authBytes.length, 0);
  r.authBytes.copy(reply, 4);
  return { reply, close: false };
}
