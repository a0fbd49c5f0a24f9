/**
 * The offline console (`kafkalite ui --data-dir`) finds offsets and timestamps through the index
 * files as Kafka's read path does, checked against the storage layer's own answers
 * (PartitionLog.fetchOffsetByTimestamp, OffsetIndex.lookup) on a log of many segments with sparse
 * indexes and out-of-order CreateTime timestamps: once while the log is open (the active segment's
 * indexes still carry their preallocated zero tail) and once after a clean close (trimmed). The
 * searches read a handful of index entries, not the index files (bytes read are counted).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { offsetIndexPath, timeIndexPath } from '../../src/storage/file-names.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { DiskView } from '../../src/ui/disk.js';
import { IndexReader } from '../../src/ui/index-search.js';

const BASE_TS = 1_700_000_000_000n;
const BATCHES = 400;
const PER_BATCH = 4;

/** Batch i's records carry BASE + 10i + j, except every seventh batch, whose first record is 25 ms older (out of order, as CreateTime allows). */
function batch(i: number): Buffer {
  return encodeRecordBatch(
    Array.from({ length: PER_BATCH }, (_, j) => ({
      key: `k-${i}-${j}`,
      value: `v-${i}-${j}-${'x'.repeat(150)}`,
      timestamp: BASE_TS + BigInt(i * 10 + j) - (i % 7 === 0 && j === 0 ? 25n : 0n),
    })),
  );
}

describe('offline message browser: index lookups', () => {
  let root: string;
  let log: PartitionLog;
  let closed = false;
  /** The log's own answers, kept for after its close. */
  const expected = new Map<bigint, bigint>();
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'kafkalite-ui-index-'));
    mkdirSync(join(root, 'idx-0'));
    log = PartitionLog.open(join(root, 'idx-0'), 'idx', 0, { config: { ...DEFAULT_LOG_CONFIG, segmentBytes: 16 * 1024, indexIntervalBytes: 1024 }, hadCleanShutdown: true });
    for (let i = 0; i < BATCHES; i++) log.append(batch(i));
    for (const ts of timestamps) expected.set(ts, log.fetchOffsetByTimestamp(ts)?.offset ?? end);
  });
  after(() => {
    if (!closed) log.close();
    rmSync(root, { recursive: true, force: true });
  });

  const end = BigInt(BATCHES * PER_BATCH);
  const timestamps = [BASE_TS - 100n, BASE_TS, BASE_TS + 1n, ...Array.from({ length: 40 }, (_, k) => BASE_TS + BigInt(k * 101 + 3)), BASE_TS + BigInt(BATCHES * 10 - 7), BASE_TS + BigInt(BATCHES * 10 + 50)];
  const offsets = [0n, 1n, 5n, ...Array.from({ length: 40 }, (_, k) => BigInt(k * 39 + 2)), end - 1n];

  async function checkAgainstTheLog(): Promise<void> {
    const source = new DiskView(root).source('idx', 0);
    assert.deepEqual(await source.bounds(), { start: 0n, end });
    for (const ts of timestamps) {
      assert.equal(await source.offsetForTimestamp(ts, end), expected.get(ts), `timestamp ${ts}`);
    }
    for (const offset of offsets) {
      const page = await source.read(offset, 3);
      const i = Number(offset) >> 2;
      const j = Number(offset) & 3;
      assert.equal(page.messages[0]?.offset, String(offset));
      assert.equal(Buffer.from(page.messages[0]!.key!, 'base64').toString(), `k-${i}-${j}`);
      assert.equal(page.messages.length, offset + 3n <= end ? 3 : Number(end - offset));
    }
  }

  test('open log: the active segment indexes keep their zero tail, and lookups agree with the log', async () => {
    assert.ok(log.segmentCount > 10, `${log.segmentCount} segments`);
    // out-of-order timestamps make some answers differ from a first-batch-at-or-after guess
    assert.ok(new Set(expected.values()).size > 20);
    const active = log.activeSegment;
    assert.ok(statSync(offsetIndexPath(log.dir, active.baseOffset)).size > active.offsetIndex.entries * 8, 'the active offset index is preallocated');
    await checkAgainstTheLog();
  });

  test('IndexReader: the entries before the zero tail, found by reading a few entries, and lookups as OffsetIndex.lookup', () => {
    for (const segment of log.segmentList()) {
      const index = IndexReader.open(offsetIndexPath(log.dir, segment.baseOffset), 'offset', segment.baseOffset)!;
      const time = IndexReader.open(timeIndexPath(log.dir, segment.baseOffset), 'time', segment.baseOffset)!;
      try {
        assert.equal(index.entries, segment.offsetIndex.entries);
        assert.equal(time.entries, segment.timeIndex.entries);
        for (let o = segment.baseOffset; o < segment.baseOffset + 40n; o += 3n) {
          const expected = segment.offsetIndex.lookup(o);
          const found = index.offsetFloor(o);
          assert.equal(found?.position ?? 0, expected.position, `offset ${o}`);
        }
        const size = statSync(offsetIndexPath(log.dir, segment.baseOffset)).size;
        // log2 of the slots for the entry count, then log2 per lookup: far below the file for a preallocated index
        if (size > 4096) assert.ok(index.bytesRead < size / 16, `${index.bytesRead} bytes read of a ${size}-byte index`);
      } finally {
        index.close();
        time.close();
      }
    }
  });

  test('closed log: the trimmed indexes give the same answers', async () => {
    const active = log.activeSegment.baseOffset;
    log.close();
    closed = true;
    assert.equal(statSync(offsetIndexPath(join(root, 'idx-0'), active)).size % 8, 0);
    await checkAgainstTheLog();
  });
});
