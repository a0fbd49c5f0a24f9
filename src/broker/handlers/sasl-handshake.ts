/**
 * SaslHandshake (17), v0-1 (SaslServerAuthenticator.handleHandshakeRequest): picks the mechanism.
 * v0 switches the connection to bare token frames, v1 to SaslAuthenticate. An unknown mechanism gets
 * UNSUPPORTED_SASL_MECHANISM with the enabled list, sent after `connection.failed.authentication.delay.ms`,
 * then the connection closes. On a non-SASL listener, or on an authenticated connection that does not
 * re-authenticate (KIP-368), ILLEGAL_SASL_STATE and the connection stays (KafkaApis.handleSaslHandshakeRequest).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { SaslHandshake, type SaslHandshakeRequest, type SaslHandshakeResponse } from '../../protocol/schemas/sasl-handshake.js';
import type { ApiHandler } from '../handler.js';
import { afterFailureDelay } from '../security/failure-delay.js';

export const saslHandshakeHandler: ApiHandler<SaslHandshakeRequest, SaslHandshakeResponse> = {
  api: SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const sasl = ctx.connection.security?.sasl;
    if (sasl === undefined) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    const r = sasl.handshake(request.mechanism, ctx.apiVersion, Date.now());
    const response = { errorCode: r.errorCode, mechanisms: r.mechanisms };
    if (!r.fail) return response;
    ctx.connection.closeAfterResponse = true;
    return afterFailureDelay(ctx.broker, response);
  },
};
