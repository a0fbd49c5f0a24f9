/**
 * The authorization examples of Kafka's documentation (security.html, "Examples"), played by
 * kafkajs 2.2.4 clients logged in over SASL_PLAINTEXT (SCRAM-SHA-256) against StandardAuthorizer
 * with `allow.everyone.if.no.acl.found=false`; the ACLs are created through the admin API by a
 * super user, as kafka-acls.sh does:
 *
 * - the producer convenience (`--producer --topic Test- --resource-pattern-type prefixed`): WRITE,
 *   DESCRIBE and CREATE on the prefix. The producer writes to any `Test-` topic (a new one is
 *   created by its Metadata request: CREATE by prefix) and nothing else: another topic is
 *   TOPIC_AUTHORIZATION_FAILED, a group is GROUP_AUTHORIZATION_FAILED, and its all-topics
 *   Metadata lists only the `Test-` topics and Shared-topic (a topic it may not DESCRIBE is invisible).
 * - the consumer convenience (`--consumer --topic Test-topic --group Group-1`): READ and DESCRIBE on
 *   the topic, READ on the group. The consumer consumes in Group-1 and commits; it cannot write,
 *   cannot use another group, and sees only Test-topic (and Shared-topic, below) in Metadata.
 * - deny over allow ("allow everyone, deny one"): ALLOW User:* READ on Shared-topic and DENY
 *   User:bob READ on it: alice consumes it, bob's Fetch is TOPIC_AUTHORIZATION_FAILED.
 *
 * `verify` is clean after the scenario (withBroker).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kafka, logLevel, type Consumer, type SASLOptions } from 'kafkajs';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
  'allow.everyone.if.no.acl.found': 'false',
  'super.users': 'User:admin',
  'group.initial.rebalance.delay.ms': '0',
  'auto.create.topics.enable': 'true',
};
const USERS = { admin: 'admin-secret', producer: 'producer-secret', consumer: 'consumer-secret', alice: 'alice-secret', bob: 'bob-secret' };

type User = keyof typeof USERS;

const acl = (resourceType: number, resourceName: string, principal: string, operation: number, resourcePatternType: number = PatternType.LITERAL, permissionType: number = Perm.ALLOW) =>
  ({ resourceType, resourceName, resourcePatternType, principal, host: '*', operation, permissionType });

/** The Kafka error name a kafkajs failure carries (its `type`, or its cause's). */
function errorType(e: unknown): string {
  const err = e as { type?: string; cause?: { type?: string }; originalError?: { type?: string }; message?: string };
  return err.type ?? err.cause?.type ?? err.originalError?.type ?? String(err.message ?? e);
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return errorType(e);
  }
  return 'no error';
}

/** Runs a consumer until it has `count` messages (resolves them) or crashes (rejects with the Kafka error). */
function consumeOrCrash(consumer: Consumer, topic: string, count: number): Promise<string[]> {
  const got: string[] = [];
  return new Promise<string[]>((resolve, reject) => {
    consumer.on(consumer.events.CRASH, (e) => reject(new Error(errorType(e.payload.error))));
    void consumer
      .subscribe({ topics: [topic], fromBeginning: true })
      .then(() =>
        consumer.run({
          autoCommit: false,
          eachMessage: async ({ message, partition }) => {
            got.push(message.value!.toString());
            await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
            if (got.length === count) resolve(got);
          },
        }),
      )
      .catch((e: unknown) => reject(new Error(errorType(e))));
  });
}

describe("Kafka's authorization examples with kafkajs over SASL", () => {
  test('a producer and a consumer with only their ACLs do their job and nothing else; prefixed ACLs; deny over allow; denied topics are invisible', async () => {
    await withBroker({ config: CONFIG, users: USERS }, async (broker) => {
      const client = (user: User): Kafka => {
        const sasl: SASLOptions = { mechanism: 'scram-sha-256', username: user, password: USERS[user] };
        return new Kafka({ clientId: user, brokers: [broker.listenerBootstrap('SASL_PLAINTEXT')], sasl, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
      };
      const consumerOf = (user: User, groupId: string): Consumer =>
        client(user).consumer({ groupId, sessionTimeout: 10_000, rebalanceTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100, retry: { retries: 0 } });

      const admin = client('admin').admin();
      await admin.connect();
      await admin.createTopics({ topics: ['Test-topic', 'Other-topic', 'Shared-topic'].map((topic) => ({ topic, numPartitions: 1 })) });
      await admin.createAcls({
        acl: [
          // kafka-acls.sh --add --allow-principal User:producer --producer --topic Test- --resource-pattern-type prefixed
          ...[Op.WRITE, Op.DESCRIBE, Op.CREATE].map((op) => acl(RT.TOPIC, 'Test-', 'User:producer', op, PatternType.PREFIXED)),
          // kafka-acls.sh --add --allow-principal User:consumer --consumer --topic Test-topic --group Group-1
          acl(RT.TOPIC, 'Test-topic', 'User:consumer', Op.READ),
          acl(RT.TOPIC, 'Test-topic', 'User:consumer', Op.DESCRIBE),
          acl(RT.GROUP, 'Group-1', 'User:consumer', Op.READ),
          // everyone may read Shared-topic, bob may not
          acl(RT.TOPIC, 'Shared-topic', 'User:*', Op.READ),
          acl(RT.TOPIC, 'Shared-topic', 'User:*', Op.DESCRIBE),
          acl(RT.GROUP, 'Shared-', 'User:*', Op.READ, PatternType.PREFIXED),
          acl(RT.TOPIC, 'Shared-topic', 'User:bob', Op.READ, PatternType.LITERAL, Perm.DENY),
        ],
      });
      await admin.disconnect();

      // the producer: writes to Test-topic and, CREATE by prefix, to a new Test- topic
      const producer = client('producer').producer();
      await producer.connect();
      await producer.send({ topic: 'Test-topic', messages: Array.from({ length: 5 }, (_, i) => ({ value: `m${i}` })) });
      await producer.send({ topic: 'Test-new', messages: [{ value: 'created by prefix' }] });
      assert.equal(await failure(producer.send({ topic: 'Other-topic', messages: [{ value: 'no' }] })), 'TOPIC_AUTHORIZATION_FAILED');
      await producer.disconnect();
      const producerAdmin = client('producer').admin();
      await producerAdmin.connect();
      // Other-topic is invisible; Shared-topic shows because User:* may DESCRIBE it
      assert.deepEqual((await producerAdmin.listTopics()).sort(), ['Shared-topic', 'Test-new', 'Test-topic'], 'the producer sees only what it may describe');
      await producerAdmin.disconnect();
      const producerAsConsumer = consumerOf('producer', 'Group-1');
      await producerAsConsumer.connect();
      await assert.rejects(consumeOrCrash(producerAsConsumer, 'Test-topic', 1), /GROUP_AUTHORIZATION_FAILED|coordinator/i);
      await producerAsConsumer.disconnect();
      assert.equal(broker.logs.getLog('Other-topic', 0)!.logEndOffset, 0n, 'nothing reached Other-topic');

      // the consumer: consumes in Group-1 and commits, nothing else
      const consumer = consumerOf('consumer', 'Group-1');
      await consumer.connect();
      assert.deepEqual(await consumeOrCrash(consumer, 'Test-topic', 5), ['m0', 'm1', 'm2', 'm3', 'm4']);
      await consumer.disconnect();
      const superAdmin = client('admin').admin();
      await superAdmin.connect();
      const committed = await superAdmin.fetchOffsets({ groupId: 'Group-1', topics: ['Test-topic'] });
      assert.equal(committed[0]!.partitions[0]!.offset, '5', 'Group-1 committed offset');
      await superAdmin.disconnect();
      const consumerAdmin = client('consumer').admin();
      await consumerAdmin.connect();
      assert.deepEqual((await consumerAdmin.listTopics()).sort(), ['Shared-topic', 'Test-topic'], 'the consumer sees only what it may describe');
      await consumerAdmin.disconnect();
      const consumerAsProducer = client('consumer').producer();
      await consumerAsProducer.connect();
      assert.equal(await failure(consumerAsProducer.send({ topic: 'Test-topic', messages: [{ value: 'no' }] })), 'TOPIC_AUTHORIZATION_FAILED');
      await consumerAsProducer.disconnect();
      const otherGroup = consumerOf('consumer', 'Group-2');
      await otherGroup.connect();
      await assert.rejects(consumeOrCrash(otherGroup, 'Test-topic', 1), /GROUP_AUTHORIZATION_FAILED|coordinator/i);
      await otherGroup.disconnect();
      assert.equal(broker.logs.getLog('Test-topic', 0)!.logEndOffset, 5n, 'the consumer wrote nothing');

      // deny over allow
      const writer = client('admin').producer();
      await writer.connect();
      await writer.send({ topic: 'Shared-topic', messages: [{ value: 'shared' }] });
      await writer.disconnect();
      const alice = consumerOf('alice', 'Shared-alice');
      await alice.connect();
      assert.deepEqual(await consumeOrCrash(alice, 'Shared-topic', 1), ['shared']);
      await alice.disconnect();
      const bob = consumerOf('bob', 'Shared-bob');
      await bob.connect();
      await assert.rejects(consumeOrCrash(bob, 'Shared-topic', 1), /TOPIC_AUTHORIZATION_FAILED/);
      await bob.disconnect();
    });
  });
});
