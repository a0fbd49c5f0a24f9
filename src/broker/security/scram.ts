/**
 * SASL/SCRAM-SHA-256 and -512 on the broker (RFC 5802, RFC 7677; Kafka's ScramSaslServer and
 * ScramMessages): client-first → server-first (`r=<cnonce><snonce>,s=<salt>,i=<n>`) → client-final
 * → server-final (`v=<ServerSignature>`). Only gs2 flag `n` (no channel binding); the `tokenauth`
 * extension (delegation tokens) is not served. Every failure except the authzid mismatch is a
 * SaslCredentialError: the client sees only "invalid credentials" (SaslAuthenticatorTest.testUnknownUserSaslScram).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslCredentialError, type SaslServerMechanism } from './sasl-mechanism.js';
import { hash, hmac, SCRAM_MIN_ITERATIONS, type ScramCredential, type ScramMechanismName } from './scram-formatter.js';

const CLIENT_FIRST = /^n,(a=([^,]*))?,((m=[^,]*),)?n=([^,]*),r=([\x21-\x2b\x2d-\x7e]+)(,[A-Za-z]+=[^,]*)*$/;
const CLIENT_FINAL = /^c=([A-Za-z0-9+/=]+),r=([\x21-\x2b\x2d-\x7e]+)((,[A-Za-z]+=[^,]*)*),p=([A-Za-z0-9+/=]+)$/;

/** RFC 5802 saslname: `=2C` is ',' and `=3D` is '='; any other '=' is malformed. */
export function decodeSaslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw new SaslCredentialError(`Invalid username: ${s}`);
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

/** Kafka's server nonce: a 130-bit random number in base 36 (ScramFormatter.secureRandomString). */
function serverNonce(): string {
  return BigInt('0x' + randomBytes(17).toString('hex')).toString(36).slice(0, 26);
}

export class ScramSaslServer implements SaslServerMechanism {
  complete = false;
  authorizationId: string | undefined;
  private state: 'first' | 'final' | 'done' = 'first';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private credential: ScramCredential | undefined;
  private username = '';

  constructor(
    readonly mechanism: ScramMechanismName,
    private readonly lookup: (user: string) => ScramCredential | undefined,
  ) {}

  evaluate(token: Buffer): Buffer {
    const text = token.toString('utf8');
    if (this.state === 'first') return this.first(text);
    if (this.state === 'final') return this.final(text);
    throw new SaslCredentialError('SCRAM exchange already complete');
  }

  private first(text: string): Buffer {
    const m = CLIENT_FIRST.exec(text);
    if (m === null) throw new SaslCredentialError(`Invalid SCRAM client first message format: ${text}`);
    const username = decodeSaslName(m[5]!);
    const authzid = m[2] === undefined ? '' : decodeSaslName(m[2]);
    const credential = this.lookup(username);
    if (credential === undefined) throw new SaslCredentialError('Authentication failed: Invalid user credentials');
    if (authzid !== '' && authzid !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    if (credential.iterations < SCRAM_MIN_ITERATIONS) throw new SaslCredentialError(`Iterations ${credential.iterations} is less than the minimum ${SCRAM_MIN_ITERATIONS} for ${this.mechanism}`);
    this.username = username;
    this.credential = credential;
    this.clientFirstBare = text.slice(text.indexOf(',', 2) + 1);
    this.nonce = m[6]! + serverNonce();
    this.serverFirst = `r=${this.nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private final(text: string): Buffer {
    const m = CLIENT_FINAL.exec(text);
    if (m === null) throw new SaslCredentialError(`Invalid SCRAM client final message format: ${text}`);
    // the nonce must end with the combined nonce, as Kafka checks it (ScramSaslServer): librdkafka 2.0 sends
    // its own nonce in front of the combined one again, which an equality check would refuse
    if (!m[2]!.endsWith(this.nonce)) throw new SaslCredentialError('Invalid client nonce in the final client message.');
    const credential = this.credential!;
    const withoutProof = text.slice(0, text.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const proof = Buffer.from(m[5]!, 'base64');
    const signature = hmac(this.mechanism, credential.storedKey, authMessage);
    if (proof.length !== signature.length) throw new SaslCredentialError('Invalid client credentials');
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ signature[i]!;
    if (!timingSafeEqual(hash(this.mechanism, clientKey), credential.storedKey)) throw new SaslCredentialError('Invalid client credentials');
    this.state = 'done';
    this.complete = true;
    this.authorizationId = this.username;
    return Buffer.from(`v=${hmac(this.mechanism, credential.serverKey, authMessage).toString('base64')}`, 'utf8');
  }
}
