/**
 * The classic group coordinator driven through its handlers (no sockets): the KIP-394 join
 * handshake, leader election and protocol selection, SyncGroup waiting for the leader,
 * REBALANCE_IN_PROGRESS heartbeats, batch LeaveGroup, static membership, session expiry, and the
 * error codes Kafka answers bad joins, stale generations and unknown members with. The timeouts
 * (session, rebalance, group.initial.rebalance.delay.ms) run on a ManualTimer: stepped, not slept.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../../src/protocol/error-codes.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { API, call, joinRequest, subscription } from './call.js';

const NO_DELAY = { 'group.initial.rebalance.delay.ms': '0' };

async function state(broker: Broker, groupId: string): Promise<string> {
  const r = await call(broker, API.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false });
  return r.groups[0].groupState as string;
}

/** Whether a JoinGroup / SyncGroup answer has arrived yet (after the turn of the event loop). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await nextTurn();
  return done;
}

describe('group coordinator: join, sync, heartbeat, leave', () => {
  test('MEMBER_ID_REQUIRED handshake, leader gets the members, followers wait for the leader’s assignment', async () => {
    await withBroker({ config: NO_DELAY }, async (broker) => {
      broker.topics.create('t', 6, {}, broker.logs);
      const meta = subscription(['t']);
      const protocols = [{ name: 'range', metadata: meta }];
      const first = await call(broker, API.JoinGroup, 5, joinRequest('g', '', protocols));
      assert.equal(errorName(first.errorCode), 'MEMBER_ID_REQUIRED');
      assert.match(first.memberId, /^unit-client-[0-9a-f-]{36}$/);
      const a = await call(broker, API.JoinGroup, 5, joinRequest('g', first.memberId, protocols));
      assert.equal(errorName(a.errorCode), 'NONE');
      assert.equal(a.generationId, 1);
      assert.equal(a.protocolName, 'range');
      assert.equal(a.leader, first.memberId);
      assert.deepEqual(a.members.map((m: { memberId: string; metadata: Buffer }) => [m.memberId, m.metadata.toString('hex')]), [[first.memberId, meta.toString('hex')]]);
      const aId = a.memberId as string;
      const s1 = await call(broker, API.SyncGroup, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null, assignments: [{ memberId: aId, assignment: Buffer.from('all') }] });
      assert.deepEqual([errorName(s1.errorCode), s1.assignment.toString()], ['NONE', 'all']);
      assert.equal(await state(broker, 'g'), 'Stable');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null })).errorCode), 'NONE');

      // a second member (JoinGroup v2: no handshake) starts a rebalance; the first learns it from its heartbeat
      const bJoin = call(broker, API.JoinGroup, 2, { groupId: 'g', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: meta }, { name: 'range', metadata: meta }] }, 'other');
      await nextTurn();
      assert.equal(await state(broker, 'g'), 'PreparingRebalance');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null })).errorCode), 'REBALANCE_IN_PROGRESS');
      const [aj, bj] = await Promise.all([call(broker, API.JoinGroup, 5, joinRequest('g', aId, protocols)), bJoin]);
      // range is the only protocol both support
      assert.deepEqual([errorName(aj.errorCode), aj.generationId, aj.protocolName, aj.leader, aj.members.length], ['NONE', 2, 'range', aId, 2]);
      assert.deepEqual([errorName(bj.errorCode), bj.generationId, bj.protocolName, bj.leader, bj.members.length], ['NONE', 2, 'range', aId, 0]);
      const bId = bj.memberId as string;
      assert.match(bId, /^other-/);
      assert.equal(await state(broker, 'g'), 'CompletingRebalance');
      // heartbeats between JoinGroup and SyncGroup are fine
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'g', generationId: 2, memberId: bId, groupInstanceId: null })).errorCode), 'NONE');
      const bSync = call(broker, API.SyncGroup, 1, { groupId: 'g', generationId: 2, memberId: bId, assignments: [] });
      const aSync = call(broker, API.SyncGroup, 4, {
        groupId: 'g',
        generationId: 2,
        memberId: aId,
        groupInstanceId: null,
        assignments: [
          { memberId: aId, assignment: Buffer.from('p0-2') },
          { memberId: bId, assignment: Buffer.from('p3-5') },
        ],
      });
      const [as, bs] = await Promise.all([aSync, bSync]);
      assert.deepEqual([errorName(as.errorCode), as.assignment.toString(), errorName(bs.errorCode), bs.assignment.toString()], ['NONE', 'p0-2', 'NONE', 'p3-5']);

      // stale generation and unknown members
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null })).errorCode), 'ILLEGAL_GENERATION');
      assert.equal(errorName((await call(broker, API.SyncGroup, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null, assignments: [] })).errorCode), 'ILLEGAL_GENERATION');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'g', generationId: 2, memberId: 'nobody', groupInstanceId: null })).errorCode), 'UNKNOWN_MEMBER_ID');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 'none', generationId: 2, memberId: aId, groupInstanceId: null })).errorCode), 'UNKNOWN_MEMBER_ID');
      const stale = await call(broker, API.OffsetCommit, 5, { groupId: 'g', generationIdOrMemberEpoch: 1, memberId: aId, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }] });
      assert.equal(errorName(stale.topics[0].partitions[0].errorCode), 'ILLEGAL_GENERATION');

      // LeaveGroup v3 batch: one known, one unknown; the group rebalances around the rest
      const leave = await call(broker, API.LeaveGroup, 3, { groupId: 'g', members: [{ memberId: bId, groupInstanceId: null }, { memberId: 'ghost', groupInstanceId: null }] });
      assert.equal(errorName(leave.errorCode), 'NONE');
      assert.deepEqual(leave.members.map((m: { errorCode: number }) => errorName(m.errorCode)), ['NONE', 'UNKNOWN_MEMBER_ID']);
      assert.equal(await state(broker, 'g'), 'PreparingRebalance');
      const again = await call(broker, API.JoinGroup, 5, joinRequest('g', aId, protocols));
      assert.deepEqual([errorName(again.errorCode), again.generationId, again.members.length], ['NONE', 3, 1]);
      // LeaveGroup v1 (single member) of the last member empties the group
      assert.equal(errorName((await call(broker, API.LeaveGroup, 1, { groupId: 'g', memberId: aId })).errorCode), 'NONE');
      assert.equal(await state(broker, 'g'), 'Empty');
      assert.equal(errorName((await call(broker, API.LeaveGroup, 1, { groupId: 'g', memberId: aId })).errorCode), 'UNKNOWN_MEMBER_ID');
    });
  });

  test('bad joins get Kafka’s error codes and leave the group as it was', async () => {
    await withBroker({ config: { ...NO_DELAY, 'message.max.bytes': '20000' } }, async (broker) => {
      const meta = subscription(['t']);
      const protocols = [{ name: 'range', metadata: meta }];
      const a = await call(broker, API.JoinGroup, 4, joinRequest('g', '', protocols));
      const joined = await call(broker, API.JoinGroup, 4, joinRequest('g', a.memberId, protocols));
      const aId = joined.memberId as string;
      await call(broker, API.SyncGroup, 3, { groupId: 'g', generationId: 1, memberId: aId, groupInstanceId: null, assignments: [{ memberId: aId, assignment: Buffer.from('x') }] });
      const before = await call(broker, API.DescribeGroups, 0, { groups: ['g'] });

      const code = async (req: Record<string, unknown>, version = 4) => (await call(broker, API.JoinGroup, version, req)).errorCode as number;
      assert.equal(await code(joinRequest('g', '', [{ name: 'unknown-assignor', metadata: meta }])), 23); // INCONSISTENT_GROUP_PROTOCOL
      assert.equal(await code(joinRequest('g', '', protocols, { protocolType: 'connect' })), 23);
      assert.equal(await code(joinRequest('fresh', '', [])), 23); // no protocols at all
      assert.equal(await code(joinRequest('fresh', '', protocols, { protocolType: '' })), 23);
      assert.equal(await code(joinRequest('g', 'made-up-member', protocols)), 25); // UNKNOWN_MEMBER_ID
      assert.equal(await code(joinRequest('absent', 'made-up-member', protocols)), 25);
      assert.equal(await code(joinRequest('g', '', protocols, { sessionTimeoutMs: 1000 })), 26); // INVALID_SESSION_TIMEOUT
      assert.equal(await code(joinRequest('g', '', protocols, { sessionTimeoutMs: 1800001 })), 26);
      assert.equal(await code(joinRequest('', '', protocols)), 24); // INVALID_GROUP_ID
      assert.deepEqual(await call(broker, API.DescribeGroups, 0, { groups: ['g'] }), before);
      assert.equal((await call(broker, API.DescribeGroups, 0, { groups: ['fresh'] })).groups[0].groupState, 'Dead');

      // metadata too large for __consumer_offsets (max.message.bytes from message.max.bytes): the
      // join succeeds, the leader's SyncGroup cannot be stored (UNKNOWN_SERVER_ERROR, as Kafka maps
      // RECORD_LIST_TOO_LARGE) and the group rebalances; a sane rejoin recovers it
      const big = [{ name: 'range', metadata: Buffer.alloc(50_000, 7) }];
      const bigJoin = await call(broker, API.JoinGroup, 4, joinRequest('g', aId, big));
      assert.deepEqual([errorName(bigJoin.errorCode), bigJoin.generationId], ['NONE', 2]);
      const bigSync = await call(broker, API.SyncGroup, 3, { groupId: 'g', generationId: 2, memberId: aId, groupInstanceId: null, assignments: [{ memberId: aId, assignment: Buffer.from('x') }] });
      assert.equal(errorName(bigSync.errorCode), 'UNKNOWN_SERVER_ERROR');
      assert.equal(await state(broker, 'g'), 'PreparingRebalance');
      const rejoin = await call(broker, API.JoinGroup, 4, joinRequest('g', aId, protocols));
      assert.deepEqual([errorName(rejoin.errorCode), rejoin.generationId], ['NONE', 3]);
      const sync = await call(broker, API.SyncGroup, 3, { groupId: 'g', generationId: 3, memberId: aId, groupInstanceId: null, assignments: [{ memberId: aId, assignment: Buffer.from('y') }] });
      assert.deepEqual([errorName(sync.errorCode), sync.assignment.toString()], ['NONE', 'y']);
      assert.equal(await state(broker, 'g'), 'Stable');
    });
  });

  test('static membership: a restarted instance takes its old place without a rebalance; the old id is fenced', async () => {
    await withBroker({ config: NO_DELAY }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const a = await call(broker, API.JoinGroup, 5, joinRequest('s', '', protocols, { groupInstanceId: 'instance-1' }));
      assert.deepEqual([errorName(a.errorCode), a.generationId], ['NONE', 1]); // static members skip MEMBER_ID_REQUIRED
      await call(broker, API.SyncGroup, 3, { groupId: 's', generationId: 1, memberId: a.memberId, groupInstanceId: 'instance-1', assignments: [{ memberId: a.memberId, assignment: Buffer.from('mine') }] });
      const back = await call(broker, API.JoinGroup, 5, joinRequest('s', '', protocols, { groupInstanceId: 'instance-1' }));
      assert.equal(errorName(back.errorCode), 'NONE');
      assert.equal(back.generationId, 1);
      assert.notEqual(back.memberId, a.memberId);
      assert.equal(await state(broker, 's'), 'Stable');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 's', generationId: 1, memberId: a.memberId, groupInstanceId: 'instance-1' })).errorCode), 'FENCED_INSTANCE_ID');
      assert.equal(errorName((await call(broker, API.Heartbeat, 3, { groupId: 's', generationId: 1, memberId: back.memberId, groupInstanceId: 'instance-1' })).errorCode), 'NONE');
      const sync = await call(broker, API.SyncGroup, 3, { groupId: 's', generationId: 1, memberId: back.memberId, groupInstanceId: 'instance-1', assignments: [] });
      assert.deepEqual([errorName(sync.errorCode), sync.assignment.toString()], ['NONE', 'mine']);
      // leaving by instance id alone (KIP-345 batch leave)
      const leave = await call(broker, API.LeaveGroup, 4, { groupId: 's', members: [{ memberId: '', groupInstanceId: 'instance-1' }, { memberId: '', groupInstanceId: 'instance-9' }] });
      assert.deepEqual(leave.members.map((m: { errorCode: number }) => errorName(m.errorCode)), ['NONE', 'UNKNOWN_MEMBER_ID']);
      assert.equal(await state(broker, 's'), 'Empty');
    });
  });

  test('a static member that rejoins with a longer session timeout keeps that one (rescheduleClassicGroupMemberHeartbeat)', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...NO_DELAY, 'group.min.session.timeout.ms': '100' }, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const joining = call(broker, API.JoinGroup, 5, joinRequest('st', '', protocols, { groupInstanceId: 'i1', sessionTimeoutMs: 300, rebalanceTimeoutMs: 300 }));
      timer.advance(0);
      const a = await joining;
      await call(broker, API.SyncGroup, 3, { groupId: 'st', generationId: 1, memberId: a.memberId, groupInstanceId: 'i1', assignments: [] });
      // the rolling restart after raising session.timeout.ms
      const back = await call(broker, API.JoinGroup, 5, joinRequest('st', '', protocols, { groupInstanceId: 'i1', sessionTimeoutMs: 5000, rebalanceTimeoutMs: 300 }));
      assert.equal(errorName(back.errorCode), 'NONE');
      timer.advance(1000);
      assert.equal(await state(broker, 'st'), 'Stable', 'expired after the old 300 ms');
      timer.advance(4000);
      assert.equal(await state(broker, 'st'), 'Empty');
    });
  });

  test('a member that stops heartbeating is removed after its session timeout, not before', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...NO_DELAY, 'group.min.session.timeout.ms': '100' }, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const joining = call(broker, API.JoinGroup, 1, { groupId: 'e', sessionTimeoutMs: 300, rebalanceTimeoutMs: 300, memberId: '', protocolType: 'consumer', protocols });
      timer.advance(0); // the initial join's delay of 0
      const a = await joining;
      assert.equal(errorName(a.errorCode), 'NONE');
      await call(broker, API.SyncGroup, 0, { groupId: 'e', generationId: 1, memberId: a.memberId, assignments: [] });
      timer.advance(200);
      // a heartbeat starts the session timeout again
      assert.equal(errorName((await call(broker, API.Heartbeat, 0, { groupId: 'e', generationId: 1, memberId: a.memberId })).errorCode), 'NONE');
      timer.advance(299);
      assert.equal(await state(broker, 'e'), 'Stable');
      timer.advance(1);
      assert.equal(await state(broker, 'e'), 'Empty');
      assert.equal(errorName((await call(broker, API.Heartbeat, 0, { groupId: 'e', generationId: 1, memberId: a.memberId })).errorCode), 'UNKNOWN_MEMBER_ID');
    });
  });

  test('group.initial.rebalance.delay.ms: the first generation waits, and waits again while members keep arriving', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { 'group.initial.rebalance.delay.ms': '3000' }, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const join = (clientId: string) =>
        call(broker, API.JoinGroup, 1, { groupId: 'd', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 10000, memberId: '', protocolType: 'consumer', protocols }, clientId);
      const a = join('a');
      timer.advance(2000);
      const b = join('b');
      // the delay ends at 3000, but b arrived meanwhile: another delay, up to the rebalance timeout
      timer.advance(1000);
      assert.deepEqual([await settled(a), await settled(b)], [false, false]);
      assert.equal(await state(broker, 'd'), 'PreparingRebalance');
      timer.advance(2999);
      assert.equal(await settled(a), false);
      timer.advance(1);
      const [aj, bj] = await Promise.all([a, b]);
      assert.deepEqual([errorName(aj.errorCode), aj.generationId, errorName(bj.errorCode), bj.generationId], ['NONE', 1, 'NONE', 1]);
      assert.equal(aj.leader, aj.memberId);
      assert.equal(aj.members.length, 2);
      assert.equal(await state(broker, 'd'), 'CompletingRebalance');
    });
  });

  test('group.initial.rebalance.delay.ms: a lone first member waits one delay, not two', async () => {
    // Kafka's classic coordinator marks newMemberAdded only for a join into a group already
    // PreparingRebalance at generation 0, so the member that opens the rebalance does not extend it
    const timer = new ManualTimer();
    await withBroker({ config: { 'group.initial.rebalance.delay.ms': '3000' }, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const a = call(broker, API.JoinGroup, 1, { groupId: 'lone', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 60000, memberId: '', protocolType: 'consumer', protocols }, 'a');
      timer.advance(2999);
      assert.equal(await settled(a), false);
      timer.advance(1);
      assert.equal(await settled(a), true);
      const aj = await a;
      assert.deepEqual([errorName(aj.errorCode), aj.generationId, aj.leader, aj.members.length], ['NONE', 1, aj.memberId, 1]);
    });
  });

  test('a static member that does not rejoin within the rebalance timeout stays in the next generation (completeClassicGroupJoin drops dynamic members only)', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: NO_DELAY, timer }, async (broker) => {
      const join = (memberId: string, instance: string, topics: string[]) =>
        call(broker, API.JoinGroup, 5, joinRequest('sr', memberId, [{ name: 'range', metadata: subscription(topics) }], { groupInstanceId: instance, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 400 }));
      const first = [join('', 'inst-a', ['t']), join('', 'inst-b', ['t'])];
      timer.advance(0);
      const [a, b] = await Promise.all(first);
      assert.deepEqual([errorName(a.errorCode), errorName(b.errorCode), a.generationId], ['NONE', 'NONE', 1]);
      const sync = (memberId: string, instance: string) => call(broker, API.SyncGroup, 3, { groupId: 'sr', generationId: 1, memberId, groupInstanceId: instance, assignments: [] });
      await Promise.all([sync(a.memberId, 'inst-a'), sync(b.memberId, 'inst-b')]);
      assert.equal(await state(broker, 'sr'), 'Stable');
      // B rejoins with a changed subscription (a rebalance); A stays silent past the rebalance timeout
      const bAgain = join(b.memberId, 'inst-b', ['t', 'u']);
      timer.advance(400);
      const bj = await bAgain;
      assert.deepEqual([errorName(bj.errorCode), bj.generationId, bj.leader], ['NONE', 2, b.memberId]);
      // A is still a member, in the leader's list, until its session times out
      assert.deepEqual(bj.members.map((m: { groupInstanceId: string | null }) => m.groupInstanceId).sort(), ['inst-a', 'inst-b']);
    });
  });

  test("a new member's join waits past its session timeout while the others take their rebalance timeout (new-member join timeout)", async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...NO_DELAY, 'group.min.session.timeout.ms': '100' }, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const a0 = call(broker, API.JoinGroup, 1, { groupId: 'nm', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 3000, memberId: '', protocolType: 'consumer', protocols }, 'a');
      timer.advance(0);
      const a = await a0;
      await call(broker, API.SyncGroup, 0, { groupId: 'nm', generationId: 1, memberId: a.memberId, assignments: [] });
      // B joins with a 300 ms session; A takes 1 s to rejoin
      const b = call(broker, API.JoinGroup, 1, { groupId: 'nm', sessionTimeoutMs: 300, rebalanceTimeoutMs: 3000, memberId: '', protocolType: 'consumer', protocols }, 'b');
      timer.advance(1000);
      const aAgain = call(broker, API.JoinGroup, 1, { groupId: 'nm', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 3000, memberId: a.memberId, protocolType: 'consumer', protocols }, 'a');
      const [bj, aj] = await Promise.all([b, aAgain]);
      assert.deepEqual([errorName(bj.errorCode), bj.generationId], ['NONE', 2]);
      assert.equal(aj.members.length, 2);
    });
  });

  test('a member that does not rejoin within the rebalance timeout is dropped from the next generation', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: NO_DELAY, timer }, async (broker) => {
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const join = (memberId: string, clientId: string) =>
        call(broker, API.JoinGroup, 1, { groupId: 'r', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 5000, memberId, protocolType: 'consumer', protocols }, clientId);
      const first = [join('', 'a'), join('', 'b')];
      timer.advance(0);
      const [a, b] = await Promise.all(first);
      const sync = (memberId: string, assignments: { memberId: string; assignment: Buffer }[]) =>
        call(broker, API.SyncGroup, 0, { groupId: 'r', generationId: 1, memberId, assignments });
      await Promise.all([sync(a.memberId, [{ memberId: a.memberId, assignment: Buffer.from('a') }, { memberId: b.memberId, assignment: Buffer.from('b') }]), sync(b.memberId, [])]);
      assert.equal(await state(broker, 'r'), 'Stable');
      // the leader rejoins (a rebalance); b never does
      const again = join(a.memberId, 'a');
      timer.advance(4999);
      assert.equal(await settled(again), false);
      timer.advance(1);
      const aj = await again;
      assert.deepEqual([aj.errorCode, aj.generationId, aj.members.map((m: { memberId: string }) => m.memberId)], [0, 2, [a.memberId]]);
      assert.equal(errorName((await call(broker, API.Heartbeat, 0, { groupId: 'r', generationId: 2, memberId: b.memberId })).errorCode), 'UNKNOWN_MEMBER_ID');
    });
  });
});
