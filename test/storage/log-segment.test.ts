/**
 * LogSegment against Kafka's LogSegmentTest scenarios that apply to one node (Kafka
 * `LogSegment`): reads around gaps and bounds, truncation and what it reloads,
 * offset-by-timestamp, readNextOffset, recovery of corrupt indexes and logs, preallocation, the
 * first-batch timestamp, index entry placement and the roll conditions.
 */
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { readRecordBatches } from '../../src/record/index.js';
import { LogSegment } from '../../src/storage/log-segment.js';
import {
  appendRuleIndexes,
  frameLog,
  makeBatch,
  prng,
  randomBytes,
  readOffsetIndexFile,
  readTimeIndexFile,
  recoveryRuleIndexes,
  tempDir,
  type AppendChunk,
  type BuiltBatch,
} from '../helpers/storage.js';

const CFG = { indexIntervalBytes: 4096, segmentIndexBytes: 10 * 1024 * 1024 };
const T0 = 1_700_000_000_000;

let dir: string;
let cleanup: () => void;
const open: LogSegment[] = [];

function create(base: bigint | number, cfg = CFG, options: { initFileSize?: number; rollJitterMs?: number } = {}): LogSegment {
  const s = LogSegment.open(dir, BigInt(base), cfg, { create: true, ...options });
  open.push(s);
  return s;
}
function reopen(base: bigint | number, cfg = CFG): LogSegment {
  const s = LogSegment.open(dir, BigInt(base), cfg, { create: false });
  open.push(s);
  return s;
}
function append(seg: LogSegment, b: BuiltBatch): void {
  seg.append(b.lastOffset, b.maxTimestamp, b.lastOffset, b.bytes);
}
/** Offsets of every record in a read's bytes (whole batches only). */
function offsetsOf(bytes: Buffer | undefined): bigint[] {
  if (bytes === undefined) return [];
  const out: bigint[] = [];
  for (const batch of readRecordBatches(bytes)) for (const r of batch.records()) out.push(r.offset);
  return out;
}
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => BigInt(from + i));
function offsetEntries(seg: LogSegment) {
  return Array.from({ length: seg.offsetIndex.entries }, (_, i) => seg.offsetIndex.entry(i));
}
function timeEntries(seg: LogSegment) {
  return Array.from({ length: seg.timeIndex.entries }, (_, i) => seg.timeIndex.entry(i));
}
function writeAt(path: string, position: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, position);
  } finally {
    closeSync(fd);
  }
}

beforeEach(() => {
  ({ dir, cleanup } = tempDir('segment'));
});
afterEach(() => {
  for (const s of open.splice(0)) {
    try {
      s.close();
    } catch {
      /* already closed or deleted */
    }
  }
  cleanup();
});

describe('LogSegment reads (LogSegmentTest)', () => {
  it('testReadOnEmptySegment: a read from an empty segment is undefined', () => {
    const seg = create(40);
    assert.equal(seg.read(40n, 300), undefined);
    assert.equal(seg.read(41n, 300), undefined);
  });

  it('testReadBeforeFirstOffset: reading below the first offset returns the first batch', () => {
    const seg = create(40);
    append(seg, makeBatch(50, 4, T0));
    const r = seg.read(41n, 300);
    assert.ok(r);
    assert.equal(r.position, 0);
    assert.deepEqual(offsetsOf(r.records), range(50, 54));
  });

  it('testReadAfterLast: reading past the last offset is undefined', () => {
    const seg = create(40);
    append(seg, makeBatch(50, 2, T0));
    assert.equal(seg.read(52n, 200), undefined);
    assert.equal(seg.read(1000n, 200), undefined);
  });

  it('testReadFromGap: an offset in a gap returns the next batch', () => {
    const seg = create(40);
    const first = makeBatch(50, 2, T0);
    append(seg, first);
    append(seg, makeBatch(60, 2, T0 + 10));
    const r = seg.read(55n, 200);
    assert.ok(r);
    assert.equal(r.position, first.bytes.length);
    assert.deepEqual(offsetsOf(r.records), [60n, 61n]);
  });

  it('reading an offset inside a batch returns that whole batch (and later ones)', () => {
    const seg = create(0);
    append(seg, makeBatch(0, 5, T0));
    append(seg, makeBatch(5, 5, T0 + 5));
    const r = seg.read(3n, 1 << 20);
    assert.ok(r);
    assert.equal(r.position, 0);
    assert.deepEqual(offsetsOf(r.records), range(0, 10));
  });

  it('maxPosition bounds a read; a maxPosition at the batch start (no position known) reads nothing', () => {
    const seg = create(0);
    const a = makeBatch(0, 2, T0);
    const b = makeBatch(2, 2, T0 + 2);
    append(seg, a);
    append(seg, b);
    const bounded = seg.read(0n, 1 << 20, a.bytes.length);
    assert.ok(bounded);
    assert.deepEqual(bounded.records, a.bytes);
    const none = seg.read(2n, 1 << 20, a.bytes.length);
    assert.ok(none);
    assert.equal(none.records.length, 0);
    const zero = seg.read(0n, 0);
    assert.ok(zero);
    assert.equal(zero.records.length, 0);
  });

  it('minOneMessage returns the whole first batch even when maxSize is smaller; without it the batch is cut', () => {
    const seg = create(0);
    const a = makeBatch(0, 3, T0, { valueSize: 200 });
    append(seg, a);
    append(seg, makeBatch(3, 3, T0 + 3, { valueSize: 200 }));
    const whole = seg.read(0n, 10, seg.size, true);
    assert.ok(whole);
    assert.deepEqual(whole.records, a.bytes);
    assert.equal(whole.firstEntryIncomplete, false);
    const cut = seg.read(0n, 10, seg.size, false);
    assert.ok(cut);
    assert.equal(cut.records.length, 10);
    assert.equal(cut.firstEntryIncomplete, true);
    assert.deepEqual(cut.records, a.bytes.subarray(0, 10));
  });

  it('a negative maxSize is refused', () => {
    const seg = create(0);
    append(seg, makeBatch(0, 1, T0));
    assert.throws(() => seg.read(0n, -1), /Invalid max size/);
  });
});

describe('LogSegment sequential reads (a consumer fetching on from its last whole batch)', () => {
  /** Reads the segment from `from` as a consumer does: each read starts after the last whole batch of the one before. */
  function consume(seg: LogSegment, from: bigint, maxSize: number, into?: Buffer): { position: number; records: Buffer }[] {
    const reads: { position: number; records: Buffer }[] = [];
    let offset = from;
    for (;;) {
      const r = seg.read(offset, maxSize, seg.size, true, into);
      if (r === undefined || r.records.length === 0) return reads;
      reads.push({ position: r.position, records: Buffer.from(r.records) });
      let last: bigint | undefined;
      const reader = readRecordBatches(r.records, { verifyCrc: false });
      for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) last = b.lastOffset;
      assert.ok(last !== undefined, `no whole batch in the read at ${offset}`);
      offset = last + 1n;
    }
  }

  it('every read returns the appended bytes from the batch holding the fetch offset', () => {
    const seg = create(0);
    const rnd = prng(7);
    const batches: BuiltBatch[] = [];
    let next = 0;
    for (let i = 0; i < 60; i++) {
      const count = 1 + Math.floor(rnd() * 5);
      const b = makeBatch(next, count, T0 + next, { valueSize: 20 + Math.floor(rnd() * 400) });
      append(seg, b);
      batches.push(b);
      next += count;
    }
    const file = Buffer.concat(batches.map((b) => b.bytes));
    const starts: number[] = [];
    batches.reduce((p, b) => (starts.push(p), p + b.bytes.length), 0);
    for (const into of [undefined, Buffer.alloc(8192)]) {
      const reads = consume(seg, 0n, 1500, into);
      assert.ok(reads.length > 10);
      let covered = 0;
      for (const { position, records } of reads) {
        const k = starts.indexOf(position);
        assert.ok(k >= 0, `read at ${position} is not at a batch start`);
        // minOneMessage: a first batch larger than maxSize comes whole
        const want = Math.max(1500, batches[k]!.bytes.length);
        assert.deepEqual(records, file.subarray(position, Math.min(file.length, position + want)));
        covered = position + records.length;
      }
      assert.equal(covered, file.length);
    }
  });

  it('a batch larger than maxSize comes whole with minOneMessage and cut without it, also after a sequential read', () => {
    const seg = create(0);
    const small = makeBatch(0, 2, T0);
    const big = makeBatch(2, 20, T0 + 2, { valueSize: 300 });
    append(seg, small);
    append(seg, big);
    const first = seg.read(0n, small.bytes.length + 100, seg.size, true);
    assert.ok(first);
    assert.deepEqual(first.records.subarray(0, small.bytes.length), small.bytes);
    const whole = seg.read(2n, 200, seg.size, true);
    assert.ok(whole);
    assert.equal(whole.position, small.bytes.length);
    assert.deepEqual(whole.records, big.bytes);
    assert.equal(whole.firstEntryIncomplete, false);
    seg.read(0n, small.bytes.length + 100, seg.size, true);
    const cut = seg.read(2n, 200, seg.size, false);
    assert.ok(cut);
    assert.equal(cut.firstEntryIncomplete, true);
    assert.deepEqual(cut.records, big.bytes.subarray(0, 200));
  });

  it('after a truncation, a batch boundary learned before it is not trusted', () => {
    const seg = create(0);
    const a = makeBatch(0, 3, T0);
    const b = makeBatch(3, 3, T0 + 3, { valueSize: 300 });
    const c = makeBatch(6, 3, T0 + 6, { valueSize: 300 });
    for (const x of [a, b, c]) append(seg, x);
    const end = seg.size;
    // a consumer read everything: its next fetch is offset 9, which was at `end`
    assert.deepEqual(offsetsOf(seg.read(0n, 1 << 20)?.records), range(0, 9));
    seg.truncateTo(3n);
    // rewrite so that a batch starts at `end` again, but a later one (10-12): offset 9 is now inside y
    // value sizes move x by 2 bytes a step and y by 5: some pair lands y's end exactly on `end`
    let x: BuiltBatch | undefined;
    let y: BuiltBatch | undefined;
    for (let vx = 20; vx < 30 && y === undefined; vx++) {
      x = makeBatch(3, 2, T0 + 3, { valueSize: vx });
      for (let vy = 20; vy < 400 && y === undefined; vy++) {
        const candidate = makeBatch(5, 5, T0 + 5, { valueSize: vy });
        if (a.bytes.length + x.bytes.length + candidate.bytes.length === end) y = candidate;
      }
    }
    assert.ok(x && y, 'no value sizes put a batch boundary at the old end');
    const z = makeBatch(10, 3, T0 + 10);
    for (const n of [x, y, z]) append(seg, n);
    const r = seg.read(9n, 1 << 20);
    assert.ok(r);
    assert.equal(r.position, a.bytes.length + x.bytes.length);
    assert.deepEqual(offsetsOf(r.records), range(5, 13));
  });

  it('a corrupt size at the remembered position is reported as by a first read', () => {
    const seg = create(0);
    const a = makeBatch(0, 2, T0);
    append(seg, a);
    append(seg, makeBatch(2, 2, T0 + 2, { valueSize: 100 }));
    const r = seg.read(0n, a.bytes.length + 10);
    assert.ok(r);
    const bad = Buffer.alloc(4);
    bad.writeInt32BE(3);
    writeAt(seg.log.path, a.bytes.length + 8, bad);
    assert.throws(() => seg.read(2n, 1 << 20), (err: Error & { code?: string; position?: number }) => err.code === 'CORRUPT_RECORD' && err.position === a.bytes.length);
  });
});

describe('LogSegment truncation (LogSegmentTest)', () => {
  it('testTruncate: truncating removes the batch holding the offset and everything after', () => {
    const seg = create(40, { ...CFG, indexIntervalBytes: 1 });
    let offset = 40;
    for (let i = 0; i < 30; i++) {
      const b1 = makeBatch(offset, 1, T0 + offset);
      const b2 = makeBatch(offset + 1, 1, T0 + offset + 1);
      append(seg, b1);
      append(seg, b2);
      const r = seg.read(BigInt(offset + 1), 10000);
      assert.ok(r);
      assert.deepEqual(offsetsOf(r.records), [BigInt(offset + 1)]);
      seg.truncateTo(BigInt(offset + 1));
      assert.deepEqual(offsetsOf(seg.read(BigInt(offset), 10000)?.records), [BigInt(offset)]);
      assert.equal(seg.read(BigInt(offset + 1), 10000), undefined);
      assert.equal(seg.readNextOffset(), BigInt(offset + 1));
      offset += 1;
    }
    // every surviving offset index entry still points at a batch ending at that offset
    for (const e of offsetEntries(seg)) {
      const h = seg.translateOffset(e.offset, e.position);
      assert.ok(h && h.position === e.position && h.lastOffset === e.offset);
    }
  });

  it('truncating to an offset in a gap removes the next batch whole', () => {
    const seg = create(40);
    const a = makeBatch(50, 2, T0);
    append(seg, a);
    append(seg, makeBatch(60, 2, T0 + 1));
    const before = seg.size;
    const removed = seg.truncateTo(55n);
    assert.equal(seg.size, a.bytes.length);
    assert.equal(removed, before - a.bytes.length);
    assert.equal(seg.readNextOffset(), 52n);
    assert.equal(seg.read(55n, 1000), undefined);
  });

  it('testTruncateFull: truncating to the base offset empties the segment, which accepts appends again', () => {
    const seg = create(40, { ...CFG, indexIntervalBytes: 1 });
    append(seg, makeBatch(40, 2, T0));
    append(seg, makeBatch(42, 2, T0 + 10));
    append(seg, makeBatch(44, 2, T0 + 20));
    assert.ok(seg.offsetIndex.entries > 0);
    seg.truncateTo(0n);
    assert.equal(seg.size, 0);
    assert.equal(seg.offsetIndex.entries, 0);
    assert.equal(seg.timeIndex.entries, 0);
    assert.equal(seg.read(0n, 1024), undefined);
    assert.equal(seg.readNextOffset(), 40n);
    assert.equal(seg.firstBatchTimestamp(), undefined);
    append(seg, makeBatch(40, 2, T0 + 100));
    assert.equal(seg.firstBatchTimestamp(), BigInt(T0 + 101));
    assert.deepEqual(offsetsOf(seg.read(40n, 1024)?.records), [40n, 41n]);
  });

  it('testTruncateEmptySegment: truncating an empty segment is a no-op and leaves full-size indexes', () => {
    const cfg = { indexIntervalBytes: 4096, segmentIndexBytes: 1200 };
    const seg = create(0, cfg);
    seg.close();
    open.pop();
    // reopened from trimmed (empty) index files: capacity 0 until truncateTo resizes them back
    const again = reopen(0, cfg);
    assert.equal(again.offsetIndex.maxEntries, 0);
    again.truncateTo(0n);
    assert.equal(again.size, 0);
    assert.equal(again.offsetIndex.maxEntries, 1200 / 8);
    assert.equal(again.timeIndex.maxEntries, 100);
    assert.equal(again.offsetIndex.isFull(), false);
    assert.equal(again.timeIndex.isFull(), false);
    append(again, makeBatch(0, 1, T0));
    assert.equal(again.readNextOffset(), 1n);
  });

  it('testReloadLargestTimestampAndNextOffsetAfterTruncation: max timestamp and next offset follow truncation, also after reopening', () => {
    const cfg = { ...CFG, indexIntervalBytes: 1 };
    const seg = create(40, cfg);
    const n = 30;
    for (let i = 0; i < n; i++) append(seg, makeBatch(40 + i, 1, T0 + i * 10));
    for (let offset = 40 + n - 1; offset > 40; offset -= 3) {
      seg.truncateTo(BigInt(offset));
      assert.equal(seg.readNextOffset(), BigInt(offset));
      const m = seg.maxTimestampAndOffset();
      assert.deepEqual({ timestamp: m.timestamp, offset: m.offset }, { timestamp: BigInt(T0 + (offset - 41) * 10), offset: BigInt(offset - 1) });
    }
    const next = seg.readNextOffset();
    const max = seg.maxTimestampAndOffset();
    seg.close();
    open.pop();
    const again = reopen(40, cfg);
    assert.equal(again.readNextOffset(), next);
    const m2 = again.maxTimestampAndOffset();
    assert.deepEqual({ timestamp: m2.timestamp, offset: m2.offset }, { timestamp: max.timestamp, offset: max.offset });
    assert.equal(again.largestTimestamp(), max.timestamp);
  });
});

describe('LogSegment lookups (LogSegmentTest)', () => {
  it('testFindOffsetByTimestamp: first record with timestamp >= target, honouring the starting offset', () => {
    const seg = create(40, { ...CFG, indexIntervalBytes: 1 });
    // 10 batches of 3 records, timestamps 10 apart per record
    for (let i = 0; i < 10; i++) {
      const base = 40 + i * 3;
      append(seg, makeBatch(base, 3, [T0 + (base - 40) * 10, T0 + (base - 39) * 10, T0 + (base - 38) * 10]));
    }
    assert.ok(seg.timeIndex.entries > 0, 'the time index is used');
    for (let o = 40; o < 70; o++) {
      const ts = BigInt(T0 + (o - 40) * 10);
      assert.deepEqual(seg.findOffsetByTimestamp(ts, 40n), { timestamp: ts, offset: BigInt(o), leaderEpoch: 0 });
      // a timestamp between two records finds the later one
      if (o < 69) assert.equal(seg.findOffsetByTimestamp(ts + 1n, 40n)?.offset, BigInt(o + 1));
    }
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0 - 100), 40n)?.offset, 40n);
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0 + 1000), 40n), undefined);
    // startingOffset (log start offset) inside a batch: records below it are skipped
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0), 44n)?.offset, 44n);
  });

  it('findOffsetByTimestamp with non-monotonic timestamps returns the first record reaching the target', () => {
    const seg = create(0, { ...CFG, indexIntervalBytes: 1 });
    append(seg, makeBatch(0, 3, [T0 + 50, T0 + 10, T0 + 20]));
    append(seg, makeBatch(3, 3, [T0 + 30, T0 + 100, T0 + 40]));
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0 + 15), 0n)?.offset, 0n);
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0 + 60), 0n)?.offset, 4n);
    assert.equal(seg.findOffsetByTimestamp(BigInt(T0 + 101), 0n), undefined);
  });

  it('testNextOffsetCalculation: readNextOffset is baseOffset when empty, else last offset + 1 (also reloaded)', () => {
    const seg = create(40);
    assert.equal(seg.readNextOffset(), 40n);
    append(seg, makeBatch(50, 3, T0));
    assert.equal(seg.readNextOffset(), 53n);
    seg.close();
    open.pop();
    assert.equal(reopen(40).readNextOffset(), 53n);
  });

  it('testChangeFileSuffixes: renames .log/.index/.timeindex and the segment keeps working', () => {
    const seg = create(40);
    append(seg, makeBatch(40, 2, T0));
    const names = ['00000000000000000040.log', '00000000000000000040.index', '00000000000000000040.timeindex'];
    seg.changeFileSuffixes('', '.deleted');
    for (const n of names) {
      assert.equal(existsSync(join(dir, n)), false, n);
      assert.equal(existsSync(join(dir, n + '.deleted')), true, n + '.deleted');
    }
    assert.equal(seg.log.path, join(dir, names[0]! + '.deleted'));
    assert.deepEqual(offsetsOf(seg.read(40n, 1000)?.records), [40n, 41n]);
    seg.changeFileSuffixes('.deleted', '');
    for (const n of names) assert.equal(existsSync(join(dir, n)), true, n);
  });

  it('testGetFirstBatchTimestamp: undefined when empty, the first batch max timestamp after appends and after reload', () => {
    const seg = create(40);
    assert.equal(seg.firstBatchTimestamp(), undefined);
    append(seg, makeBatch(40, 2, [T0 + 5, T0 + 3]));
    append(seg, makeBatch(42, 1, T0 + 99));
    assert.equal(seg.firstBatchTimestamp(), BigInt(T0 + 5));
    seg.close();
    open.pop();
    assert.equal(reopen(40).firstBatchTimestamp(), BigInt(T0 + 5));
  });

  it('offset overflow: an append whose last offset does not fit the segment is refused', () => {
    const seg = create(0);
    const b = makeBatch(0x80000000, 1, T0);
    assert.throws(() => append(seg, b), /offset overflow/);
    assert.equal(seg.size, 0);
  });
});

describe('LogSegment index entry placement (LogSegment.append)', () => {
  function chunkOf(b: BuiltBatch): AppendChunk {
    return { size: b.bytes.length, largestOffset: b.lastOffset, maxTimestamp: b.maxTimestamp, shallowOffsetOfMaxTimestamp: b.lastOffset };
  }

  it('the first append never indexes, even when larger than index.interval.bytes', () => {
    const seg = create(0, { ...CFG, indexIntervalBytes: 10 });
    append(seg, makeBatch(0, 5, T0, { valueSize: 500 }));
    assert.equal(seg.offsetIndex.entries, 0);
    assert.equal(seg.timeIndex.entries, 0);
    append(seg, makeBatch(5, 1, T0 + 10));
    assert.deepEqual(offsetEntries(seg), [{ offset: 5n, position: seg.size - makeBatch(5, 1, T0 + 10).bytes.length }]);
  });

  it('strictly greater: exactly index.interval.bytes since the last entry does not index; one byte more does', () => {
    const b0 = makeBatch(0, 1, T0);
    const interval = b0.bytes.length; // after the first append, bytesSince == interval
    const seg = create(0, { ...CFG, indexIntervalBytes: interval });
    append(seg, b0);
    append(seg, makeBatch(1, 1, T0 + 1));
    assert.equal(seg.offsetIndex.entries, 0, 'bytesSince == interval is not > interval');
    append(seg, makeBatch(2, 1, T0 + 2)); // now 2 * size > interval
    assert.deepEqual(offsetEntries(seg), [{ offset: 2n, position: 2 * interval }]);
    assert.deepEqual(timeEntries(seg), [{ timestamp: BigInt(T0 + 2), offset: 2n }]);
  });

  it('random appends: offset and time index entries equal Kafka append rule, before and after close', () => {
    const rand = prng(7);
    for (const interval of [0, 1, 100, 333, 1000, 4096]) {
      const seg = create(1000, { ...CFG, indexIntervalBytes: interval });
      const chunks: AppendChunk[] = [];
      let next = 1000;
      for (let i = 0; i < 60; i++) {
        const n = 1 + Math.floor(rand() * 4);
        // non-monotonic timestamps, so the time index skips some entries
        const stamps = Array.from({ length: n }, () => T0 + Math.floor(rand() * 5000));
        const b = makeBatch(next, n, stamps, { valueSize: 1 + Math.floor(rand() * 300) });
        append(seg, b);
        chunks.push(chunkOf(b));
        next += n;
      }
      const expected = appendRuleIndexes(chunks, 1000n, interval, false);
      assert.deepEqual(offsetEntries(seg), expected.offsets, `offset index, interval ${interval}`);
      assert.deepEqual(timeEntries(seg), expected.times, `time index, interval ${interval}`);
      seg.close();
      open.pop();
      const withFinal = appendRuleIndexes(chunks, 1000n, interval, true);
      assert.deepEqual(readOffsetIndexFile(join(dir, '00000000000000001000.index'), 1000n), withFinal.offsets);
      assert.deepEqual(readTimeIndexFile(join(dir, '00000000000000001000.timeindex'), 1000n), withFinal.times, 'close adds the final time entry and trims');
      cleanupFiles(1000);
    }
  });

  it('one entry per append: a chunk of several batches indexes once, at the chunk start, with its largest offset', () => {
    const seg = create(0, { ...CFG, indexIntervalBytes: 10 });
    const first = makeBatch(0, 2, T0);
    append(seg, first);
    const a = makeBatch(2, 2, T0 + 50); // holds the max timestamp of the chunk
    const b = makeBatch(4, 2, T0 + 5);
    const chunk = Buffer.concat([a.bytes, b.bytes]);
    seg.append(5n, BigInt(T0 + 51), 3n, chunk);
    assert.deepEqual(offsetEntries(seg), [{ offset: 5n, position: first.bytes.length }]);
    assert.deepEqual(timeEntries(seg), [{ timestamp: BigInt(T0 + 51), offset: 3n }]);
    // readNextOffset and reads still see both batches
    assert.equal(seg.readNextOffset(), 6n);
    assert.deepEqual(offsetsOf(seg.read(4n, 10000)?.records), [4n, 5n]);
  });
});

function cleanupFiles(base: number) {
  for (const ext of ['log', 'index', 'timeindex']) rmSync(join(dir, `${String(base).padStart(20, '0')}.${ext}`), { force: true });
}

describe('LogSegment recovery (LogSegmentTest)', () => {
  function fill(seg: LogSegment, n: number, from = 0, tsStep = 10): BuiltBatch[] {
    const out: BuiltBatch[] = [];
    for (let i = 0; i < n; i++) {
      const b = makeBatch(from + i, 1, T0 + (from + i) * tsStep);
      append(seg, b);
      out.push(b);
    }
    return out;
  }

  it('testRecoveryFixesCorruptIndex: nonsense in the offset index is rebuilt by recover()', () => {
    const cfg = { ...CFG, indexIntervalBytes: 1 };
    const seg = create(0, cfg);
    fill(seg, 100);
    seg.close();
    open.pop();
    const indexPath = join(dir, '00000000000000000000.index');
    const len = statSync(indexPath).size;
    writeAt(indexPath, 5, randomBytes(len - 5, prng(1)));
    const again = reopen(0, cfg);
    assert.equal(again.recover(), 0);
    for (let i = 0; i < 100; i++) assert.deepEqual(offsetsOf(again.read(BigInt(i), 1, again.size, true)?.records), [BigInt(i)]);
    const batches = frameLog(readFileSync(join(dir, '00000000000000000000.log')));
    assert.deepEqual(offsetEntries(again), recoveryRuleIndexes(batches, 0n, 1).offsets);
  });

  it('testRecoveryFixesCorruptTimeIndex: nonsense in the time index is rebuilt by recover()', () => {
    const cfg = { ...CFG, indexIntervalBytes: 1 };
    const seg = create(0, cfg);
    fill(seg, 100);
    seg.close();
    open.pop();
    const path = join(dir, '00000000000000000000.timeindex');
    const len = statSync(path).size;
    writeAt(path, 5, randomBytes(len - 5, prng(2)));
    const again = reopen(0, cfg);
    again.recover();
    for (let i = 0; i < 100; i++) {
      const ts = BigInt(T0 + i * 10);
      assert.equal(again.findOffsetByTimestamp(ts, 0n)?.offset, BigInt(i));
      if (i < 99) assert.equal(again.findOffsetByTimestamp(ts + 1n, 0n)?.offset, BigInt(i + 1));
    }
    const batches = frameLog(readFileSync(join(dir, '00000000000000000000.log')));
    assert.deepEqual(timeEntries(again), recoveryRuleIndexes(batches, 0n, 1).times);
  });

  it('recover() reports every valid batch to its callback, in order', () => {
    const seg = create(0);
    const built = fill(seg, 10);
    const seen: { base: bigint; position: number }[] = [];
    seg.recover((batch, position) => seen.push({ base: batch.baseOffset, position }));
    let pos = 0;
    assert.deepEqual(
      seen,
      built.map((b) => {
        const e = { base: b.baseOffset, position: pos };
        pos += b.bytes.length;
        return e;
      }),
    );
  });

  it('testRecoveryWithCorruptMessage: garbage inside a batch truncates the log at that batch', () => {
    const rand = prng(99);
    for (let iteration = 0; iteration < 10; iteration++) {
      const base = 1000 * (iteration + 1);
      const seg = create(base, { ...CFG, indexIntervalBytes: 1 });
      const built = fill(seg, 100, base);
      const k = Math.floor(rand() * 100);
      const position = built.slice(0, k).reduce((n, b) => n + b.bytes.length, 0);
      // garbage from somewhere inside the batch header/body to the end of the file
      const at = position + Math.floor(rand() * 15);
      seg.flush();
      writeAt(seg.log.path, at, randomBytes(seg.size - at, rand));
      const truncated = seg.recover();
      assert.equal(truncated, built.reduce((n, b) => n + b.bytes.length, 0) - position, `iteration ${iteration}`);
      assert.equal(seg.size, position);
      assert.equal(seg.readNextOffset(), BigInt(base + k));
      assert.deepEqual(offsetsOf(seg.read(BigInt(base), 1 << 20, seg.size)?.records), range(base, base + k));
      for (const e of offsetEntries(seg)) assert.ok(e.position < seg.size);
    }
  });

  it('a torn trailing batch is truncated quietly; a size field below 14 is corruption', () => {
    const seg = create(0);
    const built = fill(seg, 5);
    const whole = seg.size;
    const path = seg.log.path;
    seg.close();
    open.pop();
    // torn: a copy of a batch cut short, as a crash mid-write leaves it
    const fd = openSync(path, 'a');
    writeSync(fd, built[0]!.bytes.subarray(0, 30));
    closeSync(fd);
    const again = reopen(0);
    assert.equal(again.size, whole + 30);
    assert.equal(again.recover(), 30);
    assert.equal(again.size, whole);
    assert.equal(statSync(again.log.path).size, whole);
    // size field 3 in the header of batch 2
    const pos = built[0]!.bytes.length + built[1]!.bytes.length;
    const sizeField = Buffer.alloc(4);
    sizeField.writeInt32BE(3);
    writeAt(again.log.path, pos + 8, sizeField);
    again.close();
    open.pop();
    const third = reopen(0);
    third.recover();
    assert.equal(third.size, pos);
    assert.equal(third.readNextOffset(), 2n);
  });
});

describe('LogSegment preallocation (LogSegmentTest)', () => {
  it('testCreateWithInitFileSizeAppendMessage: a preallocated segment appends and reads at its logical size', () => {
    const seg = create(40, CFG, { initFileSize: 512 * 1024 });
    assert.equal(statSync(seg.log.path).size, 512 * 1024);
    assert.equal(seg.size, 0);
    const a = makeBatch(50, 2, T0);
    const b = makeBatch(60, 2, T0 + 10);
    append(seg, a);
    append(seg, b);
    assert.equal(seg.size, a.bytes.length + b.bytes.length);
    assert.deepEqual(offsetsOf(seg.read(55n, 200)?.records), [60n, 61n]);
    assert.equal(seg.readNextOffset(), 62n);
  });

  it('testCreateWithInitFileSizeClearShutdown: close trims the preallocated file; reopening sees only the data', () => {
    const seg = create(40, CFG, { initFileSize: 512 * 1024 });
    const a = makeBatch(50, 2, T0);
    const b = makeBatch(60, 2, T0 + 10);
    append(seg, a);
    append(seg, b);
    const size = seg.size;
    seg.close();
    open.pop();
    assert.equal(statSync(join(dir, '00000000000000000040.log')).size, size);
    const again = reopen(40);
    assert.equal(again.size, size);
    assert.deepEqual(offsetsOf(again.read(55n, 200)?.records), [60n, 61n]);
    assert.equal(again.readNextOffset(), 62n);
    assert.equal(again.recover(), 0);
  });

  it('onBecomeInactiveSegment trims the preallocated log and both indexes and writes the final time entry', () => {
    const seg = create(0, CFG, { initFileSize: 64 * 1024 });
    append(seg, makeBatch(0, 2, T0 + 7));
    seg.onBecomeInactiveSegment();
    assert.equal(statSync(seg.log.path).size, seg.size);
    assert.equal(statSync(join(dir, '00000000000000000000.index')).size, 0);
    assert.deepEqual(readTimeIndexFile(join(dir, '00000000000000000000.timeindex'), 0n), [{ timestamp: BigInt(T0 + 8), offset: 1n }]);
  });

  it('a crashed preallocated segment exposes its zero tail until recovery truncates it', () => {
    const seg = create(0, CFG, { initFileSize: 64 * 1024 });
    append(seg, makeBatch(0, 3, T0));
    const size = seg.size;
    seg.flush();
    // simulate a crash: no close(); reopen the same files
    const again = reopen(0);
    assert.equal(again.size, 64 * 1024);
    assert.equal(again.recover(), 64 * 1024 - size);
    assert.equal(again.size, size);
    assert.equal(again.readNextOffset(), 3n);
  });
});

describe('LogSegment.shouldRoll', () => {
  const base = { maxSegmentMs: 1000, segmentBytes: 1000, messagesSize: 10, maxTimestampInMessages: -1n, maxOffsetInMessages: 0n, now: Date.now() };

  it('rolls when the append would push the segment beyond segment.bytes (size > segment.bytes - messagesSize)', () => {
    const seg = create(0);
    const b = makeBatch(0, 1, T0);
    append(seg, b);
    const size = b.bytes.length;
    const p = { ...base, maxTimestampInMessages: BigInt(T0), maxOffsetInMessages: 1n };
    assert.equal(seg.shouldRoll({ ...p, segmentBytes: size + 10, messagesSize: 10 }), false, 'exactly full is allowed');
    assert.equal(seg.shouldRoll({ ...p, segmentBytes: size + 10, messagesSize: 11 }), true);
    // an empty segment rolls by size only if the append alone exceeds it (size 0 > bytes - msg)
    const empty = create(100);
    assert.equal(empty.shouldRoll({ ...p, maxOffsetInMessages: 100n, segmentBytes: 10, messagesSize: 10 }), false);
    assert.equal(empty.shouldRoll({ ...p, maxOffsetInMessages: 100n, segmentBytes: 10, messagesSize: 11 }), true);
  });

  it('rolls by time from the first batch timestamp: waited > segment.ms - jitter', () => {
    const seg = create(0, CFG, { rollJitterMs: 100 });
    append(seg, makeBatch(0, 1, T0));
    const p = { ...base, segmentBytes: 1 << 30, maxOffsetInMessages: 1n };
    assert.equal(seg.shouldRoll({ ...p, maxTimestampInMessages: BigInt(T0 + 900) }), false, 'waited == ms - jitter');
    assert.equal(seg.shouldRoll({ ...p, maxTimestampInMessages: BigInt(T0 + 901) }), true);
    // the time rule never applies to an empty segment
    const empty = create(100);
    assert.equal(empty.shouldRoll({ ...p, maxOffsetInMessages: 100n, maxTimestampInMessages: BigInt(T0 + 1e9) }), false);
  });

  it('rolls by time from the segment creation time when the first batch has no timestamp', () => {
    const seg = create(0);
    append(seg, makeBatch(0, 1, -1));
    const p = { ...base, segmentBytes: 1 << 30, maxOffsetInMessages: 1n, maxTimestampInMessages: -1n };
    assert.equal(seg.shouldRoll({ ...p, now: seg.createdMs + 1000 }), false);
    assert.equal(seg.shouldRoll({ ...p, now: seg.createdMs + 1001 }), true);
  });

  it('rolls when the offset index is full', () => {
    const cfg = { indexIntervalBytes: 0, segmentIndexBytes: 36 }; // 4 offset entries, 3 time slots
    const seg = create(0, cfg);
    const p = { ...base, segmentBytes: 1 << 30, maxTimestampInMessages: BigInt(T0), maxOffsetInMessages: 10n };
    append(seg, makeBatch(0, 1, T0));
    // equal timestamps: one time entry (the first), then offset entries only
    for (let i = 1; i < 4; i++) append(seg, makeBatch(i, 1, T0));
    assert.equal(seg.offsetIndex.entries, 3);
    assert.equal(seg.timeIndex.entries, 1);
    assert.equal(seg.shouldRoll(p), false);
    append(seg, makeBatch(4, 1, T0));
    assert.equal(seg.offsetIndex.isFull(), true);
    assert.equal(seg.timeIndex.isFull(), false);
    assert.equal(seg.shouldRoll(p), true);
  });

  it('rolls when the time index is full (entries >= maxEntries - 1)', () => {
    const cfg = { indexIntervalBytes: 0, segmentIndexBytes: 24 }; // 3 offset entries, 2 time slots
    const seg = create(0, cfg);
    const p = { ...base, segmentBytes: 1 << 30, maxTimestampInMessages: BigInt(T0 + 10), maxOffsetInMessages: 10n };
    append(seg, makeBatch(0, 1, T0));
    assert.equal(seg.shouldRoll(p), false);
    append(seg, makeBatch(1, 1, T0 + 1)); // one time entry: maxEntries(2) - 1 reached
    assert.equal(seg.timeIndex.entries, 1);
    assert.equal(seg.offsetIndex.isFull(), false);
    assert.equal(seg.timeIndex.isFull(), true);
    assert.equal(seg.shouldRoll(p), true);
  });

  it('rolls when the append offsets do not fit the segment (relative offset beyond Int.MAX)', () => {
    const seg = create(10);
    append(seg, makeBatch(10, 1, T0));
    const p = { ...base, segmentBytes: 1 << 30, maxTimestampInMessages: BigInt(T0) };
    assert.equal(seg.shouldRoll({ ...p, maxOffsetInMessages: 10n + 0x7fffffffn }), false);
    assert.equal(seg.shouldRoll({ ...p, maxOffsetInMessages: 11n + 0x7fffffffn }), true);
  });
});
