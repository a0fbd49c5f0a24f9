/**
 * kafkajs 2.2.4's admin client against the broker: createPartitions (CreatePartitions 37) with
 * validateOnly and for real, its errors (INVALID_PARTITIONS for a decrease,
 * UNKNOWN_TOPIC_OR_PARTITION), a producer writing to a new partition and a consumer group whose
 * assignment covers every partition reading it back; alterConfigs (AlterConfigs 33) changing a
 * topic's live config, INVALID_CONFIG for an unknown name, and describeConfigs reporting the
 * override. (kafkajs has no incrementalAlterConfigs.)
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
