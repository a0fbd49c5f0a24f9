/**
 * kafkajs 2.2.4 against the ACL APIs and the authorizer: createAcls (CreateAcls 30), describeAcls
 * (DescribeAcls 29) with a MATCH filter, deleteAcls (DeleteAcls 31), with User:ANONYMOUS (every
 * PLAINTEXT connection) a super user so the admin may manage ACLs. Then enforcement on a broker
 * without super users and allow.everyone.if.no.acl.found=false: the anonymous producer's send fails
 * with TOPIC_AUTHORIZATION_FAILED until an ACL for User:ANONYMOUS allows WRITE on the topic (added
 * through the broker's ACL store, as `kafkalite acls` would offline); a consumer group then needs
 * READ on the group and the topic (GROUP_AUTHORIZATION_FAILED before, from FindCoordinator).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';

const require = createRequire(import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const { Kafka, logLevel } = require('kafkajs') as { Kafka: new (o: Any) => Any; logLevel: { NOTHING: number } };

async function kafkaErrorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    const err = e as { type?: string; cause?: { type?: string }; originalError?: { type?: string } };
    return err.type ?? err.cause?.type ?? err.originalError?.type ?? String(e);
  }
  return 'no error';
}

const AUTHZ = { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'allow.everyone.if.no.acl.found': 'false' };
const acl = (resourceType: number, resourceName: string, principal: string, operation: number, resourcePatternType: number = PatternType.LITERAL, permissionType: number = Perm.ALLOW) =>
  ({ resourceType, resourceName, resourcePatternType, principal, host: '*', operation, permissionType });

/** The same binding as the store keeps it (pattern type under its Kafka name). */
const binding = (resourceType: number, resourceName: string, operation: number) =>
  ({ resourceType, resourceName, patternType: PatternType.LITERAL, principal: 'User:ANONYMOUS', host: '*', operation, permissionType: Perm.ALLOW });

describe('kafkajs: ACL admin calls and enforcement', () => {
  test('createAcls, describeAcls (MATCH), deleteAcls', async () => {
    await withBroker({ config: { ...AUTHZ, 'super.users': 'User:ANONYMOUS' } }, async (broker) => {
      const kafka = new Kafka({ clientId: 'kafkalite-acls', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
      const admin = kafka.admin();
      await admin.connect();
      try {
        await admin.createAcls({ acl: [acl(RT.TOPIC, 'events', 'User:alice', Op.READ), acl(RT.TOPIC, 'ev', 'User:alice', Op.WRITE, PatternType.PREFIXED), acl(RT.GROUP, 'readers', 'User:alice', Op.READ), acl(RT.TOPIC, '*', 'User:mallory', Op.ALL, PatternType.LITERAL, Perm.DENY)] });
        const matched = await admin.describeAcls({ resourceType: RT.TOPIC, resourceName: 'events', resourcePatternType: PatternType.MATCH,  operation: Op.ANY, permissionType: Perm.ANY });
        assert.deepEqual(
          matched.resources.map((r: Any) => `${r.resourceName}/${r.resourcePatternType}/${r.acls.map((a: Any) => `${a.principal}:${a.operation}:${a.permissionType}`).join(',')}`).sort(),
          [`*/${PatternType.LITERAL}/User:mallory:${Op.ALL}:${Perm.DENY}`, `ev/${PatternType.PREFIXED}/User:alice:${Op.WRITE}:${Perm.ALLOW}`, `events/${PatternType.LITERAL}/User:alice:${Op.READ}:${Perm.ALLOW}`],
        );
        assert.equal(await kafkaErrorOf(admin.createAcls({ acl: [acl(RT.CLUSTER, 'not-the-cluster', 'User:alice', Op.ALTER)] })), 'INVALID_REQUEST');
        const deleted = await admin.deleteAcls({ filters: [{ resourceType: RT.ANY, resourcePatternType: PatternType.ANY, principal: 'User:alice', operation: Op.ANY, permissionType: Perm.ALLOW }] });
        assert.deepEqual(deleted.filterResponses[0].matchingAcls.map((a: Any) => a.resourceName).sort(), ['ev', 'events', 'readers']);
        const rest = await admin.describeAcls({ resourceType: RT.ANY, resourcePatternType: PatternType.ANY,  operation: Op.ANY, permissionType: Perm.ANY });
        assert.deepEqual(rest.resources.map((r: Any) => r.resourceName), ['*']);
      } finally {
        await admin.disconnect();
      }
    });
  });

  test('an anonymous producer is denied until an ACL allows it; a consumer group needs READ on group and topic', async () => {
    await withBroker({ config: { ...AUTHZ, 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      broker.topics.create('audit', 1, {}, broker.logs);
      const kafka = new Kafka({ clientId: 'kafkalite-acls', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 1 } });
      const denied = kafka.producer({ retry: { retries: 0 } });
      await denied.connect();
      assert.equal(await kafkaErrorOf(denied.send({ topic: 'audit', messages: [{ value: 'no' }] })), 'TOPIC_AUTHORIZATION_FAILED');
      await denied.disconnect();
      assert.equal(broker.logs.getLog('audit', 0)!.logEndOffset, 0n);

      broker.authorizer!.store.add([binding(RT.TOPIC, 'audit', Op.WRITE)]);
      const producer = kafka.producer();
      await producer.connect();
      const sent = await producer.send({ topic: 'audit', messages: [{ value: 'yes' }] });
      await producer.disconnect();
      assert.deepEqual(sent.map((s: Any) => s.baseOffset), ['0']);

      // WRITE implies DESCRIBE only: the group is not even describable. FindCoordinator answers
      // GROUP_AUTHORIZATION_FAILED, which kafkajs logs (debug) and reports as "coordinator not found"
      const seen: string[] = [];
      const logCreator = () => ({ log }: Any) => { if (log.error?.type !== undefined) seen.push(log.error.type); };
      const watched = new Kafka({ clientId: 'kafkalite-acls', brokers: [broker.bootstrap], logLevel: 5, logCreator, retry: { retries: 0 } });
      const consumer = watched.consumer({ groupId: 'auditors', sessionTimeout: 10000, rebalanceTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 100, retry: { retries: 0 } });
      await consumer.connect();
      assert.equal(await kafkaErrorOf(consumer.subscribe({ topics: ['audit'], fromBeginning: true }).then(() => new Promise((resolve, reject) => {
        consumer.on(consumer.events.CRASH, (e: Any) => reject(e.payload.error));
        void consumer.run({ eachMessage: async () => resolve(undefined) }).catch(reject);
      }))), 'KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator');
      await consumer.disconnect();
      assert.ok(seen.includes('GROUP_AUTHORIZATION_FAILED'), seen.join(' '));

      broker.authorizer!.store.add([binding(RT.GROUP, 'auditors', Op.READ), binding(RT.TOPIC, 'audit', Op.READ)]);
      const reader = kafka.consumer({ groupId: 'auditors', sessionTimeout: 10000, rebalanceTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
      await reader.connect();
      await reader.subscribe({ topics: ['audit'], fromBeginning: true });
      const got = await new Promise<string>((resolve) => void reader.run({ eachMessage: async ({ message }: Any) => resolve(message.value.toString()) }));
      await reader.disconnect();
      assert.equal(got, 'yes');
    });
  });
});
