/**
 * ElectLeaders (43) v0-2, ListPartitionReassignments (46) and AlterPartitionReassignments (45)
 * driven through their handlers: a single node is every partition's preferred leader and only
 * replica, so elections are never needed and no reassignment is ever in progress.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const ELECT_LEADERS = 43;
const ALTER_REASSIGNMENTS = 45;
const LIST_REASSIGNMENTS = 46;

type PartitionResult = { partitionId: number; errorCode: number };
const results = (r: { replicaElectionResults?: { topic: string; partitionResult: PartitionResult[] }[] }) =>
  (r.replicaElectionResults ?? []).map((t) => [t.topic, t.partitionResult.map((p) => [p.partitionId, errorName(p.errorCode)])]);

describe('ElectLeaders', () => {
  test('every version, preferred and unclean: ELECTION_NOT_NEEDED for hosted partitions, UNKNOWN_TOPIC_OR_PARTITION otherwise', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      for (let v = 0; v <= 2; v++) {
        for (const electionType of v === 0 ? [0] : [0, 1]) {
          const r = await call(broker, ELECT_LEADERS, v, { electionType, timeoutMs: 1000, topicPartitions: [{ topic: 't', partitions: [0, 1, 2] }, { topic: 'gone', partitions: [0] }] });
          if (v >= 1) assert.equal(errorName(r.errorCode), 'NONE');
          assert.deepEqual(results(r), [
            ['t', [[0, 'ELECTION_NOT_NEEDED'], [1, 'ELECTION_NOT_NEEDED'], [2, 'UNKNOWN_TOPIC_OR_PARTITION']]],
            ['gone', [[0, 'UNKNOWN_TOPIC_OR_PARTITION']]],
          ], `v${v} type ${electionType}`);
        }
      }
      // every partition (null): every topic, with only the partitions elected, and none needed an election
      const all = await call(broker, ELECT_LEADERS, 2, { electionType: 0, timeoutMs: 1000, topicPartitions: null });
      assert.deepEqual([errorName(all.errorCode), results(all)], ['NONE', [['t', []]]]);
      // partitions answered as listed, repeats included
      const repeated = await call(broker, ELECT_LEADERS, 2, { electionType: 0, timeoutMs: 1000, topicPartitions: [{ topic: 't', partitions: [1, 1] }] });
      assert.deepEqual(results(repeated), [['t', [[1, 'ELECTION_NOT_NEEDED'], [1, 'ELECTION_NOT_NEEDED']]]]);
      const bad = await call(broker, ELECT_LEADERS, 1, { electionType: 9, timeoutMs: 1000, topicPartitions: [{ topic: 't', partitions: [0] }] });
      assert.deepEqual([errorName(bad.errorCode), results(bad)], ['INVALID_REQUEST', [['t', [[0, 'INVALID_REQUEST']]]]]);
    });
  });
});

describe('partition reassignments', () => {
  test('none in progress, for all topics or named ones (missing ones left out)', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      for (const topics of [null, [{ name: 't', partitionIndexes: [0, 1] }, { name: 'gone', partitionIndexes: [0] }]]) {
        const r = await call(broker, LIST_REASSIGNMENTS, 0, { timeoutMs: 1000, topics });
        assert.deepEqual([errorName(r.errorCode), r.topics], ['NONE', []]);
      }
    });
  });

  test('altering: this node completes at once; other brokers, empty or repeated lists, cancels and missing partitions get Kafka\'s errors', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const me = broker.config.nodeId;
      const r = await call(broker, ALTER_REASSIGNMENTS, 0, {
        timeoutMs: 1000,
        topics: [
          { name: 't', partitions: [
            { partitionIndex: 0, replicas: [me] },
            { partitionIndex: 1, replicas: [me + 1] },
            { partitionIndex: 0, replicas: [me, me + 1] },
            { partitionIndex: 0, replicas: [me, me] },
            { partitionIndex: 0, replicas: [] },
            { partitionIndex: 1, replicas: null },
            { partitionIndex: 5, replicas: [me] },
          ] },
          { name: 'gone', partitions: [{ partitionIndex: 0, replicas: [me] }] },
        ],
      });
      assert.equal(errorName(r.errorCode), 'NONE');
      // the broker named is the lowest id at fault, as Kafka checks the sorted list
      assert.equal(r.responses[0].partitions[2].errorMessage, `The replica list names broker ${me + 1}, which is not registered.`);
      const got = r.responses.map((t: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }) => [t.name, t.partitions.map((p) => [p.partitionIndex, errorName(p.errorCode)])]);
      assert.deepEqual(got, [
        ['t', [[0, 'NONE'], [1, 'INVALID_REPLICA_ASSIGNMENT'], [0, 'INVALID_REPLICA_ASSIGNMENT'], [0, 'INVALID_REPLICA_ASSIGNMENT'], [0, 'INVALID_REPLICA_ASSIGNMENT'], [1, 'NO_REASSIGNMENT_IN_PROGRESS'], [5, 'UNKNOWN_TOPIC_OR_PARTITION']]],
        ['gone', [[0, 'UNKNOWN_TOPIC_OR_PARTITION']]],
      ]);
      // nothing moved: still one partition leader, this node, and no reassignment listed
      const listed = await call(broker, LIST_REASSIGNMENTS, 0, { timeoutMs: 1000, topics: null });
      assert.deepEqual(listed.topics, []);
    });
  });
});
