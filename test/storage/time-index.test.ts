/**
 * TimeIndex (Kafka `TimeIndex`, `AbstractIndex`): Kafka's TimeIndexTest scenarios, file-level
 * rules, and real Kafka-written `.timeindex` files checked against their `.log` the way
 * kafka-dump-log.sh does (`DumpLogSegments.dumpTimeIndex`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { TIME_INDEX_ENTRY_SIZE, TimeIndex, type TimestampOffset } from '../../src/storage/time-index.js';
import { CORPORA } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-time-index-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
function nonExistentFile(): string {
  return join(dir, `${String(fileCounter++).padStart(20, '0')}.timeindex`);
}

function isStorageError(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'STORAGE_ERROR';
}
function isInvalidArgument(err: unknown): boolean {
  return err instanceof InvalidArgumentError && err.code === 'INVALID_ARGUMENT';
}

// Kafka's TimeIndexTest fixture: 30 slots, base offset 45, entries (i*10, i*10 + base).
const MAX_ENTRIES = 30;
const BASE = 45n;

describe('TimeIndex (Kafka TimeIndexTest)', () => {
  let idx: TimeIndex;
  let path: string;
  beforeEach(() => {
    path = nonExistentFile();
    idx = TimeIndex.open(path, BASE, { maxIndexSize: MAX_ENTRIES * 12 });
  });
  function appendEntries(n: number): void {
    for (let i = 1; i <= n; i++) idx.maybeAppend(BigInt(i * 10), BigInt(i * 10) + BASE);
  }

  it('testLookUp: largest timestamp ≤ target, else (-1, baseOffset)', () => {
    assert.deepEqual(idx.lookup(100n), { timestamp: -1n, offset: BASE }, 'empty time index');
    appendEntries(MAX_ENTRIES - 1);
    assert.deepEqual(idx.lookup(0n), { timestamp: -1n, offset: BASE }, 'below the first entry');
    assert.deepEqual(idx.lookup(9n), { timestamp: -1n, offset: BASE });
    assert.deepEqual(idx.lookup(10n), { timestamp: 10n, offset: 55n });
    assert.deepEqual(idx.lookup(11n), { timestamp: 10n, offset: 55n });
    assert.deepEqual(idx.lookup(155n), { timestamp: 150n, offset: 195n });
    const last = { timestamp: BigInt((MAX_ENTRIES - 1) * 10), offset: BigInt((MAX_ENTRIES - 1) * 10) + BASE };
    assert.deepEqual(idx.lookup(0x7fffffffffffffffn), last, 'Long.MAX');
    assert.deepEqual(idx.lookup(-0x8000000000000000n), { timestamp: -1n, offset: BASE }, 'Long.MIN');
    // Every entry exactly, and just below it.
    for (let i = 1; i < MAX_ENTRIES; i++) {
      const e = { timestamp: BigInt(i * 10), offset: BigInt(i * 10) + BASE };
      assert.deepEqual(idx.lookup(e.timestamp), e);
      const below = i === 1 ? { timestamp: -1n, offset: BASE } : { timestamp: BigInt((i - 1) * 10), offset: BigInt((i - 1) * 10) + BASE };
      assert.deepEqual(idx.lookup(e.timestamp - 1n), below);
    }
    idx.close();
  });

  it('random lookups agree with a reference (timestamps crossing 32-bit boundaries)', () => {
    let seed = 3;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const big = TimeIndex.open(nonExistentFile(), 0n, { maxIndexSize: 2000 * 12 });
    const ref: TimestampOffset[] = [];
    let ts = 0xfffff000n;
    let offset = 0n;
    while (!big.isFull()) {
      ts += BigInt(1 + Math.floor(rand() * 3000)) * (rand() < 0.05 ? 1n << 33n : 1n);
      offset += BigInt(Math.floor(rand() * 3));
      big.maybeAppend(ts, offset);
      ref.push({ timestamp: ts, offset });
    }
    const floor = (t: bigint): TimestampOffset => {
      let best: TimestampOffset = { timestamp: -1n, offset: 0n };
      for (const e of ref) if (e.timestamp <= t) best = e;
      return best;
    };
    for (let i = 0; i < 3000; i++) {
      const e = ref[Math.floor(rand() * ref.length)]!;
      for (const t of [e.timestamp, e.timestamp - 1n, e.timestamp + 1n, e.timestamp + BigInt(Math.floor(rand() * 5000))]) {
        assert.deepEqual(big.lookup(t), floor(t), `lookup(${t})`);
      }
    }
    assert.deepEqual(big.lookup(-5n), { timestamp: -1n, offset: 0n });
    assert.deepEqual(big.lookup(1n << 70n), ref.at(-1), 'beyond Long.MAX');
    assert.deepEqual(big.lookup(-(1n << 70n)), { timestamp: -1n, offset: 0n }, 'below Long.MIN');
    big.close();
    idx.close();
  });

  it('testEntry: entry(n) returns the n-th appended entry', () => {
    appendEntries(MAX_ENTRIES - 1);
    assert.deepEqual(idx.entry(0), { timestamp: 10n, offset: 55n });
    assert.deepEqual(idx.entry(1), { timestamp: 20n, offset: 65n });
    assert.deepEqual(idx.entry(2), { timestamp: 30n, offset: 75n });
    assert.deepEqual(idx.entry(MAX_ENTRIES - 2), { timestamp: 290n, offset: 335n });
    idx.close();
  });

  it('testEntryOverflow: entry(n) outside [0, entries) fails', () => {
    assert.throws(() => idx.entry(0), isInvalidArgument);
    appendEntries(3);
    assert.throws(() => idx.entry(3), (e: unknown) => isInvalidArgument(e) && /time index/.test(String(e)));
    idx.close();
  });

  it('testTruncate: keeps entries whose offset is below the given offset', () => {
    appendEntries(MAX_ENTRIES - 1);
    idx.truncateTo(10n + BASE);
    assert.deepEqual(idx.lookup(10n), { timestamp: -1n, offset: BASE }, 'truncating to the first entry empties');
    assert.equal(idx.entries, 0);
    assert.deepEqual(idx.lastEntry(), { timestamp: -1n, offset: BASE });
    appendEntries(MAX_ENTRIES - 1);
    idx.truncateTo(11n + BASE);
    assert.deepEqual(idx.lookup(10n), { timestamp: 10n, offset: 55n });
    assert.equal(idx.entries, 1);
    assert.deepEqual(idx.lastEntry(), { timestamp: 10n, offset: 55n });
    idx.maybeAppend(20n, 65n); // appending resumes after the kept entry
    idx.truncateTo(0n);
    assert.equal(idx.entries, 0);
    idx.close();
  });

  it('testAppend: full, smaller offset and smaller timestamp fail; equal timestamp is ignored', () => {
    appendEntries(MAX_ENTRIES - 1);
    assert.equal(idx.isFull(), true);
    assert.throws(() => idx.maybeAppend(10000n, 1000n + BASE), (e: unknown) => isInvalidArgument(e) && /full time index/.test(String(e)));
    assert.throws(
      () => idx.maybeAppend(10000n, BigInt((MAX_ENTRIES - 2) * 10) + BASE, true),
      (e: unknown) => isInvalidArgument(e) && /no larger than the last offset/.test(String(e)),
    );
    assert.throws(() => idx.maybeAppend(5n, 1000n + BASE, true), (e: unknown) =>
      isInvalidArgument(e) && /no larger than the last timestamp/.test(String(e)),
    );
    // The reserved slot takes the roll/close entry.
    idx.maybeAppend(10000n, 1000n + BASE, true);
    assert.equal(idx.entries, MAX_ENTRIES);
    assert.throws(() => idx.maybeAppend(20000n, 2000n + BASE, true), isInvalidArgument, 'no slot left at all');
    idx.close();
  });

  it('append rules: only larger timestamps are indexed, never smaller offsets', () => {
    idx.maybeAppend(-1n, BASE); // v0 data: NO_TIMESTAMP is not > the empty index's -1
    assert.equal(idx.entries, 0);
    idx.maybeAppend(100n, BASE + 5n);
    idx.maybeAppend(100n, BASE + 9n); // equal timestamp: silently ignored (the roll/close re-append)
    assert.equal(idx.entries, 1);
    assert.deepEqual(idx.lastEntry(), { timestamp: 100n, offset: BASE + 5n });
    idx.maybeAppend(100n, BASE + 5n); // the same entry again: ignored
    assert.throws(() => idx.maybeAppend(200n, BASE + 4n), isInvalidArgument, 'smaller offset');
    assert.throws(() => idx.maybeAppend(99n, BASE + 6n), isInvalidArgument, 'smaller timestamp');
    idx.maybeAppend(200n, BASE + 5n); // a larger timestamp at the same offset is allowed
    assert.equal(idx.entries, 2);
    assert.throws(() => idx.maybeAppend(300n, BASE + 0x80000000n), (e: unknown) =>
      isInvalidArgument(e) && /Integer overflow/.test(String(e)),
    );
    assert.equal(idx.canAppendOffset(BASE + 0x7fffffffn), true);
    assert.equal(idx.canAppendOffset(BASE - 1n), false);
    idx.close();
  });

  it('testIsFull: the last slot is reserved (entries ≥ maxEntries − 1)', () => {
    const small = TimeIndex.open(nonExistentFile(), 0n, { maxIndexSize: 3 * 12 });
    assert.equal(small.maxEntries, 3);
    assert.equal(small.isFull(), false);
    small.maybeAppend(1n, 1n);
    assert.equal(small.isFull(), false);
    small.maybeAppend(2n, 2n);
    assert.equal(small.isFull(), true);
    small.close();
    idx.close();
  });

  it('testSanityCheck: sane index, last timestamp below first, last offset below base, ragged length', () => {
    idx.sanityCheck();
    appendEntries(5);
    idx.sanityCheck();
    idx.close();

    const entries = (rows: [bigint, number][], extra = 0): Buffer => {
      const buf = Buffer.alloc(rows.length * 12 + extra);
      rows.forEach(([ts, rel], i) => {
        buf.writeBigInt64BE(ts, i * 12);
        buf.writeInt32BE(rel, i * 12 + 8);
      });
      return buf;
    };
    const p1 = nonExistentFile();
    writeFileSync(p1, entries([[100n, 1], [50n, 2]]));
    const t1 = TimeIndex.open(p1, 0n, { writable: false });
    assert.throws(() => t1.sanityCheck(), (e: unknown) => isStorageError(e) && /less than the first timestamp 100/.test(String(e)));
    t1.close();

    const p2 = nonExistentFile();
    writeFileSync(p2, entries([[100n, 1], [150n, -2]]));
    const t2 = TimeIndex.open(p2, 10n, { writable: false });
    assert.throws(() => t2.sanityCheck(), (e: unknown) => isStorageError(e) && /last offset is 8/.test(String(e)));
    t2.close();

    const p3 = nonExistentFile();
    writeFileSync(p3, entries([[100n, 1]], 5));
    const t3 = TimeIndex.open(p3, 0n, { writable: false });
    assert.equal(t3.entries, 1);
    assert.throws(() => t3.sanityCheck(), (e: unknown) => isStorageError(e) && /found 17 bytes/.test(String(e)));
    t3.close();
  });

  it('a zero-filled tail counts as entries on reopen; sanityCheck then sees last timestamp 0 < first', () => {
    idx.maybeAppend(1000n, BASE + 1n);
    idx.flush();
    // Reopen the untrimmed, preallocated file as a crash would leave it.
    const reopened = TimeIndex.open(path, BASE);
    assert.equal(reopened.entries, MAX_ENTRIES);
    assert.deepEqual(reopened.lastEntry(), { timestamp: 0n, offset: BASE });
    assert.throws(() => reopened.sanityCheck(), isStorageError);
    reopened.close();
    assert.equal(statSync(path).size, MAX_ENTRIES * 12);
    idx.deleteIfExists(); // the abandoned first handle: released without a trim
  });

  it('testLastEntry after reopen', () => {
    appendEntries(4);
    idx.close();
    assert.equal(statSync(path).size, 4 * 12, 'close trims to the entries');
    const reopened = TimeIndex.open(path, BASE, { maxIndexSize: MAX_ENTRIES * 12 });
    assert.equal(reopened.entries, 4);
    assert.deepEqual(reopened.lastEntry(), { timestamp: 40n, offset: 40n + BASE });
    assert.deepEqual(reopened.lookup(35n), { timestamp: 30n, offset: 30n + BASE });
    // A trimmed file is full until resized (maxEntries = length / 12).
    assert.equal(reopened.maxEntries, 4);
    assert.equal(reopened.isFull(), true);
    reopened.close();
  });

  it('testResize: keeps entries and lookups; reset restores capacity', () => {
    appendEntries(10);
    assert.equal(idx.resize(20 * 12 + 7), true);
    assert.equal(statSync(path).size, 240);
    assert.equal(idx.maxEntries, 20);
    assert.equal(idx.entries, 10);
    assert.deepEqual(idx.lookup(55n), { timestamp: 50n, offset: 50n + BASE });
    assert.equal(idx.resize(240), false);
    assert.throws(() => idx.resize(9 * 12), isInvalidArgument);
    idx.maybeAppend(110n, 110n + BASE);
    idx.trimToValidSize();
    assert.equal(statSync(path).size, 11 * 12);
    assert.equal(idx.isFull(), true);
    idx.reset();
    assert.equal(idx.entries, 0);
    assert.equal(statSync(path).size, MAX_ENTRIES * 12);
    assert.deepEqual(idx.lastEntry(), { timestamp: -1n, offset: BASE });
    appendEntries(2);
    assert.deepEqual(idx.lookup(1000n), { timestamp: 20n, offset: 20n + BASE });
    idx.close();
  });

  it('entry size and parsing: 12 bytes, int64 timestamp then int32 relative offset', () => {
    assert.equal(TIME_INDEX_ENTRY_SIZE, 12);
    idx.maybeAppend(0x0102030405060708n, BASE + 0x7fffffffn);
    idx.flush(); // appends reach the file on flush, as Kafka's mmap'd entries reach disk
    const bytes = readFileSync(path);
    assert.equal(bytes.readBigInt64BE(0), 0x0102030405060708n);
    assert.equal(bytes.readInt32BE(8), 0x7fffffff);
    assert.equal(idx.sizeInBytes, 12);
    assert.deepEqual(idx.entry(0), { timestamp: 0x0102030405060708n, offset: BASE + 0x7fffffffn });
    idx.close();
  });

  it('preallocates a new file to roundDown(maxIndexSize, 12)', () => {
    idx.close();
    assert.equal(statSync(path).size, 0, 'closing an empty index trims to 0');
    const p = nonExistentFile();
    const dflt = TimeIndex.open(p, 0n);
    assert.equal(statSync(p).size, 10485756);
    assert.equal(dflt.maxEntries, 873813);
    assert.equal(dflt.deleteIfExists(), true);
  });

  it('renameTo and deleteIfExists', () => {
    appendEntries(1);
    idx.renameTo(`${path}.deleted`);
    assert.equal(idx.path, `${path}.deleted`);
    idx.maybeAppend(20n, 20n + BASE);
    idx.close();
    assert.equal(statSync(`${path}.deleted`).size, 24);
    assert.equal(idx.deleteIfExists(), true);
    assert.equal(idx.deleteIfExists(), false);
  });
});

// ---- real Kafka-written indexes -------------------------------------------------------------------

function findFiles(root: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, name.name);
    if (name.isDirectory()) out.push(...findFiles(p, suffix));
    else if (name.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

interface LogBatch {
  position: number;
  lastOffset: bigint;
  maxTimestamp: bigint;
  /** Max over the records' timestamps: what kafka-dump-log.sh compares (`DumpLogSegments.dumpTimeIndex`). */
  maxRecordTimestamp: bigint;
}

function readBatches(logPath: string): LogBatch[] {
  const records = FileRecords.open(logPath);
  try {
    const out: LogBatch[] = [];
    for (const b of records.batches()) {
      let maxRecordTimestamp = -1n;
      for (const r of b.batch.records()) if (r.timestamp > maxRecordTimestamp) maxRecordTimestamp = r.timestamp;
      out.push({ position: b.position, lastOffset: b.batch.lastOffset, maxTimestamp: b.batch.maxTimestamp, maxRecordTimestamp });
    }
    return out;
  } finally {
    records.close();
  }
}

describe('TimeIndex on Kafka-written .timeindex files (kafka-tester corpus)', () => {
  const timeIndexFiles = findFiles(join(CORPORA, 'kafka-tester'), '.timeindex');

  it('finds the corpus time index files', () => {
    assert.ok(timeIndexFiles.length >= 4, `found ${timeIndexFiles.length}`);
    assert.ok(timeIndexFiles.some((f) => statSync(f).size >= 36), 'at least one multi-entry time index');
  });

  for (const timeIndexPath of timeIndexFiles) {
    it(`entries agree with the .log: ${timeIndexPath.slice(CORPORA.length + 1)}`, () => {
      const logPath = timeIndexPath.replace(/\.timeindex$/, '.log');
      const baseOffset = BigInt(timeIndexPath.slice(-30, -10));
      const batches = readBatches(logPath);
      const idx = TimeIndex.open(timeIndexPath, baseOffset, { writable: false });
      const offsetIndex = OffsetIndex.open(timeIndexPath.replace(/\.timeindex$/, '.index'), baseOffset, { writable: false });
      try {
        idx.sanityCheck();
        assert.equal(idx.entries, statSync(timeIndexPath).size / 12);
        assert.ok(idx.entries > 0);
        let prev: TimestampOffset = { timestamp: -1n, offset: baseOffset };
        for (let i = 0; i < idx.entries; i++) {
          const e = idx.entry(i);
          // kafka-dump-log.sh (DumpLogSegments.dumpTimeIndex): from the offset index's position for the entry's offset, the
          // first batch with lastOffset ≥ the entry offset must end exactly there, and its max record
          // timestamp must equal the entry; indexed timestamps must strictly increase.
          const start = offsetIndex.lookup(e.offset).position;
          const batch = batches.find((b) => b.position >= start && b.lastOffset >= e.offset);
          assert.ok(batch, `entry ${i}: offset ${e.offset} not found in the log`);
          assert.equal(batch.lastOffset, e.offset, `entry ${i}: shallow offset`);
          assert.equal(batch.maxRecordTimestamp, e.timestamp, `entry ${i}: max record timestamp`);
          assert.equal(batch.maxTimestamp, e.timestamp, `entry ${i}: batch maxTimestamp`);
          assert.ok(e.timestamp > prev.timestamp && e.offset >= prev.offset, `entry ${i} out of order`);
          // TimeIndex: the entry is the max timestamp of the segment up to that batch.
          const maxSoFar = batches.filter((b) => b.lastOffset <= e.offset).reduce((m, b) => (b.maxTimestamp > m ? b.maxTimestamp : m), -1n);
          assert.equal(maxSoFar, e.timestamp, `entry ${i}: max timestamp so far`);
          assert.deepEqual(idx.lookup(e.timestamp), e);
          assert.deepEqual(idx.lookup(e.timestamp - 1n), prev);
          prev = e;
        }
        assert.deepEqual(idx.lastEntry(), prev);
        // The last entry (written at roll/close, LogSegment.onBecomeInactiveSegment) carries the segment's max timestamp.
        const segmentMax = batches.reduce((m, b) => (b.maxTimestamp > m ? b.maxTimestamp : m), -1n);
        assert.equal(idx.lastEntry().timestamp, segmentMax);
        assert.deepEqual(idx.lookup(0x7fffffffffffffffn), prev);
      } finally {
        idx.close();
        offsetIndex.close();
      }
    });
  }
});
