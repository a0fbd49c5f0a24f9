/**
 * One connection's SASL state on a SASL listener (Kafka's SaslServerAuthenticator):
 * HANDSHAKE_OR_VERSIONS → HANDSHAKE → AUTHENTICATE → COMPLETE, or FAILED. Before COMPLETE only
 * ApiVersions (before the handshake), SaslHandshake and SaslAuthenticate (after a v1 handshake)
 * reach a handler; after a v0 handshake the next frames are raw tokens without a request header.
 * Re-authentication (KIP-368): a session with an expiry (`connections.max.reauth.ms`, or an
 * OAUTHBEARER token's `exp`) takes a new SaslHandshake + SaslAuthenticate on the same connection,
 * with the same mechanism and principal; once expired, any other request closes the connection.
 */
import { ApiKey } from '../../protocol/api-keys.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ListenerSasl } from './config.js';
import { OAuthBearerSaslServer } from './oauthbearer.js';
import { PlainSaslServer } from './plain.js';
import { invalidCredentialsMessage, SaslAuthenticationError, type SaslServerMechanism } from './sasl-mechanism.js';
import { ScramSaslServer } from './scram.js';
import { isScramMechanism, type ScramCredential, type ScramMechanismName } from './scram-formatter.js';

type State = 'handshake_or_versions' | 'handshake' | 'authenticate' | 'complete' | 'failed';

/** Kafka's KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS. */
const MIN_REAUTH_INTERVAL_MS = 1000;

export interface AuthenticateResult {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  sessionLifetimeMs: bigint;
  /** The connection closes after this answer (sent after connection.failed.authentication.delay.ms). */
  fail: boolean;
  /** The real reason of a failure, for the broker's log only. */
  detail?: string;
}

export class SaslSession {
  private state: State = 'handshake_or_versions';
  private server: SaslServerMechanism | undefined;
  /** The handshake was v0: tokens come as bare frames. */
  private rawTokens = false;
  /** The principal of the first authentication (re-authentication must keep it). */
  principal: string | undefined;
  private mechanism: string | undefined;
  /** Epoch ms when the session expires; undefined: never. */
  private expiresAtMs: number | undefined;
  private lastAuthStartMs = 0;
  private reauthenticating = false;

  constructor(
    private readonly config: ListenerSasl,
    private readonly scramLookup: (user: string, mech: ScramMechanismName) => ScramCredential | undefined,
  ) {}

  get authenticated(): boolean {
    return this.state === 'complete';
  }

  /** The next frame is a raw SASL token (after a v0 handshake). */
  get expectsRawToken(): boolean {
    return this.state === 'authenticate' && this.rawTokens;
  }

  /** True when this request may reach its handler now; false: close the connection without an answer. */
  admits(apiKey: number, nowMs: number): boolean {
    switch (this.state) {
      case 'handshake_or_versions':
        return apiKey === ApiKey.ApiVersions || apiKey === ApiKey.SaslHandshake;
      case 'handshake':
        return apiKey === ApiKey.SaslHandshake;
      case 'authenticate':
        return apiKey === ApiKey.SaslAuthenticate;
      case 'complete':
        // an expired session takes nothing but the handshake that re-authenticates it
        return this.expiresAtMs === undefined || nowMs < this.expiresAtMs || apiKey === ApiKey.SaslHandshake;
      case 'failed':
        return false;
    }
  }

  /**
   * After a v1 handshake, a request other than SaslAuthenticate is answered (its own error response
   * with ILLEGAL_SASL_STATE) before the connection closes, as SaslServerAuthenticator.handleSaslToken
   * does ("Unexpected Kafka request of type X during SASL authentication."); in the other states
   * Kafka closes without an answer (handleKafkaRequest).
   */
  get answersUnexpectedRequests(): boolean {
    return this.state === 'authenticate' && !this.rawTokens;
  }

  /** The exchange failed outside a mechanism (an unexpected request): nothing more is admitted. */
  fail(): void {
    this.state = 'failed';
  }

  /** An ApiVersions was answered: now only SaslHandshake. */
  versionsAnswered(): void {
    if (this.state === 'handshake_or_versions') this.state = 'handshake';
  }

  /** SaslHandshake: the response's error code and the enabled mechanisms; `fail` closes after it. */
  handshake(mechanism: string, version: number, nowMs: number): { errorCode: number; mechanisms: string[]; fail: boolean } {
    const mechanisms = [...this.config.mechanisms];
    if (this.state === 'complete') {
      // re-authentication starts only on an expiring session, at most once a second (SocketServer.processCompletedReceives)
      if (this.expiresAtMs === undefined || nowMs - this.lastAuthStartMs < MIN_REAUTH_INTERVAL_MS) {
        return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms, fail: false };
      }
      this.reauthenticating = true;
    }
    if (!mechanisms.includes(mechanism)) {
      this.state = 'failed';
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms, fail: true };
    }
    this.server = this.newServer(mechanism);
    this.rawTokens = version === 0;
    this.lastAuthStartMs = nowMs;
    this.state = 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms, fail: false };
  }

  private newServer(mechanism: string): SaslServerMechanism {
    if (mechanism === 'PLAIN') return new PlainSaslServer(this.config.plainUsers);
    if (mechanism === 'OAUTHBEARER') return new OAuthBearerSaslServer(this.config.oauth);
    if (isScramMechanism(mechanism)) return new ScramSaslServer(mechanism, (u) => this.scramLookup(u, mechanism));
    throw new Error(`no SASL server for ${mechanism}`);
  }

  /** SaslAuthenticate (or a raw v0 token): one token through the mechanism. */
  authenticate(token: Buffer, nowMs: number): AuthenticateResult {
    const server = this.server;
    if (this.state === 'complete' && !this.reauthenticating) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received after successful authentication', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n, fail: false };
    }
    if (this.state !== 'authenticate' || server === undefined) {
      this.state = 'failed';
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'Unexpected SaslAuthenticate request', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n, fail: true };
    }
    const reauth = this.reauthenticating;
    const failed = (message: string, detail = message): AuthenticateResult => {
      this.state = 'failed';
      return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n, fail: true, detail };
    };
    if (reauth && this.mechanism !== undefined && server.mechanism !== this.mechanism) {
      return failed(`SASL mechanism '${server.mechanism}' requested by client is not supported for re-authentication of mechanism '${this.mechanism}'`);
    }
    let challenge: Buffer;
    try {
      challenge = server.evaluate(token, nowMs);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      return failed(e instanceof SaslAuthenticationError ? e.message : invalidCredentialsMessage(server.mechanism, reauth), detail);
    }
    if (!server.complete) return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: challenge, sessionLifetimeMs: 0n, fail: false };
    const principal = `User:${server.authorizationId!}`;
    if (reauth && principal !== this.principal) {
      return failed(`Cannot change principals during re-authentication from ${this.principal}: ${principal}`);
    }
    this.principal = principal;
    this.mechanism = server.mechanism;
    this.reauthenticating = false;
    this.state = 'complete';
    // session lifetime: the shorter of connections.max.reauth.ms and the credential's expiry (ReauthInfo)
    const maxReauth = this.config.maxReauthMs.get(server.mechanism) ?? 0;
    let lifetime: number | undefined = maxReauth > 0 ? maxReauth : undefined;
    if (server.credentialExpiryMs !== undefined) lifetime = Math.max(0, Math.min(lifetime ?? Infinity, server.credentialExpiryMs - nowMs));
    this.expiresAtMs = lifetime === undefined ? undefined : nowMs + lifetime;
    return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: challenge, sessionLifetimeMs: BigInt(lifetime ?? 0), fail: false };
  }
}
