/**
 * KIP-848 group state in `__consumer_offsets` (Kafka 4.0's consumer-group records, key versions
 * 3-8): what a heartbeat that changes the group writes (and that one changing nothing writes
 * nothing), a restart bringing the group back at the same epochs with the same members and
 * assignments, members that do not come back fenced on their session timeout as Kafka does, and
 * DeleteGroups leaving tombstones so the next restart finds no group.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { decodeOffsetsTopicRecord, type OffsetsTopicRecord } from '../../../src/internal-topics/offsets.js';
import { replayOffsetsRecords } from '../../../src/internal-topics/offsets-replay.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { storedRecords, withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { API, call } from './call.js';
import { count, describeGroup, hb, type Owned } from './consumer-calls.js';

const BIN = join(REPO_ROOT, 'bin', 'kafkalite.js');
const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.session.timeout.ms': '1000', 'group.consumer.heartbeat.interval.ms': '100', 'offsets.topic.num.partitions': '1' };

/** The group's records in `__consumer_offsets`, decoded, in log order. */
function groupRecords(dataDir: string): OffsetsTopicRecord[] {
  return storedRecords(dataDir, '__consumer_offsets', 0).flatMap((r) => {
    const d = r.key === null ? undefined : decodeOffsetsTopicRecord(r.key, r.value);
    return d === undefined ? [] : [d];
  });
}

/** What ConsumerGroupDescribe says, reduced to what must survive a restart. */
async function snapshot(broker: Broker, group: string) {
  const d = await describeGroup(broker, group);
  const parts = (a: { topicPartitions: { topicName: string; partitions: number[] }[] }): string => a.topicPartitions.map((tp) => `${tp.topicName}:${tp.partitions.join(',')}`).join(' ');
  return {
    error: errorName(d.errorCode),
    state: d.groupState,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.assignmentEpoch,
    members: d.members
      .map((m: { memberId: string; memberEpoch: number; clientId: string; subscribedTopicNames: string[]; assignment: never; targetAssignment: never }) => ({
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        topics: m.subscribedTopicNames,
        assigned: parts(m.assignment),
        target: parts(m.targetAssignment),
      }))
      .sort((a: { memberId: string }, b: { memberId: string }) => (a.memberId < b.memberId ? -1 : 1)),
  };
}

async function committed(broker: Broker, group: string): Promise<bigint[]> {
  const r = await call(broker, API.OffsetFetch, 9, { groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0, 1, 2, 3] }] }], requireStable: false });
  return r.groups[0].topics[0].partitions.map((p: { committedOffset: bigint }) => p.committedOffset);
}

describe('KIP-848 consumer groups in __consumer_offsets', () => {
  test('an empty consumer group without offsets is deleted by the retention check, with tombstones', async () => {
    const timer = new ManualTimer();
    await withBroker({ config: { ...CONFIG, 'group.consumer.session.timeout.ms': '30000', 'offsets.retention.check.interval.ms': '1000' }, timer }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      await hb(broker, { group: 'gone', member: 'a', epoch: 0 });
      timer.advance(1000);
      assert.equal((await snapshot(broker, 'gone')).state, 'Stable', 'a group with members stays');
      assert.equal((await hb(broker, { group: 'gone', member: 'a', epoch: -1, topics: [], owned: {} })).error, 'NONE');
      assert.equal((await snapshot(broker, 'gone')).state, 'Empty');
      timer.advance(1000);
      assert.equal((await snapshot(broker, 'gone')).error, 'GROUP_ID_NOT_FOUND');
      assert.equal(replayOffsetsRecords(groupRecords(broker.dataDir)).get('gone'), undefined);
    });
  });

  test('records of each change (none for a no-op heartbeat), the group back after a restart, absent members fenced, tombstones on delete', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-kip848-store-'));
    try {
      let before: Awaited<ReturnType<typeof snapshot>> | undefined;
      let aOwned: Owned | null = null;
      let bOwned: Owned | null = null;
      await withBroker({ dataDir, config: CONFIG, timer: new ManualTimer() }, async (broker) => {
        broker.topics.create('t', 4, {}, broker.logs);
        await hb(broker, { group: 'g', member: 'a', epoch: 0 });
        const b1 = await hb(broker, { group: 'g', member: 'b', epoch: 0 });
        const a2 = await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: { t: [0, 1, 2, 3] } });
        aOwned = a2.assignment;
        await hb(broker, { group: 'g', member: 'a', epoch: 1, owned: aOwned });
        const b2 = await hb(broker, { group: 'g', member: 'b', epoch: b1.epoch, owned: {} });
        bOwned = b2.assignment;
        assert.equal(count(aOwned) + count(bOwned), 4);
        const commit = await call(broker, API.OffsetCommit, 9, { groupId: 'g', generationIdOrMemberEpoch: b2.epoch, memberId: 'b', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: 'm' }] }] });
        assert.equal(errorName(commit.topics[0].partitions[0].errorCode), 'NONE');
        before = await snapshot(broker, 'g');
        assert.equal(before.state, 'Stable');

        // every record type, in Kafka's key versions, for this group
        const recs = groupRecords(dataDir);
        const kinds = new Set(recs.flatMap((r) => (r.type === 'consumerGroup' ? [r.record.kind] : [])));
        assert.deepEqual([...kinds].sort(), ['currentAssignment', 'groupEpoch', 'memberMetadata', 'partitionMetadata', 'targetEpoch', 'targetMember']);
        const last = replayOffsetsRecords(recs).get('g');
        assert.equal(last?.consumer?.groupEpoch, before.groupEpoch);
        assert.equal(last?.consumer?.assignmentEpoch, before.assignmentEpoch);
        assert.deepEqual([...(last?.consumer?.members.keys() ?? [])].sort(), ['a', 'b']);
        assert.equal(last?.consumer?.topics[0]?.topicName, 't');
        assert.equal(last?.consumer?.topics[0]?.numPartitions, 4);

        // a heartbeat that changes nothing writes nothing
        const n = storedRecords(dataDir, '__consumer_offsets', 0).length;
        assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: before.groupEpoch, owned: aOwned })).error, 'NONE');
        assert.equal(storedRecords(dataDir, '__consumer_offsets', 0).length, n);
      });

      // offline: `kafkalite groups` and dump-log's offsets decoder read the same records
      const groups = spawnSync(process.execPath, [BIN, 'groups', dataDir, '--json'], { encoding: 'utf8' });
      assert.equal(groups.status, 0, groups.stderr);
      const view = (JSON.parse(groups.stdout) as { groups: { groupId: string; groupType: string; state: string; generation: number; assignmentEpoch: number; protocol: string; members: { memberId: string; memberEpoch: number; assignment: { topic: string; partitions: number[] }[]; targetAssignment: unknown[] }[]; offsets: { offset: number }[] }[] }).groups;
      assert.deepEqual(view.map((g) => [g.groupId, g.groupType, g.state, g.generation, g.assignmentEpoch, g.protocol]), [['g', 'consumer', 'Stable', before!.groupEpoch, before!.assignmentEpoch, 'uniform']]);
      const flat = (a: { topic: string; partitions: number[] }[]): string => a.map((t) => `${t.topic}:${t.partitions.join(',')}`).join(' ');
      assert.deepEqual(
        view[0]!.members.map((m) => [m.memberId, m.memberEpoch, flat(m.assignment)]).sort(),
        before!.members.map((m: { memberId: string; memberEpoch: number; assigned: string }) => [m.memberId, m.memberEpoch, m.assigned]),
      );
      assert.deepEqual(view[0]!.offsets.map((o) => o.offset), [5]);
      const segment = readdirSync(join(dataDir, '__consumer_offsets-0')).find((f) => f.endsWith('.log'))!;
      const dump = spawnSync(process.execPath, [BIN, 'dump-log', '--offsets-decoder', '--files', join(dataDir, '__consumer_offsets-0', segment)], { encoding: 'utf8' });
      assert.equal(dump.status, 0, dump.stderr);
      const epochLines = dump.stdout.split('\n').filter((l) => l.includes('key: {"type":"3","data":{"groupId":"g"}}'));
      assert.ok(epochLines.at(-1)?.endsWith(`payload: {"version":"0","data":{"epoch":${before!.groupEpoch}}}`), epochLines.join('\n'));
      for (const type of ['4', '5', '6', '7', '8']) assert.ok(dump.stdout.includes(`key: {"type":"${type}","data":{"groupId":"g"`), `a record of key version ${type}`);

      const timer = new ManualTimer();
      await withBroker({ dataDir, config: CONFIG, timer }, async (broker) => {
        // the same group, epochs, members and assignments, and the offsets
        assert.deepEqual(await snapshot(broker, 'g'), before);
        assert.deepEqual(await committed(broker, 'g'), [5n, -1n, -1n, -1n]);
        // a rejoins with its id and epoch and carries on; b stays away
        const epoch = before!.groupEpoch;
        const a = await hb(broker, { group: 'g', member: 'a', epoch, owned: aOwned });
        assert.deepEqual([a.error, a.epoch], ['NONE', epoch]);
        // the restored member still commits at its epoch
        const commit = await call(broker, API.OffsetCommit, 9, { groupId: 'g', generationIdOrMemberEpoch: epoch, memberId: 'a', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 1, committedOffset: 9n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        assert.equal(errorName(commit.topics[0].partitions[0].errorCode), 'NONE');
        timer.advance(600);
        await hb(broker, { group: 'g', member: 'a', epoch, owned: aOwned });
        timer.advance(400);
        // b's session (restarted at load) ran out: fenced, a takes everything at a new epoch
        const s = await snapshot(broker, 'g');
        assert.deepEqual(s.members.map((m: { memberId: string }) => m.memberId), ['a']);
        assert.equal(s.groupEpoch, epoch + 1);
        const a2 = await hb(broker, { group: 'g', member: 'a', epoch, owned: aOwned });
        assert.deepEqual([a2.error, a2.epoch, a2.assignment], ['NONE', epoch + 1, { t: [0, 1, 2, 3] }]);
        before = await snapshot(broker, 'g');
      });

      await withBroker({ dataDir, config: CONFIG, timer: new ManualTimer() }, async (broker) => {
        assert.deepEqual(await snapshot(broker, 'g'), before);
        assert.deepEqual(await committed(broker, 'g'), [5n, 9n, -1n, -1n]);
        // b's old id is gone for good
        assert.equal((await hb(broker, { group: 'g', member: 'b', epoch: 2, owned: bOwned })).error, 'UNKNOWN_MEMBER_ID');
        assert.equal((await hb(broker, { group: 'g', member: 'a', epoch: -1, topics: [], owned: {} })).error, 'NONE');
        assert.equal((await snapshot(broker, 'g')).state, 'Empty');
        const del = await call(broker, API.DeleteGroups, 2, { groupsNames: ['g'] });
        assert.equal(errorName(del.results[0].errorCode), 'NONE');
      });

      // tombstones for every consumer-group record and offset: nothing left to load
      const recs = groupRecords(dataDir);
      const lastTombstones = recs.slice(-8).filter((r) => (r.type === 'consumerGroup' ? r.record.value === null : r.value === null));
      assert.ok(lastTombstones.length >= 6, `tombstones at the end of the log: ${lastTombstones.length}`);
      assert.equal(replayOffsetsRecords(recs).get('g'), undefined);
      await withBroker({ dataDir, config: CONFIG, timer: new ManualTimer() }, async (broker) => {
        assert.equal((await snapshot(broker, 'g')).error, 'GROUP_ID_NOT_FOUND');
        assert.deepEqual(await committed(broker, 'g'), [-1n, -1n, -1n, -1n]);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
