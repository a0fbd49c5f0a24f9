/**
 * Transactional offsets against regular commits and deletes of the same partition (Kafka
 * `OffsetMetadataManager`: `replay` drops an open transaction's offset at a tombstone of its
 * partition, `deleteOffsets` writes that tombstone even when only a pending offset exists,
 * `replayEndTransactionMarker` keeps the offset with the higher record offset), online and after
 * a restart (the load replays the same rules, offsets-txn-settle.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { expireOffsets } from '../../../src/broker/group/offset-ops.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { RawClient, type Msg } from '../../helpers/raw-client.js';
import { hb } from './consumer-calls.js';

const name = (code: number): string => errorName(code) ?? String(code);

describe('transactional offsets meet regular commits and deletes', () => {
  test('OffsetDelete of a partition with only a pending offset writes a tombstone that drops it; its COMMIT then applies nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-txn-offsets-'));
    try {
      const fetch = async (c: RawClient, group: string): Promise<bigint[]> => {
        const r = await c.request(9, 7, { groupId: group, topics: [{ name: 'in', partitionIndexes: [0, 1] }], requireStable: true });
        return r.topics[0].partitions.map((p: Msg) => p.committedOffset);
      };
      await withBroker({ dataDir: dir }, async (broker) => {
        broker.topics.create('in', 2, {}, broker.logs);
        const c = await RawClient.connect(broker.port);
        const init = await c.request(22, 4, { transactionalId: 'tx', transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
        const [pid, epoch] = [init.producerId, init.producerEpoch];
        assert.equal(name((await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'od' })).errorCode), 'NONE');
        const committed = await c.request(28, 3, {
          transactionalId: 'tx', groupId: 'od', producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: 'in', partitions: [0, 1].map((p) => ({ partitionIndex: p, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' })) }],
        });
        assert.deepEqual(committed.topics[0].partitions.map((p: Msg) => name(p.errorCode)), ['NONE', 'NONE']);
        const deleted = await c.request(47, 0, { groupId: 'od', topics: [{ name: 'in', partitions: [{ partitionIndex: 0 }] }] });
        assert.deepEqual([name(deleted.errorCode), name(deleted.topics[0].partitions[0].errorCode)], ['NONE', 'NONE']);
        // partition 0 has nothing pending any more; partition 1 still waits for the marker
        const stable = await c.request(9, 7, { groupId: 'od', topics: [{ name: 'in', partitionIndexes: [0, 1] }], requireStable: true });
        assert.deepEqual(stable.topics[0].partitions.map((p: Msg) => name(p.errorCode)), ['NONE', 'UNSTABLE_OFFSET_COMMIT']);
        assert.equal(name((await c.request(26, 3, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, committed: true })).errorCode), 'NONE');
        assert.deepEqual(await fetch(c, 'od'), [-1n, 7n]);
        c.destroy();
      });
      await withBroker({ dataDir: dir }, async (broker) => {
        const c = await RawClient.connect(broker.port);
        assert.deepEqual(await fetch(c, 'od'), [-1n, 7n], 'the load replays the tombstone before the marker the same way');
        c.destroy();
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a KIP-848 consumer group member commits offsets in a transaction at its member epoch; a stale epoch is ILLEGAL_GENERATION, an unknown member UNKNOWN_MEMBER_ID', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      const joined = await hb(broker, { group: 'eos848', member: 'member-1', epoch: 0 });
      assert.equal(joined.error, 'NONE');
      const memberId = joined.memberId as string;
      const c = await RawClient.connect(broker.port);
      const init = await c.request(22, 4, { transactionalId: 'tx848', transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
      const [pid, epoch] = [init.producerId, init.producerEpoch];
      assert.equal(name((await c.request(25, 1, { transactionalId: 'tx848', producerId: pid, producerEpoch: epoch, groupId: 'eos848' })).errorCode), 'NONE');
      const commitAt = async (memberId: string, generationId: number): Promise<string> => {
        const r = await c.request(28, 3, {
          transactionalId: 'tx848', groupId: 'eos848', producerId: pid, producerEpoch: epoch, generationId, memberId, groupInstanceId: null,
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
        });
        return name(r.topics[0].partitions[0].errorCode);
      };
      // producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata()) from a group.protocol=consumer consumer
      assert.equal(await commitAt(memberId, joined.epoch), 'NONE');
      assert.equal(await commitAt(memberId, joined.epoch + 1), 'ILLEGAL_GENERATION');
      assert.equal(await commitAt('nobody', joined.epoch), 'UNKNOWN_MEMBER_ID');
      assert.equal(name((await c.request(26, 3, { transactionalId: 'tx848', producerId: pid, producerEpoch: epoch, committed: true })).errorCode), 'NONE');
      const fetched = await c.request(9, 7, { groupId: 'eos848', topics: [{ name: 't', partitionIndexes: [0] }], requireStable: true });
      assert.equal(fetched.topics[0].partitions[0].committedOffset, 5n);
      c.destroy();
    });
  });

  test('an expired offset is kept while a transaction holds an offset of its partition pending (Kafka cleanupExpiredOffsets)', async () => {
    await withBroker({ config: { 'offsets.retention.minutes': '1' } }, async (broker) => {
      broker.topics.create('in', 1, {}, broker.logs);
      const c = await RawClient.connect(broker.port);
      const regular = await c.request(8, 8, { groupId: 'ex', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      assert.equal(name(regular.topics[0].partitions[0].errorCode), 'NONE');
      const init = await c.request(22, 4, { transactionalId: 'tx', transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
      const [pid, epoch] = [init.producerId, init.producerEpoch];
      assert.equal(name((await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'ex' })).errorCode), 'NONE');
      const pending = await c.request(28, 3, {
        transactionalId: 'tx', groupId: 'ex', producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
        topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
      assert.equal(name(pending.topics[0].partitions[0].errorCode), 'NONE');
      assert.equal(expireOffsets(broker.groups, Date.now() + 61_000), 0, 'not while the transaction is open');
      assert.equal(name((await c.request(26, 3, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, committed: false })).errorCode), 'NONE');
      assert.equal(expireOffsets(broker.groups, Date.now() + 61_000), 1, 'once it is aborted');
      c.destroy();
    });
  });

  test('a regular commit written after a pending offset wins at the COMMIT, also when the broker restarted in between', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-txn-offsets-sup-'));
    try {
      const ids = await withBroker({ dataDir: dir }, async (broker) => {
        broker.topics.create('in', 1, {}, broker.logs);
        const c = await RawClient.connect(broker.port);
        const init = await c.request(22, 4, { transactionalId: 'tx', transactionTimeoutMs: 600000, producerId: -1n, producerEpoch: -1 });
        const [pid, epoch] = [init.producerId, init.producerEpoch];
        assert.equal(name((await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'sup' })).errorCode), 'NONE');
        const pending = await c.request(28, 3, {
          transactionalId: 'tx', groupId: 'sup', producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 10n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
        });
        assert.equal(name(pending.topics[0].partitions[0].errorCode), 'NONE');
        const regular = await c.request(8, 8, { groupId: 'sup', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 20n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        assert.equal(name(regular.topics[0].partitions[0].errorCode), 'NONE');
        c.destroy();
        return [pid, epoch] as const;
      });
      await withBroker({ dataDir: dir }, async (broker) => {
        const c = await RawClient.connect(broker.port);
        assert.equal(name((await c.request(26, 3, { transactionalId: 'tx', producerId: ids[0], producerEpoch: ids[1], committed: true })).errorCode), 'NONE');
        const r = await c.request(9, 7, { groupId: 'sup', topics: [{ name: 'in', partitionIndexes: [0] }], requireStable: true });
        assert.deepEqual([name(r.topics[0].partitions[0].errorCode), r.topics[0].partitions[0].committedOffset], ['NONE', 20n]);
        c.destroy();
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
