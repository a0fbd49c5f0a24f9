/**
 * SASL/OAUTHBEARER with Kafka's unsecured JWS validator, for development (RFC 7628; Kafka's
 * OAuthBearerSaslServer, OAuthBearerClientInitialResponse, OAuthBearerUnsecuredJws,
 * OAuthBearerUnsecuredValidatorCallbackHandler). The token is `header.claims.` with `alg: none`;
 * `exp` is required, the principal claim (`sub` by default) names the user, and `exp` becomes the
 * session's credential expiry (KIP-368). An invalid token is answered with a JSON error challenge
 * (`{"status":"invalid_token"}`); the client's 0x01 reply then fails the exchange with that JSON as
 * the client-safe message (OAuthBearerSaslServer.process).
 */
import { SaslAuthenticationError, SaslCredentialError, type SaslServerMechanism } from './sasl-mechanism.js';

export interface UnsecuredValidatorOptions {
  /** unsecuredValidatorPrincipalClaimName (default `sub`). */
  principalClaim: string;
  /** unsecuredValidatorScopeClaimName (default `scope`). */
  scopeClaim: string;
  /** unsecuredValidatorRequiredScope (space-separated). */
  requiredScope: string[];
  /** unsecuredValidatorAllowableClockSkewMs (default 0). */
  clockSkewMs: number;
}

export const DEFAULT_UNSECURED_VALIDATOR: UnsecuredValidatorOptions = { principalClaim: 'sub', scopeClaim: 'scope', requiredScope: [], clockSkewMs: 0 };

const INITIAL = /^n,(a=([^,\x01]*))?,\x01((?:[A-Za-z]+=[\x21-\x7E \t\r\n]+\x01)*)\x01$/;
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([-_~+/.a-zA-Z0-9]+=*)$/;

class TokenError extends Error {
  constructor(readonly json: string) {
    super(json);
  }
}

function decodeJsonPart(part: string): Record<string, unknown> {
  // base64url as KAFKA-17089 reads it, tolerating the standard alphabet too
  const text = Buffer.from(part.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new TokenError('{"status":"invalid_token"}');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TokenError('{"status":"invalid_token"}');
  return v as Record<string, unknown>;
}

/** Validates an unsecured JWS; the principal name and the expiry (ms), or a TokenError. */
export function validateUnsecuredToken(token: string, o: UnsecuredValidatorOptions, nowMs: number): { principal: string; expiryMs: number } {
  const invalid = new TokenError('{"status":"invalid_token"}');
  const parts = token.split('.');
  if (parts.length !== 3 || parts[2] !== '' || token.includes('..')) throw invalid;
  const header = decodeJsonPart(parts[0]!);
  if (header['alg'] !== 'none') throw invalid;
  const claims = decodeJsonPart(parts[1]!);
  const exp = claims['exp'];
  const iat = claims['iat'];
  const principal = claims[o.principalClaim];
  if (typeof exp !== 'number' || typeof principal !== 'string' || principal.trim() === '') throw invalid;
  if (iat !== undefined && typeof iat !== 'number') throw invalid;
  const expMs = exp * 1000;
  if (typeof iat === 'number' && (iat * 1000 > nowMs + o.clockSkewMs || exp <= iat)) throw invalid;
  if (nowMs - o.clockSkewMs >= expMs) throw invalid;
  if (o.requiredScope.length > 0) {
    const raw = claims[o.scopeClaim];
    const scope = typeof raw === 'string' ? [raw.trim()] : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()) : [];
    if (!o.requiredScope.every((s) => scope.includes(s))) {
      throw new TokenError(`{"status":"insufficient_scope", "scope":"[${o.requiredScope.join(', ')}]"}`);
    }
  }
  return { principal, expiryMs: Math.floor(expMs) };
}

export class OAuthBearerSaslServer implements SaslServerMechanism {
  readonly mechanism = 'OAUTHBEARER';
  complete = false;
  authorizationId: string | undefined;
  credentialExpiryMs: number | undefined;
  private errorSent: string | undefined;

  constructor(private readonly options: UnsecuredValidatorOptions) {}

  evaluate(token: Buffer, nowMs: number): Buffer {
    if (this.errorSent !== undefined && token.length === 1 && token[0] === 0x01) throw new SaslAuthenticationError(this.errorSent);
    const m = INITIAL.exec(token.toString('utf8'));
    if (m === null) throw new SaslCredentialError('Invalid OAUTHBEARER client first message');
    const props = new Map<string, string>();
    for (const kv of m[3]!.split('\x01').filter((s) => s !== '')) {
      const eq = kv.indexOf('=');
      props.set(kv.slice(0, eq), kv.slice(eq + 1));
    }
    const auth = props.get('auth');
    if (auth === undefined) throw new SaslCredentialError("Invalid OAUTHBEARER client first message: 'auth' not specified");
    const bearer = BEARER.exec(auth);
    if (bearer === null) throw new SaslCredentialError('Invalid OAUTHBEARER client first message: bad auth value');
    let valid;
    try {
      valid = validateUnsecuredToken(bearer[1]!, this.options, nowMs);
    } catch (e) {
      if (!(e instanceof TokenError)) throw e;
      this.errorSent = e.json;
      return Buffer.from(e.json, 'utf8');
    }
    const authzid = m[2] ?? '';
    if (authzid !== '' && authzid !== valid.principal) {
      throw new SaslAuthenticationError(`Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${valid.principal})`);
    }
    this.authorizationId = valid.principal;
    this.credentialExpiryMs = valid.expiryMs;
    this.complete = true;
    return Buffer.alloc(0);
  }
}
