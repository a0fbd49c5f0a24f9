/**
 * SaslAuthenticate (36), v0-2: one SASL token after a v1 SaslHandshake (SaslServerAuthenticator
 * .handleSaslToken). Every token is answered; a failure carries SASL_AUTHENTICATION_FAILED and
 * Kafka's message, goes out after `connection.failed.authentication.delay.ms`, and closes the
 * connection. `session_lifetime_ms` (v1+) is set on the completing answer when the session expires (KIP-368).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { SaslAuthenticate, type SaslAuthenticateRequest, type SaslAuthenticateResponse } from '../../protocol/schemas/sasl-authenticate.js';
import type { ApiHandler } from '../handler.js';
import { afterFailureDelay } from '../security/failure-delay.js';

export const saslAuthenticateHandler: ApiHandler<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  api: SaslAuthenticate,
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const sasl = ctx.connection.security?.sasl;
    if (sasl === undefined) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received on a listener without SASL', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
    }
    const r = sasl.authenticate(request.authBytes, Date.now());
    if (sasl.authenticated && sasl.principal !== undefined && r.errorCode === ErrorCode.NONE) {
      ctx.connection.principal = sasl.principal;
      ctx.broker.logger.debug(`connection ${ctx.remote} authenticated as ${sasl.principal}`);
    }
    const response = { errorCode: r.errorCode, errorMessage: r.errorMessage, authBytes: r.authBytes, sessionLifetimeMs: r.sessionLifetimeMs };
    if (!r.fail) return response;
    ctx.broker.logger.info(`SASL authentication of ${ctx.remote} failed: ${r.detail ?? r.errorMessage ?? ''}`);
    ctx.connection.closeAfterResponse = true;
    return afterFailureDelay(ctx.broker, response);
  },
};
