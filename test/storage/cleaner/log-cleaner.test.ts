/**
 * LogCleanerTest scenarios that apply to one node, each named after what it
 * checks: basic compaction, tombstones and delete horizons, aborted transactions and markers,
 * producers' last batches and empty batches, keyless records, offset map overflow, partial
 * cleaning, batch rewrite fields (`MemoryRecords.filterTo`), and swap recovery (`LogLoader`).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PartitionLog } from '../../../src/storage/partition-log.js';
import { readOffsetCheckpoint } from '../../../src/storage/checkpoint.js';
import { tempDir } from '../../helpers/storage.js';
import { appendRecords, compactConfig, diskRecords, openHarness, readDisk, T0, type Harness } from './harness.js';

let tmp: { dir: string; cleanup: () => void };
let h: Harness;
const pdir = () => join(tmp.dir, 't-0');

beforeEach(() => {
  tmp = tempDir('cleaner');
});
afterEach(() => {
  try {
    h?.log.close();
  } catch {
    /* closed by the test */
  }
  tmp.cleanup();
});

/** The latest value per key in append order (the reference a consumer of the uncleaned log sees). */
function latest(records: { key: string | null; value: string | null }[]): Map<string, string | null> {
  const m = new Map<string, string | null>();
  for (const r of records) if (r.key !== null) m.set(r.key, r.value);
  return m;
}

describe('log cleaner: basic compaction', () => {
  it('keeps only the latest value per key below the active segment; the active segment is untouched', () => {
    h = openHarness(tmp.dir, compactConfig());
    const written: { key: string; value: string }[] = [];
    for (let round = 0; round < 5; round++) {
      const recs = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${round}-${i}` }));
      appendRecords(h.log, recs);
      written.push(...recs);
      h.log.roll();
    }
    appendRecords(h.log, [{ key: 'k0', value: 'active' }]);
    const activeBefore = readDisk(pdir()).filter((b) => b.baseOffset >= h.log.activeSegment.baseOffset);
    const result = h.cleaner.compact(h.log);
    assert.ok(result, 'a round ran');
    assert.equal(result.endOffset, 50n, 'the round ends at the active segment');
    const recs = diskRecords(pdir());
    const cleaned = recs.filter((r) => r.offset < 50n);
    assert.deepEqual(
      cleaned.map((r) => [r.key, r.value]),
      Array.from({ length: 10 }, (_, i) => [`k${i}`, `v4-${i}`]),
    );
    assert.deepEqual(latest(recs), new Map([...latest(written), ['k0', 'active']]));
    const activeAfter = readDisk(pdir()).filter((b) => b.baseOffset >= h.log.activeSegment.baseOffset);
    assert.deepEqual(activeAfter.map((b) => b.bytes), activeBefore.map((b) => b.bytes));
    // the checkpoint holds the round's end
    const cp = readOffsetCheckpoint(join(tmp.dir, 'cleaner-offset-checkpoint'));
    assert.deepEqual(cp, [{ topic: 't', partition: 0, offset: 50n }]);
    // old segment files went through .deleted and are gone (file.delete.delay.ms = 0)
    assert.ok(readdirSync(pdir()).every((n) => !n.endsWith('.deleted') && !n.endsWith('.cleaned') && !n.endsWith('.swap')));
  });

  it('an untouched batch is copied byte for byte; a partly kept one keeps baseOffset, lastOffsetDelta and fields', () => {
    h = openHarness(tmp.dir, compactConfig());
    appendRecords(h.log, [{ key: 'a', value: '1' }, { key: 'b', value: '1' }], { compression: 'gzip' }); // offsets 0-1
    appendRecords(h.log, [{ key: 'c', value: '1' }, { key: 'd', value: '1' }]); // 2-3, untouched
    appendRecords(h.log, [{ key: 'a', value: '2' }]); // 4
    h.log.roll();
    const before = readDisk(pdir());
    h.cleaner.compact(h.log);
    const after = readDisk(pdir());
    assert.equal(after.length, 3);
    const [first, second, third] = after as [typeof after[0], typeof after[0], typeof after[0]];
    assert.equal(first.baseOffset, 0n);
    assert.equal(first.lastOffsetDelta, 1, 'lastOffsetDelta survives though offset 0 went');
    assert.equal(first.count, 1);
    assert.equal(first.compression, 1, 'same codec');
    assert.deepEqual(first.records.map((r) => [r.offset, r.key]), [[1n, 'b']]);
    assert.equal(first.hasDeleteHorizon, false);
    assert.equal(first.baseTimestamp, BigInt(T0));
    assert.deepEqual(second.bytes, before[1]!.bytes, 'untouched batch copied as is');
    assert.deepEqual(third.bytes, before[2]!.bytes);
  });

  it('keyless records are dropped', () => {
    // keyless records reach a compacted log when its policy changes from delete
    h = openHarness(tmp.dir, compactConfig({ cleanupPolicy: 'delete' }));
    appendRecords(h.log, [{ key: null, value: 'nokey' }, { key: 'a', value: '1' }]);
    appendRecords(h.log, [{ key: 'b', value: '1' }]);
    h.log.roll();
    h.log.config = compactConfig();
    h.cleaner.compact(h.log);
    assert.deepEqual(diskRecords(pdir()).map((r) => r.key), ['a', 'b']);
  });
});

describe('log cleaner: tombstones and delete horizons', () => {
  it('a tombstone gets the delete horizon (bit 6, baseTimestamp = now + delete.retention.ms) and goes after it', () => {
    h = openHarness(tmp.dir, compactConfig({ deleteRetentionMs: 1000 }));
    appendRecords(h.log, [{ key: 'a', value: '1' }, { key: 'b', value: '1' }]);
    appendRecords(h.log, [{ key: 'a', value: null, timestamp: T0 + 5 }]);
    h.log.roll();
    h.clock.now = T0 + 100;
    h.cleaner.compact(h.log);
    let batches = readDisk(pdir());
    const tomb = batches.find((b) => b.records.some((r) => r.key === 'a'))!;
    assert.equal(tomb.records[0]!.value, null, 'the tombstone is kept until its horizon');
    assert.equal(tomb.hasDeleteHorizon, true);
    assert.equal(tomb.baseTimestamp, BigInt(T0 + 100 + 1000));
    assert.equal(tomb.records[0]!.timestamp, BigInt(T0 + 5), 'record timestamps survive relative to the horizon');
    assert.equal(tomb.maxTimestamp, BigInt(T0 + 5));
    // before the horizon a new round keeps it, with the same horizon
    appendRecords(h.log, [{ key: 'c', value: '1' }]);
    h.log.roll();
    h.clock.now = T0 + 500;
    h.cleaner.compact(h.log);
    batches = readDisk(pdir());
    assert.ok(batches.some((b) => b.hasDeleteHorizon && b.baseTimestamp === BigInt(T0 + 1100) && b.records.some((r) => r.key === 'a')));
    // after it, the tombstone goes
    appendRecords(h.log, [{ key: 'd', value: '1' }]);
    h.log.roll();
    h.clock.now = T0 + 1101;
    h.cleaner.compact(h.log);
    const keys = diskRecords(pdir()).map((r) => r.key);
    assert.ok(!keys.includes('a'), `tombstone removed after the horizon: ${keys}`);
    assert.deepEqual(keys.sort(), ['b', 'c', 'd']);
  });
});

describe('log cleaner: transactions', () => {
  it('aborted data goes at once, the ABORT marker stays one round (with its txn index entry), then gets a horizon, then goes', () => {
    h = openHarness(tmp.dir, compactConfig({ deleteRetentionMs: 1000 }));
    appendRecords(h.log, [{ key: 'x', value: '0' }]); // 0
    appendRecords(h.log, [{ key: 'a', value: 'aborted' }], { producerId: 7n, isTransactional: true, baseSequence: 0 }); // 1
    appendRecords(h.log, [{ key: 'b', value: 'aborted' }], { producerId: 7n, isTransactional: true, baseSequence: 1 }); // 2
    h.log.appendEndTxnMarker({ type: 'ABORT', producerId: 7n, producerEpoch: 0, coordinatorEpoch: 0 }); // 3
    // the producer moves on: a committed transaction, so its aborted batches are no longer its last
    appendRecords(h.log, [{ key: 'c', value: 'committed' }], { producerId: 7n, isTransactional: true, baseSequence: 2 }); // 4
    h.log.appendEndTxnMarker({ type: 'COMMIT', producerId: 7n, producerEpoch: 0, coordinatorEpoch: 0 }); // 5
    appendRecords(h.log, [{ key: 'y', value: '0' }]); // 6
    h.log.roll();
    h.cleaner.compact(h.log);
    let batches = readDisk(pdir());
    assert.deepEqual(batches.flatMap((b) => (b.isControl ? [] : b.records.map((r) => r.key))), ['x', 'c', 'y'], 'aborted data removed');
    const abort = batches.find((b) => b.isControl && b.baseOffset === 3n);
    assert.ok(abort, 'the ABORT marker is retained while its data was seen this pass');
    assert.equal(abort.hasDeleteHorizon, false);
    const seg = h.log.segmentList()[0]!;
    assert.deepEqual(seg.txnIndex.allAbortedTxns().map((t) => [t.producerId, t.firstOffset, t.lastOffset]), [[7n, 1n, 3n]], 'txn index entry carried into the cleaned segment');
    const commit = batches.find((b) => b.isControl && b.baseOffset === 5n);
    assert.ok(commit, 'COMMIT marker kept while batches of its transaction were seen');

    // round 2: nothing of the aborted txn is left: the marker gets a delete horizon (rewritten)
    appendRecords(h.log, [{ key: 'z', value: '0' }]);
    h.log.roll();
    h.clock.now = T0 + 10;
    h.cleaner.compact(h.log);
    batches = readDisk(pdir());
    const abort2 = batches.find((b) => b.isControl && b.baseOffset === 3n);
    assert.ok(abort2 && abort2.hasDeleteHorizon && abort2.baseTimestamp === BigInt(T0 + 10 + 1000), 'marker of an empty txn gets a horizon');

    // round 3 after the horizon: the marker goes
    appendRecords(h.log, [{ key: 'w', value: '0' }]);
    h.log.roll();
    h.clock.now = T0 + 2000;
    h.cleaner.compact(h.log);
    batches = readDisk(pdir());
    assert.equal(batches.find((b) => b.baseOffset === 3n), undefined, 'ABORT marker removed after its horizon');
  });

  it('the cleaner never cleans past the LSO (an open transaction)', () => {
    h = openHarness(tmp.dir, compactConfig());
    appendRecords(h.log, [{ key: 'a', value: '1' }]);
    appendRecords(h.log, [{ key: 'a', value: 'open' }], { producerId: 3n, isTransactional: true });
    h.log.roll();
    appendRecords(h.log, [{ key: 'a', value: '2' }]);
    h.log.roll();
    const r = h.cleaner.compact(h.log);
    assert.equal(r, undefined, 'the first dirty segment holds the LSO: nothing is cleanable');
    assert.equal(diskRecords(pdir()).length, 3);
  });
});

describe('log cleaner: producer state', () => {
  it("an active producer's last batch stays as an empty 61-byte header with its sequence fields", () => {
    h = openHarness(tmp.dir, compactConfig());
    appendRecords(h.log, [{ key: 'a', value: '1' }, { key: 'b', value: '1' }, { key: 'c', value: '1' }], { producerId: 9n, producerEpoch: 2, baseSequence: 10 });
    appendRecords(h.log, [{ key: 'a', value: '2' }, { key: 'b', value: '2' }, { key: 'c', value: '2' }]);
    h.log.roll();
    h.cleaner.compact(h.log);
    const empty = readDisk(pdir())[0]!;
    assert.equal(empty.size, 61);
    assert.equal(empty.count, 0);
    assert.equal(empty.baseOffset, 0n);
    assert.equal(empty.lastOffsetDelta, 2);
    assert.equal(empty.producerId, 9n);
    assert.equal(empty.producerEpoch, 2);
    assert.equal(empty.baseSequence, 10);
    assert.equal(empty.baseTimestamp, -1n);
    assert.equal(empty.hasDeleteHorizon, false);
    assert.equal(empty.compression, 0);
    // after reopening, the producer's next sequence is still accepted
    h.reopen();
    appendRecords(h.log, [{ key: 'd', value: '1' }], { producerId: 9n, producerEpoch: 2, baseSequence: 13 });
  });

  it('a non-last emptied producer batch is removed, and the round keeps its last batch even when emptied', () => {
    h = openHarness(tmp.dir, compactConfig());
    appendRecords(h.log, [{ key: 'a', value: '1' }], { producerId: 9n, baseSequence: 0 }); // 0
    appendRecords(h.log, [{ key: 'b', value: '1' }], { producerId: 9n, baseSequence: 1 }); // 1
    appendRecords(h.log, [{ key: 'a', value: '2' }, { key: 'c', value: null }]); // 2-3
    h.log.roll();
    h.clock.now = T0 + 1;
    h.cleaner.compact(h.log);
    const batches = readDisk(pdir());
    assert.deepEqual(batches.map((b) => [b.baseOffset, b.count]), [[1n, 1], [2n, 2]]);
  });
});

describe('log cleaner: offset map overflow and partial cleaning', () => {
  it('a map too small for the dirty keys cleans what it can per round; compact() finishes in later rounds', () => {
    // 24-byte slots: 20 slots, 18 keys per round at load factor 0.9
    h = openHarness(tmp.dir, compactConfig({ segmentBytes: 2000 }), { dedupeBufferSize: 24 * 20, threads: 1 });
    const written: { key: string; value: string }[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 50; i += 5) {
        const recs = Array.from({ length: 5 }, (_, j) => ({ key: `k${i + j}`, value: `v${round}-${i + j}` }));
        appendRecords(h.log, recs);
        written.push(...recs);
      }
    }
    h.log.roll();
    const toClean = h.cleaner.checkpoint.get('t', 0);
    assert.equal(toClean, undefined);
    const r = h.cleaner.compact(h.log);
    assert.ok(r);
    assert.equal(h.cleaner.checkpoint.get('t', 0), h.log.activeSegment.baseOffset, 'rounds continued to the end of the dirty section');
    const recs = diskRecords(pdir());
    assert.deepEqual(latest(recs), latest(written));
    assert.equal(recs.length, 50, 'one record per key');
  });
});

describe('log cleaner: swap recovery (LogLoader.removeTempFilesAndCollectSwapFiles)', () => {
  const config = compactConfig({ segmentBytes: 600 });
  const isSegmentFile = (n: string) => /^\d+\.(log|index|timeindex|txnindex)$/.test(n);

  /**
   * Six one-batch segments k0,k1,k2,k0,k1,k2 (two cleaning groups of three by size) and an active
   * one. Cleaning empties the first group entirely. Returns a copy of the old files.
   */
  function build(): string {
    h = openHarness(tmp.dir, config);
    for (let i = 0; i < 6; i++) {
      appendRecords(h.log, [{ key: `k${i % 3}`, value: `v${i}`.padEnd(100, '.') }]);
      h.log.roll();
    }
    appendRecords(h.log, [{ key: 'k0', value: 'last' }]);
    h.log.flush();
    const oldDir = join(tmp.dir, 'old');
    mkdirSync(oldDir);
    for (const n of readdirSync(pdir()).filter(isSegmentFile)) copyFileSync(join(pdir(), n), join(oldDir, n));
    return oldDir;
  }

  it('leftover .cleaned files are deleted and the old segments kept', () => {
    const oldDir = build();
    const expected = diskRecords(oldDir);
    h.cleaner.compact(h.log);
    h.log.close();
    // the crash came while the cleaned segments were written: every new file still .cleaned, the old files in place
    for (const n of readdirSync(pdir()).filter(isSegmentFile)) renameSync(join(pdir(), n), join(pdir(), n + '.cleaned'));
    for (const n of readdirSync(oldDir)) copyFileSync(join(oldDir, n), join(pdir(), n));
    h.log = PartitionLog.open(pdir(), 't', 0, { config });
    assert.deepEqual(diskRecords(pdir()), expected);
    assert.ok(readdirSync(pdir()).every((n) => !n.endsWith('.cleaned')));
  });

  it('.swap files beside the old segments complete the swap, also over trailing segments the cleaning emptied', () => {
    const oldDir = build();
    h.cleaner.compact(h.log);
    const seg0 = readdirSync(pdir()).filter((n) => n.startsWith('00000000000000000000.'));
    assert.equal(readDisk(pdir()).filter((b) => b.segment.startsWith('00000000000000000000')).length, 0, 'the first group was emptied');
    h.log.close();
    // crash right after group 1's .cleaned -> .swap renames: old files of both groups still in place
    for (const n of seg0.filter(isSegmentFile)) renameSync(join(pdir(), n), join(pdir(), n + '.swap'));
    for (const n of readdirSync(pdir()).filter(isSegmentFile)) rmSync(join(pdir(), n));
    for (const n of readdirSync(oldDir)) copyFileSync(join(oldDir, n), join(pdir(), n));
    writeSwapEndHint(pdir(), 0n, 3n); // what replaceSegments writes before the first .swap
    h.log = PartitionLog.open(pdir(), 't', 0, { config });
    const offsets = diskRecords(pdir()).map((r) => r.offset);
    assert.deepEqual(offsets, [3n, 4n, 5n, 6n], 'group 1 replaced by its (empty) cleaned segment, nothing of the old one beside it');
    assert.ok(readdirSync(pdir()).every((n) => !n.endsWith('.swap') && !n.endsWith(SWAP_END_SUFFIX)));
  });
});

import { SWAP_END_SUFFIX } from '../../../src/storage/file-names.js';
import { writeSwapEndHint } from '../../../src/storage/segment-swap.js';
