/**
 * `startBroker({ tls: 'self-signed' })` makes an ECDSA P-256 CA and server certificate: the Python
 * clients (kafka-python over Python's ssl, confluent-kafka over librdkafka's OpenSSL) trust the
 * handed-back CA, produce and consume over SSL; without it the handshake fails.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';
import { runPythonAsync } from '../../helpers/python-peer.js';

test('kafka-python and confluent-kafka over SSL with the self-signed (P-256) CA; without it they are refused', async () => {
  await withBroker({ tls: 'self-signed' }, async (broker) => {
    const cafile = join(broker.dataDir, 'ca.pem');
    writeFileSync(cafile, broker.tls!.caPem);
    const r = await runPythonAsync<{ confluentUndelivered: number; consumed: string[]; untrustedRefused: boolean }>('self_signed_ssl.py', {
      bootstrap: `127.0.0.1:${broker.port}`,
      cafile,
      topic: 'p256',
    });
    assert.equal(r.confluentUndelivered, 0);
    assert.deepEqual(r.consumed, ['confluent', 'kafka-python']);
    assert.equal(r.untrustedRefused, true);
  });
});
