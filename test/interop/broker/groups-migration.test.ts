/**
 * KIP-848's online migration with real clients in one group: a kafkajs 2.2.4 consumer (the classic
 * protocol: JoinGroup/SyncGroup/Heartbeat, eager) owns a 6-partition topic; a @platformatic/kafka
 * 2.x consumer with `groupProtocol: 'consumer'` (Node 22 child, platformatic-group-client.mjs)
 * joins the same group id through ConsumerGroupHeartbeat. The group is upgraded to a consumer
 * group with the kafkajs member inside it (ConsumerGroupDescribe lists both), the server-side
 * assignor splits the partitions between them, both consume. When the platformatic member leaves,
 * the last consumer-protocol member is gone: the group is downgraded to a classic group, kafkajs
 * rejoins and owns everything again. Every message is consumed exactly once across the three phases,
 * and the commits reach the log end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../../broker/group/call.js';
import { assertExactlyOnce, committedOffsets, describeGroup, isSplit, logEndOffsets, platformaticGroup, produce, waitFor } from './group-watch.js';

const require = createRequire(import.meta.url);

interface KConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(o: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(o: { eachMessage: (p: { topic: string; partition: number; message: { offset: string; value: Buffer | null } }) => Promise<void> }): Promise<void>;
}
const { Kafka, logLevel } = require('kafkajs') as {
  Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number }) => { consumer(o: { groupId: string; sessionTimeout: number; rebalanceTimeout: number; heartbeatInterval: number; maxWaitTimeInMs: number }): KConsumer };
  logLevel: { NOTHING: number };
};

const PARTITIONS = 6;
const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.heartbeat.interval.ms': '250', 'group.consumer.session.timeout.ms': '10000' };

async function consumerGroup(broker: Broker, group: string) {
  const g = (await call(broker, 69, 0, { groupIds: [group], includeAuthorizedOperations: false })).groups[0];
  const parts = (a: { topicPartitions: { partitions: number[] }[] }): number[] => a.topicPartitions.flatMap((tp) => tp.partitions).sort((x, y) => x - y);
  return {
    error: errorName(g.errorCode),
    state: g.groupState as string,
    members: (g.members as { clientId: string; assignment: { topicPartitions: { partitions: number[] }[] }; targetAssignment: { topicPartitions: { partitions: number[] }[] } }[]).map((m) => ({
      clientId: m.clientId,
      assigned: parts(m.assignment),
      target: parts(m.targetAssignment),
    })),
  };
}

describe('KIP-848 online migration: kafkajs (classic) and @platformatic/kafka 2.x (consumer protocol) in one group', () => {
  test('upgrade when the consumer-protocol member joins, both members share the partitions, downgrade when it leaves; every message once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-migration-'));
    const topic = 'migration-events';
    const group = 'migration-group';
    const stopFile = join(dataDir, '..', `${group}-${process.pid}-stop`);
    try {
      await withBroker({ dataDir, config: CONFIG }, async (broker) => {
        broker.topics.create(topic, PARTITIONS, {}, broker.logs);
        const expected = await produce(broker, topic, 0, 60, PARTITIONS);
        const consumed: [string, number, number, string][] = [];
        const kafka = new Kafka({ clientId: 'kafkajs-classic', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
        const classic = kafka.consumer({ groupId: group, sessionTimeout: 10000, rebalanceTimeout: 15000, heartbeatInterval: 250, maxWaitTimeInMs: 100 });
        await classic.connect();
        await classic.subscribe({ topics: [topic], fromBeginning: true });
        await classic.run({
          eachMessage: async ({ partition, message }) => {
            consumed.push(['kafkajs', partition, Number(message.offset), message.value!.toString()]);
          },
        });
        let platformatic: ReturnType<typeof platformaticGroup> | undefined;
        try {
          // phase 1: a classic group, kafkajs alone
          await waitFor('kafkajs alone owning six partitions', async () => isSplit(await describeGroup(broker, group, topic), 1, PARTITIONS));
          await waitFor('kafkajs commits of the first 60', async () => (await committedOffsets(broker, group, topic, PARTITIONS)).every((o) => o === 10n));

          // phase 2: the consumer-protocol member joins the same group id: upgraded, both inside one consumer group
          platformatic = platformaticGroup({ bootstrap: broker.bootstrap, topic, group, members: 1, stopFile, groupProtocol: 'consumer', clientIdPrefix: 'platformatic-consumer' });
          let failed: unknown;
          platformatic.catch((e: unknown) => (failed = e));
          await waitFor('both members sharing the partitions in the consumer group', async () => {
            if (failed !== undefined) throw failed;
            const g = await consumerGroup(broker, group);
            const all = g.members.flatMap((m) => m.assigned).sort((a, b) => a - b);
            return g.state === 'Stable' && g.members.length === 2 && all.length === PARTITIONS && new Set(all).size === PARTITIONS && g.members.every((m) => m.assigned.length > 0 && m.assigned.join() === m.target.join());
          });
          const mixed = await consumerGroup(broker, group);
          assert.deepEqual(mixed.members.map((m) => m.clientId).sort(), ['kafkajs-classic', 'platformatic-consumer-0']);
          // the classic API sees no classic group while it is a consumer group
          assert.equal((await describeGroup(broker, group, topic)).state, 'Dead');
          // as in groups-platformatic-consumer.test.ts: the long polls of the previous assignment end first
          await sleep(1500);
          const secondFrom = consumed.length;
          expected.push(...(await produce(broker, topic, 60, 60, PARTITIONS)));
          let ends = logEndOffsets(broker, topic, PARTITIONS);
          await waitFor('commits to the log end with both members', async () => (await committedOffsets(broker, group, topic, PARTITIONS)).every((o, i) => o === ends[i]));
          const kafkajsShare = consumed.slice(secondFrom).filter((c) => Number(c[3].slice('msg-'.length)) >= 60).length;
          assert.ok(kafkajsShare > 0 && kafkajsShare < 60, `kafkajs consumed ${kafkajsShare} of the 60 messages produced while the group was mixed`);

          // phase 3: the platformatic member leaves: the group is classic again, kafkajs owns everything
          writeFileSync(stopFile, '');
          const out = await platformatic;
          assert.deepEqual(out.errors, []);
          assert.ok(new Set(out.apis.map(([k]) => k)).has(68), 'platformatic spoke ConsumerGroupHeartbeat');
          assert.ok(!new Set(out.apis.map(([k]) => k)).has(11), 'and never JoinGroup');
          for (const [, partition, offset, value] of out.consumed) consumed.push(['platformatic', partition, offset, value]);
          assert.ok(out.consumed.length > 0, 'platformatic consumed its share');
          await waitFor('the downgraded classic group with kafkajs owning six partitions', async () => isSplit(await describeGroup(broker, group, topic), 1, PARTITIONS));
          assert.equal((await consumerGroup(broker, group)).error, 'GROUP_ID_NOT_FOUND');
          expected.push(...(await produce(broker, topic, 120, 30, PARTITIONS)));
          ends = logEndOffsets(broker, topic, PARTITIONS);
          await waitFor('kafkajs commits to the log end after the downgrade', async () => (await committedOffsets(broker, group, topic, PARTITIONS)).every((o, i) => o === ends[i]));
        } finally {
          writeFileSync(stopFile, '');
          await classic.disconnect();
          await platformatic?.catch(() => undefined);
        }
        assertExactlyOnce(consumed, expected);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(stopFile, { force: true });
    }
  });
});
