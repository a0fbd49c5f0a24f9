/**
 * Appends by the KRaft leader (PartitionLog.appendAsRaftLeader; Kafka `appendAsLeader` with
 * AppendOrigin.RAFT_LEADER): the batch is written as built, and the shallow checks Kafka's
 * `analyzeAndValidateRecords` keeps for it refuse a wrong epoch, offset, size or CRC with a typed
 * error, leaving the log as it was.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CorruptRecordError, InvalidRecordError, RecordTooLargeError } from '../../src/errors.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { tempDir } from '../helpers/storage.js';

const value = (s: string) => Buffer.from(s);

describe('appendAsRaftLeader', () => {
  test('writes the batch as built (offsets, epoch, timestamps) and moves the log end and the leader-epoch cache', () => {
    const { dir, cleanup } = tempDir('raft-leader');
    try {
      const log = PartitionLog.open(dir, '__cluster_metadata', 0, { config: DEFAULT_LOG_CONFIG });
      const first = encodeRecordBatch([{ value: value('a'), timestamp: 5 }, { value: value('b'), timestamp: 9 }], { baseOffset: 0n, partitionLeaderEpoch: 3 });
      const r = log.appendAsRaftLeader(first, 3);
      assert.deepEqual([r.firstOffset, r.lastOffset, r.maxTimestamp, r.recordCount], [0n, 1n, 9n, 2]);
      const second = encodeRecordBatch([{ value: value('c'), timestamp: 7 }], { baseOffset: 2n, partitionLeaderEpoch: 4 });
      log.appendAsRaftLeader(second, 4);
      assert.equal(log.logEndOffset, 3n);
      assert.equal(log.leaderEpochCache.latestEpoch(), 4);
      const read = log.read(0n, { maxBytes: 1 << 20 }).records;
      assert.ok(read.equals(Buffer.concat([first, second])), 'the bytes on disk are the batches as built');
      log.close();
    } finally {
      cleanup();
    }
  });

  test('a wrong epoch or offset, a batch over max.message.bytes, a bad CRC or a torn batch is refused and nothing is written', () => {
    const { dir, cleanup } = tempDir('raft-leader');
    try {
      const log = PartitionLog.open(dir, '__cluster_metadata', 0, { config: { ...DEFAULT_LOG_CONFIG, maxMessageBytes: 200 } });
      log.appendAsRaftLeader(encodeRecordBatch([{ value: value('x') }], { baseOffset: 0n, partitionLeaderEpoch: 1 }), 1);
      const ok = encodeRecordBatch([{ value: value('y') }], { baseOffset: 1n, partitionLeaderEpoch: 1 });
      assert.throws(() => log.appendAsRaftLeader(ok, 2), (e: unknown) => e instanceof InvalidRecordError && /did not set the batch epoch correctly, expected 2 but the batch has 1/.test(e.message));
      const behind = encodeRecordBatch([{ value: value('y') }], { baseOffset: 0n, partitionLeaderEpoch: 1 });
      assert.throws(() => log.appendAsRaftLeader(behind, 1), (e: unknown) => e instanceof InvalidRecordError && /starts at offset 0, not at 1/.test(e.message));
      const gap = encodeRecordBatch([{ value: value('y') }], { baseOffset: 5n, partitionLeaderEpoch: 1 });
      assert.throws(() => log.appendAsRaftLeader(gap, 1), InvalidRecordError);
      const big = encodeRecordBatch([{ value: Buffer.alloc(300) }], { baseOffset: 1n, partitionLeaderEpoch: 1 });
      assert.throws(() => log.appendAsRaftLeader(big, 1), RecordTooLargeError);
      const corrupt = Buffer.from(ok);
      corrupt[corrupt.length - 1]! ^= 0xff;
      assert.throws(() => log.appendAsRaftLeader(corrupt, 1), CorruptRecordError);
      assert.throws(() => log.appendAsRaftLeader(ok.subarray(0, ok.length - 1), 1), InvalidRecordError);
      assert.throws(() => log.appendAsRaftLeader(Buffer.concat([ok, Buffer.alloc(3)]), 1), InvalidRecordError);
      assert.equal(log.logEndOffset, 1n, 'nothing was written');
      log.appendAsRaftLeader(ok, 1);
      assert.deepEqual([...readRecordBatches(log.read(0n, { maxBytes: 1 << 20 }).records)].map((b) => b.baseOffset), [0n, 1n]);
      log.close();
    } finally {
      cleanup();
    }
  });
});
