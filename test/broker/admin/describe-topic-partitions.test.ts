/**
 * DescribeTopicPartitions (75) v0 driven through its handler: topics in name order, paged by
 * `responsePartitionLimit` with the cursor as Kafka's `KRaftMetadataCache.describeTopicResponse`
 * pages them, and the errors for unknown and invalid names and bad cursors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const DESCRIBE_TOPIC_PARTITIONS = 75;
type Topic = { name: string; errorCode: number; partitions: { partitionIndex: number; leaderId: number; replicaNodes: number[] }[] };
type Cursor = { topicName: string; partitionIndex: number } | null;
const page = (r: { topics?: Topic[]; nextCursor?: Cursor }) => ({
  topics: (r.topics ?? []).map((t) => [t.name, errorName(t.errorCode), t.partitions.map((p) => p.partitionIndex)]),
  next: r.nextCursor === null || r.nextCursor === undefined ? null : [r.nextCursor.topicName, r.nextCursor.partitionIndex],
});

describe('DescribeTopicPartitions', () => {
  test('pages every topic by the partition limit, resuming at the cursor', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('b', 3, {}, broker.logs);
      broker.topics.create('a', 2, {}, broker.logs);
      broker.topics.create('c', 1, {}, broker.logs);
      const ask = async (limit: number, cursor: Cursor, names: string[] = []) =>
        page(await call(broker, DESCRIBE_TOPIC_PARTITIONS, 0, { topics: names.map((name) => ({ name })), responsePartitionLimit: limit, cursor }));
      assert.deepEqual(await ask(2000, null), { topics: [['a', 'NONE', [0, 1]], ['b', 'NONE', [0, 1, 2]], ['c', 'NONE', [0]]], next: null });
      // a page ending inside a topic points at its next partition
      assert.deepEqual(await ask(3, null), { topics: [['a', 'NONE', [0, 1]], ['b', 'NONE', [0]]], next: ['b', 1] });
      assert.deepEqual(await ask(3, { topicName: 'b', partitionIndex: 1 }), { topics: [['b', 'NONE', [1, 2]], ['c', 'NONE', [0]]], next: null });
      // a page ending exactly at a topic's end points at the next topic's start
      assert.deepEqual(await ask(2, null), { topics: [['a', 'NONE', [0, 1]]], next: ['b', 0] });
      // a limit below 1 is taken as 1
      assert.deepEqual(await ask(0, null), { topics: [['a', 'NONE', [0]]], next: ['a', 1] });
      // named topics, sorted, with their errors; paging works the same
      assert.deepEqual(await ask(10, null, ['c', 'zz', 'a', 'bad name']), {
        topics: [['a', 'NONE', [0, 1]], ['bad name', 'INVALID_TOPIC_EXCEPTION', []], ['c', 'NONE', [0]], ['zz', 'UNKNOWN_TOPIC_OR_PARTITION', []]],
        next: null,
      });
      assert.deepEqual(await ask(1, { topicName: 'c', partitionIndex: 0 }, ['c', 'a']), { topics: [['c', 'NONE', [0]]], next: null });
    });
  });

  test('partition details: this node leads, the topic id and internal flag', async () => {
    await withBroker({}, async (broker) => {
      const t = broker.topics.create('d', 1, {}, broker.logs);
      const r = await call(broker, DESCRIBE_TOPIC_PARTITIONS, 0, { topics: [{ name: 'd' }], responsePartitionLimit: 10, cursor: null });
      const [topic] = r.topics;
      assert.ok(t.topicIdBytes.equals(topic.topicId));
      assert.equal(topic.isInternal, false);
      const me = broker.config.nodeId;
      assert.deepEqual(topic.partitions, [{ errorCode: 0, partitionIndex: 0, leaderId: me, leaderEpoch: 0, replicaNodes: [me], isrNodes: [me], eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [] }]);
      // READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS: no authorizer grants all
      assert.equal(topic.topicAuthorizedOperations, 8 + 16 + 32 + 64 + 128 + 256 + 1024 + 2048);
    });
  });

  test('a negative cursor partition, or a cursor outside the named topics, is INVALID_REQUEST', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('a', 1, {}, broker.logs);
      for (const cursor of [{ topicName: 'a', partitionIndex: -1 }, { topicName: 'b', partitionIndex: 0 }]) {
        const r = await call(broker, DESCRIBE_TOPIC_PARTITIONS, 0, { topics: [{ name: 'a' }], responsePartitionLimit: 10, cursor });
        assert.deepEqual(page(r), { topics: [['a', 'INVALID_REQUEST', []]], next: null });
      }
    });
  });
});
