/**
 * kafka-python 2.0.2 (SaslHandshake v0: bare SASL tokens) and confluent-kafka-python (librdkafka:
 * handshake v1 + SaslAuthenticate) over SASL_PLAINTEXT (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512),
 * SSL, mutual TLS and SASL_SSL: each produces, consumes in a group and commits; a wrong password
 * fails with the client's own error (kafka-python: the v0 exchange is closed without an answer, as
 * Kafka closes it, so it finds no broker; confluent-kafka: Kafka's message).
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
    try:
        p = KafkaProducer(bootstrap_servers=c['bootstrap'], request_timeout_ms=15000, max_block_ms=15000, api_version_auto_timeout_ms=15000, **kw)
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
        left = p.flush(15)
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
  conf?: Record<string, string | number>;
  good: boolean;
}

describe('kafka-python and confluent-kafka-python over TLS and SASL listeners', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  test('each client × protocol × mechanism produces, consumes in a group and commits; a bad password fails', async () => {
    const c = certs;
    const kpSasl = (mech: string, user: string, password: string): Record<string, string> => ({ security_protocol: 'SASL_PLAINTEXT', sasl_mechanism: mech, sasl_plain_username: user, sasl_plain_password: password });
    const ckSasl = (protocol: string, mech: string, user: string, password: string): Record<string, string> => ({ 'security.protocol': protocol, 'sasl.mechanisms': mech, 'sasl.username': user, 'sasl.password': password });
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
    ];
    await withBroker({ config: securedBrokerConfig(certs), users: { alice: 'alice-secret' } }, async (broker: Broker) => {
      const input = cases.map((k) => ({ client: k.client, bootstrap: broker.listenerBootstrap(k.listener), topic: k.name, kw: k.kw ?? {}, conf: k.conf ?? {} }));
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
      assert.match(results[cases.findIndex((k) => k.name === 'ck-bad')]!.error!, /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
    });
  });
});
