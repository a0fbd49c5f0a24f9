/**
 * The ACL APIs and the checks in the handlers, through the handlers as a connection calls them,
 * with the principal a connection would carry: SECURITY_DISABLED without an authorizer; ACL
 * management for super users only (CLUSTER_AUTHORIZATION_FAILED otherwise); creation validation;
 * MATCH filters; deletion; persistence across a restart; and Kafka's errors for denied Produce
 * (TOPIC_AUTHORIZATION_FAILED whether or not the topic exists), Fetch, Metadata (hidden in the
 * all-topics answer, TOPIC_AUTHORIZATION_FAILED when named, no auto-creation without CREATE),
 * JoinGroup/OffsetCommit (GROUP_AUTHORIZATION_FAILED), InitProducerId and ListGroups filtering.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { ApiKey } from '../../../src/protocol/api-keys.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { call, joinRequest, subscription } from '../group/call.js';
import { RawClient } from '../../helpers/raw-client.js';

const ADMIN = 'User:admin';
const ANON = 'User:ANONYMOUS';
const AUTHZ = { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'super.users': ADMIN };

const creation = (resourceType: number, resourceName: string, principal: string, operation: number, permissionType: number = Perm.ALLOW, resourcePatternType: number = PatternType.LITERAL) =>
  ({ resourceType, resourceName, resourcePatternType, principal, host: '*', operation, permissionType });
const anyFilter = { resourceTypeFilter: RT.ANY, resourceNameFilter: null, patternTypeFilter: PatternType.ANY, principalFilter: null, hostFilter: null, operation: Op.ANY, permissionType: Perm.ANY };
const produce = (topic: string) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch([{ key: 'k', value: 'v' }]) }] }] });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const produceError = (r: any) => errorName(r.responses[0].partitionResponses[0].errorCode);

describe('ACL APIs', () => {
  test('without an authorizer: SECURITY_DISABLED', async () => {
    await withBroker({}, async (broker) => {
      const d = await call(broker, ApiKey.DescribeAcls, 2, anyFilter);
      assert.equal(errorName(d.errorCode), 'SECURITY_DISABLED');
      const c = await call(broker, ApiKey.CreateAcls, 2, { creations: [creation(RT.TOPIC, 't', 'User:a', Op.READ)] });
      assert.equal(errorName(c.results[0].errorCode), 'SECURITY_DISABLED');
      const x = await call(broker, ApiKey.DeleteAcls, 2, { filters: [anyFilter] });
      assert.equal(errorName(x.filterResults[0].errorCode), 'SECURITY_DISABLED');
    });
  });

  test('create, describe with MATCH, delete; only for a principal allowed on the cluster; kept across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-acl-apis-'));
    try {
      await withBroker({ dataDir, config: AUTHZ }, async (broker) => {
        const denied = await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 't', ANON, Op.ALL)] }, 'c', ANON);
        assert.equal(errorName(denied.results[0].errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
        assert.equal(errorName((await call(broker, ApiKey.DescribeAcls, 3, anyFilter, 'c', ANON)).errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
        const c = await call(broker, ApiKey.CreateAcls, 3, {
          creations: [
            creation(RT.TOPIC, 'payments', 'User:alice', Op.READ),
            creation(RT.TOPIC, 'pay', 'User:alice', Op.WRITE, Perm.ALLOW, PatternType.PREFIXED),
            creation(RT.TOPIC, '*', 'User:*', Op.DESCRIBE),
            creation(RT.TOPIC, 'other', 'User:bob', Op.READ, Perm.DENY),
            creation(RT.CLUSTER, 'my-cluster', 'User:alice', Op.ALTER),
            creation(RT.TOPIC, '', 'User:alice', Op.READ),
            creation(RT.TOPIC, 'x', 'User:alice', Op.READ, Perm.ALLOW, PatternType.MATCH),
            creation(RT.TOPIC, 'x', 'User:alice', Op.ANY),
            creation(RT.TOPIC, 'x', 'alice', Op.READ),
          ],
        }, 'c', ADMIN);
        assert.deepEqual(c.results.map((r: { errorCode: number }) => errorName(r.errorCode)), ['NONE', 'NONE', 'NONE', 'NONE', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST']);
        assert.equal(c.results[4].errorMessage, 'The only valid name for the CLUSTER resource is kafka-cluster');
        assert.equal(c.results[5].errorMessage, 'Invalid empty resource name');
        // MATCH: every ACL that applies to the topic "payments": its literal, the prefix and the wildcard
        const m = await call(broker, ApiKey.DescribeAcls, 3, { ...anyFilter, resourceTypeFilter: RT.TOPIC, resourceNameFilter: 'payments', patternTypeFilter: PatternType.MATCH }, 'c', ADMIN);
        assert.equal(errorName(m.errorCode), 'NONE');
        assert.deepEqual(m.resources.map((r: { resourceName: string; patternType: number }) => `${r.resourceName}/${r.patternType}`).sort(), ['*/3', 'pay/4', 'payments/3']);
        // v0 has no pattern type: LITERAL
        const { patternTypeFilter: _none, ...v0Filter } = anyFilter;
        const v0 = await call(broker, ApiKey.DescribeAcls, 0, { ...v0Filter, principalFilter: 'User:bob' }, 'c', ADMIN);
        assert.deepEqual(v0.resources.map((r: { resourceName: string }) => r.resourceName), ['other']);
      });
      await withBroker({ dataDir, config: AUTHZ }, async (broker) => {
        const all = await call(broker, ApiKey.DescribeAcls, 1, anyFilter, 'c', ADMIN);
        assert.equal(all.resources.length, 4);
        const x = await call(broker, ApiKey.DeleteAcls, 3, { filters: [{ ...anyFilter, principalFilter: 'User:alice' }, { ...anyFilter, permissionType: Perm.DENY }] }, 'c', ADMIN);
        assert.deepEqual(x.filterResults.map((r: { matchingAcls: unknown[] }) => r.matchingAcls.length), [2, 1]);
        assert.equal(x.filterResults[1].matchingAcls[0].resourceName, 'other');
      });
      await withBroker({ dataDir, config: AUTHZ }, async (broker) => {
        const all = await call(broker, ApiKey.DescribeAcls, 1, anyFilter, 'c', ADMIN);
        assert.deepEqual(all.resources.map((r: { resourceName: string }) => r.resourceName), ['*']);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('ACL requests Kafka cannot parse', () => {
  test('an UNKNOWN code in a filter or creation closes the connection; the broker keeps serving', async () => {
    await withBroker({ config: AUTHZ }, async (broker) => {
      const bodies: [number, Record<string, unknown>][] = [
        [ApiKey.DescribeAcls, { ...anyFilter, resourceTypeFilter: 0 }],
        [ApiKey.DescribeAcls, { ...anyFilter, operation: 0 }],
        [ApiKey.CreateAcls, { creations: [creation(RT.TOPIC, 't', 'User:a', Op.READ, 0)] }],
        [ApiKey.DeleteAcls, { filters: [{ ...anyFilter, patternTypeFilter: 0 }] }],
      ];
      for (const [apiKey, body] of bodies) {
        const c = await RawClient.connect(broker.port);
        try {
          await assert.rejects(c.request(apiKey, 3, body), /connection closed by the broker/);
        } finally {
          c.socket.destroy();
        }
      }
      const c = await RawClient.connect(broker.port);
      try {
        // User:ANONYMOUS is no super user here: a well-formed request is answered
        assert.equal(errorName((await c.request(ApiKey.DescribeAcls, 3, anyFilter)).errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('authorization checks in the handlers', () => {
  test('Produce, Fetch and Metadata as KafkaApis answers a principal without ACLs, then with them', async () => {
    await withBroker({ config: AUTHZ }, async (broker) => {
      broker.topics.create('orders', 1, {}, broker.logs);
      broker.topics.create('secret', 1, {}, broker.logs);
      assert.equal(produceError(await call(broker, ApiKey.Produce, 9, produce('orders'), 'c', ANON)), 'TOPIC_AUTHORIZATION_FAILED');
      // existence is not revealed
      assert.equal(produceError(await call(broker, ApiKey.Produce, 9, produce('missing'), 'c', ANON)), 'TOPIC_AUTHORIZATION_FAILED');
      assert.equal(broker.topics.get('missing'), undefined);
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 'orders', ANON, Op.WRITE)] }, 'c', ADMIN);
      assert.equal(produceError(await call(broker, ApiKey.Produce, 9, produce('orders'), 'c', ANON)), 'NONE');
      assert.equal(broker.logs.getLog('orders', 0)!.logEndOffset, 1n);
      // WRITE implies DESCRIBE, not READ
      const fetch = { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: 'orders', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }], forgottenTopicsData: [], rackId: '' };
      assert.equal(errorName((await call(broker, ApiKey.Fetch, 12, fetch, 'c', ANON)).responses[0].partitions[0].errorCode), 'TOPIC_AUTHORIZATION_FAILED');
      const all = await call(broker, ApiKey.Metadata, 9, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true, includeClusterAuthorizedOperations: true }, 'c', ANON);
      assert.deepEqual(all.topics.map((t: { name: string }) => t.name), ['orders']);
      assert.equal(all.topics[0].topicAuthorizedOperations, (1 << Op.WRITE) | (1 << Op.DESCRIBE));
      assert.equal(all.clusterAuthorizedOperations, 0);
      const named = await call(broker, ApiKey.Metadata, 9, { topics: [{ name: 'secret' }, { name: 'new-one' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: false }, 'c', ANON);
      assert.deepEqual(named.topics.map((t: { errorCode: number }) => errorName(t.errorCode)), ['TOPIC_AUTHORIZATION_FAILED', 'TOPIC_AUTHORIZATION_FAILED']);
      // DESCRIBE but no CREATE: not auto-created
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 'new-', ANON, Op.DESCRIBE, Perm.ALLOW, PatternType.PREFIXED)] }, 'c', ADMIN);
      const noCreate = await call(broker, ApiKey.Metadata, 9, { topics: [{ name: 'new-one' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: false }, 'c', ANON);
      assert.equal(errorName(noCreate.topics[0].errorCode), 'TOPIC_AUTHORIZATION_FAILED');
      assert.equal(broker.topics.get('new-one'), undefined);
      // the super user sees everything and its cluster operations
      const admin = await call(broker, ApiKey.Metadata, 9, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: true }, 'c', ADMIN);
      assert.deepEqual(admin.topics.map((t: { name: string }) => t.name).sort(), ['orders', 'secret']);
      assert.notEqual(admin.clusterAuthorizedOperations, 0);
    });
  });

  test('groups: JoinGroup and OffsetCommit need READ on the group; ListGroups lists what may be described', async () => {
    await withBroker({ config: { ...AUTHZ, 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      broker.topics.create('orders', 1, {}, broker.logs);
      const join = await call(broker, ApiKey.JoinGroup, 5, joinRequest('g', '', [{ name: 'range', metadata: subscription(['orders']) }]), 'c', ANON);
      assert.equal(errorName(join.errorCode), 'GROUP_AUTHORIZATION_FAILED');
      const commit = { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }] };
      assert.equal(errorName((await call(broker, ApiKey.OffsetCommit, 8, commit, 'c', ANON)).topics[0].partitions[0].errorCode), 'GROUP_AUTHORIZATION_FAILED');
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.GROUP, 'g', ANON, Op.READ)] }, 'c', ADMIN);
      // the group is readable, the topic not
      assert.equal(errorName((await call(broker, ApiKey.OffsetCommit, 8, commit, 'c', ANON)).topics[0].partitions[0].errorCode), 'TOPIC_AUTHORIZATION_FAILED');
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 'orders', ANON, Op.READ)] }, 'c', ADMIN);
      assert.equal(errorName((await call(broker, ApiKey.OffsetCommit, 8, commit, 'c', ANON)).topics[0].partitions[0].errorCode), 'NONE');
      await call(broker, ApiKey.OffsetCommit, 8, { ...commit, groupId: 'hidden' }, 'c', ADMIN);
      const listed = await call(broker, ApiKey.ListGroups, 4, { statesFilter: [] }, 'c', ANON);
      assert.deepEqual(listed.groups.map((g: { groupId: string }) => g.groupId), ['g']);
      const adminListed = await call(broker, ApiKey.ListGroups, 4, { statesFilter: [] }, 'c', ADMIN);
      assert.deepEqual(adminListed.groups.map((g: { groupId: string }) => g.groupId).sort(), ['g', 'hidden']);
    });
  });

  test('InitProducerId: idempotent producers need IDEMPOTENT_WRITE on the cluster or WRITE on some topic; transactional ids WRITE', async () => {
    await withBroker({ config: AUTHZ }, async (broker) => {
      const idempotent = { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 };
      assert.equal(errorName((await call(broker, ApiKey.InitProducerId, 4, idempotent, 'c', ANON)).errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      assert.equal(errorName((await call(broker, ApiKey.InitProducerId, 4, { ...idempotent, transactionalId: 'tx' }, 'c', ANON)).errorCode), 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 'logs-', ANON, Op.WRITE, Perm.ALLOW, PatternType.PREFIXED)] }, 'c', ADMIN);
      assert.equal(errorName((await call(broker, ApiKey.InitProducerId, 4, idempotent, 'c', ANON)).errorCode), 'NONE');
    });
  });
  test('topic administration: CreateTopics, DeleteTopics, configs and log dirs answer Kafka\'s authorization errors', async () => {
    await withBroker({ config: AUTHZ }, async (broker) => {
      broker.topics.create('kept', 1, {}, broker.logs);
      const create = await call(broker, ApiKey.CreateTopics, 7, { topics: [{ name: 'fresh', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, 'c', ANON);
      assert.deepEqual([errorName(create.topics[0].errorCode), create.topics[0].errorMessage], ['TOPIC_AUTHORIZATION_FAILED', 'Authorization failed.']);
      assert.equal(broker.topics.get('fresh'), undefined);
      await call(broker, ApiKey.CreateAcls, 3, { creations: [creation(RT.TOPIC, 'gone', ANON, Op.DESCRIBE), creation(RT.TOPIC, 'kept', ANON, Op.DESCRIBE)] }, 'c', ADMIN);
      const del = await call(broker, ApiKey.DeleteTopics, 5, { topicNames: ['secret', 'gone', 'kept'], timeoutMs: 5000 }, 'c', ANON);
      // no DESCRIBE: denied; DESCRIBE on a missing topic: unknown; DESCRIBE but no DELETE: denied
      assert.deepEqual(del.responses.map((r: { errorCode: number }) => errorName(r.errorCode)), ['TOPIC_AUTHORIZATION_FAILED', 'UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_AUTHORIZATION_FAILED']);
      assert.notEqual(broker.topics.get('kept'), undefined);
      const configs = await call(broker, ApiKey.DescribeConfigs, 4, { resources: [{ resourceType: 2, resourceName: 'kept', configurationKeys: null }, { resourceType: 4, resourceName: '', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }, 'c', ANON);
      assert.deepEqual(configs.results.map((r: { errorCode: number }) => errorName(r.errorCode)), ['TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);
      const alter = await call(broker, ApiKey.IncrementalAlterConfigs, 1, { resources: [{ resourceType: 2, resourceName: 'kept', configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }], validateOnly: false }, 'c', ANON);
      assert.equal(errorName(alter.responses[0].errorCode), 'TOPIC_AUTHORIZATION_FAILED');
      const dirs = await call(broker, 35, 4, { topics: null }, 'c', ANON);
      assert.equal(errorName(dirs.errorCode), 'CLUSTER_AUTHORIZATION_FAILED');
      // the super user may
      const adminDel = await call(broker, ApiKey.DeleteTopics, 5, { topicNames: ['kept'], timeoutMs: 5000 }, 'c', ADMIN);
      assert.equal(errorName(adminDel.responses[0].errorCode), 'NONE');
    });
  });
});
