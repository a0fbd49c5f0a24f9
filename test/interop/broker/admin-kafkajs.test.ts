/**
 * kafkajs 2.2.4's admin client against the broker: createPartitions (CreatePartitions 37) with
 * validateOnly and for real, its errors (INVALID_PARTITIONS for a decrease,
 * UNKNOWN_TOPIC_OR_PARTITION), a producer writing to a new partition and a consumer group whose
 * assignment covers every partition reading it back; alterConfigs (AlterConfigs 33) changing a
 * topic's live config, INVALID_CONFIG for an unknown name, and describeConfigs reporting the
 * override (kafkajs has no incrementalAlterConfigs); deleteTopicRecords (DeleteRecords 21) and
 * Kafka's errors for an internal topic, a compact-only topic and an offset past the high watermark.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';

const require = createRequire(import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs') as { Kafka: new (o: Any) => Any; logLevel: { NOTHING: number }; ConfigResourceTypes: { TOPIC: number } };

/** The Kafka error a kafkajs call failed with (kafkajs wraps it when the retrier bails). */
async function kafkaErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    const err = e as { type?: string; cause?: { type?: string }; originalError?: { type?: string } };
    return err.type ?? err.cause?.type ?? err.originalError?.type ?? String(e);
  }
  return 'no error';
}

describe('kafkajs admin: createPartitions and alterConfigs', () => {
  test('partitions raised are produced to and assigned; configs altered take effect', async () => {
    await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      broker.topics.create('grow', 1, {}, broker.logs);
      const kafka = new Kafka({ clientId: 'kafkalite-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.createPartitions({ validateOnly: true, topicPartitions: [{ topic: 'grow', count: 3 }] });
        assert.equal(broker.topics.get('grow')!.partitions, 1);
        await admin.createPartitions({ topicPartitions: [{ topic: 'grow', count: 3 }] });
        const meta = await admin.fetchTopicMetadata({ topics: ['grow'] });
        assert.deepEqual(meta.topics[0].partitions.map((p: Any) => p.partitionId).sort(), [0, 1, 2]);
        assert.equal(await kafkaErrorOf(admin.createPartitions({ topicPartitions: [{ topic: 'grow', count: 2 }] })), 'INVALID_PARTITIONS');
        assert.equal(await kafkaErrorOf(admin.createPartitions({ topicPartitions: [{ topic: 'missing', count: 2 }] })), 'UNKNOWN_TOPIC_OR_PARTITION');

        const producer = kafka.producer();
        await producer.connect();
        const sent = await producer.send({ topic: 'grow', messages: [{ value: 'on-partition-2', partition: 2 }] });
        await producer.disconnect();
        assert.deepEqual(sent.map((s: Any) => [s.partition, s.baseOffset]), [[2, '0']]);

        // a consumer group joining now is assigned every partition, the new ones included
        const consumer = kafka.consumer({ groupId: 'grow-readers', sessionTimeout: 10000, rebalanceTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
        await consumer.connect();
        let assigned: number[] = [];
        consumer.on(consumer.events.GROUP_JOIN, (e: Any) => (assigned = e.payload.memberAssignment.grow ?? []));
        await consumer.subscribe({ topics: ['grow'], fromBeginning: true });
        const got = await new Promise<[number, string]>((resolve) => {
          void consumer.run({ eachMessage: async ({ partition, message }: Any) => resolve([partition, message.value.toString()]) });
        });
        await consumer.disconnect();
        assert.deepEqual(got, [2, 'on-partition-2']);
        assert.deepEqual([...assigned].sort(), [0, 1, 2]);

        await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'grow', configEntries: [{ name: 'max.message.bytes', value: '4096' }, { name: 'retention.ms', value: '60000' }] }] });
        assert.equal(broker.logs.getLog('grow', 2)!.config.maxMessageBytes, 4096);
        assert.equal(broker.logs.getLog('grow', 0)!.config.retentionMs, 60000);
        const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'grow', configNames: ['max.message.bytes', 'retention.ms'] }] });
        assert.deepEqual(
          described.resources[0].configEntries.map((c: Any) => [c.configName, c.configValue, c.configSource]),
          [['max.message.bytes', '4096', 1], ['retention.ms', '60000', 1]],
        );
        assert.equal(await kafkaErrorOf(admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'grow', configEntries: [{ name: 'no.such.config', value: '1' }] }] })), 'INVALID_CONFIG');
        // a message above the new max.message.bytes is refused by the live log
        const big = kafka.producer();
        await big.connect();
        assert.equal(await kafkaErrorOf(big.send({ topic: 'grow', messages: [{ value: 'x'.repeat(8192), partition: 0 }] })), 'MESSAGE_TOO_LARGE');
        await big.disconnect();
      } finally {
        await admin.disconnect();
      }
    });
  });
});

/** The Kafka errors of a failed deleteTopicRecords, one per partition (KafkaJSDeleteTopicRecordsError). */
async function deleteRecordsErrorsOf(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (e) {
    const err = e as { partitions?: { error?: { type?: string } }[]; cause?: { partitions?: { error?: { type?: string } }[] } };
    return (err.partitions ?? err.cause?.partitions ?? []).map((x) => x.error?.type ?? String(x.error));
  }
  return [];
}

describe('kafkajs admin: deleteTopicRecords', () => {
  test("moves the log start; Kafka's errors for an internal topic, a compact-only topic and an offset past the high watermark", async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('trim', 1, {}, broker.logs);
      broker.topics.create('compacted', 1, { 'cleanup.policy': 'compact' }, broker.logs);
      const kafka = new Kafka({ clientId: 'kafkalite-admin', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
      const admin = kafka.admin();
      const producer = kafka.producer();
      await Promise.all([admin.connect(), producer.connect()]);
      try {
        for (const topic of ['trim', 'compacted']) {
          await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
        }
        // an offset commit makes __consumer_offsets
        await admin.setOffsets({ groupId: 'trim-readers', topic: 'trim', partitions: [{ partition: 0, offset: '1' }] });
        const groupsPartition = broker.logs.getLog('__consumer_offsets', 0) === undefined ? [...Array(50).keys()].find((p) => broker.logs.getLog('__consumer_offsets', p) !== undefined) : 0;
        assert.notEqual(groupsPartition, undefined, '__consumer_offsets exists');
        const offsetsBefore = broker.logs.getLog('__consumer_offsets', groupsPartition!)!.logEndOffset;
        // kafkajs' deleteTopicRecords needs the topic's leader in its metadata
        const deleteRecords = async (topic: string, partition: number, offset: string): Promise<unknown> => {
          await admin.fetchTopicMetadata({ topics: [topic] });
          return admin.deleteTopicRecords({ topic, partitions: [{ partition, offset }] });
        };

        await deleteRecords('trim', 0, '3');
        assert.deepEqual((await admin.fetchTopicOffsets('trim')).map((o: Any) => [o.low, o.high]), [['3', '5']]);
        assert.deepEqual(await deleteRecordsErrorsOf(deleteRecords('trim', 0, '6')), ['OFFSET_OUT_OF_RANGE']);
        assert.deepEqual(await deleteRecordsErrorsOf(deleteRecords('compacted', 0, '2')), ['POLICY_VIOLATION']);
        assert.deepEqual(await deleteRecordsErrorsOf(deleteRecords('__consumer_offsets', groupsPartition!, '-1')), ['INVALID_TOPIC_EXCEPTION']);
        assert.equal(broker.logs.getLog('compacted', 0)!.logStartOffset, 0n);
        assert.equal(broker.logs.getLog('__consumer_offsets', groupsPartition!)!.logStartOffset, 0n);
        assert.ok(offsetsBefore > 0n);
        assert.deepEqual(await admin.fetchOffsets({ groupId: 'trim-readers', topics: ['trim'] }).then((r: Any) => r[0].partitions.map((p: Any) => p.offset)), ['1']);
      } finally {
        await Promise.all([producer.disconnect(), admin.disconnect()]);
      }
    });
  });
});
