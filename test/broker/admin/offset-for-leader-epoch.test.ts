/**
 * OffsetForLeaderEpoch (23) v0-4 driven through its handler, over a log written in three leader
 * epochs (0 at offsets 0-1, 2 at 2-4, 5 at 5): the end offset of each requested epoch as Kafka's
 * `LeaderEpochFileCache.endOffsetFor` gives it, and the per-partition errors.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const OFFSET_FOR_LEADER_EPOCH = 23;

describe('OffsetForLeaderEpoch', () => {
  test('end offsets of each epoch of a log with several leader epochs, every version', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('e', 2, {}, broker.logs);
      const log = broker.logs.getLog('e', 0)!;
      log.append(encodeRecordBatch([{ value: 'a' }, { value: 'b' }]), { leaderEpoch: 0 });
      log.append(encodeRecordBatch([{ value: 'c' }, { value: 'd' }, { value: 'e' }]), { leaderEpoch: 2 });
      log.append(encodeRecordBatch([{ value: 'f' }]), { leaderEpoch: 5 });
      // requested epoch -> [epoch, end offset]
      const cases: [number, number, bigint][] = [
        [0, 0, 2n], // ends where epoch 2 starts
        [1, 0, 2n], // unknown epoch between known ones: the largest <= it
        [2, 2, 5n],
        [4, 2, 5n],
        [5, 5, 6n], // the latest: the log end
        [6, -1, -1n], // above every known epoch
        [-1, -1, -1n],
      ];
      for (let v = 0; v <= 4; v++) {
        const r = await call(broker, OFFSET_FOR_LEADER_EPOCH, v, {
          replicaId: -1,
          topics: [{ topic: 'e', partitions: cases.map(([epoch]) => ({ partition: 0, currentLeaderEpoch: -1, leaderEpoch: epoch })) }],
        });
        const got = r.topics[0].partitions.map((p: { errorCode: number; leaderEpoch: number; endOffset: bigint }) => [errorName(p.errorCode), v >= 1 ? p.leaderEpoch : 'absent', p.endOffset]);
        assert.deepEqual(got, cases.map(([, epoch, end]) => ['NONE', v >= 1 ? epoch : 'absent', end]), `v${v}`);
      }
      // partition 1 was never written: the current epoch (0) ends at the log end, as on Kafka's leader
      const empty = await call(broker, OFFSET_FOR_LEADER_EPOCH, 4, { replicaId: -1, topics: [{ topic: 'e', partitions: [{ partition: 1, currentLeaderEpoch: 0, leaderEpoch: 0 }, { partition: 1, currentLeaderEpoch: 0, leaderEpoch: 3 }] }] });
      assert.deepEqual(empty.topics[0].partitions.map((p: { leaderEpoch: number; endOffset: bigint }) => [p.leaderEpoch, p.endOffset]), [[0, 0n], [-1, -1n]]);
    });
  });

  test('unknown topic or partition, and a current leader epoch that is not the leader\'s', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('e', 1, {}, broker.logs);
      const r = await call(broker, OFFSET_FOR_LEADER_EPOCH, 4, {
        replicaId: -1,
        topics: [
          { topic: 'e', partitions: [{ partition: 0, currentLeaderEpoch: 1, leaderEpoch: 0 }, { partition: 0, currentLeaderEpoch: -2, leaderEpoch: 0 }, { partition: 0, currentLeaderEpoch: 0, leaderEpoch: 0 }, { partition: 3, currentLeaderEpoch: -1, leaderEpoch: 0 }] },
          { topic: 'missing', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] },
        ],
      });
      const names = r.topics.map((t: { partitions: { errorCode: number; endOffset: bigint }[] }) => t.partitions.map((p) => [errorName(p.errorCode), p.endOffset]));
      assert.deepEqual(names, [[['UNKNOWN_LEADER_EPOCH', -1n], ['FENCED_LEADER_EPOCH', -1n], ['NONE', 0n], ['UNKNOWN_TOPIC_OR_PARTITION', -1n]], [['UNKNOWN_TOPIC_OR_PARTITION', -1n]]]);
    });
  });

  test('the epochs survive a restart: answered from the leader-epoch checkpoint the next broker loads', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-olep-'));
    try {
      await withBroker({ dataDir }, async (broker) => {
        broker.topics.create('kept', 1, {}, broker.logs);
        const log = broker.logs.getLog('kept', 0)!;
        log.append(encodeRecordBatch([{ value: 'a' }]), { leaderEpoch: 1 });
        log.append(encodeRecordBatch([{ value: 'b' }, { value: 'c' }]), { leaderEpoch: 3 });
      });
      await withBroker({ dataDir }, async (broker) => {
        const r = await call(broker, OFFSET_FOR_LEADER_EPOCH, 4, {
          replicaId: -1,
          topics: [{ topic: 'kept', partitions: [0, 1, 2, 3].map((leaderEpoch) => ({ partition: 0, currentLeaderEpoch: -1, leaderEpoch })) }],
        });
        // 0 precedes every known epoch: Kafka answers it with the start of the first one
        assert.deepEqual(r.topics[0].partitions.map((p: { leaderEpoch: number; endOffset: bigint }) => [p.leaderEpoch, p.endOffset]), [[0, 0n], [1, 1n], [1, 1n], [3, 3n]]);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
