/**
 * kafka-python 2.0.2 (SaslHandshake v0: bare SASL tokens) and confluent-kafka-python (librdkafka
 * 2.0.2: handshake v1 + SaslAuthenticate) over SSL, mutual TLS, SASL_PLAINTEXT and SASL_SSL, each
 * with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (kafka-python: a
 * `sasl_oauth_token_provider` handing out an unsecured JWS; librdkafka: its built-in unsecured JWT
 * builder, `sasl.oauthbearer.config=principal=...`): each produces, consumes in a group and
 * commits, all cells in one python process. The failures get the client's own error: kafka-python
 * finds no broker after a wrong password or an unknown user (Kafka closes a failed v0 exchange
 * without an answer), Python's SSLEOFError for a certificate another CA signed, and
 * UnrecognizedBrokerVersion when its plaintext meets a TLS port; confluent-kafka carries Kafka's
 * messages and librdkafka's transport errors. Both clients are served after the failures.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { makeTestCerts, securedBrokerConfig, type TestCerts } from '../../helpers/certs.js';
import { PYTHON, runCommand } from '../../helpers/python-peer.js';

const SCRIPT = String.raw`
import json, sys
cfg = json.load(sys.stdin)
out = []
def kafka_python(c):
    from kafka import KafkaProducer, KafkaConsumer
    kw = dict(c['kw'])
    if c.get('oauth'):
        # kafka-python 2.0.2 takes an object with token() (kafka.oauth.abstract.AbstractTokenProvider)
        from kafka.oauth.abstract import AbstractTokenProvider
        class Provider(AbstractTokenProvider):
            def token(self):
                return c['oauth']
        kw['sasl_oauth_token_provider'] = Provider()
    try:
        p = KafkaProducer(bootstrap_servers=c['bootstrap'], request_timeout_ms=15000, max_block_ms=15000, api_version_auto_timeout_ms=15000 if c['good'] else 5000, **kw)
        for i in range(10):
            p.send(c['topic'], ('%s-%d' % (c['topic'], i)).encode())
        p.flush(); p.close()
        cons = KafkaConsumer(c['topic'], bootstrap_servers=c['bootstrap'], group_id='g-' + c['topic'], auto_offset_reset='earliest',
                             enable_auto_commit=False, consumer_timeout_ms=10000, **kw)
        got = []
        for m in cons:
            got.append(m.value.decode())
            if len(got) == 10: break
        cons.commit()
        from kafka import TopicPartition
        committed = cons.committed(TopicPartition(c['topic'], 0))
        cons.close()
        return {'ok': True, 'got': got, 'committed': committed}
    except Exception as e:
        return {'ok': False, 'error': type(e).__name__ + ': ' + str(e)}
def confluent(c):
    from confluent_kafka import Producer, Consumer, KafkaException
    conf = dict(c['conf'])
    conf['bootstrap.servers'] = c['bootstrap']
    errors = []
    conf['error_cb'] = lambda e: errors.append(str(e))
    try:
        p = Producer(conf)
        for i in range(10):
            p.produce(c['topic'], ('%s-%d' % (c['topic'], i)).encode())
        left = p.flush(15 if c['good'] else 6)
        if left:
            return {'ok': False, 'error': ' | '.join(errors)}
        cc = dict(conf); cc.update({'group.id': 'g-' + c['topic'], 'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
        cons = Consumer(cc)
        cons.subscribe([c['topic']])
        got = []
        import time
        deadline = time.time() + 20
        while len(got) < 10 and time.time() < deadline:
            m = cons.poll(0.5)
            if m is not None and not m.error():
                got.append(m.value().decode())
        parts = cons.commit(asynchronous=False)
        cons.close()
        return {'ok': True, 'got': got, 'committed': parts[0].offset if parts else None}
    except KafkaException as e:
        return {'ok': False, 'error': str(e) + ' | ' + ' | '.join(errors)}
for c in cfg:
    out.append(kafka_python(c) if c['client'] == 'kafka-python' else confluent(c))
print(json.dumps(out))
`;

interface Case {
  client: 'kafka-python' | 'confluent';
  name: string;
  listener: string;
  kw?: Record<string, string>;
  /** kafka-python OAUTHBEARER: the token its provider hands out. */
  oauth?: string;
  conf?: Record<string, string | number>;
  good: boolean;
}

describe('kafka-python and confluent-kafka-python over TLS and SASL listeners', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  test('each client × protocol × mechanism produces, consumes in a group and commits; a wrong password, an unknown user, a rogue certificate and plaintext to TLS fail', async () => {
    const c = certs;
    const kpSasl = (mech: string, user: string, password: string): Record<string, string> => ({ security_protocol: 'SASL_PLAINTEXT', sasl_mechanism: mech, sasl_plain_username: user, sasl_plain_password: password });
    const ckSasl = (protocol: string, mech: string, user: string, password: string): Record<string, string> => ({ 'security.protocol': protocol, 'sasl.mechanisms': mech, 'sasl.username': user, 'sasl.password': password });
    const ckOauth = (protocol: string, principal: string): Record<string, string> => ({
      'security.protocol': protocol, 'sasl.mechanisms': 'OAUTHBEARER', 'sasl.oauthbearer.config': `principal=${principal}`, 'enable.sasl.oauthbearer.unsecure.jwt': 'true',
    });
    const jws = (sub: string): string => {
      const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      return `${b64({ alg: 'none' })}.${b64({ sub, iat: now, exp: now + 3600 })}.`;
    };
    const cases: Case[] = [
      { client: 'kafka-python', name: 'kp-plain', listener: 'SASL_PLAINTEXT', kw: kpSasl('PLAIN', 'bob', 'bob-secret'), good: true },
      { client: 'kafka-python', name: 'kp-scram256', listener: 'SASL_PLAINTEXT', kw: kpSasl('SCRAM-SHA-256', 'alice', 'alice-secret'), good: true },
      { client: 'kafka-python', name: 'kp-scram512', listener: 'SASL_PLAINTEXT', kw: kpSasl('SCRAM-SHA-512', 'alice', 'alice-secret'), good: true },
      { client: 'kafka-python', name: 'kp-ssl', listener: 'SSL', kw: { security_protocol: 'SSL', ssl_cafile: c.caFile }, good: true },
      { client: 'kafka-python', name: 'kp-mtls', listener: 'MTLS', kw: { security_protocol: 'SSL', ssl_cafile: c.caFile, ssl_certfile: c.clientCertFile, ssl_keyfile: c.clientKeyFile }, good: true },
      {
        client: 'kafka-python', name: 'kp-sasl-ssl', listener: 'SASL_SSL',
        kw: { security_protocol: 'SASL_SSL', ssl_cafile: c.caFile, sasl_mechanism: 'PLAIN', sasl_plain_username: 'alice', sasl_plain_password: 'alice-secret' }, good: true,
      },
      { client: 'kafka-python', name: 'kp-bad', listener: 'SASL_PLAINTEXT', kw: kpSasl('PLAIN', 'bob', 'wrong'), good: false },
      { client: 'confluent', name: 'ck-plain', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'PLAIN', 'bob', 'bob-secret'), good: true },
      { client: 'confluent', name: 'ck-scram512', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'SCRAM-SHA-512', 'alice', 'alice-secret'), good: true },
      { client: 'confluent', name: 'ck-sasl-ssl', listener: 'SASL_SSL', conf: { ...ckSasl('SASL_SSL', 'SCRAM-SHA-256', 'alice', 'alice-secret'), 'ssl.ca.location': c.caFile }, good: true },
      {
        client: 'confluent', name: 'ck-mtls', listener: 'MTLS',
        conf: { 'security.protocol': 'SSL', 'ssl.ca.location': c.caFile, 'ssl.certificate.location': c.clientCertFile, 'ssl.key.location': c.clientKeyFile }, good: true,
      },
      { client: 'confluent', name: 'ck-bad', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'SCRAM-SHA-256', 'alice', 'wrong'), good: false },
      // the rest of the matrix: SASL_SSL with every mechanism, OAUTHBEARER, confluent over SSL
      ...(['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const).map((m): Case => ({
        client: 'kafka-python', name: `kp-sasl-ssl-${m.toLowerCase()}`, listener: 'SASL_SSL', kw: { ...kpSasl(m, 'alice', 'alice-secret'), security_protocol: 'SASL_SSL', ssl_cafile: c.caFile }, good: true,
      })),
      { client: 'kafka-python', name: 'kp-oauth', listener: 'SASL_PLAINTEXT', kw: { security_protocol: 'SASL_PLAINTEXT', sasl_mechanism: 'OAUTHBEARER' }, oauth: jws('carol'), good: true },
      { client: 'kafka-python', name: 'kp-sasl-ssl-oauth', listener: 'SASL_SSL', kw: { security_protocol: 'SASL_SSL', ssl_cafile: c.caFile, sasl_mechanism: 'OAUTHBEARER' }, oauth: jws('carol'), good: true },
      { client: 'confluent', name: 'ck-ssl', listener: 'SSL', conf: { 'security.protocol': 'SSL', 'ssl.ca.location': c.caFile }, good: true },
      { client: 'confluent', name: 'ck-scram256', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'SCRAM-SHA-256', 'alice', 'alice-secret'), good: true },
      ...(['PLAIN', 'SCRAM-SHA-512'] as const).map((m): Case => ({
        client: 'confluent', name: `ck-sasl-ssl-${m.toLowerCase()}`, listener: 'SASL_SSL', conf: { ...ckSasl('SASL_SSL', m, 'alice', 'alice-secret'), 'ssl.ca.location': c.caFile }, good: true,
      })),
      // librdkafka's built-in unsecured JWT builder (KIP-255): alg none, sub = the principal
      { client: 'confluent', name: 'ck-oauth', listener: 'SASL_PLAINTEXT', conf: ckOauth('SASL_PLAINTEXT', 'dave'), good: true },
      { client: 'confluent', name: 'ck-sasl-ssl-oauth', listener: 'SASL_SSL', conf: { ...ckOauth('SASL_SSL', 'dave'), 'ssl.ca.location': c.caFile }, good: true },
      // the failures: an unknown user, a certificate another CA signed, plaintext to a TLS port
      { client: 'kafka-python', name: 'kp-unknown', listener: 'SASL_PLAINTEXT', kw: kpSasl('SCRAM-SHA-256', 'nobody', 'x'), good: false },
      { client: 'kafka-python', name: 'kp-rogue', listener: 'MTLS', kw: { security_protocol: 'SSL', ssl_cafile: c.caFile, ssl_certfile: c.rogueCertFile, ssl_keyfile: c.rogueKeyFile }, good: false },
      { client: 'kafka-python', name: 'kp-plaintext-to-tls', listener: 'SSL', kw: {}, good: false },
      { client: 'confluent', name: 'ck-unknown', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'PLAIN', 'nobody', 'x'), good: false },
      {
        client: 'confluent', name: 'ck-rogue', listener: 'MTLS', good: false,
        conf: { 'security.protocol': 'SSL', 'ssl.ca.location': c.caFile, 'ssl.certificate.location': c.rogueCertFile, 'ssl.key.location': c.rogueKeyFile },
      },
      { client: 'confluent', name: 'ck-plaintext-to-tls', listener: 'SSL', conf: {}, good: false },
      // and after them both clients still get served
      { client: 'kafka-python', name: 'kp-after', listener: 'SASL_PLAINTEXT', kw: kpSasl('SCRAM-SHA-512', 'alice', 'alice-secret'), good: true },
      { client: 'confluent', name: 'ck-after', listener: 'SASL_PLAINTEXT', conf: ckSasl('SASL_PLAINTEXT', 'SCRAM-SHA-512', 'alice', 'alice-secret'), good: true },
    ];
    const debug: string[] = [];
    const logger = { level: 'debug' as const, debug: (m: string) => void debug.push(m), info() {}, warn() {}, error() {}, warnThrottled() {} };
    const config = securedBrokerConfig(certs, { 'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER' });
    await withBroker({ config, users: { alice: 'alice-secret' }, logger }, async (broker: Broker) => {
      const input = cases.map((k) => ({ client: k.client, bootstrap: broker.listenerBootstrap(k.listener), topic: k.name, kw: k.kw ?? {}, conf: k.conf ?? {}, oauth: k.oauth ?? null, good: k.good }));
      const r = await runCommand(PYTHON, ['-c', SCRIPT], { input: JSON.stringify(input), timeoutMs: 240_000 });
      assert.equal(r.code, 0, r.stderr.toString());
      const results = JSON.parse(r.stdout.toString('utf8')) as { ok: boolean; got?: string[]; committed?: number; error?: string }[];
      cases.forEach((k, i) => {
        const res = results[i]!;
        if (k.good) {
          assert.ok(res.ok, `${k.name}: ${res.error ?? ''}`);
          assert.deepEqual(res.got, Array.from({ length: 10 }, (_, j) => `${k.name}-${j}`), k.name);
          assert.equal(res.committed, 10, `${k.name} committed offset`);
        } else {
          assert.equal(res.ok, false, k.name);
        }
      });
      assert.match(results[cases.findIndex((k) => k.name === 'kp-bad')]!.error!, /NoBrokersAvailable/);
      const error = (name: string): string => results[cases.findIndex((k) => k.name === name)]!.error!;
      const failures = cases.filter((k) => !k.good).map((k) => `${k.name}: ${error(k.name)}`).join('\n');
      assert.match(error('ck-bad'), /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
      // kafka-python's v0 exchange and its TLS failures are a closed connection: it finds no broker
      assert.match(error('kp-unknown'), /NoBrokersAvailable/);
      // the TLS server's alert is no Kafka answer: kafka-python's version probe gives up on it
      assert.match(error('kp-plaintext-to-tls'), /UnrecognizedBrokerVersion|NoBrokersAvailable/);
      // TLS 1.3: the server refuses the certificate after the client's Finished, Python's ssl sees the EOF
      assert.match(error('kp-rogue'), /SSLEOFError/);
      assert.match(error('ck-unknown'), /Authentication failed: Invalid username or password/, failures);
      assert.match(error('ck-rogue'), /SSL|Disconnected|transport failure/i, failures);
      assert.match(error('ck-plaintext-to-tls'), /Disconnected|transport failure|Receive failed|brokers are down/i, failures);
      assert.ok(debug.some((m) => m.includes('authenticated as User:carol')) && debug.some((m) => m.includes('authenticated as User:dave')), 'OAUTHBEARER principals');
    });
  });
});
