/**
 * kcat 1.7.1 (librdkafka 2.0.2) over every security protocol of a broker with five listeners
 * (security/config.ts): SSL, mutual TLS (`ssl.client.auth=required`), SASL_PLAINTEXT with PLAIN
 * (JAAS `user_<name>`), SCRAM-SHA-256 and -512 (credentials from the store), OAUTHBEARER (librdkafka's
 * unsecured JWT builder) and SASL_SSL with each. Each one
 * produces, consumes and consumes in a group with a commit (read back); the failures get librdkafka's own
 * error with Kafka's message (wrong password, unknown user, untrusted client certificate,
 * plaintext to a TLS port), and the broker keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { makeTestCerts, securedBrokerConfig, type TestCerts } from '../../helpers/certs.js';
import { runCommand } from '../../helpers/python-peer.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';

async function kcat(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

async function kcatOk(args: string[], input?: string): Promise<string> {
  const r = await kcat(args, input);
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

describe('kcat (librdkafka 2.0.2) over TLS and SASL listeners', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  const cases: { name: string; listener: string; args: (c: TestCerts) => string[] }[] = [
    { name: 'SSL', listener: 'SSL', args: (c) => ['-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${c.caFile}`] },
    {
      name: 'mutual TLS',
      listener: 'MTLS',
      args: (c) => ['-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${c.caFile}`, '-X', `ssl.certificate.location=${c.clientCertFile}`, '-X', `ssl.key.location=${c.clientKeyFile}`],
    },
    { name: 'SASL_PLAINTEXT PLAIN (JAAS user)', listener: 'SASL_PLAINTEXT', args: () => sasl('SASL_PLAINTEXT', 'PLAIN', 'bob', 'bob-secret') },
    { name: 'SASL_PLAINTEXT SCRAM-SHA-256', listener: 'SASL_PLAINTEXT', args: () => sasl('SASL_PLAINTEXT', 'SCRAM-SHA-256', 'alice', 'alice-secret') },
    { name: 'SASL_PLAINTEXT SCRAM-SHA-512', listener: 'SASL_PLAINTEXT', args: () => sasl('SASL_PLAINTEXT', 'SCRAM-SHA-512', 'alice', 'alice-secret') },
    { name: 'SASL_SSL PLAIN', listener: 'SASL_SSL', args: (c) => [...sasl('SASL_SSL', 'PLAIN', 'alice', 'alice-secret'), '-X', `ssl.ca.location=${c.caFile}`] },
    { name: 'SASL_SSL SCRAM-SHA-256', listener: 'SASL_SSL', args: (c) => [...sasl('SASL_SSL', 'SCRAM-SHA-256', 'alice', 'alice-secret'), '-X', `ssl.ca.location=${c.caFile}`] },
    { name: 'SASL_SSL SCRAM-SHA-512', listener: 'SASL_SSL', args: (c) => [...sasl('SASL_SSL', 'SCRAM-SHA-512', 'alice', 'alice-secret'), '-X', `ssl.ca.location=${c.caFile}`] },
    // librdkafka's built-in unsecured JWT builder (KIP-255): alg none, sub = principal
    { name: 'SASL_PLAINTEXT OAUTHBEARER', listener: 'SASL_PLAINTEXT', args: () => oauth('SASL_PLAINTEXT', 'carol') },
    { name: 'SASL_SSL OAUTHBEARER', listener: 'SASL_SSL', args: (c) => [...oauth('SASL_SSL', 'dave'), '-X', `ssl.ca.location=${c.caFile}`] },
  ];

  function oauth(protocol: string, principal: string): string[] {
    return ['-X', `security.protocol=${protocol}`, '-X', 'sasl.mechanisms=OAUTHBEARER', '-X', `sasl.oauthbearer.config=principal=${principal}`, '-X', 'enable.sasl.oauthbearer.unsecure.jwt=true'];
  }

  function sasl(protocol: string, mechanism: string, user: string, password: string): string[] {
    return ['-X', `security.protocol=${protocol}`, '-X', `sasl.mechanisms=${mechanism}`, '-X', `sasl.username=${user}`, '-X', `sasl.password=${password}`];
  }

  test('produce, consume, and consume in a group with a commit, over each protocol and mechanism', async () => {
    const debug: string[] = [];
    const logger = { level: 'debug' as const, debug: (m: string) => void debug.push(m), info() {}, warn() {}, error() {}, warnThrottled() {} };
    // OAUTHBEARER on the SASL_SSL listener too (the failure test below keeps it off there)
    const config = securedBrokerConfig(certs, { 'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER' });
    await withBroker({ config, users: { alice: 'alice-secret' }, logger }, async (broker: Broker) => {
      for (const c of cases) {
        const b = broker.listenerBootstrap(c.listener);
        const topic = `sec-${c.name.replace(/[^a-zA-Z0-9]/g, '-')}`;
        const lines = Array.from({ length: 20 }, (_, i) => `${c.name} line ${i}`);
        await kcatOk(['-b', b, '-t', topic, '-P', ...c.args(certs)], lines.join('\n') + '\n');
        const consumed = await kcatOk(['-b', b, '-t', topic, '-C', '-o', 'beginning', '-e', '-q', ...c.args(certs)]);
        assert.deepEqual(consumed.trim().split('\n'), lines, c.name);
        // a balanced consumer commits its offsets; the Metadata it got named only this listener's port
        const grouped = await kcatOk(['-b', b, '-G', `g-${topic}`, '-o', 'beginning', '-e', '-q', '-X', 'enable.auto.commit=true', '-X', 'auto.commit.interval.ms=100', ...c.args(certs), topic]);
        assert.deepEqual(grouped.trim().split('\n'), lines, `${c.name} (group)`);
        // librdkafka commits the consumed offsets (auto commit, and again on close): read them back
        const admin = new Kafka({ brokers: [broker.listenerBootstrap('PLAINTEXT')], logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        const committed = await admin.fetchOffsets({ groupId: `g-${topic}`, topics: [topic] });
        await admin.disconnect();
        assert.equal(committed[0]!.partitions[0]!.offset, String(lines.length), `${c.name}: committed offset`);
        const meta = await kcatOk(['-b', b, '-L', '-t', topic, ...c.args(certs)]);
        assert.match(meta, new RegExp(`broker 1 at ${b.replace(/\./g, '\\.')}`), `${c.name}: Metadata advertises the listener's own endpoint`);
      }
      // the mutual-TLS client's principal is its certificate's DN, as Kafka's default mapping rule gives it
      assert.ok(debug.some((m) => m.includes(`on listener MTLS as User:${certs.clientDn}`)), 'MTLS principal');
      assert.ok(debug.some((m) => m.includes('authenticated as User:bob')), 'PLAIN principal');
      assert.ok(debug.some((m) => m.includes('authenticated as User:alice')), 'SCRAM principal');
      assert.ok(debug.some((m) => m.includes('authenticated as User:carol')) && debug.some((m) => m.includes('authenticated as User:dave')), 'OAUTHBEARER principals');
    });
  });

  test('a wrong password, an unknown user, an untrusted certificate and plaintext to a TLS port fail with the client\'s error; the broker keeps serving', async () => {
    await withBroker({ config: securedBrokerConfig(certs), users: { alice: 'alice-secret' } }, async (broker: Broker) => {
      const sp = broker.listenerBootstrap('SASL_PLAINTEXT');
      const bad = await kcat(['-b', sp, '-L', '-m', '5', ...sasl('SASL_PLAINTEXT', 'PLAIN', 'bob', 'wrong')]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /SASL authentication error: Authentication failed: Invalid username or password/);
      const scram = await kcat(['-b', sp, '-L', '-m', '5', ...sasl('SASL_PLAINTEXT', 'SCRAM-SHA-256', 'alice', 'wrong')]);
      assert.match(scram.stderr, /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
      const unknown = await kcat(['-b', sp, '-L', '-m', '5', ...sasl('SASL_PLAINTEXT', 'SCRAM-SHA-512', 'nobody', 'x')]);
      assert.match(unknown.stderr, /invalid credentials with SASL mechanism SCRAM-SHA-512/);
      const mech = await kcat(['-b', broker.listenerBootstrap('SASL_SSL'), '-L', '-m', '5', ...sasl('SASL_SSL', 'OAUTHBEARER', 'a', 'b'), '-X', `ssl.ca.location=${certs.caFile}`]);
      assert.notEqual(mech.code, 0);
      const rogue = await kcat([
        '-b', broker.listenerBootstrap('MTLS'), '-L', '-m', '5', '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`,
        '-X', `ssl.certificate.location=${certs.rogueCertFile}`, '-X', `ssl.key.location=${certs.rogueKeyFile}`,
      ]);
      assert.notEqual(rogue.code, 0);
      // TLS 1.3 verifies the client's certificate after the client's Finished: librdkafka sees the close as an SSL eof
      assert.match(rogue.stderr, /SSL routines|SSL handshake failed/);
      const none = await kcat(['-b', broker.listenerBootstrap('MTLS'), '-L', '-m', '5', '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`]);
      assert.notEqual(none.code, 0);
      const plaintext = await kcat(['-b', broker.listenerBootstrap('SSL'), '-L', '-m', '5']);
      assert.notEqual(plaintext.code, 0);
      // after all that, every listener still serves
      const ok = await kcatOk(['-b', sp, '-L', ...sasl('SASL_PLAINTEXT', 'SCRAM-SHA-256', 'alice', 'alice-secret')]);
      assert.match(ok, /1 brokers/);
      assert.match(await kcatOk(['-b', broker.listenerBootstrap('PLAINTEXT'), '-L']), /1 brokers/);
    });
  });
});
