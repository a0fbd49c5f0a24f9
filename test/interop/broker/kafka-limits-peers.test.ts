/**
 * Issue 17 finding 5 with the real clients (the raw-protocol cases are test/broker/kafka-limits):
 * kcat, kafka-python 2.0.2 and confluent-kafka (librdkafka 2.0.2) producing to `__consumer_offsets`
 * get Kafka's INVALID_TOPIC_EXCEPTION and nothing is appended; kafka-python's admin client gets
 * INVALID_REQUEST creating `__cluster_metadata`; kafka-python (Fetch v4) reading a
 * compression.type=zstd topic gets UNSUPPORTED_COMPRESSION_TYPE (no records; kafka-python 2.0.2 logs
 * the code it has no class for as an unknown error), as from Kafka.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { runCommand, runPythonAsync } from '../../helpers/python-peer.js';
import { RawClient } from '../../helpers/raw-client.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';

interface PeerResults {
  produce_internal: string | null;
  create_cluster_metadata: [string, number][] | string;
  fetch_zstd_v4: { records: number; raised: string | null; log: string[] };
  confluent: { produce_internal: (string | null)[] };
}

describe("real clients meet Kafka's limits", () => {
  test('kcat producing to __consumer_offsets: "Invalid topic", nothing appended', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('__consumer_offsets', 1, {}, broker.logs);
      const r = await runCommand(KCAT, ['-b', broker.bootstrap, '-t', '__consumer_offsets', '-p', '0', '-P', '-X', 'message.send.max.retries=0'], { input: 'forged\n', timeoutMs: 60_000 });
      assert.match(r.stderr.toString(), /Invalid topic/, r.stderr.toString());
      assert.equal(broker.logs.getLog('__consumer_offsets', 0)!.logEndOffset, 0n);
    });
  });

  test('kafka-python and confluent-kafka: INVALID_TOPIC_EXCEPTION, INVALID_REQUEST, UNSUPPORTED_COMPRESSION_TYPE', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('__consumer_offsets', 1, {}, broker.logs);
      broker.topics.create('zstd-topic', 1, { 'compression.type': 'zstd' }, broker.logs);
      const c = await RawClient.connect(broker.port);
      try {
        const records = encodeRecordBatch([{ value: 'z', timestamp: Date.now() }]);
        const r = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'zstd-topic', partitionData: [{ index: 0, records }] }] });
        assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      } finally {
        c.destroy();
      }
      const out = await runPythonAsync<PeerResults>('limits_peers.py', { bootstrap: broker.bootstrap, zstd_topic: 'zstd-topic' });
      assert.equal(out.produce_internal, 'InvalidTopicError');
      assert.ok(
        out.create_cluster_metadata === 'InvalidRequestError' ||
          (Array.isArray(out.create_cluster_metadata) && errorName(out.create_cluster_metadata[0]![1]) === 'INVALID_REQUEST'),
        JSON.stringify(out.create_cluster_metadata),
      );
      assert.equal(out.fetch_zstd_v4.records, 0, 'no record of the zstd topic reaches a Fetch v4 client');
      // kafka-python 2.0.2 has no class for error 76: its fetcher logs it as an unknown error
      assert.ok(out.fetch_zstd_v4.log.some((l) => /Unknown error fetching data for topic-partition .*zstd-topic/.test(l)), JSON.stringify(out.fetch_zstd_v4));
      assert.deepEqual(out.confluent.produce_internal, ['TOPIC_EXCEPTION']);
      assert.equal(broker.logs.getLog('__consumer_offsets', 0)!.logEndOffset, 0n);
      assert.equal(broker.topics.get('__cluster_metadata'), undefined);
    });
  });
});
