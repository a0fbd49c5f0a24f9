/**
 * KIP-848 consumer groups through the ConsumerGroupHeartbeat (68) / ConsumerGroupDescribe (69)
 * handlers (no sockets): target assignment by the uniform and range assignors, revoke-before-assign
 * reconciliation (a partition reaches its new owner only once the old owner's heartbeat no longer
 * owns it), session and rebalance timeouts on a ManualTimer, leave and static leave, Kafka's error
 * codes, member-epoch checks in OffsetCommit/OffsetFetch v9, and coexistence with classic groups.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { API, call, joinRequest, subscription } from './call.js';
import { count, describeGroup, disjoint, hb } from './consumer-calls.js';

const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.session.timeout.ms': '1000', 'group.consumer.heartbeat.interval.ms': '100' };

describe('KIP-848 consumer groups: ConsumerGroupHeartbeat and ConsumerGroupDescribe', () => {
  test('a lone member gets every partition at epoch 1; ConsumerGroupDescribe shows it Stable with the uniform assignor', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 4, {}, broker.logs);
      const a = await hb(broker, { group: 'g', member: 'member-a', epoch: 0 });
      assert.deepEqual(a, { error: 'NONE', memberId: 'member-a', epoch: 1, interval: 100, assignment: { t: [0, 1, 2, 3] } });
      const d = await describeGroup(broker, 'g');
      assert.deepEqual([errorName(d.errorCode), d.groupState, d.groupEpoch, d.assignmentEpoch, d.assignorName], ['NONE', 'Stable', 1, 1, 'uniform']);
      assert.deepEqual(d.members.map((m: { memberId: string; memberEpoch: number; clientId: string; subscribedTopicNames: string[] }) => [m.memberId, m.memberEpoch, m.clientId, m.subscribedTopicNames]), [['member-a', 1, 'unit-client', ['t']]]);
      assert.deepEqual(d.members[0].assignment.topicPartitions.map((tp: { topicName: string; partitions: number[] }) => [tp.topicName, tp.partitions]), [['t', [0, 1, 2, 3]]]);
      // v0: the coordinator names the member (a Kafka Uuid string)
      const v0 = await hb(broker, { group: 'g0', member: '', epoch: 0 }, 0);
      assert.equal(v0.error, 'NONE');
      assert.match(v0.memberId ?? '', /^[A-Za-z0-9_-]{22}$/);
    });
  });

  test('revoke before assign: the new member gets a partition only once the old owner stops reporting it', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 4, {}, broker.logs);
      const a1 = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      assert.deepEqual(a1.assignment, { t: [0, 1, 2, 3] });
      // b joins: the target splits 2/2, but a still owns everything, so b gets nothing yet (UNRELEASED)
      const b1 = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      assert.deepEqual([b1.error, b1.epoch, b1.assignment], ['NONE', 2, {}]);
      assert.equal((await describeGroup(broker, 'g')).groupState, 'Reconciling');
      // a heartbeats still owning all four: it is told to keep two (revocation pending), epoch unchanged
      const a2 = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1, 2, 3] } });
      assert.deepEqual([a2.error, a2.epoch, count(a2.assignment)], ['NONE', 1, 2]);
      const kept = a2.assignment;
      // b asks again while a has not revoked: still nothing
      const b2 = await hb(broker, { group: 'g', member: 'b', epoch: 2, owned: {} });
      assert.deepEqual([b2.error, b2.epoch, count(b2.assignment)], ['NONE', 2, 0]);
      // a reports only what it keeps: it moves to epoch 2
      const a3 = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: kept });
      // (not a full request and nothing changed: Kafka leaves the assignment out)
      assert.deepEqual([a3.error, a3.epoch, a3.assignment], ['NONE', 2, null]);
      // now b gets the released two, disjoint from a's
      const b3 = await hb(broker, { group: 'g', member: 'b', epoch: 2, owned: {} });
      assert.deepEqual([b3.error, b3.epoch, count(b3.assignment)], ['NONE', 2, 2]);
      assert.ok(disjoint(kept, b3.assignment));
      assert.equal((await describeGroup(broker, 'g')).groupState, 'Stable');

      // a leaves (epoch −1): b's next heartbeat gets all four at a new epoch
      const leave = await hb(broker, { group: 'g', member: 'a', epoch: -1, topics: [], owned: {} });
      assert.deepEqual([leave.error, leave.epoch], ['NONE', -1]);
      const b4 = await hb(broker, { group: 'g', member: 'b', epoch: 2, owned: b3.assignment });
      assert.deepEqual([b4.error, b4.epoch, b4.assignment], ['NONE', 3, { t: [0, 1, 2, 3] }]);
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 2, owned: kept })).error, 'UNKNOWN_MEMBER_ID');
    });
  });

  test('session timeout fences a silent member (not before), and the survivor takes its partitions', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      const b = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } });
      const aKept = a.assignment;
      await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: aKept });
      const b2 = await hb(broker, { group: 'g', member: 'b', epoch: b.epoch, owned: {} });
      assert.equal(count(b2.assignment), 1);
      timer.advance(999);
      // b keeps heartbeating, a does not
      await hb(broker, { group: 'g', member: 'b', epoch: b2.epoch, owned: b2.assignment });
      assert.equal((await describeGroup(broker, 'g')).members.length, 2);
      timer.advance(1);
      assert.deepEqual((await describeGroup(broker, 'g')).members.map((m: { memberId: string }) => m.memberId), ['b']);
      const b3 = await hb(broker, { group: 'g', member: 'b', epoch: b2.epoch, owned: b2.assignment });
      assert.deepEqual([b3.error, b3.assignment], ['NONE', { t: [0, 1] }]);
      assert.ok(b3.epoch > b2.epoch);
      timer.advance(1000);
      assert.equal((await describeGroup(broker, 'g')).groupState, 'Empty');
    });
  });

  test('a member that does not revoke within its rebalance timeout is fenced', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...CONFIG, 'group.consumer.session.timeout.ms': '60000' }, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      await hb(broker, { group: 'g', member: 'a', epoch: 0, rebalanceTimeoutMs: 500 });
      await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } });
      assert.equal(count(a.assignment), 1);
      timer.advance(499);
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } })).error, 'NONE');
      timer.advance(1);
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } })).error, 'UNKNOWN_MEMBER_ID');
    });
  });

  test('Kafka errors: bad requests, unknown members and groups, fenced epochs, unsupported assignor', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      assert.equal((await hb(broker, { group: '', member: 'a', epoch: 0 })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: '', epoch: 0 })).error, 'INVALID_REQUEST'); // v1 needs a member id
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, rebalanceTimeoutMs: -1 })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, owned: { t: [0] } })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, topics: null })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: -2 })).error, 'INVALID_REQUEST'); // −2 needs an instance id
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: -3 })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, regex: '(' })).error, 'INVALID_REQUEST');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, assignor: 'sticky' })).error, 'UNSUPPORTED_ASSIGNOR');
      assert.equal((await hb(broker, { group: 'nope', member: 'a', epoch: 3 })).error, 'GROUP_ID_NOT_FOUND');
      // none of the refused joins created the group
      assert.equal(errorName((await describeGroup(broker, 'g')).errorCode), 'GROUP_ID_NOT_FOUND');
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      assert.equal(a.epoch, 1);
      assert.equal((await hb(broker, { group: 'g', member: 'x', epoch: 1 })).error, 'UNKNOWN_MEMBER_ID');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 2, owned: { t: [0, 1] } })).error, 'FENCED_MEMBER_EPOCH');
      // an older epoch is accepted only as the previous one with owned partitions inside the assignment
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 0, owned: { t: [0, 1] } })).error, 'INVALID_REQUEST');
      const b = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      assert.equal(b.epoch, 2);
      const a2 = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } });
      await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: a2.assignment });
      // a is at epoch 2 now, previous 1: epoch 1 owning a subset passes, owning more is fenced
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: a2.assignment })).error, 'NONE');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] } })).error, 'FENCED_MEMBER_EPOCH');
      assert.equal(errorName((await describeGroup(broker, 'classic-or-missing')).errorCode), 'GROUP_ID_NOT_FOUND');
    });
  });

  test('static members: −2 keeps the member and its target for the next incarnation; UNRELEASED_INSTANCE_ID before that', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'g', member: 'a1', epoch: 0, instance: 'i-a' });
      assert.deepEqual(a.assignment, { t: [0, 1] });
      assert.equal((await hb(broker, { group: 'g', member: 'a2', epoch: 0, instance: 'i-a' })).error, 'UNRELEASED_INSTANCE_ID');
      assert.equal((await hb(broker, { group: 'g', member: 'zz', epoch: 1, instance: 'i-a' })).error, 'FENCED_INSTANCE_ID');
      assert.equal((await hb(broker, { group: 'g', member: 'zz', epoch: 1, instance: 'i-other' })).error, 'UNKNOWN_MEMBER_ID');
      const left = await hb(broker, { group: 'g', member: 'a1', epoch: -2, instance: 'i-a', topics: [], owned: {} });
      assert.deepEqual([left.error, left.epoch], ['NONE', -2]);
      const d = await describeGroup(broker, 'g');
      assert.deepEqual([d.members.length, d.groupEpoch], [1, 1]);
      // the new incarnation takes over without a new group epoch and gets the same partitions
      const a2 = await hb(broker, { group: 'g', member: 'a2', epoch: 0, instance: 'i-a' });
      assert.deepEqual([a2.error, a2.assignment], ['NONE', { t: [0, 1] }]);
      assert.deepEqual((await describeGroup(broker, 'g')).members.map((m: { memberId: string; instanceId: string }) => [m.memberId, m.instanceId]), [['a2', 'i-a']]);
    });
  });

  test('range assignor: contiguous ranges in member-id order; regex subscriptions resolve against topics', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 5, {}, broker.logs);
      broker.topics.create('orders-1', 1, {}, broker.logs);
      broker.topics.create('orders-2', 1, {}, broker.logs);
      await hb(broker, { group: 'g', member: 'm2', epoch: 0, assignor: 'range' });
      await hb(broker, { group: 'g', member: 'm1', epoch: 0, assignor: 'range' });
      const d = await describeGroup(broker, 'g');
      assert.equal(d.assignorName, 'range');
      const targets = Object.fromEntries(d.members.map((m: { memberId: string; targetAssignment: { topicPartitions: { partitions: number[] }[] } }) => [m.memberId, m.targetAssignment.topicPartitions[0]?.partitions]));
      assert.deepEqual(targets, { m1: [0, 1, 2], m2: [3, 4] });
      const r = await hb(broker, { group: 'rx', member: 'r', epoch: 0, topics: [], regex: 'orders-.*' });
      assert.deepEqual(r.assignment, { 'orders-1': [0], 'orders-2': [0] });
    });
  });

  test('offsets: OffsetCommit/OffsetFetch v9 check the member epoch; a new topic partition count bumps the group epoch', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      const commit = (version: number, memberId: string, epoch: number) =>
        call(broker, API.OffsetCommit, version, { groupId: 'g', generationIdOrMemberEpoch: epoch, memberId, groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      const codeOf = (r: Record<string, any>) => errorName(r.topics[0].partitions[0].errorCode);
      assert.equal(codeOf(await commit(9, 'a', a.epoch)), 'NONE');
      assert.equal(codeOf(await commit(9, 'a', a.epoch + 1)), 'STALE_MEMBER_EPOCH');
      assert.equal(codeOf(await commit(9, 'x', a.epoch)), 'UNKNOWN_MEMBER_ID');
      assert.equal(codeOf(await commit(8, 'a', a.epoch)), 'UNSUPPORTED_VERSION');
      const fetch = (memberId: string | null, memberEpoch: number) =>
        call(broker, API.OffsetFetch, 9, { groups: [{ groupId: 'g', memberId, memberEpoch, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false });
      const ok = (await fetch('a', a.epoch)).groups[0];
      assert.deepEqual([errorName(ok.errorCode), ok.topics[0].partitions[0].committedOffset], ['NONE', 7n]);
      assert.equal(errorName((await fetch('a', 99)).groups[0].errorCode), 'STALE_MEMBER_EPOCH');
      assert.equal(errorName((await fetch(null, -1)).groups[0].errorCode), 'NONE');
      // more partitions: the next heartbeat sees the new metadata, bumps the epoch and assigns them
      broker.topics.addPartitions('t', 3, broker.logs);
      const a2 = await hb(broker, { group: 'g', member: 'a', epoch: a.epoch, owned: { t: [0, 1] } });
      assert.deepEqual([a2.epoch, a2.assignment], [2, { t: [0, 1, 2] }]);
    });
  });

  test('coexistence with classic groups: an empty classic group converts, keeping its offsets; an empty consumer group goes back to classic on a JoinGroup', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      // a simple (memberless) commit leaves an empty classic group holding the offset
      await call(broker, API.OffsetCommit, 8, { groupId: 'up', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      const a = await hb(broker, { group: 'up', member: 'a', epoch: 0 });
      assert.deepEqual([a.error, a.epoch], ['NONE', 1]);
      const f = await call(broker, API.OffsetFetch, 9, { groups: [{ groupId: 'up', memberId: 'a', memberEpoch: 1, topics: [{ name: 't', partitionIndexes: [1] }] }], requireStable: false });
      assert.equal(f.groups[0].topics[0].partitions[0].committedOffset, 3n);
      // once the consumer group is empty, a classic join takes the id back
      await hb(broker, { group: 'up', member: 'a', epoch: -1, topics: [], owned: {} });
      const back = await call(broker, API.JoinGroup, 5, joinRequest('up', '', [{ name: 'range', metadata: subscription(['t']) }]));
      assert.equal(errorName(back.errorCode), 'MEMBER_ID_REQUIRED');
    });
  });

  test('ListGroups lists consumer groups with their state; DeleteGroups refuses a non-empty one and deletes an empty one with its offsets', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'cg', member: 'a', epoch: 0 });
      await call(broker, API.OffsetCommit, 9, { groupId: 'cg', generationIdOrMemberEpoch: a.epoch, memberId: 'a', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 4n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      const listed = await call(broker, API.ListGroups, 4, { statesFilter: [] });
      assert.deepEqual(listed.groups.map((g: { groupId: string; protocolType: string; groupState: string }) => [g.groupId, g.protocolType, g.groupState]), [['cg', 'consumer', 'Stable']]);
      assert.deepEqual((await call(broker, API.ListGroups, 4, { statesFilter: ['empty'] })).groups, []);
      // the classic API does not describe it (Kafka 4.0 below DescribeGroups v6: Dead)
      assert.equal((await call(broker, API.DescribeGroups, 5, { groups: ['cg'], includeAuthorizedOperations: false })).groups[0].groupState, 'Dead');
      const del = async () => errorName((await call(broker, API.DeleteGroups, 2, { groupsNames: ['cg'] })).results[0].errorCode);
      assert.equal(await del(), 'NON_EMPTY_GROUP');
      await hb(broker, { group: 'cg', member: 'a', epoch: -1, topics: [], owned: {} });
      assert.equal((await call(broker, API.ListGroups, 4, { statesFilter: ['Empty'] })).groups[0].groupId, 'cg');
      assert.equal(await del(), 'NONE');
      assert.equal(errorName((await describeGroup(broker, 'cg')).errorCode), 'GROUP_ID_NOT_FOUND');
      const f = await call(broker, API.OffsetFetch, 9, { groups: [{ groupId: 'cg', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0] }] }], requireStable: false });
      assert.equal(f.groups[0].topics[0].partitions[0].committedOffset, -1n);
      assert.equal(await del(), 'GROUP_ID_NOT_FOUND');
    });
  });

  test('group.consumer.max.size: a join beyond it gets GROUP_MAX_SIZE_REACHED, a known member still heartbeats', async () => {
    await withBroker({ config: { ...CONFIG, 'group.consumer.max.size': '1' }, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      assert.equal((await hb(broker, { group: 'g', member: 'b', epoch: 0 })).error, 'GROUP_MAX_SIZE_REACHED');
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: a.epoch, owned: a.assignment })).error, 'NONE');
    });
  });

  test('Metadata v10-12 carry topic ids (how KIP-848 clients name assigned partitions): v12 looks topics up by id', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      const t = broker.topics.create('t', 2, {}, broker.logs);
      const byName = await call(broker, 3, 10, { topics: [{ name: 't', topicId: Buffer.alloc(16) }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual([byName.topics[0].name, byName.topics[0].topicId], ['t', t.topicIdBytes]);
      const byId = await call(broker, 3, 12, { topics: [{ name: null, topicId: t.topicIdBytes }, { name: null, topicId: Buffer.alloc(16, 7) }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual(byId.topics.map((x: { name: string | null; errorCode: number; partitions: unknown[] }) => [x.name, errorName(x.errorCode), x.partitions.length]), [['t', 'NONE', 2], [null, 'UNKNOWN_TOPIC_ID', 0]]);
      const v11 = await call(broker, 3, 11, { topics: [{ name: null, topicId: t.topicIdBytes }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.equal(errorName(v11.topics[0].errorCode), 'INVALID_REQUEST');
    });
  });
});
