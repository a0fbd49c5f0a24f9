/**
 * SASL/PLAIN on the broker (RFC 4616; Kafka's PlainSaslServer and PlainServerCallbackHandler):
 * one client message `authzid NUL username NUL password`, checked against the `user_<name>` options
 * of the listener's PlainLoginModule entry, in constant time. Every failure text is Kafka's and
 * client-safe (SaslAuthenticatorTest.testInvalidPasswordSaslPlain asserts it).
 */
import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, type SaslServerMechanism } from './sasl-mechanism.js';

export class PlainSaslServer implements SaslServerMechanism {
  readonly mechanism = 'PLAIN';
  complete = false;
  authorizationId: string | undefined;

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): Buffer {
    // split on NUL into at most 4 parts (PlainSaslServer.extractTokens)
    const parts = token.toString('utf8').split('\u0000', 4);
    if (parts.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`);
    const [authzid, username, password] = parts as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.users.get(username);
    if (expected === undefined || !constantTimeEquals(expected, password)) {
      throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    }
    if (authzid !== '' && authzid !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.authorizationId = username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}

function constantTimeEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // compare equal-length buffers always, so the time does not tell the length either
  return timingSafeEqual(x.length === y.length ? x : y, y) && x.length === y.length;
}
