/**
 * `tls: 'self-signed'` (security/self-signed.ts): the broker makes a CA and a server certificate at
 * start and hands the CA back, so kafkajs connects over SSL, SASL_SSL and mutual TLS with nothing
 * but `broker.tls` (no openssl). The certificates are checked with Node's X509Certificate: the CA is
 * a CA, the server certificate is issued by it for 127.0.0.1 and localhost, the client certificate
 * for client authentication; a client that does not trust the CA, or brings no certificate to a
 * listener that requires one, fails.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, test } from 'node:test';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import type { Broker } from '../../../src/broker/broker.js';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { makeSelfSignedTls } from '../../../src/broker/security/self-signed.js';
import { parseServeArgs } from '../../../src/cli/serve.js';
import { withBroker } from '../../helpers/broker.js';

async function roundTrip(broker: Broker, config: Omit<KafkaConfig, 'brokers'>, listener: string, topic: string): Promise<string[]> {
  const kafka = new Kafka({ ...config, brokers: [broker.listenerBootstrap(listener)], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ value: 'one' }, { value: 'two' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    consumer.run({ eachMessage: async ({ message }) => void (got.push(message.value!.toString()) === 2 && resolve()) }).catch(reject);
  });
  await consumer.disconnect();
  return got;
}

async function connectFails(broker: Broker, config: Omit<KafkaConfig, 'brokers'>, listener: string): Promise<void> {
  const admin = new Kafka({ ...config, brokers: [broker.listenerBootstrap(listener)], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3000 }).admin();
  await assert.rejects(admin.connect());
  await admin.disconnect();
}

describe('self-signed TLS at start', () => {
  test('the certificates: a CA, a server certificate it issued for 127.0.0.1 and localhost, a client certificate', async () => {
    const tls = await makeSelfSignedTls({ hosts: ['broker.test', '10.1.2.3'], clientCommonName: 'alice' });
    const ca = new X509Certificate(tls.caPem);
    const server = new X509Certificate(tls.serverCertPem);
    const client = new X509Certificate(tls.client!.certPem);
    assert.equal(ca.ca, true);
    assert.equal(server.ca, false);
    assert.ok(server.checkIssued(ca) && server.verify(ca.publicKey));
    assert.ok(client.checkIssued(ca) && client.verify(ca.publicKey));
    assert.equal(server.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(server.checkHost('localhost'), 'localhost');
    assert.equal(server.checkHost('broker.test'), 'broker.test');
    assert.equal(server.checkIP('10.1.2.3'), '10.1.2.3');
    assert.equal(server.checkHost('elsewhere.test'), undefined);
    assert.deepEqual(server.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(client.subject, 'CN=alice');
    assert.equal(tls.client!.principal, 'User:CN=alice');
    assert.match(tls.serverKeyPem, /^-----BEGIN PRIVATE KEY-----/);
    // a second setup is another CA: the first one's server certificate is not issued by it
    const other = new X509Certificate((await makeSelfSignedTls()).caPem);
    assert.equal(server.verify(other.publicKey), false);
  });

  test("startBroker({ tls: 'self-signed' }): an SSL listener; kafkajs trusting the handed-back CA produces and consumes, one that does not fails", async () => {
    // no initial rebalance delay, as startBroker() defaults (withBroker keeps Kafka's 3 s)
    await withBroker({ tls: 'self-signed', config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      assert.deepEqual(broker.security.listeners.map((l) => l.spec.protocol), ['SSL']);
      const ca = broker.tls!.caPem;
      assert.deepEqual(await roundTrip(broker, { ssl: { ca: [ca] } }, 'SSL', 'over-ssl'), ['one', 'two']);
      await connectFails(broker, { ssl: true }, 'SSL');
    });
  });

  test('SASL_SSL and mutual TLS listeners take the same setup; the client certificate is the principal', async () => {
    const config = {
      listeners: 'SASL_SSL://127.0.0.1:0,MTLS://127.0.0.1:0',
      'listener.security.protocol.map': 'SASL_SSL:SASL_SSL,MTLS:SSL',
      'listener.name.mtls.ssl.client.auth': 'required',
      'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
      'super.users': 'User:CN=alice;User:bob',
      'group.initial.rebalance.delay.ms': '0',
    };
    await withBroker({ tls: { mode: 'self-signed', clientCommonName: 'alice' }, users: { bob: 'bob-secret' }, config }, async (broker) => {
      const tls = broker.tls!;
      assert.deepEqual(await roundTrip(broker, { ssl: { ca: [tls.caPem] }, sasl: { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' } }, 'SASL_SSL', 'over-sasl-ssl'), ['one', 'two']);
      // the super user User:CN=alice is who the client certificate makes the connection
      assert.deepEqual(await roundTrip(broker, { ssl: { ca: [tls.caPem], cert: tls.client!.certPem, key: tls.client!.keyPem } }, 'MTLS', 'over-mtls'), ['one', 'two']);
      await connectFails(broker, { ssl: { ca: [tls.caPem] } }, 'MTLS');
    });
  });

  test('serve --tls: only self-signed; --tls-client and --tls-dir need it', () => {
    const err = (...args: string[]) => {
      const r = parseServeArgs(args);
      return 'error' in r ? r.error : undefined;
    };
    assert.match(err('--tls', 'acme')!, /--tls takes self-signed/);
    assert.match(err('--tls-client', 'alice')!, /need --tls self-signed/);
    // '--tls' as another option's value is not the option
    assert.match(err('--tls-dir', '--tls')!, /need --tls self-signed/);
    assert.match(err('--tls', 'self-signed', '--tls-client', '')!, /needs a common name/);
    const ok = parseServeArgs(['--tls', 'self-signed', '--tls-client', 'alice', '--tls-dir', '/tmp/x']);
    assert.ok(!('error' in ok) && !('help' in ok));
    assert.deepEqual(ok.tls, { clientCommonName: 'alice', dir: '/tmp/x' });
  });
});
