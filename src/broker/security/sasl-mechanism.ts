/**
 * What a server-side SASL mechanism is (javax.security.sasl.SaslServer as Kafka uses it): tokens in,
 * challenges out, until complete; then the authorization id becomes the principal `User:<id>`.
 *
 * Two kinds of failure, as Kafka separates them (SaslServerAuthenticator.handleSaslToken): a
 * `SaslAuthenticationError` carries a message safe to send to the client; any other error is
 * answered with the fixed "invalid credentials" text, so bad-password details never leak
 * (SaslAuthenticatorTest.testClientExceptionDoesNotContainSensitiveData).
 */
export interface SaslServerMechanism {
  readonly mechanism: string;
  /** The next challenge (empty when there is nothing to send) for a client token; throws on failure. */
  evaluate(token: Buffer, nowMs: number): Buffer;
  readonly complete: boolean;
  /** The authenticated identity, once complete. */
  readonly authorizationId: string | undefined;
  /** When the credential expires (OAUTHBEARER `exp`), epoch ms; undefined when it does not. */
  readonly credentialExpiryMs?: number | undefined;
}

/** Kafka's SaslAuthenticationException: its message reaches the client. */
export class SaslAuthenticationError extends Error {
  override readonly name = 'SaslAuthenticationError';
}

/** A failure whose reason stays on the broker (Kafka's plain SaslException). */
export class SaslCredentialError extends Error {
  override readonly name = 'SaslCredentialError';
}

/** The message a client gets for a SaslCredentialError (SaslServerAuthenticator.handleSaslToken). */
export function invalidCredentialsMessage(mechanism: string, reauth: boolean): string {
  return `Authentication failed during ${reauth ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${mechanism}`;
}
