/**
 * KIP-848's online migration through the broker's handlers (no sockets, a ManualTimer): a classic
 * group with a member upgrades on the first ConsumerGroupHeartbeat (the classic member keeps its id
 * and partitions at its generation as member epoch), the classic member is told to rejoin, rejoins
 * and syncs, the server-side assignor splits the partitions, and the consumer-protocol member gets
 * its share only once the classic member gave it up; the downgrade when the last consumer-protocol
 * member leaves (the group is classic again and rebalances); `group.consumer.migration.policy`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { decodeMessage, encodeMessageToBuffer } from '../../../src/protocol/codec.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { ConsumerProtocolAssignment } from '../../../src/protocol/schemas/internal/consumer-protocol.js';
import { storedRecords, withBroker } from '../../helpers/broker.js';
import { decodeOffsetsTopicRecord } from '../../../src/internal-topics/offsets.js';
import { replayOffsetsRecords } from '../../../src/internal-topics/offsets-replay.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { API, call, joinRequest, subscription } from './call.js';
import { count, describeGroup, hb } from './consumer-calls.js';

const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.session.timeout.ms': '30000', 'group.consumer.heartbeat.interval.ms': '100' };

function partitionsOf(assignment: Buffer): number[] {
  if (assignment.length < 2) return [];
  const a = decodeMessage<{ assignedPartitions: { topic: string; partitions: number[] }[] }>(ConsumerProtocolAssignment, assignment.readInt16BE(0), assignment, 2).value;
  return a.assignedPartitions.flatMap((t) => t.partitions).sort((x, y) => x - y);
}

/** A classic member joins group `group` alone and syncs its own assignment of every partition. */
async function stableClassicGroup(broker: Broker, timer: ManualTimer, group: string, partitions: number[]): Promise<{ memberId: string; generation: number }> {
  const first = await call(broker, API.JoinGroup, 5, joinRequest(group, '', [{ name: 'range', metadata: subscription(['t']) }]));
  assert.equal(errorName(first.errorCode), 'MEMBER_ID_REQUIRED');
  const joining = call(broker, API.JoinGroup, 5, joinRequest(group, first.memberId, [{ name: 'range', metadata: subscription(['t']) }]));
  timer.advance(0);
  const j = await joining;
  assert.equal(errorName(j.errorCode), 'NONE');
  const assignment = Buffer.concat([Buffer.from([0, 0]), encodeMessageToBuffer(ConsumerProtocolAssignment, 0, { assignedPartitions: [{ topic: 't', partitions }], userData: null })]);
  const s = await call(broker, API.SyncGroup, 3, { groupId: group, generationId: j.generationId, memberId: j.memberId, groupInstanceId: null, assignments: [{ memberId: j.memberId, assignment }] });
  assert.equal(errorName(s.errorCode), 'NONE');
  return { memberId: j.memberId, generation: j.generationId };
}

const heartbeat = async (broker: Broker, group: string, memberId: string, generationId: number): Promise<string | undefined> =>
  errorName((await call(broker, API.Heartbeat, 3, { groupId: group, generationId, memberId, groupInstanceId: null })).errorCode);

describe('KIP-848 online migration between classic and consumer groups', () => {
  test('upgrade of a classic group with a member, a classic and a consumer-protocol member sharing it, and the downgrade when the consumer member leaves', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 4, {}, broker.logs);
      const c = await stableClassicGroup(broker, timer, 'mixed', [0, 1, 2, 3]);
      await call(broker, API.OffsetCommit, 8, { groupId: 'mixed', generationIdOrMemberEpoch: c.generation, memberId: c.memberId, groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 2, committedOffset: 11n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });

      // the consumer-protocol member's join upgrades the group; the classic member is in it, at its generation, owning all four
      const a1 = await hb(broker, { group: 'mixed', member: 'a', epoch: 0 });
      assert.deepEqual([a1.error, a1.epoch, a1.assignment], ['NONE', c.generation + 1, {}]);
      const d1 = await describeGroup(broker, 'mixed');
      assert.deepEqual([d1.groupState, d1.groupEpoch], ['Reconciling', c.generation + 1]);
      assert.deepEqual(d1.members.map((m: { memberId: string; memberEpoch: number }) => [m.memberId, m.memberEpoch]).sort(), [['a', c.generation + 1], [c.memberId, c.generation]].sort());
      // the classic API no longer describes it as classic; the offsets are the group's still
      assert.equal((await call(broker, API.DescribeGroups, 5, { groups: ['mixed'], includeAuthorizedOperations: false })).groups[0].groupState, 'Dead');
      const f = await call(broker, API.OffsetFetch, 9, { groups: [{ groupId: 'mixed', memberId: 'a', memberEpoch: a1.epoch, topics: [{ name: 't', partitionIndexes: [2] }] }], requireStable: false });
      assert.equal(f.groups[0].topics[0].partitions[0].committedOffset, 11n);

      // the classic member learns of the new epoch through its heartbeat, rejoins (eager: it owns nothing now) and syncs
      assert.equal(await heartbeat(broker, 'mixed', c.memberId, c.generation), 'REBALANCE_IN_PROGRESS');
      const rejoin = await call(broker, API.JoinGroup, 5, joinRequest('mixed', c.memberId, [{ name: 'range', metadata: subscription(['t']) }]));
      assert.deepEqual([errorName(rejoin.errorCode), rejoin.generationId, rejoin.leader, rejoin.members, rejoin.protocolName], ['NONE', c.generation + 1, '', [], 'range']);
      assert.equal(errorName((await call(broker, API.SyncGroup, 3, { groupId: 'mixed', generationId: c.generation, memberId: c.memberId, groupInstanceId: null, assignments: [] })).errorCode), 'ILLEGAL_GENERATION');
      const sync = await call(broker, API.SyncGroup, 3, { groupId: 'mixed', generationId: rejoin.generationId, memberId: c.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] });
      assert.equal(errorName(sync.errorCode), 'NONE');
      const classicOwns = partitionsOf(sync.assignment);
      assert.equal(classicOwns.length, 2);
      assert.equal(await heartbeat(broker, 'mixed', c.memberId, rejoin.generationId), 'NONE');
      // the consumer member gets the other two, now released
      const a2 = await hb(broker, { group: 'mixed', member: 'a', epoch: a1.epoch, owned: {} });
      assert.equal(count(a2.assignment), 2);
      assert.deepEqual([...(a2.assignment?.t ?? []), ...classicOwns].sort(), [0, 1, 2, 3]);
      assert.equal((await describeGroup(broker, 'mixed')).groupState, 'Stable');
      // the classic member's session timeout and protocols are in its member record (the tagged ClassicMemberMetadata)
      const stored = replayOffsetsRecords(storedRecords(broker.dataDir, '__consumer_offsets', 0).flatMap((r) => {
        const d = r.key === null ? undefined : decodeOffsetsTopicRecord(r.key, r.value);
        return d === undefined ? [] : [d];
      })).get('mixed');
      const md = stored?.consumer?.members.get(c.memberId)?.metadata;
      assert.deepEqual([md?.classicMemberMetadata?.sessionTimeoutMs, md?.classicMemberMetadata?.supportedProtocols.map((p) => p.name)], [10000, ['range']]);
      assert.equal(stored?.consumer?.members.get('a')?.metadata?.classicMemberMetadata ?? null, null);
      assert.equal(stored?.stored, null, 'the classic metadata got its tombstone');
      // a classic member commits with its generation, and is refused another one
      const commit = (gen: number) =>
        call(broker, API.OffsetCommit, 8, { groupId: 'mixed', generationIdOrMemberEpoch: gen, memberId: c.memberId, groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: classicOwns[0], committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      assert.equal(errorName((await commit(rejoin.generationId)).topics[0].partitions[0].errorCode), 'NONE');
      assert.equal(errorName((await commit(c.generation)).topics[0].partitions[0].errorCode), 'ILLEGAL_GENERATION');

      // the consumer member leaves: only a classic member is left, so the group is classic again and rebalances
      assert.equal((await hb(broker, { group: 'mixed', member: 'a', epoch: -1, topics: [], owned: {} })).error, 'NONE');
      assert.equal(errorName((await describeGroup(broker, 'mixed')).errorCode), 'GROUP_ID_NOT_FOUND');
      const classicView = (await call(broker, API.DescribeGroups, 5, { groups: ['mixed'], includeAuthorizedOperations: false })).groups[0];
      assert.deepEqual([classicView.groupState, classicView.members.map((m: { memberId: string }) => m.memberId)], ['PreparingRebalance', [c.memberId]]);
      assert.equal(await heartbeat(broker, 'mixed', c.memberId, rejoin.generationId), 'REBALANCE_IN_PROGRESS');
      const back = await call(broker, API.JoinGroup, 5, joinRequest('mixed', c.memberId, [{ name: 'range', metadata: subscription(['t']) }]));
      assert.deepEqual([errorName(back.errorCode), back.leader, back.generationId], ['NONE', c.memberId, rejoin.generationId + 1]);
      const f2 = await call(broker, API.OffsetFetch, 8, { groups: [{ groupId: 'mixed', topics: [{ name: 't', partitionIndexes: [2] }] }], requireStable: false });
      assert.equal(f2.groups[0].topics[0].partitions[0].committedOffset, 11n);
    });
  });

  test('a classic member that does not rejoin within its rebalance timeout is fenced; LeaveGroup removes a classic member', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const c = await stableClassicGroup(broker, timer, 'g', [0, 1]);
      const a1 = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      assert.equal(await heartbeat(broker, 'g', c.memberId, c.generation), 'REBALANCE_IN_PROGRESS');
      timer.advance(10_000); // joinRequest's rebalance timeout
      assert.deepEqual((await describeGroup(broker, 'g')).members.map((m: { memberId: string }) => m.memberId), ['a']);
      const a2 = await hb(broker, { group: 'g', member: 'a', epoch: a1.epoch, owned: {} });
      assert.deepEqual(a2.assignment, { t: [0, 1] });
      // a new classic member joins the consumer group (a fresh id through MEMBER_ID_REQUIRED), then leaves
      const j0 = await call(broker, API.JoinGroup, 5, joinRequest('g', '', [{ name: 'range', metadata: subscription(['t']) }]));
      assert.equal(errorName(j0.errorCode), 'MEMBER_ID_REQUIRED');
      const j = await call(broker, API.JoinGroup, 5, joinRequest('g', j0.memberId, [{ name: 'range', metadata: subscription(['t']) }]));
      assert.equal(errorName(j.errorCode), 'NONE');
      assert.equal((await describeGroup(broker, 'g')).members.length, 2);
      const left = await call(broker, API.LeaveGroup, 3, { groupId: 'g', members: [{ memberId: j0.memberId, groupInstanceId: null }] });
      assert.equal(errorName(left.members[0].errorCode), 'NONE');
      assert.deepEqual((await describeGroup(broker, 'g')).members.map((m: { memberId: string }) => m.memberId), ['a']);
      // a JoinGroup naming a consumer-protocol member is refused
      assert.equal(errorName((await call(broker, API.JoinGroup, 5, joinRequest('g', 'a', [{ name: 'range', metadata: subscription(['t']) }]))).errorCode), 'UNKNOWN_MEMBER_ID');
    });
  });

  test('group.consumer.migration.policy: disabled refuses the upgrade (GROUP_ID_NOT_FOUND); a bad value is a config error', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...CONFIG, 'group.consumer.migration.policy': 'DISABLED' }, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      await stableClassicGroup(broker, timer, 'g', [0, 1]);
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0 })).error, 'GROUP_ID_NOT_FOUND');
    });
    await assert.rejects(withBroker({ config: { 'group.consumer.migration.policy': 'sideways' } }, async () => {}), /String must be one of \(case insensitive\): DISABLED, UPGRADE, DOWNGRADE, BIDIRECTIONAL/);
  });
});
