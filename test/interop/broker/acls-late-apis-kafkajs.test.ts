/**
 * kafkajs 2.2.4 logged in over SASL PLAIN as a principal without cluster ACLs: its admin client's
 * listPartitionReassignments and alterPartitionReassignments fail with Kafka's
 * CLUSTER_AUTHORIZATION_FAILED (the client's own error type), fetchTopicMetadata of a topic it may
 * not DESCRIBE with TOPIC_AUTHORIZATION_FAILED; once granted DESCRIBE and ALTER on the cluster,
 * the same calls pass.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, CLUSTER_NAME, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
  'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
};

describe('kafkajs over SASL: cluster and topic authorization of the admin calls', () => {
  test('reassignments need DESCRIBE / ALTER on the cluster; a topic without DESCRIBE is refused in Metadata', async () => {
    await withBroker({ config: CONFIG }, async (broker) => {
      broker.topics.create('orders', 1, {}, broker.logs);
      const acl = (resourceType: number, resourceName: string, operation: number) =>
        ({ resourceType, resourceName, patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation, permissionType: Perm.ALLOW });
      const kafka = new Kafka({ brokers: [broker.listenerBootstrap('SASL_PLAINTEXT')], logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const typeOf = async (p: Promise<unknown>): Promise<string> => {
          try {
            await p;
            return 'NONE';
          } catch (e) {
            const x = e as { type?: string; cause?: { type?: string } };
            return x.type ?? x.cause?.type ?? String(e);
          }
        };
        const reassign = { topics: [{ topic: 'orders', partitionAssignment: [{ partition: 0, replicas: [broker.config.nodeId] }] }] };
        assert.equal(await typeOf(admin.listPartitionReassignments({})), 'CLUSTER_AUTHORIZATION_FAILED');
        assert.equal(await typeOf(admin.alterPartitionReassignments(reassign)), 'CLUSTER_AUTHORIZATION_FAILED');
        assert.equal(await typeOf(admin.fetchTopicMetadata({ topics: ['orders'] })), 'TOPIC_AUTHORIZATION_FAILED');
        broker.authorizer!.store.add([acl(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE), acl(RT.CLUSTER, CLUSTER_NAME, Op.ALTER), acl(RT.TOPIC, 'orders', Op.DESCRIBE)]);
        assert.deepEqual(await admin.listPartitionReassignments({}), { topics: [] });
        assert.equal(await typeOf(admin.alterPartitionReassignments(reassign)), 'NONE');
        const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
        assert.deepEqual(md.topics.map((t) => t.name), ['orders']);
      } finally {
        await admin.disconnect();
      }
    });
  });
});
