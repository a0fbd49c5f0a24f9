/**
 * Committed offsets and their log: OffsetCommit/OffsetFetch across versions (standalone commits,
 * metadata round trip, fetch-all, the v8 multi-group shape), the records written to the compacted
 * __consumer_offsets partition Kafka's hash picks (decoded here by hand from Kafka's key/value
 * layouts), reload after a restart, DeleteGroups / OffsetDelete tombstones and offset expiry.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../../src/protocol/error-codes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { expireOffsets } from '../../../src/broker/group/offset-ops.js';
import { partitionForGroup } from '../../../src/internal-topics/offsets.js';
import { storedRecords, withBroker } from '../../helpers/broker.js';
import { API, call, joinRequest, subscription } from './call.js';

const NO_DELAY = { 'group.initial.rebalance.delay.ms': '0' };

/** Kafka's layouts (OffsetCommitKey v0-1, OffsetCommitValue v1/v3, GroupMetadataKey v2), read by hand. */
class Reader {
  pos = 0;
  constructor(private readonly b: Buffer) {}
  i16(): number {
    const v = this.b.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  i32(): number {
    const v = this.b.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  i64(): bigint {
    const v = this.b.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  str(): string {
    const n = this.i16();
    const s = this.b.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

function decodeKey(key: Buffer): { version: number; group: string; topic?: string; partition?: number } {
  const r = new Reader(key);
  const version = r.i16();
  const group = r.str();
  if (version === 2) return { version, group };
  return { version, group, topic: r.str(), partition: r.i32() };
}

function decodeOffsetValue(value: Buffer): { version: number; offset: bigint; leaderEpoch: number; metadata: string; commitTimestamp: bigint; expireTimestamp?: bigint } {
  const r = new Reader(value);
  const version = r.i16();
  const offset = r.i64();
  const leaderEpoch = version >= 3 ? r.i32() : -1;
  const metadata = r.str();
  const commitTimestamp = r.i64();
  return version === 1 ? { version, offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp: r.i64() } : { version, offset, leaderEpoch, metadata, commitTimestamp };
}

const commit = (groupId: string, topic: string, partitions: [number, bigint, string | null][], extra: Record<string, unknown> = {}) => ({
  groupId,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [{ name: topic, partitions: partitions.map(([partitionIndex, committedOffset, committedMetadata]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: 4, committedMetadata })) }],
  ...extra,
});

describe('committed offsets', () => {
  test('Java String.hashCode partitioning, as GroupMetadataManager.partitionFor', () => {
    // hashCodes known from Java: "hello" 99162322, "Aa" and "BB" 2112, "polygenelubricants" Integer.MIN_VALUE
    assert.equal(partitionForGroup('hello', 50), 99162322 % 50);
    assert.equal(partitionForGroup('Aa', 50), 2112 % 50);
    assert.equal(partitionForGroup('BB', 7), 2112 % 7);
    assert.equal(partitionForGroup('polygenelubricants', 50), 0);
    assert.equal(partitionForGroup('', 50), 0);
  });

  test('commit and fetch across versions; errors per partition; the v8 multi-group shape', async () => {
    await withBroker({ config: NO_DELAY }, async (broker) => {
      broker.topics.create('t', 3, {}, broker.logs);
      const c = await call(broker, API.OffsetCommit, 2, commit('solo', 't', [[0, 10n, 'meta-0'], [1, 20n, null], [9, 1n, null]]));
      assert.deepEqual(c.topics[0].partitions.map((p: { errorCode: number }) => errorName(p.errorCode)), ['NONE', 'NONE', 'UNKNOWN_TOPIC_OR_PARTITION']); // partition 9 does not exist
      const tooBig = await call(broker, API.OffsetCommit, 8, commit('solo', 't', [[2, 1n, 'x'.repeat(4097)]]));
      assert.equal(errorName(tooBig.topics[0].partitions[0].errorCode), 'OFFSET_METADATA_TOO_LARGE');
      const unknownTopic = await call(broker, API.OffsetCommit, 8, commit('solo', 'nope', [[0, 1n, '']]));
      assert.equal(errorName(unknownTopic.topics[0].partitions[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
      // a group that does not exist refuses generation >= 0
      assert.equal(errorName((await call(broker, API.OffsetCommit, 5, commit('other', 't', [[0, 1n, '']], { generationIdOrMemberEpoch: 3, memberId: 'm' }))).topics[0].partitions[0].errorCode), 'ILLEGAL_GENERATION');

      const v1 = await call(broker, API.OffsetFetch, 1, { groupId: 'solo', topics: [{ name: 't', partitionIndexes: [0, 1, 2] }] });
      assert.deepEqual(
        v1.topics[0].partitions.map((p: { partitionIndex: number; committedOffset: bigint; metadata: string; errorCode: number }) => [p.partitionIndex, p.committedOffset, p.metadata, p.errorCode]),
        [[0, 10n, 'meta-0', 0], [1, 20n, '', 0], [2, -1n, '', 0]],
      );
      const all = await call(broker, API.OffsetFetch, 7, { groupId: 'solo', topics: null, requireStable: true });
      assert.equal(errorName(all.errorCode), 'NONE');
      assert.deepEqual(all.topics.map((t: { name: string; partitions: { partitionIndex: number; committedLeaderEpoch: number }[] }) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedLeaderEpoch])]), [['t', [[0, -1], [1, -1]]]]); // v2 commits carry no leader epoch
      await call(broker, API.OffsetCommit, 8, commit('solo2', 't', [[2, 7n, 'e']]));
      const v8 = await call(broker, API.OffsetFetch, 8, {
        groups: [
          { groupId: 'solo', topics: [{ name: 't', partitionIndexes: [1] }] },
          { groupId: 'solo2', topics: null },
          { groupId: 'never', topics: null },
        ],
        requireStable: false,
      });
      assert.deepEqual(
        v8.groups.map((g: { groupId: string; errorCode: number; topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; metadata: string }[] }[] }) => [
          g.groupId,
          errorName(g.errorCode),
          g.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.committedLeaderEpoch, p.metadata])]),
        ]),
        [['solo', 'NONE', [['t', [[1, 20n, -1, '']]]]], ['solo2', 'NONE', [['t', [[2, 7n, 4, 'e']]]]], ['never', 'NONE', []]],
      );
    });
  });

  test("ClassicGroup.validateOffsetCommit's order: member and generation before REBALANCE_IN_PROGRESS; GROUP_ID_NOT_FOUND from v9; metadata measured in UTF-16 units", async () => {
    await withBroker({ config: { ...NO_DELAY, 'offset.metadata.max.bytes': '4096' } }, async (broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      const protocols = [{ name: 'range', metadata: subscription(['t']) }];
      const j = await call(broker, API.JoinGroup, 3, joinRequest('order', '', protocols));
      const memberId = j.memberId as string;
      // generation 1 joined, not synced: the group completes its rebalance
      const codeOf = async (version: number, extra: Record<string, unknown>, group = 'order', metadata = '') =>
        errorName((await call(broker, API.OffsetCommit, version, commit(group, 't', [[0, 1n, metadata]], extra))).topics[0].partitions[0].errorCode);
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 7, memberId }), 'ILLEGAL_GENERATION');
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 1, memberId: 'someone-else' }), 'UNKNOWN_MEMBER_ID');
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 1, memberId }), 'REBALANCE_IN_PROGRESS');
      await call(broker, API.SyncGroup, 2, { groupId: 'order', generationId: 1, memberId, assignments: [{ memberId, assignment: Buffer.from('a') }] });
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 1, memberId }), 'NONE');
      // a member's commit to a group that does not exist
      assert.equal(await codeOf(8, { generationIdOrMemberEpoch: 3, memberId: 'm' }, 'nogroup'), 'ILLEGAL_GENERATION');
      assert.equal(await codeOf(9, { generationIdOrMemberEpoch: 3, memberId: 'm' }, 'nogroup'), 'GROUP_ID_NOT_FOUND');
      // 2,000 euro signs: 2,000 chars as Java counts them (6,000 UTF-8 bytes), within 4,096
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 1, memberId }, 'order', '€'.repeat(2000)), 'NONE');
      assert.equal(await codeOf(5, { generationIdOrMemberEpoch: 1, memberId }, 'order', 'x'.repeat(4097)), 'OFFSET_METADATA_TOO_LARGE');
    });
  });

  test('a retention so large that commit time + retention passes Long.MAX is accepted (never expires)', async () => {
    await withBroker({ config: NO_DELAY }, async (broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      const r = await call(broker, API.OffsetCommit, 2, commit('forever', 't', [[0, 5n, '']], { retentionTimeMs: 0x7fffffffffffffffn - 1000n }));
      assert.equal(errorName(r.topics[0].partitions[0].errorCode), 'NONE');
      const f = await call(broker, API.OffsetFetch, 1, { groupId: 'forever', topics: [{ name: 't', partitionIndexes: [0] }] });
      assert.equal(f.topics[0].partitions[0].committedOffset, 5n);
    });
  });

  test('members commit within their generation; records land in the hashed, compacted __consumer_offsets partition and survive a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-groups-'));
    const config = { ...NO_DELAY, 'offsets.topic.num.partitions': '3' };
    try {
      let memberId = '';
      await withBroker({ dataDir, config }, async (broker) => {
        broker.topics.create('t', 2, {}, broker.logs);
        const protocols = [{ name: 'range', metadata: subscription(['t']) }];
        const j = await call(broker, API.JoinGroup, 3, joinRequest('hello', '', protocols));
        memberId = j.memberId as string;
        await call(broker, API.SyncGroup, 2, { groupId: 'hello', generationId: 1, memberId, assignments: [{ memberId, assignment: Buffer.from('asg') }] });
        // a member's commit needs its generation; generation -1 is refused while the group has members
        const anonymous = await call(broker, API.OffsetCommit, 5, commit('hello', 't', [[0, 1n, '']]));
        assert.equal(errorName(anonymous.topics[0].partitions[0].errorCode), 'UNKNOWN_MEMBER_ID');
        const ok = await call(broker, API.OffsetCommit, 5, commit('hello', 't', [[0, 42n, 'resume-here'], [1, 7n, '']], { generationIdOrMemberEpoch: 1, memberId }));
        assert.deepEqual(ok.topics[0].partitions.map((p: { errorCode: number }) => errorName(p.errorCode)), ['NONE', 'NONE']);
        const retained = await call(broker, API.OffsetCommit, 3, commit('hello', 't', [[1, 8n, '']], { generationIdOrMemberEpoch: 1, memberId, retentionTimeMs: 60000n }));
        assert.equal(errorName(retained.topics[0].partitions[0].errorCode), 'NONE');

        const info = broker.topics.get('__consumer_offsets');
        assert.ok(info);
        assert.equal(info.partitions, 3);
        assert.equal(info.config.cleanupPolicy, 'compact');
        // "hello".hashCode() = 99162322; 99162322 % 3 = 1
        assert.deepEqual(storedRecords(dataDir, '__consumer_offsets', 0), []);
        assert.deepEqual(storedRecords(dataDir, '__consumer_offsets', 2), []);
        const recs = storedRecords(dataDir, '__consumer_offsets', 1);
        const keys = recs.map((r) => decodeKey(r.key!));
        assert.deepEqual(keys.map((k) => [k.version, k.group, k.topic, k.partition]), [
          [2, 'hello', undefined, undefined],
          [1, 'hello', 't', 0],
          [1, 'hello', 't', 1],
          [1, 'hello', 't', 1],
        ]);
        const v0 = decodeOffsetValue(recs[1]!.value!);
        assert.deepEqual([v0.version, v0.offset, v0.leaderEpoch, v0.metadata], [3, 42n, -1, 'resume-here']);
        const v2 = decodeOffsetValue(recs[3]!.value!);
        assert.equal(v2.version, 1);
        assert.equal(v2.expireTimestamp! - v2.commitTimestamp, 60000n);
        // the group record: GroupMetadataValue v3 starts protocolType, generation, protocol, leader
        const g = new Reader(recs[0]!.value!);
        assert.deepEqual([g.i16(), g.str(), g.i32(), g.str(), g.str()], [3, 'consumer', 1, 'range', memberId]);
      });

      await withBroker({ dataDir, config }, async (broker) => {
        const fetched = await call(broker, API.OffsetFetch, 5, { groupId: 'hello', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
        assert.deepEqual(fetched.topics[0].partitions.map((p: { committedOffset: bigint; metadata: string }) => [p.committedOffset, p.metadata]), [[42n, 'resume-here'], [8n, '']]);
        // the group is back Stable at its generation: the member carries on
        const d = await call(broker, API.DescribeGroups, 1, { groups: ['hello'] });
        assert.deepEqual([d.groups[0].groupState, d.groups[0].protocolData, d.groups[0].members[0].memberId, d.groups[0].members[0].memberAssignment.toString()], ['Stable', 'range', memberId, 'asg']);
        assert.equal(errorName((await call(broker, API.Heartbeat, 1, { groupId: 'hello', generationId: 1, memberId })).errorCode), 'NONE');
        const listed = await call(broker, API.ListGroups, 4, { statesFilter: ['stable'] });
        assert.deepEqual(listed.groups.map((x: { groupId: string; protocolType: string; groupState: string }) => [x.groupId, x.protocolType, x.groupState]), [['hello', 'consumer', 'Stable']]);
        assert.deepEqual((await call(broker, API.ListGroups, 4, { statesFilter: ['Empty'] })).groups, []);

        // OffsetDelete: the members consume t, so its offsets stay; DeleteGroups needs an empty group
        const od = await call(broker, API.OffsetDelete, 0, { groupId: 'hello', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] });
        assert.deepEqual([errorName(od.errorCode), errorName(od.topics[0].partitions[0].errorCode)], ['NONE', 'GROUP_SUBSCRIBED_TO_TOPIC']);
        assert.deepEqual((await call(broker, API.DeleteGroups, 1, { groupsNames: ['hello', 'absent'] })).results.map((r: { errorCode: number }) => errorName(r.errorCode)), ['NON_EMPTY_GROUP', 'GROUP_ID_NOT_FOUND']);
        assert.equal(errorName((await call(broker, API.LeaveGroup, 1, { groupId: 'hello', memberId })).errorCode), 'NONE');
        const od2 = await call(broker, API.OffsetDelete, 0, { groupId: 'hello', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] });
        assert.deepEqual([errorName(od2.errorCode), errorName(od2.topics[0].partitions[0].errorCode)], ['NONE', 'NONE']);
        assert.deepEqual((await call(broker, API.DeleteGroups, 2, { groupsNames: ['hello'] })).results.map((r: { errorCode: number }) => errorName(r.errorCode)), ['NONE']);
        assert.equal((await call(broker, API.DescribeGroups, 1, { groups: ['hello'] })).groups[0].groupState, 'Dead');
        const recs = storedRecords(dataDir, '__consumer_offsets', 1);
        const tail = recs.slice(-4).map((r) => [decodeKey(r.key!), r.value === null]);
        // OffsetDelete's tombstone for t-0, then DeleteGroups' for t-1 and the group
        assert.deepEqual(tail.slice(1).map(([k, tomb]) => [(k as { partition?: number }).partition, tomb]), [[0, true], [1, true], [undefined, true]]);
      });

      await withBroker({ dataDir, config }, async (broker) => {
        const fetched = await call(broker, API.OffsetFetch, 5, { groupId: 'hello', topics: null });
        assert.deepEqual(fetched.topics, []);
        assert.equal((await call(broker, API.DescribeGroups, 1, { groups: ['hello'] })).groups[0].groupState, 'Dead');
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('offsets expire after offsets.retention.minutes with tombstones; the emptied group dies', async () => {
    await withBroker({ config: { ...NO_DELAY, 'offsets.retention.minutes': '1' } }, async (broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      await call(broker, API.OffsetCommit, 8, commit('old', 't', [[0, 5n, '']]));
      assert.equal(expireOffsets(broker.groups, Date.now() + 30_000), 0);
      assert.equal(expireOffsets(broker.groups, Date.now() + 61_000), 1);
      const fetched = await call(broker, API.OffsetFetch, 5, { groupId: 'old', topics: null });
      assert.deepEqual(fetched.topics, []);
      assert.deepEqual((await call(broker, API.ListGroups, 0, {})).groups, []);
      const last = storedRecords(broker.dataDir, '__consumer_offsets', 0).slice(-2);
      assert.deepEqual(last.map((r) => [decodeKey(r.key!).version, r.value]), [[1, null], [2, null]]);
    });
  });
});
