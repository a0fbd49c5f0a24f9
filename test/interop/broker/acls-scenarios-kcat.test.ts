/**
 * Kafka's authorization examples (security.html, "Examples") with kcat 1.7.1 (librdkafka 2.0.2)
 * as the clients, logged in over SASL_PLAINTEXT SCRAM-SHA-512, against StandardAuthorizer with
 * `allow.everyone.if.no.acl.found=false` (the same scenario acls-scenarios-kafkajs plays with
 * kafkajs, the ACLs here put in the broker's store as `kafkalite acls` would):
 * - the producer's `--producer --topic Test- --resource-pattern-type prefixed` ACLs: it writes to
 *   Test-topic, not to Other-topic (librdkafka's "Topic authorization failed"), and its Metadata
 *   (`kcat -L`) lists no topic it may not describe;
 * - the consumer's `--consumer --topic Test-topic --group Group-1` ACLs: it consumes in Group-1
 *   (the commit read back) and cannot write;
 * - deny over allow: User:* may READ Shared-topic, User:bob is denied; bob's consume fails.
 * `verify` is clean afterwards (withBroker).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';
import { runCommand } from '../../helpers/python-peer.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const CONFIG = {
  listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
  'authorizer.class.name': STANDARD_AUTHORIZER_CLASS,
  'allow.everyone.if.no.acl.found': 'false',
  // the PLAINTEXT listener is the test's own back door for reading committed offsets
  'super.users': 'User:ANONYMOUS',
  'group.initial.rebalance.delay.ms': '0',
};
const USERS = { producer: 'producer-secret', consumer: 'consumer-secret', alice: 'alice-secret', bob: 'bob-secret' };
type User = keyof typeof USERS;

async function kcat(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const binding = (resourceType: number, resourceName: string, principal: string, operation: number, patternType: number = PatternType.LITERAL, permissionType: number = Perm.ALLOW) =>
  ({ resourceType, resourceName, patternType, principal, host: '*', operation, permissionType });

describe("Kafka's authorization examples with kcat over SASL", () => {
  test('producer and consumer ACLs only; prefixed; deny over allow; denied topics invisible in Metadata', async () => {
    await withBroker({ config: CONFIG, users: USERS }, async (broker) => {
      for (const t of ['Test-topic', 'Other-topic', 'Shared-topic']) broker.topics.create(t, 1, {}, broker.logs);
      broker.authorizer!.store.add([
        ...[Op.WRITE, Op.DESCRIBE, Op.CREATE].map((op) => binding(RT.TOPIC, 'Test-', 'User:producer', op, PatternType.PREFIXED)),
        binding(RT.TOPIC, 'Test-topic', 'User:consumer', Op.READ),
        binding(RT.TOPIC, 'Test-topic', 'User:consumer', Op.DESCRIBE),
        binding(RT.GROUP, 'Group-1', 'User:consumer', Op.READ),
        binding(RT.TOPIC, 'Shared-topic', 'User:*', Op.READ),
        binding(RT.GROUP, 'Shared-', 'User:*', Op.READ, PatternType.PREFIXED),
        binding(RT.TOPIC, 'Shared-topic', 'User:bob', Op.READ, PatternType.LITERAL, Perm.DENY),
      ]);
      const b = broker.listenerBootstrap('SASL_PLAINTEXT');
      const as = (user: User): string[] => ['-b', b, '-X', 'security.protocol=SASL_PLAINTEXT', '-X', 'sasl.mechanisms=SCRAM-SHA-512', '-X', `sasl.username=${user}`, '-X', `sasl.password=${USERS[user]}`];

      // the producer
      const lines = Array.from({ length: 5 }, (_, i) => `m${i}`);
      const produced = await kcat([...as('producer'), '-t', 'Test-topic', '-P'], lines.join('\n') + '\n');
      assert.equal(produced.code, 0, produced.stderr);
      const other = await kcat([...as('producer'), '-t', 'Other-topic', '-P', '-X', 'message.timeout.ms=5000'], 'no\n');
      assert.match(other.stderr, /Topic authorization failed/);
      assert.equal(broker.logs.getLog('Other-topic', 0)!.logEndOffset, 0n);
      const seen = await kcat([...as('producer'), '-L']);
      assert.equal(seen.code, 0, seen.stderr);
      assert.deepEqual([...seen.stdout.matchAll(/topic "([^"]+)"/g)].map((m) => m[1]).sort(), ['Shared-topic', 'Test-topic'], 'Other-topic is invisible to the producer (User:* READ on Shared-topic implies DESCRIBE)');

      // the consumer
      const grouped = await kcat([...as('consumer'), '-G', 'Group-1', '-o', 'beginning', '-e', '-q', '-X', 'enable.auto.commit=true', '-X', 'auto.commit.interval.ms=100', 'Test-topic']);
      assert.deepEqual(grouped.stdout.trim().split('\n'), lines, grouped.stderr);
      const admin = new Kafka({ brokers: [broker.listenerBootstrap('PLAINTEXT')], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const committed = await admin.fetchOffsets({ groupId: 'Group-1', topics: ['Test-topic'] });
      await admin.disconnect();
      assert.equal(committed[0]!.partitions[0]!.offset, '5', 'Group-1 committed offset');
      const write = await kcat([...as('consumer'), '-t', 'Test-topic', '-P', '-X', 'message.timeout.ms=5000'], 'no\n');
      assert.match(write.stderr, /Topic authorization failed/);
      assert.equal(broker.logs.getLog('Test-topic', 0)!.logEndOffset, 5n, 'the consumer wrote nothing');
      const consumerSees = await kcat([...as('consumer'), '-L']);
      assert.deepEqual([...consumerSees.stdout.matchAll(/topic "([^"]+)"/g)].map((m) => m[1]).sort(), ['Shared-topic', 'Test-topic'], 'User:* may describe Shared-topic (READ implies DESCRIBE)');

      // deny over allow
      const shared = await kcat([...as('producer'), '-t', 'Shared-topic', '-P', '-X', 'message.timeout.ms=5000'], 'no\n');
      assert.match(shared.stderr, /Topic authorization failed/, 'User:* READ is no WRITE');
      broker.authorizer!.store.add([binding(RT.TOPIC, 'Shared-topic', 'User:ANONYMOUS', Op.WRITE)]);
      assert.equal((await kcat(['-b', broker.listenerBootstrap('PLAINTEXT'), '-t', 'Shared-topic', '-P'], 'shared\n')).code, 0);
      const alice = await kcat([...as('alice'), '-t', 'Shared-topic', '-C', '-o', 'beginning', '-e', '-q']);
      assert.deepEqual(alice.stdout.trim().split('\n'), ['shared'], alice.stderr);
      const bob = await kcat([...as('bob'), '-t', 'Shared-topic', '-C', '-o', 'beginning', '-e', '-q']);
      assert.notEqual(bob.code, 0);
      assert.match(bob.stderr, /Topic authorization failed/);
    });
  });
});
