/**
 * kafkajs 2.2.4's admin listPartitionReassignments (46) and alterPartitionReassignments (45)
 * against the broker, the two single-node replica APIs kafkajs offers: no reassignment in
 * progress; moving a partition to its current replica (this node) succeeds and changes nothing;
 * moving it to another broker is INVALID_REPLICA_ASSIGNMENT, and an unknown topic
 * UNKNOWN_TOPIC_OR_PARTITION, as a single-node Kafka answers.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';

const require = createRequire(import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const { Kafka, logLevel } = require('kafkajs') as { Kafka: new (o: Any) => Any; logLevel: { NOTHING: number } };

/** The Kafka error a kafkajs call failed with (kafkajs wraps it when the retrier bails). */
async function kafkaErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    const err = e as { type?: string; cause?: { type?: string }; originalError?: { type?: string }; errors?: { type?: string; topic?: string; partition?: number }[] };
    // a KafkaJSAggregateError carries one error per partition
    if (Array.isArray(err.errors)) return err.errors.map((x) => `${x.topic}-${x.partition}:${x.type}`).join(' ');
    return err.type ?? err.cause?.type ?? err.originalError?.type ?? String(e);
  }
  return 'no error';
}

describe('kafkajs admin: partition reassignments', () => {
  test('none in progress; this node accepted, another broker or topic refused', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('moved', 2, {}, broker.logs);
      const me = broker.config.nodeId;
      const kafka = new Kafka({ clientId: 'kafkalite-reassign', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        assert.deepEqual(await admin.listPartitionReassignments({}), { topics: [] });
        assert.deepEqual(await admin.listPartitionReassignments({ topics: [{ topic: 'moved', partitions: [0, 1] }] }), { topics: [] });
        await admin.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [me] }, { partition: 1, replicas: [me] }] }] });
        assert.deepEqual(await admin.listPartitionReassignments({}), { topics: [] });
        const meta = await admin.fetchTopicMetadata({ topics: ['moved'] });
        assert.deepEqual(meta.topics[0].partitions.map((p: Any) => [p.partitionId, p.leader, p.replicas]).sort(), [[0, me, [me]], [1, me, [me]]]);
        assert.equal(await kafkaErrorOf(admin.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [me + 1] }] }] })), 'moved-0:INVALID_REPLICA_ASSIGNMENT');
        assert.equal(await kafkaErrorOf(admin.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [me, me + 1] }, { partition: 1, replicas: [me] }] }] })), 'moved-0:INVALID_REPLICA_ASSIGNMENT');
        assert.equal(await kafkaErrorOf(admin.alterPartitionReassignments({ topics: [{ topic: 'nowhere', partitionAssignment: [{ partition: 0, replicas: [me] }] }] })), 'nowhere-0:UNKNOWN_TOPIC_OR_PARTITION');
      } finally {
        await admin.disconnect();
      }
    });
  });
});
