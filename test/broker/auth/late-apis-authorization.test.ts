/**
 * Authorization of the APIs the broker gained after the ACL work, on the wire: raw clients that log
 * in with SASL PLAIN as `alice` (only the ACLs each step grants) and `admin` (a super user), against
 * Kafka's answers from `KafkaApis`, `ControllerApis`, `DescribeTopicPartitionsRequestHandler` and the
 * requests' `getErrorResponse`:
 * - cluster APIs: ElectLeaders and AlterPartitionReassignments (ALTER), ListPartitionReassignments
 *   (DESCRIBE), DescribeUserScramCredentials (DESCRIBE) and AlterUserScramCredentials (ALTER);
 *   DescribeCluster's cluster_authorized_operations (0 without DESCRIBE on the cluster);
 * - topics: OffsetForLeaderEpoch (CLUSTER_ACTION or DESCRIBE), DescribeTopicPartitions (hidden,
 *   or TOPIC_AUTHORIZATION_FAILED with a zero id at the end; topic operations), Metadata v12 and
 *   Fetch v13 by topic id (an unknown id UNKNOWN_TOPIC_ID for anyone, a known one without the
 *   right TOPIC_AUTHORIZATION_FAILED); a replica's Fetch needs CLUSTER_ACTION instead of READ;
 * - KIP-848 groups: ConsumerGroupHeartbeat (READ on the group, DESCRIBE on subscribed names, regex
 *   matches filtered), ConsumerGroupDescribe (DESCRIBE on the group, the group's operations, topics
 *   in assignments).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { ApiKey } from '../../../src/protocol/api-keys.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { RawClient, type Msg } from '../../helpers/raw-client.js';

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_alice="alice-secret";',
  'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
  'super.users': 'User:admin',
  'group.initial.rebalance.delay.ms': '0',
};
const NOT_REQUESTED = -2147483648;
/** CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE. */
const CLUSTER_OPS = 8096;
const bit = (...ops: number[]): number => ops.reduce((a, op) => a | (1 << op), 0);
const ZERO = Buffer.alloc(16);

async function login(broker: Broker, user: string): Promise<RawClient> {
  const c = await RawClient.connect(broker.advertisedEndpoint('SASL_PLAINTEXT').port);
  assert.equal(errorName((await c.request(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode), 'NONE');
  assert.equal(errorName((await c.request(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from(`\0${user}\0${user}-secret`) })).errorCode), 'NONE');
  return c;
}

async function grant(admin: RawClient, resourceType: number, resourceName: string, operation: number): Promise<void> {
  const r = await admin.request(ApiKey.CreateAcls, 3, {
    creations: [{ resourceType, resourceName, resourcePatternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation, permissionType: Perm.ALLOW }],
  });
  assert.equal(errorName(r.results[0].errorCode), 'NONE');
}

async function session(body: (broker: Broker, alice: RawClient, admin: RawClient) => Promise<void>): Promise<void> {
  await withBroker({ config: CONFIG }, async (broker) => {
    broker.topics.create('orders', 2, {}, broker.logs);
    broker.topics.create('secret', 1, {}, broker.logs);
    const alice = await login(broker, 'alice');
    const admin = await login(broker, 'admin');
    try {
      await body(broker, alice, admin);
    } finally {
      alice.destroy();
      admin.destroy();
    }
  });
}

const errors = (list: Msg[]): string[] => list.map((x) => errorName(x.errorCode) ?? '?');

describe('cluster APIs need their cluster operation', () => {
  test('ElectLeaders, the reassignments and the SCRAM credential APIs answer CLUSTER_AUTHORIZATION_FAILED as Kafka shapes it; DescribeCluster reports the operations', async () => {
    await session(async (_broker, alice, admin) => {
      const elect = { electionType: 0, topicPartitions: [{ topic: 'orders', partitions: [0, 1] }], timeoutMs: 1000 };
      const e = await alice.request(ApiKey.ElectLeaders, 2, elect);
      assert.equal(errorName(e.errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      assert.deepEqual(errors(e.replicaElectionResults[0].partitionResult), ['CLUSTER_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);
      assert.match(e.replicaElectionResults[0].partitionResult[0].errorMessage, /^Request .* is not authorized\.$/);
      assert.deepEqual(errors((await admin.request(ApiKey.ElectLeaders, 2, elect)).replicaElectionResults[0].partitionResult), ['ELECTION_NOT_NEEDED', 'ELECTION_NOT_NEEDED']);

      const list = { timeoutMs: 1000, topics: [{ name: 'orders', partitionIndexes: [1] }] };
      const l = await alice.request(ApiKey.ListPartitionReassignments, 0, list);
      assert.equal(errorName(l.errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      assert.match(l.errorMessage, /is not authorized/);
      assert.deepEqual(l.topics.map((t: Msg) => [t.name, t.partitions.map((p: Msg) => p.partitionIndex)]), [['orders', [1]]]);
      const alter = { timeoutMs: 1000, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, replicas: [1] }] }] };
      const a = await alice.request(ApiKey.AlterPartitionReassignments, 0, alter);
      assert.equal(errorName(a.errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      assert.deepEqual(errors(a.responses[0].partitions), ['CLUSTER_AUTHORIZATION_FAILED']);

      const ds = await alice.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: 'bob' }] });
      assert.deepEqual([errorName(ds.errorCode), ds.errorMessage, ds.results.map((r: Msg) => [r.user, errorName(r.errorCode)])], ['CLUSTER_AUTHORIZATION_FAILED', null, [['', 'CLUSTER_AUTHORIZATION_FAILED']]]);
      const salt = Buffer.alloc(16, 1);
      const as = await alice.request(ApiKey.AlterUserScramCredentials, 0, {
        deletions: [{ name: 'zed', mechanism: 1 }],
        upsertions: [{ name: 'bob', mechanism: 1, iterations: 4096, salt, saltedPassword: Buffer.alloc(32) }, { name: 'bob', mechanism: 2, iterations: 4096, salt, saltedPassword: Buffer.alloc(64) }],
      });
      assert.deepEqual(as.results.map((r: Msg) => [r.user, errorName(r.errorCode)]), [['bob', 'CLUSTER_AUTHORIZATION_FAILED'], ['zed', 'CLUSTER_AUTHORIZATION_FAILED']]);
      // the super user is refused nothing
      assert.equal(errorName((await admin.request(ApiKey.DescribeUserScramCredentials, 0, { users: null })).errorCode), 'NONE');

      const cluster = (c: RawClient, include: boolean) => c.request(ApiKey.DescribeCluster, 1, { includeClusterAuthorizedOperations: include, endpointType: 1 });
      const dc = await cluster(alice, true);
      assert.deepEqual([errorName(dc.errorCode), dc.clusterAuthorizedOperations, dc.brokers.length], ['NONE', 0, 1]);
      assert.equal((await cluster(alice, false)).clusterAuthorizedOperations, NOT_REQUESTED);
      assert.equal((await cluster(admin, true)).clusterAuthorizedOperations, CLUSTER_OPS);

      // DESCRIBE on the cluster: listing and describing pass, altering still does not
      await grant(admin, RT.CLUSTER, 'kafka-cluster', Op.DESCRIBE);
      assert.equal((await cluster(alice, true)).clusterAuthorizedOperations, bit(Op.DESCRIBE));
      assert.deepEqual([errorName((await alice.request(ApiKey.ListPartitionReassignments, 0, list)).errorCode)], ['NONE']);
      assert.equal(errorName((await alice.request(ApiKey.DescribeUserScramCredentials, 0, { users: null })).errorCode), 'NONE');
      assert.equal(errorName((await alice.request(ApiKey.ElectLeaders, 2, elect)).errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      await grant(admin, RT.CLUSTER, 'kafka-cluster', Op.ALTER);
      assert.equal(errorName((await alice.request(ApiKey.ElectLeaders, 2, elect)).errorCode), 'NONE');
      assert.equal(errorName((await alice.request(ApiKey.AlterPartitionReassignments, 0, alter)).errorCode), 'NONE');
    });
  });
});

describe('topic APIs: DESCRIBE or READ, by name and by id', () => {
  test('OffsetForLeaderEpoch and DescribeTopicPartitions', async () => {
    await session(async (_broker, alice, admin) => {
      await grant(admin, RT.TOPIC, 'orders', Op.DESCRIBE);
      const olep = (topic: string) => ({ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] });
      const req = { replicaId: -1, topics: [olep('orders'), olep('secret'), olep('missing')] };
      const o = await alice.request(ApiKey.OffsetForLeaderEpoch, 4, req);
      assert.deepEqual(o.topics.map((t: Msg) => [t.topic, errorName(t.partitions[0].errorCode)]), [['orders', 'NONE'], ['secret', 'TOPIC_AUTHORIZATION_FAILED'], ['missing', 'TOPIC_AUTHORIZATION_FAILED']]);
      assert.deepEqual(errors((await admin.request(ApiKey.OffsetForLeaderEpoch, 4, req)).topics.map((t: Msg) => t.partitions[0])), ['NONE', 'NONE', 'UNKNOWN_TOPIC_OR_PARTITION']);
      // CLUSTER_ACTION covers every topic (the inter-broker use)
      await grant(admin, RT.CLUSTER, 'kafka-cluster', Op.CLUSTER_ACTION);
      assert.deepEqual(errors((await alice.request(ApiKey.OffsetForLeaderEpoch, 4, req)).topics.map((t: Msg) => t.partitions[0])), ['NONE', 'NONE', 'UNKNOWN_TOPIC_OR_PARTITION']);

      const dtp = (topics: string[]) => alice.request(ApiKey.DescribeTopicPartitions, 0, { topics: topics.map((name) => ({ name })), responsePartitionLimit: 100, cursor: null });
      const named = await dtp(['secret', 'orders', 'missing']);
      assert.deepEqual(
        named.topics.map((t: Msg) => [t.name, errorName(t.errorCode), t.partitions.length, t.topicId.equals(ZERO), t.topicAuthorizedOperations]),
        [
          ['orders', 'NONE', 2, false, bit(Op.DESCRIBE)],
          ['missing', 'TOPIC_AUTHORIZATION_FAILED', 0, true, NOT_REQUESTED],
          ['secret', 'TOPIC_AUTHORIZATION_FAILED', 0, true, NOT_REQUESTED],
        ],
      );
      assert.deepEqual((await dtp([])).topics.map((t: Msg) => t.name), ['orders']);
      await grant(admin, RT.TOPIC, 'missing', Op.DESCRIBE);
      const unknown = (await dtp(['missing'])).topics[0];
      assert.deepEqual([errorName(unknown.errorCode), unknown.topicAuthorizedOperations], ['UNKNOWN_TOPIC_OR_PARTITION', bit(Op.DESCRIBE)]);
    });
  });

  test('Metadata v12 and Fetch v13 by topic id: unknown ids vs ids of topics the principal may not see', async () => {
    await session(async (broker, alice, admin) => {
      await grant(admin, RT.TOPIC, 'orders', Op.DESCRIBE);
      const ordersId = broker.topics.get('orders')!.topicIdBytes;
      const secretId = broker.topics.get('secret')!.topicIdBytes;
      const unknownId = Buffer.alloc(16, 7);
      const m = await alice.request(ApiKey.Metadata, 12, { topics: [ordersId, secretId, unknownId].map((topicId) => ({ name: null, topicId })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true });
      assert.deepEqual(
        m.topics.map((t: Msg) => [t.name, errorName(t.errorCode), Buffer.from(t.topicId).toString('hex'), t.topicAuthorizedOperations]),
        [
          ['orders', 'NONE', ordersId.toString('hex'), bit(Op.DESCRIBE)],
          [null, 'TOPIC_AUTHORIZATION_FAILED', secretId.toString('hex'), NOT_REQUESTED],
          [null, 'UNKNOWN_TOPIC_ID', unknownId.toString('hex'), NOT_REQUESTED],
        ],
      );
      // by name a denied topic answers with a zero id
      const byName = await alice.request(ApiKey.Metadata, 12, { topics: [{ name: 'secret', topicId: ZERO }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual([errorName(byName.topics[0].errorCode), byName.topics[0].topicId.equals(ZERO)], ['TOPIC_AUTHORIZATION_FAILED', true]);

      const fetch = (topicIds: Buffer[]) => alice.request(ApiKey.Fetch, 13, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: topicIds.map((topicId) => ({ topicId, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] })),
        forgottenTopicsData: [], rackId: '',
      });
      const f = await fetch([ordersId, secretId, unknownId]);
      // DESCRIBE is not READ
      assert.deepEqual(errors(f.responses.map((r: Msg) => r.partitions[0])), ['TOPIC_AUTHORIZATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED', 'UNKNOWN_TOPIC_ID']);
      await grant(admin, RT.TOPIC, 'orders', Op.READ);
      assert.deepEqual(errors((await fetch([ordersId, secretId])).responses.map((r: Msg) => r.partitions[0])), ['NONE', 'TOPIC_AUTHORIZATION_FAILED']);

      // a replica's fetch (replica id >= 0) needs CLUSTER_ACTION instead of READ, even for an id nobody knows
      const replicaFetch = (version: number, topicIds: Buffer[]) => alice.request(ApiKey.Fetch, version, {
        replicaId: version < 15 ? 1 : -1, replicaState: { replicaId: version < 15 ? -1 : 1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: topicIds.map((topicId) => ({ topicId, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] })),
        forgottenTopicsData: [], rackId: '',
      });
      for (const v of [13, 15]) {
        assert.deepEqual(errors((await replicaFetch(v, [ordersId, unknownId])).responses.map((r: Msg) => r.partitions[0])), ['TOPIC_AUTHORIZATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED'], `v${v}`);
      }
      await grant(admin, RT.CLUSTER, 'kafka-cluster', Op.CLUSTER_ACTION);
      for (const v of [13, 15]) {
        assert.deepEqual(errors((await replicaFetch(v, [secretId, unknownId])).responses.map((r: Msg) => r.partitions[0])), ['NONE', 'UNKNOWN_TOPIC_ID'], `v${v}`);
      }
    });
  });
});

describe('KIP-848 groups', () => {
  const heartbeat = (c: RawClient, groupId: string, memberId: string, names: string[] | null, regex: string | null = null) =>
    c.request(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 5000,
      subscribedTopicNames: names, subscribedTopicRegex: regex, serverAssignor: null, topicPartitions: [],
    });
  const assigned = (broker: Broker, r: Msg): string[] => (r.assignment?.topicPartitions ?? []).map((tp: Msg) => broker.topics.byId(tp.topicId)?.name).sort();

  test('ConsumerGroupHeartbeat: READ on the group, DESCRIBE on each subscribed name; a regex matches only what may be described', async () => {
    await session(async (broker, alice, admin) => {
      assert.equal(errorName((await heartbeat(alice, 'g', 'm-1', ['orders'])).errorCode), 'GROUP_AUTHORIZATION_FAILED');
      await grant(admin, RT.GROUP, 'g', Op.READ);
      const denied = await heartbeat(alice, 'g', 'm-1', ['orders', 'secret']);
      assert.deepEqual([errorName(denied.errorCode), denied.memberId, denied.assignment], ['TOPIC_AUTHORIZATION_FAILED', null, null]);
      assert.equal(broker.groups.consumer.group('g'), undefined);
      await grant(admin, RT.TOPIC, 'orders', Op.DESCRIBE);
      const joined = await heartbeat(alice, 'g', 'm-1', ['orders']);
      assert.deepEqual([errorName(joined.errorCode), assigned(broker, joined)], ['NONE', ['orders']]);
      // a regex naming both topics: only the one alice may describe is assigned; the super user gets both
      const byRegex = await heartbeat(alice, 'rg', 'm-2', null, 'orders|secret');
      assert.equal(errorName(byRegex.errorCode), 'GROUP_AUTHORIZATION_FAILED');
      await grant(admin, RT.GROUP, 'rg', Op.READ);
      assert.deepEqual(assigned(broker, await heartbeat(alice, 'rg', 'm-2', null, 'orders|secret')), ['orders']);
      assert.deepEqual(assigned(broker, await heartbeat(admin, 'ag', 'm-3', null, 'orders|secret')), ['orders', 'secret']);
    });
  });

  test('ConsumerGroupDescribe: DESCRIBE on the group, its operations when asked, topics in assignments', async () => {
    await session(async (_broker, alice, admin) => {
      assert.equal(errorName((await heartbeat(admin, 'mine', 'm-1', ['orders'])).errorCode), 'NONE');
      assert.equal(errorName((await heartbeat(admin, 'theirs', 'm-2', ['secret'])).errorCode), 'NONE');
      const describe = (groupIds: string[], include: boolean) => alice.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds, includeAuthorizedOperations: include });
      const none = await describe(['mine', 'theirs'], true);
      assert.deepEqual(none.groups.map((g: Msg) => [g.groupId, errorName(g.errorCode)]), [['mine', 'GROUP_AUTHORIZATION_FAILED'], ['theirs', 'GROUP_AUTHORIZATION_FAILED']]);
      await grant(admin, RT.GROUP, 'mine', Op.READ);
      await grant(admin, RT.GROUP, 'theirs', Op.DESCRIBE);
      await grant(admin, RT.TOPIC, 'orders', Op.DESCRIBE);
      const r = await describe(['theirs', 'nobody', 'mine'], true);
      assert.deepEqual(
        r.groups.map((g: Msg) => [g.groupId, errorName(g.errorCode), g.errorMessage, g.members.length, g.authorizedOperations]),
        [
          // denied groups come first
          ['nobody', 'GROUP_AUTHORIZATION_FAILED', null, 0, NOT_REQUESTED],
          ['theirs', 'TOPIC_AUTHORIZATION_FAILED', 'The group has described topic(s) that the client is not authorized to describe.', 0, NOT_REQUESTED],
          // READ implies DESCRIBE
          ['mine', 'NONE', null, 1, bit(Op.READ, Op.DESCRIBE)],
        ],
      );
      assert.equal((await describe(['mine'], false)).groups[0].authorizedOperations, NOT_REQUESTED);
    });
  });
});
