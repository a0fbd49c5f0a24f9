/**
 * A KIP-848 group change takes effect only once its records are in `__consumer_offsets` (Kafka's
 * coordinator runtime reverts its timeline state when a write fails). The writes fail for real:
 * `max.message.bytes` of `__consumer_offsets` is lowered (IncrementalAlterConfigs) below the size
 * of the batch a change writes, so the append answers MESSAGE_TOO_LARGE, which the heartbeat
 * answers UNKNOWN_SERVER_ERROR (Kafka's mapping); the group must then be exactly as before: a
 * joining member not in it, the epochs unchanged, a leaving member still in it, a member fenced by
 * its session timeout still in it; once the limit is back each change happens once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { encodeMessageToBuffer } from '../../../src/protocol/codec.js';
import { ConsumerProtocolAssignment } from '../../../src/protocol/schemas/internal/consumer-protocol.js';
import { API, call, joinRequest, subscription } from './call.js';
import { describeGroup, hb } from './consumer-calls.js';

const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.session.timeout.ms': '1000', 'group.consumer.heartbeat.interval.ms': '100' };

async function offsetsTopicMaxBytes(broker: Broker, value: string): Promise<void> {
  const r = await call(broker, 44, 1, { resources: [{ resourceType: 2, resourceName: '__consumer_offsets', configs: [{ name: 'max.message.bytes', configOperation: 0, value }] }], validateOnly: false });
  assert.equal(errorName(r.responses[0].errorCode), 'NONE');
}

async function view(broker: Broker, group: string): Promise<[number, number, string[]]> {
  const d = await describeGroup(broker, group);
  assert.equal(errorName(d.errorCode), 'NONE');
  return [d.groupEpoch, d.assignmentEpoch, d.members.map((m: { memberId: string; memberEpoch: number }) => `${m.memberId}@${m.memberEpoch}`).sort()];
}

describe('consumer group: a change whose write fails does not take effect', () => {
  test('join, leave and a session-timeout fence refused by the log leave the group as it was', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
      assert.deepEqual([a.error, a.epoch, a.assignment], ['NONE', 1, { t: [0, 1] }]);
      assert.deepEqual(await view(broker, 'g'), [1, 1, ['a@1']]);

      await offsetsTopicMaxBytes(broker, '64');
      // a new member: its records do not fit, the heartbeat fails and the group does not know it
      const b = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      assert.deepEqual([b.error, b.memberId, b.epoch], ['UNKNOWN_SERVER_ERROR', null, 0]);
      assert.deepEqual(await view(broker, 'g'), [1, 1, ['a@1']]);
      // a keeps its partitions: no new target was computed
      const a2 = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1] }, topics: ['t'], rebalanceTimeoutMs: 5000 });
      assert.deepEqual([a2.error, a2.epoch, a2.assignment], ['NONE', 1, { t: [0, 1] }]);
      // a leave whose tombstones cannot be written: a is still a member
      assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: -1, topics: [], owned: {} })).error, 'UNKNOWN_SERVER_ERROR');
      assert.deepEqual(await view(broker, 'g'), [1, 1, ['a@1']]);
      // a classic member joining the consumer group (KIP-848 migration) is refused the same way
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const first = await call(broker, API.JoinGroup, 5, joinRequest('g', '', protocols));
      assert.equal(errorName(first.errorCode), 'MEMBER_ID_REQUIRED');
      const classic = await call(broker, API.JoinGroup, 5, joinRequest('g', first.memberId, protocols));
      assert.equal(errorName(classic.errorCode), 'UNKNOWN_SERVER_ERROR');
      assert.deepEqual(await view(broker, 'g'), [1, 1, ['a@1']]);
      // the session timeout fences a: the write fails, a stays and its session timer runs again
      timer.advance(1000);
      assert.deepEqual(await view(broker, 'g'), [1, 1, ['a@1']]);

      await offsetsTopicMaxBytes(broker, '1048588');
      const b2 = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
      assert.equal(b2.error, 'NONE');
      const [groupEpoch, assignmentEpoch, members] = await view(broker, 'g');
      assert.deepEqual([groupEpoch, assignmentEpoch, members.map((m) => m.split('@')[0])], [2, 2, ['a', 'b']], 'the join happened once');
      // the retried fence of a (its session timer re-armed) now goes through; b keeps heartbeating
      timer.advance(500);
      assert.equal((await hb(broker, { group: 'g', member: 'b', epoch: b2.epoch, owned: b2.assignment })).error, 'NONE');
      timer.advance(500);
      assert.deepEqual((await view(broker, 'g'))[2].map((m) => m.split('@')[0]), ['b']);
    });
  });

  test('an upgrade of a classic group whose write fails leaves the classic group with its members', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: CONFIG, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const first = await call(broker, API.JoinGroup, 5, joinRequest('up', '', protocols));
      const joining = call(broker, API.JoinGroup, 5, joinRequest('up', first.memberId, protocols));
      timer.advance(0);
      const j = await joining;
      assert.equal(errorName(j.errorCode), 'NONE');
      const assignment = Buffer.concat([Buffer.from([0, 0]), encodeMessageToBuffer(ConsumerProtocolAssignment, 0, { assignedPartitions: [{ topic: 't', partitions: [0, 1] }], userData: null })]);
      const synced = await call(broker, API.SyncGroup, 3, { groupId: 'up', generationId: j.generationId, memberId: j.memberId, groupInstanceId: null, assignments: [{ memberId: j.memberId, assignment }] });
      assert.equal(errorName(synced.errorCode), 'NONE');
      const classicHeartbeat = async (): Promise<string | undefined> => errorName((await call(broker, API.Heartbeat, 3, { groupId: 'up', generationId: j.generationId, memberId: j.memberId, groupInstanceId: null })).errorCode);

      await offsetsTopicMaxBytes(broker, '64');
      assert.equal((await hb(broker, { group: 'up', member: 'x', epoch: 0 })).error, 'UNKNOWN_SERVER_ERROR');
      // still the classic group it was: its member heartbeats on, the classic API describes it
      assert.equal(await classicHeartbeat(), 'NONE');
      const d = await call(broker, API.DescribeGroups, 5, { groups: ['up'], includeAuthorizedOperations: false });
      assert.deepEqual([d.groups[0].groupState, d.groups[0].members.map((m: { memberId: string }) => m.memberId)], ['Stable', [j.memberId]]);
      assert.equal(errorName((await describeGroup(broker, 'up')).errorCode), 'GROUP_ID_NOT_FOUND');

      await offsetsTopicMaxBytes(broker, '1048588');
      assert.equal((await hb(broker, { group: 'up', member: 'x', epoch: 0 })).error, 'NONE');
      assert.deepEqual((await view(broker, 'up'))[2].map((m) => m.split('@')[0]).sort(), [j.memberId, 'x'].sort());
    });
  });
});
