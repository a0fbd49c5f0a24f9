/**
 * kafkajs 2.2.4 (SaslHandshake v1 + SaslAuthenticate v1) and @platformatic/kafka 1.x (in this
 * process) over the secured listeners: kafkajs with SSL, mutual TLS, and SASL_PLAINTEXT and SASL_SSL
 * each with PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER (an unsecured JWS, its `sub` the principal);
 * platformatic with SASL PLAIN and SCRAM-SHA-256 (its full matrix, 1.x and 2.x, is in
 * security-platformatic.test.ts). Each produces, consumes in a group and commits. A wrong password
 * and an unknown user fail with the client's error carrying Kafka's answer; a certificate another
 * CA signed and plaintext to a TLS port fail with kafkajs's connection errors; the broker serves after.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { Consumer, Producer } from '@platformatic/kafka';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { makeTestCerts, securedBrokerConfig, type TestCerts } from '../../helpers/certs.js';

/** The messages of an error, its `cause` chain and its aggregated `errors`. */
function messagesOf(e: unknown): string[] {
  if (typeof e !== 'object' || e === null) return [String(e)];
  const x = e as { message?: unknown; cause?: unknown; errors?: unknown; code?: unknown; apiId?: unknown };
  return [String(x.message ?? ''), String(x.code ?? ''), String(x.apiId ?? ''), ...(x.cause !== undefined ? messagesOf(x.cause) : []), ...(Array.isArray(x.errors) ? x.errors.flatMap(messagesOf) : [])];
}

function unsecuredJws(claims: Record<string, unknown>): string {
  const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64({ alg: 'none' })}.${b64(claims)}.`;
}

async function kafkajsRoundTrip(config: KafkaConfig, topic: string): Promise<string[]> {
  const kafka = new Kafka({ ...config, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `${topic}-${i}` })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachMessage: async ({ message, partition }) => {
          got.push(message.value!.toString());
          await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
          if (got.length === 10) resolve();
        },
      })
      .catch(reject);
  });
  const admin = kafka.admin();
  await admin.connect();
  const committed = await admin.fetchOffsets({ groupId: `g-${topic}`, topics: [topic] });
  await admin.disconnect();
  await consumer.disconnect();
  assert.equal(committed[0]!.partitions[0]!.offset, '10', `${topic}: committed offset`);
  return got;
}

describe('kafkajs and @platformatic/kafka over TLS and SASL listeners', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  test('kafkajs: SASL PLAIN, SCRAM-SHA-256/512, OAUTHBEARER, SSL, mutual TLS, SASL_SSL; a bad password fails', async () => {
    const debug: string[] = [];
    const logger = { level: 'debug' as const, debug: (m: string) => void debug.push(m), info() {}, warn() {}, error() {}, warnThrottled() {} };
    const config = securedBrokerConfig(certs, { 'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER' });
    await withBroker({ config, users: { alice: 'alice-secret' }, logger }, async (broker: Broker) => {
      const ssl = { ca: [certs.caPem] };
      const saslSsl = [broker.listenerBootstrap('SASL_SSL')];
      const oauthBearerProvider = async (): Promise<{ value: string }> => ({ value: unsecuredJws({ sub: 'carol', exp: Date.now() / 1000 + 3600, iat: Date.now() / 1000 }) });
      const sp = [broker.listenerBootstrap('SASL_PLAINTEXT')];
      const cases: [string, KafkaConfig][] = [
        ['kj-plain', { brokers: sp, sasl: { mechanism: 'plain', username: 'bob', password: 'bob-secret' } }],
        ['kj-scram256', { brokers: sp, sasl: { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' } }],
        ['kj-scram512', { brokers: sp, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' } }],
        [
          'kj-oauth',
          { brokers: sp, sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJws({ sub: 'carol', exp: Date.now() / 1000 + 3600, iat: Date.now() / 1000 }) }) } },
        ],
        ['kj-ssl', { brokers: [broker.listenerBootstrap('SSL')], ssl }],
        ['kj-mtls', { brokers: [broker.listenerBootstrap('MTLS')], ssl: { ...ssl, cert: readFileSync(certs.clientCertFile), key: readFileSync(certs.clientKeyFile) } }],
        ['kj-sasl-ssl', { brokers: saslSsl, ssl, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' } }],
        ['kj-sasl-ssl-plain', { brokers: saslSsl, ssl, sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } }],
        ['kj-sasl-ssl-scram256', { brokers: saslSsl, ssl, sasl: { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' } }],
        ['kj-sasl-ssl-oauth', { brokers: saslSsl, ssl, sasl: { mechanism: 'oauthbearer', oauthBearerProvider } }],
      ];
      for (const [topic, config] of cases) {
        assert.deepEqual(await kafkajsRoundTrip(config, topic), Array.from({ length: 10 }, (_, i) => `${topic}-${i}`), topic);
      }
      assert.ok(debug.some((m) => m.includes('authenticated as User:carol')), 'the token\'s sub is the principal');
      const bad = new Kafka({ brokers: sp, logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl: { mechanism: 'plain', username: 'alice', password: 'nope' } }).producer();
      await assert.rejects(bad.connect(), (e: Error) => {
        assert.equal(e.name, 'KafkaJSSASLAuthenticationError');
        assert.match(e.message, /Authentication failed: Invalid username or password/);
        return true;
      });
      const expired = new Kafka({
        brokers: sp, logLevel: logLevel.NOTHING, retry: { retries: 0 },
        sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJws({ sub: 'carol', exp: Date.now() / 1000 - 10 }) }) },
      }).producer();
      // Kafka answers an invalid token with an {"status":"invalid_token"} challenge (error code 0); kafkajs
      // takes any answer as the end of the exchange, so its next request finds the connection closed
      await assert.rejects(async () => {
        await expired.connect();
        await expired.send({ topic: 'kj-plain', messages: [{ value: 'x' }] });
      });
      await expired.disconnect();
      const unknown = new Kafka({ brokers: sp, logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl: { mechanism: 'scram-sha-256', username: 'nobody', password: 'x' } }).producer();
      await assert.rejects(unknown.connect(), (e: Error) => {
        assert.equal(e.name, 'KafkaJSSASLAuthenticationError');
        assert.match(e.message, /SASL_AUTHENTICATION_FAILED|invalid credentials/);
        return true;
      });
      const rogue = new Kafka({
        brokers: [broker.listenerBootstrap('MTLS')], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 5000, requestTimeout: 5000,
        ssl: { ...ssl, cert: readFileSync(certs.rogueCertFile), key: readFileSync(certs.rogueKeyFile) },
      }).producer();
      // TLS 1.3: the server refuses the certificate after the client's Finished, so kafkajs sees its first request's connection closed
      await assert.rejects(rogue.connect(), (e: Error) => {
        assert.equal(e.message, 'Closed connection');
        return true;
      });
      const plaintext = new Kafka({ brokers: [broker.listenerBootstrap('SSL')], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 5000, requestTimeout: 5000 }).producer();
      await assert.rejects(plaintext.connect(), (e: Error) => {
        // the TLS server answers the plaintext ApiVersions with an alert and closes
        assert.equal(e.message, 'Closed connection');
        return true;
      });
      // after the failures the broker still serves
      assert.deepEqual(await kafkajsRoundTrip({ brokers: sp, sasl: { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' } }, 'kj-after'), Array.from({ length: 10 }, (_, i) => `kj-after-${i}`));
    });
  });

  test('@platformatic/kafka 1.x: SASL PLAIN and SCRAM-SHA-256 produce, consume in a group and commit; a bad password fails', async () => {
    await withBroker({ config: securedBrokerConfig(certs), users: { alice: 'alice-secret' } }, async (broker: Broker) => {
      const bootstrapBrokers = [broker.listenerBootstrap('SASL_PLAINTEXT')];
      for (const [topic, sasl] of [
        ['pf-plain', { mechanism: 'PLAIN', username: 'bob', password: 'bob-secret' }],
        ['pf-scram', { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-secret' }],
      ] as const) {
        const producer = new Producer({ clientId: 'pf', bootstrapBrokers, sasl, autocreateTopics: true, retries: 3 });
        await producer.send({ messages: Array.from({ length: 10 }, (_, i) => ({ topic, value: Buffer.from(`${topic}-${i}`) })) });
        await producer.close();
        const consumer = new Consumer({ clientId: 'pf-c', groupId: `g-${topic}`, bootstrapBrokers, sasl, autocommit: false, maxWaitTime: 200, retries: 3 });
        const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
        const got: string[] = [];
        for await (const m of stream) {
          got.push(m.value.toString());
          await m.commit();
          if (got.length === 10) break;
        }
        await stream.close();
        await consumer.close(true);
        assert.deepEqual(got, Array.from({ length: 10 }, (_, i) => `${topic}-${i}`), topic);
      }
      const bad = new Producer({ clientId: 'pf-bad', bootstrapBrokers, sasl: { mechanism: 'PLAIN', username: 'bob', password: 'nope' }, retries: 0 });
      await assert.rejects(bad.send({ messages: [{ topic: 'pf-plain', value: Buffer.from('x') }] }), (e: Error) => {
        const text = messagesOf(e).join(' | ');
        assert.match(text, /PLT_KFK_AUTHENTICATION/);
        assert.match(text, /SASL_AUTHENTICATION_FAILED/);
        return true;
      });
      await bad.close();
    });
  });
});
