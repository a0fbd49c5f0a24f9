/**
 * OffsetIndex (Kafka `OffsetIndex`, `AbstractIndex`): Kafka's OffsetIndexTest scenarios, the file-level
 * rules (preallocation, trim, trusted length), the LRU cache budget (one per data directory), and real
 * Kafka-written `.index` files checked against their `.log` the way kafka-dump-log.sh does (`DumpLogSegments.dumpIndex`).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InvalidArgumentError, KafkaliteError, StorageError } from '../../src/errors.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { OffsetIndex, type OffsetPosition } from '../../src/storage/offset-index.js';
import { CORPORA } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-offset-index-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
function nonExistentFile(): string {
  return join(dir, `${String(fileCounter++).padStart(20, '0')}.index`);
}

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isStorageError(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'STORAGE_ERROR';
}
function isInvalidArgument(err: unknown): boolean {
  return err instanceof InvalidArgumentError && err.code === 'INVALID_ARGUMENT';
}

/** Reference floor lookup over sorted entries. */
function floorEntry(entries: OffsetPosition[], target: bigint, base: bigint): OffsetPosition {
  let best: OffsetPosition = { offset: base, position: 0 };
  for (const e of entries) if (e.offset <= target) best = e;
  return best;
}

const BASE = 45n;
const MAX_SIZE = 30 * 8;

describe('OffsetIndex (Kafka OffsetIndexTest)', () => {
  it('randomLookupTest: lookups agree with a reference map', () => {
    const rand = rng(1);
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: 1000 * 8 });
    const entries: OffsetPosition[] = [];
    let offset = BASE;
    let position = 0;
    for (let i = 0; i < idx.maxEntries; i++) {
      offset += BigInt(1 + Math.floor(rand() * 50));
      position += 1 + Math.floor(rand() * 5000);
      idx.append(offset, position);
      entries.push({ offset, position });
    }
    assert.equal(idx.entries, 1000);
    for (let i = 0; i < 2000; i++) {
      const target = BASE - 10n + BigInt(Math.floor(rand() * Number(offset - BASE + 100n)));
      assert.deepEqual(idx.lookup(target), floorEntry(entries, target, BASE), `lookup(${target})`);
    }
    // Every exact entry, too.
    for (const e of entries) assert.deepEqual(idx.lookup(e.offset), e);
    idx.close();
  });

  it('lookupExtremeCases: empty, below first, above last', () => {
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: MAX_SIZE });
    assert.deepEqual(idx.lookup(BASE), { offset: BASE, position: 0 }, 'empty index');
    assert.deepEqual(idx.lookup(0n), { offset: BASE, position: 0 });
    for (let i = 0; i < idx.maxEntries; i++) idx.append(BASE + BigInt(i + 1), i);
    assert.deepEqual(idx.lookup(BASE), { offset: BASE, position: 0 }, 'below the first entry');
    assert.deepEqual(idx.lookup(BASE - 100n), { offset: BASE, position: 0 });
    const last = idx.entry(idx.entries - 1);
    assert.deepEqual(idx.lookup(last.offset * 2n), last, 'above the last entry');
    assert.deepEqual(idx.lookup(BASE + (1n << 40n)), last, 'far beyond Int.MAX relative');
    assert.deepEqual(idx.lookup(-(1n << 62n)), { offset: BASE, position: 0 });
    idx.close();
  });

  it('testEntry: entry(n) returns the n-th appended entry', () => {
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: MAX_SIZE });
    for (let i = 0; i < idx.maxEntries; i++) idx.append(BASE + BigInt(i * 2 + 1), i * 10);
    for (let i = 0; i < idx.maxEntries; i++) {
      assert.deepEqual(idx.entry(i), { offset: BASE + BigInt(i * 2 + 1), position: i * 10 });
    }
    idx.close();
  });

  it('testEntryOverflow: entry(n) outside [0, entries) fails', () => {
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: MAX_SIZE });
    assert.throws(() => idx.entry(0), isInvalidArgument);
    idx.append(BASE + 1n, 0);
    assert.throws(() => idx.entry(1), isInvalidArgument);
    assert.throws(() => idx.entry(-1), isInvalidArgument);
    assert.deepEqual(idx.entry(0), { offset: BASE + 1n, position: 0 });
    idx.close();
  });

  it('appendTooMany: appending beyond capacity fails', () => {
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: MAX_SIZE });
    for (let i = 0; i < idx.maxEntries; i++) idx.append(BASE + BigInt(i + 1), i);
    assert.equal(idx.isFull(), true);
    assert.throws(() => idx.append(BASE + 1000n, 1000), (e: unknown) => isInvalidArgument(e) && /full index/.test(String(e)));
    idx.close();
  });

  it('appendOutOfOrder: an offset no larger than the last fails', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: MAX_SIZE });
    idx.append(51n, 0);
    assert.throws(() => idx.append(50n, 1), (e: unknown) => isInvalidArgument(e) && /no larger than the last offset/.test(String(e)));
    assert.throws(() => idx.append(51n, 1), isInvalidArgument, 'equal offsets are refused too');
    assert.equal(idx.entries, 1);
    idx.close();
  });

  it('relative offsets must fit [0, Int.MAX]; canAppendOffset is the non-throwing test', () => {
    const idx = OffsetIndex.open(nonExistentFile(), BASE, { maxIndexSize: MAX_SIZE });
    assert.equal(idx.canAppendOffset(BASE), true);
    assert.equal(idx.canAppendOffset(BASE + 0x7fffffffn), true);
    assert.equal(idx.canAppendOffset(BASE + 0x80000000n), false);
    assert.equal(idx.canAppendOffset(BASE - 1n), false);
    assert.throws(() => idx.append(BASE - 1n, 0), (e: unknown) => isInvalidArgument(e) && /Integer overflow/.test(String(e)));
    assert.throws(() => idx.append(BASE + 0x80000000n, 0), isInvalidArgument);
    idx.append(BASE + 0x7fffffffn, 7);
    assert.deepEqual(idx.lookup(BASE + 0x7fffffffn), { offset: BASE + 0x7fffffffn, position: 7 });
    idx.close();
  });

  it('testFetchUpperBoundOffset: first entry at or past startPosition + fetchSize', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: MAX_SIZE });
    assert.equal(idx.fetchUpperBoundOffset(0, 100), undefined, 'empty');
    const first = { offset: 0n, position: 0 };
    const second = { offset: 1n, position: 2 };
    const third = { offset: 2n, position: 4 };
    const fourth = { offset: 3n, position: 6 };
    for (const e of [first, second, third, fourth]) idx.append(e.offset, e.position);
    assert.deepEqual(idx.fetchUpperBoundOffset(first.position, 5), fourth);
    assert.deepEqual(idx.fetchUpperBoundOffset(first.position, 2), second);
    assert.deepEqual(idx.fetchUpperBoundOffset(second.position, 1), third);
    assert.deepEqual(idx.fetchUpperBoundOffset(second.position, 0), second, 'an exact position match');
    assert.equal(idx.fetchUpperBoundOffset(fourth.position, 1), undefined);
    assert.equal(idx.fetchUpperBoundOffset(first.position, 7), undefined);
    assert.equal(idx.fetchUpperBoundOffset(third.position, 3), undefined);
    idx.close();
  });

  it('testReopen: a closed and reopened index has the same entries', () => {
    const path = nonExistentFile();
    const first = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    first.append(0n, 0);
    first.append(1n, 123);
    first.close();
    const reopened = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    assert.equal(reopened.entries, 2);
    assert.equal(reopened.lastOffset, 1n);
    assert.deepEqual(reopened.entry(1), { offset: 1n, position: 123 });
    assert.deepEqual(reopened.lookup(0n), { offset: 0n, position: 0 });
    assert.deepEqual(reopened.lookup(5n), { offset: 1n, position: 123 });
    // Reopened from its trimmed length the index is full until resized (Kafka: maxEntries = length / 8).
    assert.equal(reopened.isFull(), true);
    assert.equal(reopened.resize(MAX_SIZE), true);
    reopened.append(2n, 200);
    assert.equal(reopened.entries, 3);
    reopened.close();
  });

  it('truncate: keeps entries strictly below the offset', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: 10 * 8 });
    for (let i = 1; i < 10; i++) idx.append(BigInt(i), i);
    // Truncate to a number larger than any entry: no effect.
    idx.truncateTo(12n);
    assert.equal(idx.entries, 9);
    assert.deepEqual(idx.lookup(10n), { offset: 9n, position: 9 });
    // Truncate to an exact entry: it goes too.
    idx.truncateTo(9n);
    assert.deepEqual(idx.lookup(10n), { offset: 8n, position: 8 });
    assert.equal(idx.lastOffset, 8n);
    // Truncate between entries: the entry below stays.
    idx.truncateTo(5n);
    assert.deepEqual(idx.lookup(10n), { offset: 4n, position: 4 });
    assert.equal(idx.entries, 4);
    idx.truncateTo(0n);
    assert.deepEqual(idx.lookup(10n), { offset: 0n, position: 0 });
    assert.equal(idx.entries, 0);
    assert.equal(idx.lastOffset, 0n);
    for (let i = 1; i < 10; i++) idx.append(BigInt(i), i);
    assert.equal(idx.entries, 9);
    idx.truncateTo(-5n);
    assert.equal(idx.entries, 0);
    idx.close();
  });

  it('forceUnmap analogue: a closed index refuses reads with a StorageError', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: MAX_SIZE });
    idx.append(1n, 1);
    idx.close();
    idx.close(); // idempotent
    assert.throws(() => idx.lookup(1n), isStorageError);
    assert.throws(() => idx.entry(0), isStorageError);
    assert.throws(() => idx.append(2n, 2), KafkaliteError);
    assert.throws(() => idx.flush(), isStorageError);
  });

  it('testSanityLastOffsetEqualToBaseOffset: an entry at the base offset is sane', () => {
    const base = 20n;
    const idx = OffsetIndex.open(nonExistentFile(), base, { maxIndexSize: MAX_SIZE });
    idx.append(base, 10);
    assert.equal(idx.lastOffset, base);
    idx.sanityCheck();
    idx.close();
  });

  it('sanityCheck: last offset below base (negative relative offset) is corrupt', () => {
    const path = nonExistentFile();
    const buf = Buffer.alloc(16);
    buf.writeInt32BE(1, 0);
    buf.writeInt32BE(0, 4);
    buf.writeInt32BE(-1, 8);
    buf.writeInt32BE(100, 12);
    writeFileSync(path, buf);
    const idx = OffsetIndex.open(path, 100n, { writable: false });
    assert.equal(idx.lastOffset, 99n);
    assert.throws(() => idx.sanityCheck(), (e: unknown) => isStorageError(e) && /last offset is 99/.test(String(e)));
    idx.close();
  });

  it('sanityCheck: a file length that is not a multiple of 8 is corrupt', () => {
    const path = nonExistentFile();
    const buf = Buffer.alloc(19);
    buf.writeInt32BE(3, 0);
    buf.writeInt32BE(0, 4);
    buf.writeInt32BE(7, 8);
    buf.writeInt32BE(40, 12);
    writeFileSync(path, buf);
    const idx = OffsetIndex.open(path, 0n);
    assert.equal(idx.entries, 2, 'whole slots count, the ragged tail does not');
    assert.equal(idx.length, 19);
    assert.throws(() => idx.sanityCheck(), (e: unknown) => isStorageError(e) && /found 19 bytes/.test(String(e)));
    idx.close();
    assert.equal(statSync(path).size, 16, 'close() trims a writable index to its entries');
  });

  it('preallocates a new file to roundDown(maxIndexSize, 8)', () => {
    const path = nonExistentFile();
    const idx = OffsetIndex.open(path, 0n, { maxIndexSize: 1003 });
    assert.equal(statSync(path).size, 1000);
    assert.equal(idx.maxEntries, 125);
    assert.equal(idx.entries, 0);
    idx.close();
    const dflt = OffsetIndex.open(nonExistentFile(), 0n);
    assert.equal(dflt.length, 10485760);
    assert.equal(dflt.maxEntries, 1310720);
    dflt.deleteIfExists();
    assert.throws(() => OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: 7 }), (e: unknown) =>
      isInvalidArgument(e) && /Invalid max index size/.test(String(e)),
    );
  });

  it('flush writes the entries to the file in Kafka layout (int32 relative offset, int32 position)', () => {
    const path = nonExistentFile();
    const idx = OffsetIndex.open(path, 1000n, { maxIndexSize: MAX_SIZE });
    idx.append(1005n, 4242);
    idx.append(1010n, 9000);
    idx.flush(); // appends reach the file on flush, as Kafka's mmap'd entries reach disk
    const bytes = readFileSync(path);
    assert.equal(bytes.length, MAX_SIZE, 'still preallocated');
    assert.equal(bytes.readInt32BE(0), 5);
    assert.equal(bytes.readInt32BE(4), 4242);
    assert.equal(bytes.readInt32BE(8), 10);
    assert.equal(bytes.readInt32BE(12), 9000);
    assert.equal(idx.sizeInBytes, 16);
    idx.close();
  });

  it('close trims the file to entries × 8', () => {
    const path = nonExistentFile();
    const idx = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    for (let i = 1; i <= 3; i++) idx.append(BigInt(i), i * 100);
    idx.close();
    assert.equal(statSync(path).size, 24);
  });

  it('reopening a file with a zero-filled tail counts those slots (Kafka behaviour)', () => {
    const path = nonExistentFile();
    // What a crash before the trim leaves: two entries, then the preallocated zeros.
    const bytes = Buffer.alloc(5 * 8);
    bytes.writeInt32BE(1, 0);
    bytes.writeInt32BE(0, 4);
    bytes.writeInt32BE(2, 8);
    bytes.writeInt32BE(100, 12);
    writeFileSync(path, bytes);
    const reopened = OffsetIndex.open(path, 50n);
    assert.equal(reopened.entries, 5);
    assert.equal(reopened.lastOffset, 50n, 'a zero slot reads as (baseOffset, 0)');
    assert.deepEqual(reopened.entry(4), { offset: 50n, position: 0 });
    reopened.sanityCheck(); // not detected (AbstractIndex trusts the length; recovery rebuilds unflushed indexes)
    reopened.close();
    assert.equal(statSync(path).size, 40, 'the zero slots are entries, so the trim keeps them');
  });

  it('resize keeps the entries; trimToValidSize cuts to them; reset empties and restores capacity', () => {
    const path = nonExistentFile();
    const idx = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    for (let i = 1; i <= 4; i++) idx.append(BigInt(i), i);
    assert.equal(idx.resize(MAX_SIZE), false, 'same length → false');
    assert.equal(idx.resize(100), true);
    assert.equal(statSync(path).size, 96);
    assert.equal(idx.maxEntries, 12);
    assert.equal(idx.entries, 4);
    assert.throws(() => idx.resize(24), isInvalidArgument, 'cannot shrink below the entries');
    idx.trimToValidSize();
    assert.equal(statSync(path).size, 32);
    assert.equal(idx.isFull(), true);
    idx.reset();
    assert.equal(idx.entries, 0);
    assert.equal(idx.lastOffset, 0n);
    assert.equal(statSync(path).size, MAX_SIZE);
    idx.append(10n, 5);
    assert.deepEqual(idx.lookup(11n), { offset: 10n, position: 5 });
    idx.close();
  });

  it('renameTo moves the file and the index follows; deleteIfExists removes it', () => {
    const path = nonExistentFile();
    const idx = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    idx.append(1n, 1);
    const moved = `${path}.deleted`;
    idx.renameTo(moved);
    assert.equal(idx.path, moved);
    assert.equal(existsSync(path), false);
    idx.append(2n, 2);
    idx.flush();
    assert.equal(readFileSync(moved).readInt32BE(8), 2, 'writes go to the renamed file');
    assert.equal(idx.deleteIfExists(), true);
    assert.equal(existsSync(moved), false);
    assert.equal(idx.deleteIfExists(), false);
  });

  it('a read-only index refuses appends and resizes, and never modifies its file', () => {
    const path = nonExistentFile();
    const w = OffsetIndex.open(path, 0n, { maxIndexSize: MAX_SIZE });
    w.append(1n, 1);
    w.close();
    const bytes = readFileSync(path);
    const r = OffsetIndex.open(path, 0n, { writable: false });
    assert.throws(() => r.resize(MAX_SIZE), isInvalidArgument);
    assert.throws(() => r.append(5n, 5), isInvalidArgument);
    r.close();
    assert.deepEqual(readFileSync(path), bytes);
    assert.throws(() => OffsetIndex.open(nonExistentFile(), 0n, { writable: false }), isStorageError);
  });

  it('every error is a typed KafkaliteError', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: 8 });
    idx.append(1n, 0);
    try {
      idx.append(2n, 0);
      assert.fail('expected a full-index error');
    } catch (e) {
      assert.ok(e instanceof KafkaliteError);
    }
    idx.close();
  });
});

describe('index cache: active Buffer and LRU budget', () => {
  it('the active index keeps its entries pinned; trimming hands them to the budget', () => {
    const idx = OffsetIndex.open(nonExistentFile(), 0n, { maxIndexSize: 4096 * 8 });
    assert.equal(idx.cacheMode, 'none');
    for (let i = 1; i <= 3000; i++) idx.append(BigInt(i), i * 10); // grows past the first capacity
    assert.equal(idx.cacheMode, 'pinned');
    assert.deepEqual(idx.lookup(2500n), { offset: 2500n, position: 25000 });
    idx.trimToValidSize();
    assert.equal(idx.cacheMode, 'budget');
    assert.deepEqual(idx.lookup(2999n), { offset: 2999n, position: 29990 });
    idx.close();
    assert.equal(idx.cacheMode, 'none');
  });

  it('many indexes with a tiny budget still answer correctly, and cached bytes stay within it', () => {
    const budget = 2048;
    const resources = createLogResources({ indexCacheBudgetBytes: budget });
    const cache = resources.indexCache;
    const rand = rng(7);
    const indexes: { idx: OffsetIndex; entries: OffsetPosition[] }[] = [];
    try {
      for (let k = 0; k < 40; k++) {
        const path = nonExistentFile();
        const base = BigInt(k * 100000);
        const w = OffsetIndex.open(path, base, { maxIndexSize: 200 * 8 });
        const entries: OffsetPosition[] = [];
        for (let i = 0; i < 50 + k * 3; i++) {
          const e = { offset: base + BigInt(i * 7 + 3), position: i * 1000 };
          w.append(e.offset, e.position);
          entries.push(e);
        }
        w.close();
        indexes.push({ idx: OffsetIndex.open(path, base, { writable: false, resources }), entries });
      }
      assert.equal(cache.limitBytes, budget);
      for (let q = 0; q < 4000; q++) {
        const { idx, entries } = indexes[Math.floor(rand() * indexes.length)]!;
        const target = idx.baseOffset + BigInt(Math.floor(rand() * (entries.length * 7 + 20)) - 5);
        assert.deepEqual(idx.lookup(target), floorEntry(entries, target, idx.baseOffset));
        assert.ok(cache.usedBytes <= budget, `${cache.usedBytes} > ${budget}`);
      }
      const cached = indexes.filter((x) => x.idx.cacheMode === 'budget').length;
      assert.ok(cached >= 1 && cached <= budget / 400, `${cached} caches resident`);
      // An index bigger than the whole budget answers with positional reads.
      cache.limitBytes = 100;
      assert.ok(cache.usedBytes <= 100, 'lowering the limit evicts at once');
      const { idx, entries } = indexes[39]!;
      for (const e of entries) assert.deepEqual(idx.lookup(e.offset + 1n), e);
      assert.equal(idx.cacheMode, 'none');
      assert.deepEqual(idx.entry(entries.length - 1), entries.at(-1));
    } finally {
      for (const { idx } of indexes) idx.close();
    }
    assert.equal(cache.usedBytes, 0, 'closing releases every reservation');
  });

  it('refuses a negative budget', () => {
    assert.throws(() => (createLogResources().indexCache.limitBytes = -1), isInvalidArgument);
    assert.throws(() => createLogResources({ indexCacheBudgetBytes: -1 }), isInvalidArgument);
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
  baseOffset: bigint;
  lastOffset: bigint;
}

function readBatches(logPath: string): LogBatch[] {
  const records = FileRecords.open(logPath);
  try {
    // A yielded batch is only valid until the iteration moves on: copy its fields now.
    const out: LogBatch[] = [];
    for (const b of records.batches()) {
      out.push({ position: b.position, baseOffset: b.batch.baseOffset, lastOffset: b.batch.lastOffset });
    }
    return out;
  } finally {
    records.close();
  }
}

describe('OffsetIndex on Kafka-written .index files (kafka-tester corpus)', () => {
  const indexFiles = findFiles(join(CORPORA, 'kafka-tester'), '.index');

  it('finds the corpus index files', () => {
    assert.ok(indexFiles.length >= 4, `found ${indexFiles.length}`);
    assert.ok(indexFiles.some((f) => statSync(f).size > 0), 'at least one non-empty index');
  });

  for (const indexPath of indexFiles) {
    it(`entries and lookups agree with the .log: ${indexPath.slice(CORPORA.length + 1)}`, () => {
      const logPath = indexPath.replace(/\.index$/, '.log');
      const baseOffset = BigInt(indexPath.slice(-26, -6));
      const batches = readBatches(logPath);
      assert.ok(batches.length > 0);
      const idx = OffsetIndex.open(indexPath, baseOffset, { writable: false });
      try {
        idx.sanityCheck();
        assert.equal(idx.entries, statSync(indexPath).size / 8);
        const entries: OffsetPosition[] = [];
        for (let i = 0; i < idx.entries; i++) entries.push(idx.entry(i));
        for (const [i, e] of entries.entries()) {
          // kafka-dump-log.sh's check (DumpLogSegments.dumpIndex): the batch at the entry's position ends at its offset.
          const batch = batches.find((b) => b.position === e.position);
          assert.ok(batch, `entry ${i} position ${e.position} is not a batch start`);
          assert.equal(batch.lastOffset, e.offset, `entry ${i}`);
          if (i > 0) {
            assert.ok(e.offset > entries[i - 1]!.offset);
            assert.ok(e.position > entries[i - 1]!.position);
          }
          assert.deepEqual(idx.lookup(e.offset), e);
        }
        // Every offset in the log: the lookup is the floor entry, and scanning from its position
        // reaches the batch holding the offset.
        for (const b of batches) {
          for (const target of [b.baseOffset, b.lastOffset]) {
            const found = idx.lookup(target);
            assert.deepEqual(found, floorEntry(entries, target, baseOffset));
            assert.ok(found.position <= b.position, `lookup(${target}) overshoots`);
          }
        }
        const lastBatch = batches.at(-1)!;
        if (entries.length > 0) {
          assert.deepEqual(idx.fetchUpperBoundOffset(0, 1), entries[0]);
          assert.equal(idx.fetchUpperBoundOffset(lastBatch.position, 1), undefined);
        }
      } finally {
        idx.close();
      }
    });
  }
});

describe('growOnFirstAppend (the loader on the active segment, issue 21)', () => {
  it('a loaded index closed without appends leaves its file as found; the first append grows it as resize would', () => {
    const path = nonExistentFile();
    const first = OffsetIndex.open(path, 0n, { maxIndexSize: 8 * 100 });
    first.append(3n, 10);
    first.append(7n, 20);
    first.close();
    assert.equal(statSync(path).size, 16);

    const idle = OffsetIndex.open(path, 0n, { maxIndexSize: 8 * 100 });
    idle.growOnFirstAppend(8 * 100);
    assert.equal(idle.length, 800, 'reports the grown length, as Kafka would');
    assert.equal(idle.maxEntries, 100);
    assert.equal(idle.isFull(), false);
    assert.equal(statSync(path).size, 16, 'the file is not grown yet');
    const mtime = statSync(path).mtimeMs;
    idle.close();
    assert.equal(statSync(path).size, 16);
    assert.equal(statSync(path).mtimeMs, mtime, 'nothing was written or trimmed');

    const used = OffsetIndex.open(path, 0n, { maxIndexSize: 8 * 100 });
    used.growOnFirstAppend(8 * 100);
    used.append(9n, 30);
    assert.equal(statSync(path).size, 800, 'grown at the first append');
    assert.deepEqual(used.lookup(8n), { offset: 7n, position: 20 });
    used.close();
    assert.equal(statSync(path).size, 24, 'trimmed to its entries at close');
    const reopened = OffsetIndex.open(path, 0n, { writable: false });
    assert.deepEqual(reopened.lookup(100n), { offset: 9n, position: 30 });
    reopened.close();
  });
});
