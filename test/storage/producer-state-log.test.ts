/**
 * Producer state through the partition log's truncation and retention (issue: producer state,
 * item 4; Kafka `UnifiedLog.truncateTo`, `deleteSegments`): truncation rebuilds the state from the
 * nearest snapshot plus the log, and deleted segments take their producer snapshots with them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { KafkaliteError } from '../../src/errors.js';
import { encodeRecordBatch } from '../../src/record/index.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function openLog(clock: { now: number }, segmentBytes = 600): PartitionLog {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-pslog-'));
  dirs.push(dir);
  return PartitionLog.open(dir, 't', 0, {
    config: { ...DEFAULT_LOG_CONFIG, segmentBytes, fileDeleteDelayMs: 1000, retentionMs: 10_000 },
    time: () => clock.now,
  });
}

const idem = (pid: bigint, seq: number, ts: number, epoch = 0) =>
  encodeRecordBatch([{ key: `k${seq}`, value: 'v'.repeat(100), timestamp: ts }], { producerId: pid, producerEpoch: epoch, baseSequence: seq });

describe('producer state under truncation and retention', () => {
  it('truncateTo rewinds each producer to its state at the new end (sequences resume from there)', () => {
    const clock = { now: 1_700_000_000_000 };
    const log = openLog(clock);
    for (let seq = 0; seq < 12; seq++) log.append(idem(5n, seq, clock.now));
    assert.ok(log.segmentCount > 2, 'several segments, so snapshots exist at their bases');
    log.truncateTo(7n);
    assert.equal(log.logEndOffset, 7n);
    const entry = log.producerStateManager.lastEntry(5n)!;
    assert.equal(entry.batchMetadata.at(-1)!.lastSeq, 6, 'the last sequence is the one at offset 6');
    // the producer continues at sequence 7; 12 would be out of order now
    assert.throws(() => log.append(idem(5n, 12, clock.now)), (e: unknown) => e instanceof KafkaliteError && e.code === 'OUT_OF_ORDER_SEQUENCE_NUMBER');
    assert.equal(log.append(idem(5n, 7, clock.now)).firstOffset, 7n);
    // and a retry of the truncated-away sequence 8 is not mistaken for a duplicate of old data
    assert.equal(log.append(idem(5n, 8, clock.now)).duplicate, false);
    log.close();
  });

  it('truncateTo below an open transaction reopens nothing past the new end; the LSO follows', () => {
    const clock = { now: 1_700_000_000_000 };
    const log = openLog(clock, 1 << 20);
    const tx = (seq: number) =>
      encodeRecordBatch([{ value: 'x', timestamp: clock.now }], { producerId: 9n, producerEpoch: 0, baseSequence: seq, isTransactional: true });
    log.append(encodeRecordBatch([{ value: 'plain', timestamp: clock.now }]));
    log.append(tx(0)); // offset 1 opens the transaction
    log.append(tx(1));
    assert.equal(log.lastStableOffset, 1n);
    log.truncateTo(1n);
    assert.equal(log.lastStableOffset, 1n, 'no transaction left: LSO = HW = 1');
    assert.equal(log.producerStateManager.firstUnstableOffset(), undefined);
    log.close();
  });

  it('recovery after a flushed segment rebuilt for its missing index replays the flushed segments between: no producer or open transaction is lost', () => {
    const clock = { now: 1_700_000_000_000 };
    // one batch per segment
    const log = openLog(clock, 200);
    log.append(idem(2000n, 0, clock.now));
    log.append(encodeRecordBatch([{ value: 'open', timestamp: clock.now }], { producerId: 1000n, producerEpoch: 0, baseSequence: 0, isTransactional: true }));
    log.append(idem(3000n, 0, clock.now));
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 1n, 2n]);
    const dir = log.dir;
    const producers = () => [...reopened.producerStateManager.activeProducers().keys()].sort();
    log.close();
    // segment 0 loses its index (rebuilt), segment 1 is flushed and whole, segment 2 unflushed
    rmSync(join(dir, '00000000000000000000.index'));
    const reopened = PartitionLog.open(dir, 't', 0, {
      config: { ...DEFAULT_LOG_CONFIG, segmentBytes: 200, fileDeleteDelayMs: 1000, retentionMs: 10_000 },
      time: () => clock.now,
      hadCleanShutdown: false,
      recoveryPoint: 2n,
    });
    assert.deepEqual(producers(), [1000n, 2000n, 3000n]);
    assert.equal(reopened.producerStateManager.firstUnstableOffset(), 1n, 'the open transaction at offset 1');
    assert.equal(reopened.lastStableOffset, 1n);
    reopened.close();
  });

  it('retention deletes segments together with their producer snapshots', () => {
    const clock = { now: 1_700_000_000_000 };
    const log = openLog(clock);
    for (let seq = 0; seq < 12; seq++) log.append(idem(5n, seq, clock.now - 60_000));
    const dir = log.dir;
    const snapshotsBefore = readdirSync(dir).filter((n) => n.endsWith('.snapshot'));
    assert.ok(snapshotsBefore.length >= 2);
    clock.now += 1;
    const deleted = log.deleteOldSegments();
    assert.ok(deleted > 0);
    const start = log.logStartOffset;
    // snapshots at the deleted segments' bases became .deleted, then vanish after file.delete.delay.ms
    const renamed = readdirSync(dir).filter((n) => n.endsWith('.snapshot.deleted'));
    assert.ok(renamed.length > 0, 'deleted segments take their snapshots with them');
    clock.now += 1001;
    log.deleteDueFiles();
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.deleted')), []);
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.snapshot'))) {
      assert.ok(BigInt(name.slice(0, 20)) >= start, `${name} is not below the log start ${start}`);
    }
    // the producer is still known: its next sequence is accepted, a retry of the last is a duplicate
    assert.equal(log.append(idem(5n, 11, clock.now)).duplicate, true);
    assert.equal(log.append(idem(5n, 12, clock.now)).duplicate, false);
    assert.ok(existsSync(dir));
    log.close();
  });
});
