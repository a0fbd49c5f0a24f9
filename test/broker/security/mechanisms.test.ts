/**
 * The security modules on their own: listener parsing (SocketServerConfigs), JAAS values
 * (JaasContextTest), SCRAM against RFC 7677's example (ScramFormatterTest.rfc7677Example) and a
 * full exchange, PLAIN's messages (PlainSaslServerTest), the unsecured JWS validator
 * (OAuthBearerUnsecuredValidatorCallbackHandlerTest), DN formatting and ssl.principal.mapping.rules
 * (SslPrincipalMapperTest).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseListeners } from '../../../src/broker/security/listeners.js';
import { parseJaasConfig } from '../../../src/broker/security/jaas.js';
import { ScramSaslServer } from '../../../src/broker/security/scram.js';
import { credentialFromPassword, hash, hmac, saltedPassword } from '../../../src/broker/security/scram-formatter.js';
import { PlainSaslServer } from '../../../src/broker/security/plain.js';
import { OAuthBearerSaslServer, DEFAULT_UNSECURED_VALIDATOR } from '../../../src/broker/security/oauthbearer.js';
import { mapPrincipal, parsePrincipalRules, rfc2253Subject } from '../../../src/broker/security/tls.js';
import { SaslAuthenticationError, SaslCredentialError } from '../../../src/broker/security/sasl-mechanism.js';

describe('listeners', () => {
  test('named listeners, the protocol map and advertised listeners', () => {
    const l = parseListeners('plaintext://127.0.0.1:9092,CLIENT://:9094', 'PLAINTEXT://kafka.local:19092', 'PLAINTEXT:PLAINTEXT,CLIENT:sasl_ssl');
    assert.deepEqual(
      l.map((x) => [x.name, x.protocol, x.host, x.port, x.advertisedHost, x.advertisedPort]),
      [
        ['PLAINTEXT', 'PLAINTEXT', '127.0.0.1', 9092, 'kafka.local', 19092],
        ['CLIENT', 'SASL_SSL', '', 9094, '127.0.0.1', 9094],
      ],
    );
  });
  test("Kafka's startup errors", () => {
    assert.throws(() => parseListeners('FOO://127.0.0.1:1', undefined, undefined), /No security protocol defined for listener FOO/);
    assert.throws(() => parseListeners('PLAINTEXT:/x', undefined, undefined), /Unable to parse PLAINTEXT:\/x to a broker endpoint/);
    assert.throws(() => parseListeners('PLAINTEXT://a:1,PLAINTEXT://a:2', undefined, undefined), /Each listener must have a different name/);
    assert.throws(() => parseListeners('PLAINTEXT://a:1,SSL://a:1', undefined, undefined), /Each listener must have a different port/);
    assert.throws(() => parseListeners('PLAINTEXT://0.0.0.0:1', undefined, undefined), /nonroutable meta-address 0\.0\.0\.0/);
    assert.throws(() => parseListeners('PLAINTEXT://a:1', 'SSL://b:2', undefined), /subset of the ones defined in listeners/);
    assert.throws(() => parseListeners('X://a:1', undefined, 'X:TLS'), /Invalid security protocol `TLS` defined in listener.security.protocol.map/);
  });
});

describe('JAAS values', () => {
  test('one login module with quoted options and comments', () => {
    const e = parseJaasConfig('k', `org.apache.kafka.common.security.plain.PlainLoginModule Required /* c */ username="admin" password='a;b' user_alice="alice-secret";`);
    assert.equal(e.loginModule, 'org.apache.kafka.common.security.plain.PlainLoginModule');
    assert.equal(e.flag, 'required');
    assert.deepEqual([...e.options], [['username', 'admin'], ['password', 'a;b'], ['user_alice', 'alice-secret']]);
  });
  test('bad values are refused', () => {
    assert.throws(() => parseJaasConfig('k', 'M required a="b"'), /not terminated by semi-colon/);
    assert.throws(() => parseJaasConfig('k', 'M required n=5;'), /must be quoted/);
    assert.throws(() => parseJaasConfig('k', 'M always a="b";'), /control flag/);
    assert.throws(() => parseJaasConfig('k', 'M required; N required;'), /contains 2 login modules, should be 1 module/);
  });
});

describe('SCRAM', () => {
  test("RFC 7677's SCRAM-SHA-256 example: proof and server signature", () => {
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const authMessage =
      'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const sp = saltedPassword('SCRAM-SHA-256', 'pencil', salt, 4096);
    const clientKey = hmac('SCRAM-SHA-256', sp, 'Client Key');
    const sig = hmac('SCRAM-SHA-256', hash('SCRAM-SHA-256', clientKey), authMessage);
    const proof = Buffer.from(clientKey.map((b, i) => b ^ sig[i]!));
    assert.equal(proof.toString('base64'), 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    const cred = credentialFromPassword('SCRAM-SHA-256', 'pencil', salt, 4096);
    assert.equal(hmac('SCRAM-SHA-256', cred.serverKey, authMessage).toString('base64'), '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  for (const mech of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
    test(`${mech}: a full exchange, and a wrong proof, an unknown user and a foreign authzid fail`, () => {
      const cred = credentialFromPassword(mech, 'pw', Buffer.from('salt-salt'), 4096);
      const exchange = (password: string, first = 'n,,n=us=2Cer,r=abc'): { server: ScramSaslServer; final: string } => {
        const server = new ScramSaslServer(mech, (u) => (u === 'us,er' ? cred : undefined));
        const sf = server.evaluate(Buffer.from(first)).toString();
        const nonce = /^r=([^,]+),s=/.exec(sf)![1]!;
        assert.ok(nonce.startsWith('abc') && nonce.length > 3);
        const withoutProof = `c=biws,r=${nonce}`;
        const am = `${first.slice(3)},${sf},${withoutProof}`;
        const ck = hmac(mech, saltedPassword(mech, password, cred.salt, 4096), 'Client Key');
        const sig = hmac(mech, hash(mech, ck), am);
        const final = `${withoutProof},p=${Buffer.from(ck.map((b, i) => b ^ sig[i]!)).toString('base64')}`;
        return { server, final };
      };
      const ok = exchange('pw');
      const v = ok.server.evaluate(Buffer.from(ok.final)).toString();
      assert.match(v, /^v=/);
      assert.equal(ok.server.authorizationId, 'us,er');
      const bad = exchange('nope');
      assert.throws(() => bad.server.evaluate(Buffer.from(bad.final)), SaslCredentialError);
      assert.throws(() => new ScramSaslServer(mech, () => undefined).evaluate(Buffer.from('n,,n=x,r=abc')), SaslCredentialError);
      assert.throws(() => new ScramSaslServer(mech, () => cred).evaluate(Buffer.from('n,a=other,n=us=2Cer,r=abc')), SaslAuthenticationError);
      assert.throws(() => new ScramSaslServer(mech, () => cred).evaluate(Buffer.from('y,,n=x,r=abc')), SaslCredentialError);
    });
  }
});

describe('PLAIN', () => {
  test("Kafka's messages", () => {
    const users = new Map([['alice', 'secret']]);
    const ev = (s: string): void => void new PlainSaslServer(users).evaluate(Buffer.from(s));
    const server = new PlainSaslServer(users);
    assert.equal(server.evaluate(Buffer.from('\0alice\0secret')).length, 0);
    assert.equal(server.authorizationId, 'alice');
    assert.throws(() => ev('\0alice\0wrong'), { message: 'Authentication failed: Invalid username or password' });
    assert.throws(() => ev('\0bob\0secret'), { message: 'Authentication failed: Invalid username or password' });
    assert.throws(() => ev('\0\0secret'), { message: 'Authentication failed: username not specified' });
    assert.throws(() => ev('\0alice\0'), { message: 'Authentication failed: password not specified' });
    assert.throws(() => ev('alice'), { message: 'Invalid SASL/PLAIN response: expected 3 tokens, got 1' });
    assert.throws(() => ev('bob\0alice\0secret'), { message: 'Authentication failed: Client requested an authorization id that is different from username' });
  });
});

describe('OAUTHBEARER (unsecured JWS)', () => {
  const jws = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'none' }): string =>
    `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
  const initial = (token: string): Buffer => Buffer.from(`n,,\x01auth=Bearer ${token}\x01\x01`);
  const now = 1_700_000_000_000;
  test('a valid token: sub is the principal, exp the credential expiry', () => {
    const s = new OAuthBearerSaslServer(DEFAULT_UNSECURED_VALIDATOR);
    assert.equal(s.evaluate(initial(jws({ sub: 'carol', exp: now / 1000 + 60, iat: now / 1000 })), now).length, 0);
    assert.equal(s.authorizationId, 'carol');
    assert.equal(s.credentialExpiryMs, now + 60_000);
  });
  test('invalid tokens get the invalid_token challenge, then fail with it', () => {
    for (const token of [jws({ sub: 'c', exp: now / 1000 - 1 }), jws({ exp: now / 1000 + 60 }), jws({ sub: 'c', exp: now / 1000 + 60 }, { alg: 'RS256' }), 'a.b.c']) {
      const s = new OAuthBearerSaslServer(DEFAULT_UNSECURED_VALIDATOR);
      assert.equal(s.evaluate(initial(token), now).toString(), '{"status":"invalid_token"}', token);
      assert.throws(() => s.evaluate(Buffer.from([1]), now), { message: '{"status":"invalid_token"}' });
    }
    const scoped = new OAuthBearerSaslServer({ ...DEFAULT_UNSECURED_VALIDATOR, requiredScope: ['LOGIN_TO_KAFKA'] });
    assert.equal(scoped.evaluate(initial(jws({ sub: 'c', exp: now / 1000 + 60, scope: ['x'] })), now).toString(), '{"status":"insufficient_scope", "scope":"[LOGIN_TO_KAFKA]"}');
  });
});

describe('certificate principals', () => {
  test('the subject in RFC 2253 order, and the mapping rules', () => {
    const dn = rfc2253Subject('C=US\nO=Org\nOU=ServiceUsers\nCN=Duke');
    assert.equal(dn, 'CN=Duke,OU=ServiceUsers,O=Org,C=US');
    assert.equal(mapPrincipal(parsePrincipalRules('DEFAULT'), dn), dn);
    assert.equal(mapPrincipal(parsePrincipalRules('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT'), dn), 'duke');
    assert.equal(mapPrincipal(parsePrincipalRules('RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L'), 'CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US'), 'duke@sme');
    assert.equal(mapPrincipal(parsePrincipalRules('RULE:^CN=(.*?),OU=X.*$/$1/'), dn), undefined);
    assert.throws(() => parsePrincipalRules('DEFAULT/L'), /Invalid rule/);
    assert.throws(() => parsePrincipalRules('RULE:^CN=(.*)$/$1'), /Invalid rule/);
  });
});
