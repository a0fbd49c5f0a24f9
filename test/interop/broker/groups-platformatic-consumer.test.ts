/**
 * KIP-848 with @platformatic/kafka 2.x (`groupProtocol: 'consumer'`, Node 22 child process
 * platformatic-group-client.mjs): two members of a consumer-protocol group split a 6-partition
 * topic through ConsumerGroupHeartbeat and the server-side uniform assignor, next to a classic
 * (JoinGroup/SyncGroup) member of another group reading the same topic. After one member leaves
 * (heartbeat with epoch −1) the other owns every partition; every message is consumed exactly once
 * in each group, and the commits (OffsetCommit v9 at the member epoch) are what OffsetFetch answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../../broker/group/call.js';
import { assertExactlyOnce, committedOffsets, describeGroup, isSplit, logEndOffsets, platformaticGroup, produce, waitFor } from './group-watch.js';

const PARTITIONS = 6;
const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.heartbeat.interval.ms': '250', 'group.consumer.session.timeout.ms': '10000' };

interface ConsumerMember {
  memberId: string;
  clientId: string;
  memberEpoch: number;
  /** Partitions of the one topic, current and target. */
  assigned: number[];
  target: number[];
}

async function consumerGroup(broker: Broker, group: string): Promise<{ error: string; state: string; epoch: number; members: ConsumerMember[] }> {
  const r = await call(broker, 69, 0, { groupIds: [group], includeAuthorizedOperations: false });
  const g = r.groups[0];
  const parts = (a: { topicPartitions: { partitions: number[] }[] }): number[] => a.topicPartitions.flatMap((tp) => tp.partitions).sort((x, y) => x - y);
  return {
    error: errorName(g.errorCode) ?? '',
    state: g.groupState,
    epoch: g.groupEpoch,
    members: g.members.map((m: { memberId: string; clientId: string; memberEpoch: number; assignment: { topicPartitions: { partitions: number[] }[] }; targetAssignment: { topicPartitions: { partitions: number[] }[] } }) => ({
      memberId: m.memberId,
      clientId: m.clientId,
      memberEpoch: m.memberEpoch,
      assigned: parts(m.assignment),
      target: parts(m.targetAssignment),
    })),
  };
}

/** Stable, n members, each owning exactly its target, together every partition once. */
function reconciled(g: Awaited<ReturnType<typeof consumerGroup>>, n: number): boolean {
  if (g.state !== 'Stable' || g.members.length !== n) return false;
  const all = g.members.flatMap((m) => m.assigned).sort((a, b) => a - b);
  return all.length === PARTITIONS && all.every((p, i) => p === i) && g.members.every((m) => m.assigned.join() === m.target.join());
}

describe('@platformatic/kafka 2.x (Node 22) KIP-848 consumer groups', () => {
  test("groupProtocol 'consumer': two members split six partitions, one leaves, the other takes all; a classic group alongside", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-platformatic-kip848-'));
    const topic = 'kip848-events';
    const group = 'kip848-group';
    const classicGroup = 'kip848-classic-neighbour';
    const stopFile = join(dataDir, '..', `${group}-${process.pid}-stop`);
    const leaveFile = join(dataDir, '..', `${group}-${process.pid}-leave`);
    try {
      await withBroker({ dataDir, config: CONFIG }, async (broker) => {
        broker.topics.create(topic, PARTITIONS, {}, broker.logs);
        const expected = await produce(broker, topic, 0, 60, PARTITIONS);
        const run = platformaticGroup({ bootstrap: broker.bootstrap, topic, group, members: 2, stopFile, leaveFile, groupProtocol: 'consumer', clientIdPrefix: 'kip848-member' });
        const classic = platformaticGroup({ bootstrap: broker.bootstrap, topic, group: classicGroup, members: 1, stopFile, clientIdPrefix: 'classic-member' });
        let failed: unknown;
        run.catch((e: unknown) => (failed = e));
        classic.catch((e: unknown) => (failed = e));
        const alive = (): void => {
          if (failed !== undefined) throw failed;
        };
        try {
          await waitFor('two consumer-protocol members to split six partitions', async () => (alive(), reconciled(await consumerGroup(broker, group), 2)));
          const two = await consumerGroup(broker, group);
          assert.deepEqual(two.members.map((m) => m.assigned.length), [3, 3]);
          assert.deepEqual(two.members.map((m) => m.clientId).sort(), ['kip848-member-0', 'kip848-member-1']);
          await waitFor('the classic neighbour to own all six', async () => (alive(), isSplit(await describeGroup(broker, classicGroup, topic), 1, PARTITIONS)));
          // the classic group is not a consumer group, and the consumer group is not classic
          assert.equal((await consumerGroup(broker, classicGroup)).error, 'GROUP_ID_NOT_FOUND');
          await waitFor('commits of the first 60 messages in both groups', async () => (
            alive(),
            (await committedOffsets(broker, group, topic, PARTITIONS)).every((o) => o === 10n) && (await committedOffsets(broker, classicGroup, topic, PARTITIONS)).every((o) => o === 10n)
          ));

          writeFileSync(leaveFile, '');
          await waitFor('the remaining member to own all six', async () => (alive(), reconciled(await consumerGroup(broker, group), 1)));
          const one = await consumerGroup(broker, group);
          assert.equal(one.members[0]?.clientId, 'kip848-member-0');
          assert.ok(one.epoch > two.epoch, `group epoch ${one.epoch} after ${two.epoch}`);
          // as in groups-platformatic.test.ts: let the long polls of the old assignment end first
          await sleep(1500);
          expected.push(...(await produce(broker, topic, 60, 30, PARTITIONS)));
          const ends = logEndOffsets(broker, topic, PARTITIONS);
          await waitFor('commits up to the log end in both groups', async () => (
            alive(),
            (await committedOffsets(broker, group, topic, PARTITIONS)).every((o, i) => o === ends[i]) && (await committedOffsets(broker, classicGroup, topic, PARTITIONS)).every((o, i) => o === ends[i])
          ));
        } finally {
          writeFileSync(stopFile, '');
        }
        const [out, classicOut] = await Promise.all([run, classic]);
        assert.deepEqual(out.errors, []);
        assert.deepEqual(classicOut.errors, []);
        assertExactlyOnce(out.consumed, expected);
        assertExactlyOnce(classicOut.consumed, expected);
        // the consumer-protocol members spoke ConsumerGroupHeartbeat, never JoinGroup, and committed with v9
        const keys = new Set(out.apis.map(([k]) => k));
        assert.ok(keys.has(68), 'ConsumerGroupHeartbeat was sent');
        assert.ok(!keys.has(11), 'no JoinGroup from consumer-protocol members');
        assert.deepEqual(out.apis.filter(([k]) => k === 8).map(([, v]) => v), [9]);
        assert.ok(new Set(classicOut.apis.map(([k]) => k)).has(11), 'the classic member joined with JoinGroup');
        assert.equal((await consumerGroup(broker, group)).state, 'Empty');
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(stopFile, { force: true });
      rmSync(leaveFile, { force: true });
    }
  });
});
