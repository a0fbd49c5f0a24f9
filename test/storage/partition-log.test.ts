/**
 * PartitionLog and LogManager against the single-node scenarios of Kafka's UnifiedLogTest,
 * LogLoaderTest, LocalLogTest and LogManagerTest.
 */
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { KafkaliteError } from '../../src/errors.js';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { encodeRecordBatch, readRecordBatches } from '../../src/record/index.js';
import { readLeaderEpochCheckpoint, readOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { encodeAbortedTxn } from '../../src/storage/transaction-index.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { readMetaProperties } from '../../src/storage/meta-properties.js';
import { nativeAddon } from '../../src/native/addon.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/storage/partition-log.js';
import {
  clientBatch,
  encodeTimeIndex,
  frameLog,
  prng,
  randomBytes,
  recoveryRuleIndexes,
  tempDir,
} from '../helpers/storage.js';
import { REPO_ROOT } from '../helpers/paths.js';

const T0 = 1_700_000_000_000;
const name = (o: bigint | number) => String(o).padStart(20, '0');

let root: string;
let cleanup: () => void;
let now: number;
const clock = () => now;
const opened: { close(): void }[] = [];

function cfg(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}
function openLog(config: LogConfig, options: Omit<PartitionLogOptions, 'config'> = {}, sub = 'topic-0'): PartitionLog {
  const dir = join(root, sub);
  mkdirSync(dir, { recursive: true });
  const log = PartitionLog.open(dir, 'topic', 0, { config, time: clock, ...options });
  opened.push(log);
  return log;
}

function closeLog(log: PartitionLog) {
  log.close();
  const i = opened.indexOf(log);
  if (i >= 0) opened.splice(i, 1);
}
/** Every record (offset, value) readable from `from` to LEO. */
function readAll(log: PartitionLog, from = log.logStartOffset): { offset: bigint; value: string; timestamp: bigint }[] {
  const out: { offset: bigint; value: string; timestamp: bigint }[] = [];
  let next = from;
  while (next < log.logEndOffset) {
    const { records } = log.read(next, { maxBytes: 1 << 20 });
    assert.ok(records.length > 0, `read at ${next} returns data`);
    for (const batch of readRecordBatches(records)) {
      for (const r of batch.records()) {
        if (r.offset < next) continue;
        assert.equal(r.offset, next, 'offsets are sequential');
        out.push({ offset: r.offset, value: r.value!.toString(), timestamp: r.timestamp });
        next++;
      }
    }
  }
  return out;
}
/** Appends `batches` client batches of `per` records stamped from `ts`; returns the record count. */
function appendMany(log: PartitionLog, batches: number, per = 1, valueSize = 20, ts = T0, step = 1): number {
  for (let i = 0; i < batches; i++) log.append(clientBatch(per, ts + i * step * per, valueSize, `b${i}-`));
  return batches * per;
}
function files(dir: string): string[] {
  return readdirSync(dir).sort();
}
function assertIndexesMatchLog(log: PartitionLog) {
  for (const seg of log.segmentList()) {
    for (let i = 0; i < seg.offsetIndex.entries; i++) {
      const e = seg.offsetIndex.entry(i);
      const h = seg.translateOffset(e.offset, e.position);
      assert.ok(h && h.position === e.position && h.lastOffset === e.offset, `index entry ${i} of segment ${seg.baseOffset}`);
    }
  }
}

beforeEach(() => {
  ({ dir: root, cleanup } = tempDir('plog'));
  now = T0;
});
afterEach(() => {
  for (const l of opened.splice(0)) {
    try {
      l.close();
    } catch {
      /* closed */
    }
  }
  cleanup();
});

describe('PartitionLog append and read (UnifiedLogTest)', () => {
  it('testAppendAndReadWithSequentialOffsets: offsets assigned sequentially, every offset readable', () => {
    const log = openLog(cfg({ segmentBytes: 1024 }));
    for (let i = 0; i < 50; i++) {
      const r = log.append(clientBatch(1 + (i % 3), T0 + i, 30));
      assert.equal(r.firstOffset, i === 0 ? 0n : r.firstOffset);
    }
    const all = readAll(log);
    assert.equal(all.length, Number(log.logEndOffset));
    assert.ok(log.segmentCount > 1, 'rolled');
    for (let o = 0n; o < log.logEndOffset; o++) {
      const { records } = log.read(o, { maxBytes: 1, minOneMessage: true });
      const batch = [...readRecordBatches(records)][0]!;
      assert.ok(batch.baseOffset <= o && o <= batch.lastOffset);
    }
  });

  it('append results: first/last offset, record count, log start offset', () => {
    const log = openLog(cfg());
    const a = log.append(clientBatch(3, T0));
    assert.deepEqual([a.firstOffset, a.lastOffset, a.recordCount, a.logStartOffset, a.maxTimestamp], [0n, 2n, 3, 0n, BigInt(T0 + 2)]);
    const b = log.append(clientBatch(2, T0 + 10));
    assert.deepEqual([b.firstOffset, b.lastOffset], [3n, 4n]);
    assert.equal(log.logEndOffset, 5n);
  });

  it('an append that hands its buffer over (mutateInput) writes that buffer, with the assigned offsets in it', () => {
    const log = openLog(cfg());
    log.append(clientBatch(2, T0));
    const kept = clientBatch(3, T0 + 2, 30, 'kept-');
    const keptCopy = Buffer.from(kept);
    log.append(kept);
    assert.deepEqual(kept, keptCopy, 'without mutateInput the caller keeps its bytes');
    const handed = clientBatch(4, T0 + 5, 30, 'handed-');
    const r = log.append(handed, { mutateInput: true, leaderEpoch: 3 });
    assert.deepEqual([r.firstOffset, r.lastOffset], [5n, 8n]);
    assert.equal(handed.readBigInt64BE(0), 5n, 'baseOffset written into the handed-over buffer');
    assert.equal(handed.readInt32BE(12), 3, 'partitionLeaderEpoch written into it');
    const read = log.read(5n, { maxBytes: 1 << 20 });
    assert.deepEqual(read.records, handed);
    assert.deepEqual(readAll(log).map((x) => x.value.split('-')[0]), ['v0', 'v1', 'kept', 'kept', 'kept', 'handed', 'handed', 'handed', 'handed']);
  });

  it('testReadWithMinMessage: minOneMessage returns a whole batch above maxBytes; without it nothing whole', () => {
    const log = openLog(cfg());
    log.append(clientBatch(5, T0, 500));
    const one = log.read(0n, { maxBytes: 10, minOneMessage: true });
    assert.equal([...readRecordBatches(one.records)].length, 1);
    assert.equal(one.firstEntryIncomplete, false);
    const cut = log.read(0n, { maxBytes: 10, minOneMessage: false });
    assert.equal(cut.records.length, 10);
    assert.equal(cut.firstEntryIncomplete, true);
  });

  it('testReadOutOfRange: below log start or above LEO → OffsetOutOfRangeError (OFFSET_OUT_OF_RANGE); at LEO → empty', () => {
    const log = openLog(cfg());
    appendMany(log, 3);
    assert.throws(() => log.read(4n, { maxBytes: 100 }), (e: { code?: string; kafkaErrorCode?: number }) => e.code === 'OFFSET_OUT_OF_RANGE' && e.kafkaErrorCode === ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.throws(() => log.read(-1n, { maxBytes: 100 }), { code: 'OFFSET_OUT_OF_RANGE' });
    const atEnd = log.read(3n, { maxBytes: 100 });
    assert.equal(atEnd.records.length, 0);
    assert.equal(atEnd.highWatermark, 3n);
    log.deleteRecordsBefore(2n);
    assert.throws(() => log.read(1n, { maxBytes: 100 }), { name: 'OffsetOutOfRangeError' });
    assert.equal(readAll(log, 2n).length, 1);
  });

  it('high watermark equals the log end offset on a single node', () => {
    const log = openLog(cfg());
    assert.equal(log.highWatermark, 0n);
    appendMany(log, 4, 2);
    assert.equal(log.highWatermark, log.logEndOffset);
    assert.equal(log.logEndOffset, 8n);
    const r = log.read(0n, { maxBytes: 1 << 20 });
    assert.equal(r.highWatermark, 8n);
    assert.equal(r.logEndOffset, 8n);
  });

  it('an append larger than segment.bytes → RECORD_LIST_TOO_LARGE, nothing written', () => {
    const log = openLog(cfg({ segmentBytes: 500 }));
    assert.throws(() => log.append(clientBatch(10, T0, 100)), (e: { code?: string; kafkaErrorCode?: number }) => e.code === 'RECORD_LIST_TOO_LARGE' && e.kafkaErrorCode === ErrorCode.RECORD_LIST_TOO_LARGE);
    assert.equal(log.logEndOffset, 0n);
    assert.equal(log.size, 0);
  });
});

describe('PartitionLog roll (UnifiedLogTest, LocalLogTest)', () => {
  it('testSizeBasedLogRoll: segments never exceed segment.bytes; each new segment starts at the LEO', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 3 }));
    appendMany(log, 10, 1, 100);
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 3n, 6n, 9n]);
    for (const s of log.segmentList()) assert.ok(s.size <= one * 3);
    assert.equal(readAll(log).length, 10);
  });

  it('testTimeBasedLogRollDuringAppend: a record more than segment.ms after the first batch rolls', () => {
    const log = openLog(cfg({ segmentMs: 1000 }));
    log.append(clientBatch(1, T0));
    now = T0 + 500;
    log.append(clientBatch(1, T0 + 1000)); // waited == segment.ms: no roll
    assert.equal(log.segmentCount, 1);
    now = T0 + 1001;
    log.append(clientBatch(1, T0 + 1001));
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 2n]);
    log.append(clientBatch(1, T0 + 1500));
    assert.equal(log.segmentCount, 2, 'the new segment measures from its own first batch');
  });

  it('time roll of a segment whose records carry no timestamp uses the log clock (segment creation time)', () => {
    const log = openLog(cfg({ segmentMs: 1000 }));
    log.append(clientBatch(1, -1));
    now = T0 + 2000; // the log's clock (the `time` option) moved past segment.ms
    log.append(clientBatch(1, -1));
    assert.equal(log.segmentCount, 2, 'now - segment creation time (2000 ms) > segment.ms (1000 ms) must roll');
  });

  it('testRollSegmentThatAlreadyExists: rolling an empty active segment at the same offset keeps it', () => {
    const log = openLog(cfg());
    appendMany(log, 2);
    const a = log.roll();
    assert.equal(a.baseOffset, 2n);
    const b = log.roll();
    assert.equal(b, a, 'the empty active segment is reused');
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 2n]);
    appendMany(log, 1);
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 2n]);
  });

  it('roll trims the old segment (log and indexes) and advances the recovery point once its background flush is done', async () => {
    const log = openLog(cfg({ indexIntervalBytes: 1, preallocate: true, segmentBytes: 64 * 1024 }));
    appendMany(log, 5);
    const old = log.activeSegment;
    assert.equal(statSync(old.log.path).size, 64 * 1024, 'preallocated to segment.bytes');
    log.roll();
    assert.equal(statSync(old.log.path).size, old.size);
    assert.equal(statSync(join(log.dir, `${name(0)}.index`)).size, old.offsetIndex.entries * 8);
    assert.equal(statSync(join(log.dir, `${name(0)}.timeindex`)).size, old.timeIndex.entries * 12);
    assert.equal(statSync(log.activeSegment.log.path).size, 64 * 1024);
    if (nativeAddon !== undefined) {
      // Kafka's "flush-log" task: the fdatasyncs run on the thread pool, the recovery point follows them
      assert.equal(log.recoveryPoint, 0n, 'not before the rolled segment is on disk');
      await log.backgroundFlushes();
    }
    assert.equal(log.recoveryPoint, 5n);
  });

  it('without background flushes (backgroundFlush: false, or no native addon) roll flushes inline', () => {
    const log = openLog(cfg({ segmentBytes: 64 * 1024 }), { resources: createLogResources({ backgroundFlush: false }) });
    assert.equal(log.resources.backgroundFlush, false);
    appendMany(log, 5);
    log.roll();
    assert.equal(log.recoveryPoint, 5n);
  });

  it('flush.messages: the log is flushed once that many messages are past the recovery point; at its default, never by an append', () => {
    const log = openLog(cfg({ flushMessages: 3n }));
    appendMany(log, 2);
    assert.equal(log.recoveryPoint, 0n);
    appendMany(log, 1);
    assert.equal(log.recoveryPoint, 3n);
    appendMany(log, 2);
    assert.equal(log.recoveryPoint, 3n);
    const unbounded = openLog(cfg(), {}, 'topic-1');
    appendMany(unbounded, 5);
    assert.equal(unbounded.recoveryPoint, 0n);
  });

  it('a flush while rolled segments are still flushing in the background syncs them inline, and later rolls keep the order', async () => {
    const log = openLog(cfg({ segmentBytes: 64 * 1024 }));
    appendMany(log, 3);
    log.roll();
    appendMany(log, 3);
    log.roll();
    log.flush(); // inline: everything below the log end, the rolled segments included
    assert.equal(log.recoveryPoint, 6n);
    appendMany(log, 2);
    log.roll();
    await log.backgroundFlushes();
    assert.equal(log.recoveryPoint, 8n);
  });
});

describe('PartitionLog offset by timestamp (UnifiedLogTest)', () => {
  it('fetchOffsetByTimestamp for every record timestamp across segments, and -1/-2/-3', () => {
    const log = openLog(cfg({ segmentBytes: 400, indexIntervalBytes: 50 }));
    const stamps: bigint[] = [];
    for (let i = 0; i < 30; i++) {
      // non-monotonic inside the log: the max is in the middle
      const ts = T0 + (i === 17 ? 100_000 : i * 100);
      log.append(clientBatch(1, ts), { leaderEpoch: i < 10 ? 0 : 3 });
      stamps.push(BigInt(ts));
    }
    assert.ok(log.segmentCount > 2);
    for (let i = 0; i < 30; i++) {
      const expected = stamps.findIndex((t) => t >= stamps[i]!);
      const r = log.fetchOffsetByTimestamp(stamps[i]!);
      assert.equal(r?.offset, BigInt(expected), `timestamp of offset ${i}`);
      assert.equal(r?.timestamp, stamps[expected]);
      assert.equal(r?.leaderEpoch, expected < 10 ? 0 : 3);
    }
    assert.equal(log.fetchOffsetByTimestamp(BigInt(T0 + 100_001)), undefined);
    assert.deepEqual(log.fetchOffsetByTimestamp(-2n), { timestamp: -1n, offset: 0n, leaderEpoch: 0 });
    assert.deepEqual(log.fetchOffsetByTimestamp(-1n), { timestamp: -1n, offset: 30n });
    assert.deepEqual(log.fetchOffsetByTimestamp(-3n), { timestamp: BigInt(T0 + 100_000), offset: 17n, leaderEpoch: 3 });
    log.deleteRecordsBefore(5n);
    // the cache's first epoch (0, from offset 0) was moved to the new log start
    assert.deepEqual(log.fetchOffsetByTimestamp(-2n), { timestamp: -1n, offset: 5n, leaderEpoch: 0 });
    assert.equal(log.fetchOffsetByTimestamp(BigInt(T0))?.offset, 5n, 'never below the log start offset');
  });

  it('MAX_TIMESTAMP picks the first record holding the max inside a multi-record batch', () => {
    const log = openLog(cfg());
    log.append(clientBatch(3, T0));
    log.append(encodeRecordBatch([{ value: 'a', timestamp: T0 + 50 }, { value: 'b', timestamp: T0 + 90 }, { value: 'c', timestamp: T0 + 90 }]));
    log.append(clientBatch(2, T0 + 10));
    assert.deepEqual(log.fetchOffsetByTimestamp(-3n), { timestamp: BigInt(T0 + 90), offset: 4n, leaderEpoch: 0 });
  });
});

describe('PartitionLog retention and deletion (UnifiedLogTest, LocalLogTest)', () => {
  it('retention by size deletes oldest segments while the rest stays >= retention.bytes, renaming to .deleted', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 2, retentionBytes: one * 5, retentionMs: -1, fileDeleteDelayMs: 1000 }));
    appendMany(log, 10, 1, 100); // 5 segments of 2 batches
    assert.equal(log.segmentCount, 5);
    // size 10 - limit 5 = diff 5: delete while diff - 2 >= 0 → two segments
    assert.equal(log.deleteOldSegments(), 2);
    assert.deepEqual(log.segmentBaseOffsets(), [4n, 6n, 8n]);
    assert.equal(log.logStartOffset, 4n);
    const f = files(log.dir);
    for (const b of [0, 2]) {
      for (const ext of ['log', 'index', 'timeindex']) {
        assert.ok(f.includes(`${name(b)}.${ext}.deleted`), `${name(b)}.${ext}.deleted`);
        assert.ok(!f.includes(`${name(b)}.${ext}`));
      }
    }
    now += 999;
    log.deleteDueFiles();
    assert.ok(files(log.dir).some((n) => n.endsWith('.deleted')), 'still there before file.delete.delay.ms');
    now += 1;
    log.deleteDueFiles();
    assert.deepEqual(files(log.dir).filter((n) => n.endsWith('.deleted')), []);
    assert.equal(readAll(log).length, 6);
  });

  it('retention by time uses the segment largest timestamp; keeps an active segment when everything expires', () => {
    const log = openLog(cfg({ segmentBytes: 300, retentionMs: 10_000, fileDeleteDelayMs: 0 }));
    for (let i = 0; i < 12; i++) {
      now = T0 + i * 1000;
      log.append(clientBatch(1, now, 100));
    }
    const bases = log.segmentBaseOffsets();
    assert.ok(bases.length >= 4);
    now = T0 + 11_000 + 10_000; // everything older than 10 s except the newest record
    const expectedKept = log.segmentList().filter((s) => BigInt(now) - s.largestTimestamp() <= 10_000n).length;
    log.deleteOldSegments();
    assert.equal(log.segmentCount, expectedKept);
    now = T0 + 100_000;
    log.deleteOldSegments();
    assert.equal(log.segmentCount, 1, 'an (empty) active segment remains');
    assert.equal(log.activeSegment.size, 0);
    assert.equal(log.activeSegment.baseOffset, 12n);
    assert.equal(log.logStartOffset, 12n);
    assert.equal(log.logEndOffset, 12n);
    const r = log.append(clientBatch(1, now));
    assert.equal(r.firstOffset, 12n);
  });

  it('an empty active segment is never deleted by retention', () => {
    const log = openLog(cfg({ retentionMs: 0 }));
    now = T0 + 10_000;
    assert.equal(log.deleteOldSegments(), 0);
    assert.equal(log.segmentCount, 1);
  });

  it('retention by log start offset: deleteRecordsBefore removes segments wholly below it', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 2, retentionMs: -1 }));
    appendMany(log, 10, 1, 100);
    assert.equal(log.deleteRecordsBefore(5n), 5n);
    assert.deepEqual(log.segmentBaseOffsets(), [4n, 6n, 8n], 'the segment holding 5 stays');
    assert.equal(log.logStartOffset, 5n);
    assert.equal(log.read(5n, { maxBytes: 1 << 20 }).records.length > 0, true);
    assert.equal(log.deleteRecordsBefore(3n), 5n, 'never moves back');
    assert.throws(() => log.deleteRecordsBefore(11n), { code: 'OFFSET_OUT_OF_RANGE' });
    assert.equal(log.deleteRecordsBefore(10n), 10n);
    assert.equal(log.logEndOffset, 10n);
    assert.equal(log.logStartOffset, 10n);
    assert.ok(log.segmentCount >= 1);
  });

  it('compact-only topics ignore size and time retention', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 2, retentionBytes: 0, retentionMs: 0, cleanupPolicy: 'compact' }));
    appendMany(log, 6, 1, 100);
    now += 1_000_000;
    assert.equal(log.deleteOldSegments(), 0);
  });
});

describe('PartitionLog truncation (UnifiedLogTest)', () => {
  it('testTruncateTo: segments above the target deleted, the containing one cut, indexes resized, appends continue', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 3, indexIntervalBytes: 1, fileDeleteDelayMs: 0 }));
    appendMany(log, 10, 1, 100);
    log.truncateTo(4n);
    assert.equal(log.logEndOffset, 4n);
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 3n]);
    assert.equal(log.activeSegment.offsetIndex.maxEntries, DEFAULT_LOG_CONFIG.segmentIndexBytes / 8);
    assert.equal(log.recoveryPoint <= 4n, true);
    assert.deepEqual(readAll(log).map((r) => r.offset), [0n, 1n, 2n, 3n]);
    assertIndexesMatchLog(log);
    const r = log.append(clientBatch(2, T0 + 100));
    assert.equal(r.firstOffset, 4n);
    log.truncateTo(100n); // beyond LEO: no-op
    assert.equal(log.logEndOffset, 6n);
  });

  it('truncating below the first segment recreates an empty log at the target', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 2, retentionMs: -1, fileDeleteDelayMs: 0 }));
    appendMany(log, 8, 1, 100);
    log.deleteRecordsBefore(6n);
    assert.equal(log.segmentBaseOffsets()[0], 6n);
    log.truncateTo(3n);
    assert.deepEqual(log.segmentBaseOffsets(), [3n]);
    assert.equal(log.logStartOffset, 3n);
    assert.equal(log.logEndOffset, 3n);
    assert.equal(log.append(clientBatch(1, T0)).firstOffset, 3n);
    assert.throws(() => log.truncateTo(-1n), { code: 'OFFSET_OUT_OF_RANGE' });
  });
});

describe('PartitionLog leader-epoch-checkpoint (UnifiedLogTest)', () => {
  it('is written on epoch changes, truncated from the end and from the start, and rebuilt by recovery', () => {
    const one = clientBatch(1, T0, 100).length;
    const log = openLog(cfg({ segmentBytes: one * 2, retentionMs: -1, fileDeleteDelayMs: 0 }));
    const path = join(log.dir, 'leader-epoch-checkpoint');
    assert.equal(readFileSync(path, 'utf8'), '', 'created empty');
    for (const [epoch, n] of [[0, 3], [1, 2], [1, 1], [4, 3]] as const) {
      for (let i = 0; i < n; i++) log.append(clientBatch(1, T0, 100), { leaderEpoch: epoch });
    }
    assert.equal(readFileSync(path, 'utf8'), '0\n3\n0 0\n1 3\n4 6\n');
    log.truncateTo(6n);
    assert.equal(readFileSync(path, 'utf8'), '0\n2\n0 0\n1 3\n');
    log.deleteRecordsBefore(4n);
    assert.deepEqual(readLeaderEpochCheckpoint(path), [{ epoch: 1, startOffset: 4n }]);
    log.append(clientBatch(1, T0, 100), { leaderEpoch: 5 });
    closeLog(log);
    // a lost checkpoint is rebuilt from the batches by recovery
    rmSync(path);
    const again = openLog(cfg({ segmentBytes: one * 2 }), { hadCleanShutdown: false, recoveryPoint: 0n, logStartOffset: 4n });
    assert.deepEqual(readLeaderEpochCheckpoint(path), [{ epoch: 1, startOffset: 4n }, { epoch: 5, startOffset: 6n }]);
    assert.equal(again.logStartOffset, 4n);
  });
});

describe('PartitionLog recovery at open (LogLoaderTest)', () => {
  const one = clientBatch(1, T0, 100).length;
  const config = () => cfg({ segmentBytes: one * 10, indexIntervalBytes: 300, fileDeleteDelayMs: 0 });

  function build(records = 35): { dir: string; values: string[] } {
    const log = openLog(config());
    appendMany(log, records, 1, 100);
    const values = readAll(log).map((r) => r.value);
    const dir = log.dir;
    closeLog(log);
    return { dir, values };
  }
  function segFiles(dir: string, base: number) {
    return { log: join(dir, `${name(base)}.log`), index: join(dir, `${name(base)}.index`), time: join(dir, `${name(base)}.timeindex`) };
  }
  function expectRecoveredIndexes(log: PartitionLog) {
    for (const seg of log.segmentList()) {
      const batches = frameLog(readFileSync(seg.log.path).subarray(0, seg.size));
      const expected = recoveryRuleIndexes(batches, seg.baseOffset, config().indexIntervalBytes);
      const got = Array.from({ length: seg.offsetIndex.entries }, (_, i) => seg.offsetIndex.entry(i));
      assert.deepEqual(got, expected.offsets, `offset index of ${seg.baseOffset}`);
    }
  }

  it('testCorruptLog: random garbage appended to the active log and its index is removed by recovery', () => {
    const rand = prng(5);
    for (let iteration = 0; iteration < 5; iteration++) {
      const { dir, values } = build(15 + iteration);
      const active = readdirSync(dir).filter((n) => n.endsWith('.log')).sort().at(-1)!;
      const base = Number(active.slice(0, 20));
      const f = segFiles(dir, base);
      const logSize = statSync(f.log).size;
      const fd = openSync(f.log, 'a');
      writeSync(fd, randomBytes(1 + Math.floor(rand() * 200), rand));
      closeSync(fd);
      const fdi = openSync(f.index, 'a');
      writeSync(fdi, randomBytes(8 * (1 + Math.floor(rand() * 5)) + Math.floor(rand() * 8), rand));
      closeSync(fdi);
      const log = openLog(config(), { hadCleanShutdown: false });
      assert.equal(statSync(f.log).size, logSize, `iteration ${iteration}: garbage truncated`);
      assert.deepEqual(readAll(log).map((r) => r.value), values);
      assert.equal(log.recoveryReports.length, 1);
      assert.equal(log.recoveryReports[0]!.position, logSize);
      expectRecoveredIndexes(log);
      assertIndexesMatchLog(log);
      closeLog(log);
      rmSync(dir, { recursive: true });
    }
  });

  it('bytes overwritten mid-segment: truncation there, later segments deleted, recoveryReports filled', () => {
    const { dir, values } = build(35); // segments 0, 10, 20, 30
    const f = segFiles(dir, 10);
    const batches = frameLog(readFileSync(f.log));
    const victim = batches[4]!; // offset 14
    const fd = openSync(f.log, 'r+');
    writeSync(fd, Buffer.from('garbage!'), 0, 8, victim.position + 40);
    closeSync(fd);
    const log = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.equal(log.logEndOffset, 14n);
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 10n]);
    assert.deepEqual(readAll(log).map((r) => r.value), values.slice(0, 14));
    assert.equal(log.recoveryReports[0]!.segment, f.log);
    assert.equal(log.recoveryReports[0]!.position, victim.position);
    assert.equal(log.recoveryReports[0]!.bytesTruncated, statSync(f.log).size === victim.position ? batches.slice(4).reduce((n, b) => n + b.size, 0) : -1);
    assert.ok(log.recoveryReports.some((r) => r.segment.includes(name(20))));
    assert.ok(log.recoveryReports.some((r) => r.segment.includes(name(30))));
    const left = files(dir).filter((n) => n.startsWith(name(20)) || n.startsWith(name(30)));
    assert.ok(left.every((n) => n.endsWith('.deleted')), `later segments are gone or renamed .deleted: ${left}`);
    assertIndexesMatchLog(log);
    // appends continue at the truncation point
    assert.equal(log.append(clientBatch(1, T0)).firstOffset, 14n);
  });

  it('a failure that is not a damaged batch (the leader-epoch checkpoint cannot be written) fails the open and cuts nothing', () => {
    const { dir, values } = build(35);
    const sizes = () => files(dir).filter((n) => n.endsWith('.log')).map((n) => [n, statSync(join(dir, n)).size]);
    const before = sizes();
    // recovery assigns the epochs again (the checkpoint is gone) and its write fails: the .tmp it
    // writes first is a link into a directory that does not exist
    rmSync(join(dir, 'leader-epoch-checkpoint'));
    symlinkSync(join(dir, 'no-such-dir', 'x'), join(dir, 'leader-epoch-checkpoint.tmp'));
    assert.throws(() => openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n }), (e: unknown) => e instanceof KafkaliteError && e.code === 'STORAGE_ERROR');
    assert.deepEqual(sizes(), before, 'no segment was cut or deleted');
    // once the disk is writable again, the log opens whole
    rmSync(join(dir, 'leader-epoch-checkpoint.tmp'), { force: true });
    const log = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.deepEqual(readAll(log).map((r) => r.value), values);
    assert.deepEqual(log.recoveryReports, []);
  });

  it('a flushed segment rebuilt for its missing index is cut at its damage alone: the segments after it stay (LogLoader.loadSegmentFiles)', () => {
    const { dir, values } = build(35);
    const f = segFiles(dir, 0);
    const second = frameLog(readFileSync(f.log))[1]!;
    rmSync(f.index);
    const fd = openSync(f.log, 'r+');
    writeSync(fd, Buffer.from('garbage!'), 0, 8, second.position + 40);
    closeSync(fd);
    const log = openLog(config(), { hadCleanShutdown: true });
    assert.equal(log.logEndOffset, 35n);
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 10n, 20n, 30n]);
    assert.equal(statSync(f.log).size, second.position, 'segment 0 cut at its damaged batch');
    // offsets 1-9 went with the damaged batch; from 10 on everything is there
    assert.deepEqual(readAll(log, 10n).map((r) => r.value), values.slice(10));
    assert.equal(frameLog(readFileSync(f.log)).length, 1);
    assert.deepEqual(log.recoveryReports.map((r) => [r.segment, r.position]), [[f.log, second.position]]);
    assertIndexesMatchLog(log);
  });

  it('a .txnindex entry ending below its segment\'s base (CorruptIndexException) gets the segment rebuilt at a clean open, not served to read_committed', () => {
    const { dir, values } = build(35);
    const txn = join(dir, `${name(10)}.txnindex`);
    writeFileSync(txn, encodeAbortedTxn({ producerId: 7n, firstOffset: 0n, lastOffset: 3n, lastStableOffset: 4n }));
    const log = openLog(config(), { hadCleanShutdown: true });
    assert.deepEqual(log.collectAbortedTxns(0n, 35n), []);
    assert.ok(!existsSync(txn) || statSync(txn).size === 0, 'the bogus entry is gone from the file');
    assert.deepEqual(readAll(log).map((r) => r.value), values);
    assert.deepEqual(log.recoveryReports, []);
  });

  it('segments below the recovery point are not recovered after an unclean shutdown', () => {
    const { dir } = build(35);
    const f = segFiles(dir, 10);
    const size = statSync(f.log).size;
    const fd = openSync(f.log, 'r+');
    writeSync(fd, Buffer.from('garbage!'), 0, 8, 200);
    closeSync(fd);
    const log = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 30n });
    assert.equal(statSync(f.log).size, size);
    assert.equal(log.logEndOffset, 35n);
    assert.deepEqual(log.recoveryReports, []);
  });

  it('testCorruptIndexRebuild: index files full of garbage are rebuilt after an unclean shutdown', () => {
    const { dir, values } = build(35);
    const rand = prng(11);
    for (const n of readdirSync(dir)) {
      if (n.endsWith('.index') || n.endsWith('.timeindex')) {
        const p = join(dir, n);
        writeFileSync(p, randomBytes(Math.max(24, statSync(p).size), rand));
      }
    }
    const log = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.deepEqual(readAll(log).map((r) => r.value), values);
    expectRecoveredIndexes(log);
    for (let o = 0; o < 35; o++) assert.equal(log.fetchOffsetByTimestamp(BigInt(T0 + o))?.offset, BigInt(o));
  });

  it('truncated index files are rebuilt after an unclean shutdown', () => {
    const { dir, values } = build(35);
    for (const n of readdirSync(dir)) if (n.endsWith('.index') || n.endsWith('.timeindex')) truncateSync(join(dir, n), 5);
    const log = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.deepEqual(readAll(log).map((r) => r.value), values);
    expectRecoveredIndexes(log);
  });

  it('testIndexRebuild: missing index files are rebuilt even after a clean shutdown', () => {
    const { dir, values } = build(35);
    const before = Object.fromEntries(readdirSync(dir).filter((n) => /index$/.test(n)).map((n) => [n, readFileSync(join(dir, n))]));
    for (const n of Object.keys(before)) rmSync(join(dir, n));
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 35n });
    assert.deepEqual(readAll(log).map((r) => r.value), values);
    expectRecoveredIndexes(log);
    for (let o = 0; o < 35; o++) assert.equal(log.fetchOffsetByTimestamp(BigInt(T0 + o))?.offset, BigInt(o));
    closeLog(log);
    // one append per batch: the rebuilt files equal the ones written during appends
    for (const [n, bytes] of Object.entries(before)) assert.deepEqual(readFileSync(join(dir, n)), bytes, n);
  });

  it('bogus index files without a .log are removed', () => {
    const { dir } = build(15);
    for (const n of [`${name(500)}.index`, `${name(500)}.timeindex`, `${name(500)}.txnindex`]) writeFileSync(join(dir, n), Buffer.alloc(16));
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 15n });
    assert.ok(!files(dir).some((n) => n.startsWith(name(500))));
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 10n]);
  });

  it('obsolete .deleted and .cleaned files are removed; .checkpoint.deleted is kept; swaps at or past a .cleaned go', () => {
    const { dir } = build(15);
    const junk = [`${name(0)}.log.deleted`, `${name(0)}.index.deleted`, `${name(3)}.snapshot.deleted`, `${name(10)}.log.cleaned`, `${name(10)}.index.cleaned`, `${name(12)}.log.swap`, `${name(12)}.index.swap`];
    for (const n of junk) writeFileSync(join(dir, n), 'x');
    writeFileSync(join(dir, `${name(7)}-0000000001.checkpoint.deleted`), 'x');
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 15n });
    const f = files(dir);
    for (const n of junk) assert.ok(!f.includes(n), `${n} removed`);
    assert.ok(!f.includes(`${name(12)}.log`), 'the incomplete swap is not renamed in');
    assert.ok(f.includes(`${name(7)}-0000000001.checkpoint.deleted`));
    assert.equal(log.logEndOffset, 15n);
  });

  it('a .swap left behind replaces the segments it covers (renamed in, replaced files removed)', () => {
    const { dir, values } = build(25); // segments 0, 10, 20
    // the "cleaned" segment: segments 0 and 10 merged into one file, as the cleaner writes it
    const merged = Buffer.concat([readFileSync(join(dir, `${name(0)}.log`)), readFileSync(join(dir, `${name(10)}.log`))]);
    writeFileSync(join(dir, `${name(0)}.log.swap`), merged);
    // as Cleaner leaves it after onBecomeInactiveSegment: trimmed indexes, the final time entry
    const framed = frameLog(merged);
    let max = framed[0]!;
    for (const b of framed) if (b.maxTimestamp > max.maxTimestamp) max = b;
    writeFileSync(join(dir, `${name(0)}.index.swap`), Buffer.alloc(0));
    writeFileSync(join(dir, `${name(0)}.timeindex.swap`), encodeTimeIndex([{ timestamp: max.maxTimestamp, offset: max.lastOffset }], 0n));
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 25n });
    assert.deepEqual(log.segmentBaseOffsets(), [0n, 20n]);
    const f = files(dir);
    assert.ok(!f.some((n) => n.startsWith(name(10))), `files of segment 10 removed: ${f}`);
    assert.ok(!f.some((n) => n.endsWith('.swap')), `no .swap left: ${f}`);
    assert.deepEqual(readFileSync(join(dir, `${name(0)}.log`)), merged);
    assert.deepEqual(readAll(log).map((r) => r.value), values);
  });

  it('a clean shutdown skips recovery (damage below the LEO is not looked at)', () => {
    const { dir } = build(15);
    const f = segFiles(dir, 10);
    const size = statSync(f.log).size;
    const fd = openSync(f.log, 'r+');
    writeSync(fd, Buffer.from('garbage!'), 0, 8, 100); // inside a batch: CRC now wrong
    closeSync(fd);
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 15n });
    assert.equal(statSync(f.log).size, size);
    assert.equal(log.logEndOffset, 15n);
    assert.deepEqual(log.recoveryReports, []);
    assert.equal(log.recoveryPoint, 15n);
  });

  it('LEO below the log-start-offset checkpoint: all segments deleted, log restarts at the checkpoint', () => {
    const { dir } = build(15);
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 15n, logStartOffset: 100n });
    assert.deepEqual(log.segmentBaseOffsets(), [100n]);
    assert.equal(log.logStartOffset, 100n);
    assert.equal(log.logEndOffset, 100n);
    assert.ok(!files(dir).some((n) => n.startsWith(name(0)) && n.endsWith('.log')));
    assert.equal(log.append(clientBatch(1, T0)).firstOffset, 100n);
  });

  it('log start offset checkpoint inside the log is honoured', () => {
    build(15);
    const log = openLog(config(), { hadCleanShutdown: true, recoveryPoint: 15n, logStartOffset: 7n });
    assert.equal(log.logStartOffset, 7n);
    assert.throws(() => log.read(6n, { maxBytes: 100 }), { code: 'OFFSET_OUT_OF_RANGE' });
  });

  it('an empty active segment survives an unclean reopen', () => {
    const log = openLog(config());
    appendMany(log, 5);
    log.roll();
    const dir = log.dir;
    closeLog(log);
    const again = openLog(config(), { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.deepEqual(again.segmentBaseOffsets(), [0n, 5n]);
    assert.equal(again.logEndOffset, 5n);
    assert.deepEqual(again.recoveryReports, []);
    assert.ok(existsSync(join(dir, `${name(5)}.log`)));
  });

  it('an empty directory gets one empty segment at offset 0 (or the checkpointed log start)', () => {
    const log = openLog(config());
    assert.deepEqual(log.segmentBaseOffsets(), [0n]);
    assert.equal(log.logEndOffset, 0n);
  });

  it('preallocate=true: the zero tail of a crashed active segment is truncated by recovery', () => {
    const c = cfg({ preallocate: true, segmentBytes: 64 * 1024, indexIntervalBytes: 300 });
    const log = openLog(c);
    appendMany(log, 20, 1, 100);
    const size = log.activeSegment.size;
    const path = log.activeSegment.log.path;
    const values = readAll(log).map((r) => r.value);
    log.flush();
    // crash: no close, the file keeps its preallocated length
    assert.equal(statSync(path).size, 64 * 1024);
    opened.splice(opened.indexOf(log), 1);
    const again = openLog(c, { hadCleanShutdown: false, recoveryPoint: 0n });
    assert.equal(statSync(path).size, size);
    assert.equal(again.logEndOffset, 20n);
    assert.deepEqual(readAll(again).map((r) => r.value), values);
    assert.equal(statSync(again.activeSegment.log.path).size, size, 'a recovered active segment is not re-preallocated');
    void log; // the crashed instance's descriptors leak until the test process ends, as after a kill
  });
});

describe('LogManager (LogManagerTest)', () => {
  function manager(dir = join(root, 'data'), time = clock): LogManager {
    const m = LogManager.open(dir, { defaultConfig: cfg({ segmentBytes: 2000 }), time });
    return m;
  }

  it('meta.properties is written (version 1, cluster.id, node.id, directory.id) and kept across opens', () => {
    const m = manager();
    m.close();
    const text = readFileSync(join(root, 'data', 'meta.properties'), 'utf8');
    const lines = text.split('\n');
    assert.match(lines[0]!, /^#/);
    assert.match(lines[1]!, /^#/);
    assert.ok(lines.includes('version=1'));
    assert.ok(lines.includes('node.id=1'));
    assert.ok(lines.some((l) => /^cluster\.id=[A-Za-z0-9_-]{22}$/.test(l)), text);
    assert.ok(lines.some((l) => /^directory\.id=[A-Za-z0-9_-]{22}$/.test(l)), text);
    const meta = readMetaProperties(join(root, 'data', 'meta.properties'));
    assert.equal(meta.clusterId, m.clusterId);
    const again = manager();
    assert.equal(again.clusterId, m.clusterId);
    assert.equal(readFileSync(join(root, 'data', 'meta.properties'), 'utf8'), text, 'not rewritten');
    again.close();
  });

  it('checkpoints are written with the exact format on close and read back on open', () => {
    const m = manager();
    const a = m.getOrCreateLog('alpha', 0);
    const b = m.getOrCreateLog('alpha', 1);
    const c = m.getOrCreateLog('beta.x', 3);
    appendMany(a, 40, 1, 100);
    appendMany(b, 3);
    appendMany(c, 2);
    a.deleteRecordsBefore(25n);
    const aFirst = a.segmentBaseOffsets()[0]!;
    assert.ok(aFirst < 25n, 'log start inside the first segment so it is checkpointed');
    m.close(7n);
    const d = join(root, 'data');
    const parse = (f: string) => readFileSync(join(d, f), 'utf8');
    const rp = parse('recovery-point-offset-checkpoint');
    assert.match(rp, /^0\n3\n(\S+ \d+ \d+\n){3}$/);
    assert.deepEqual(new Set(rp.split('\n').slice(2, 5)), new Set(['alpha 0 40', 'alpha 1 3', 'beta.x 3 2']));
    assert.equal(parse('log-start-offset-checkpoint'), '0\n1\nalpha 0 25\n');
    const hw = parse('replication-offset-checkpoint');
    assert.deepEqual(new Set(hw.split('\n').slice(2, 5)), new Set(['alpha 0 40', 'alpha 1 3', 'beta.x 3 2']));
    assert.equal(parse('.kafka_cleanshutdown'), '{"version":0,"brokerEpoch":7}');
    assert.deepEqual(readOffsetCheckpoint(join(d, 'log-start-offset-checkpoint')), [{ topic: 'alpha', partition: 0, offset: 25n }]);
    const again = manager();
    assert.equal(again.hadCleanShutdown, true);
    assert.equal(existsSync(join(d, '.kafka_cleanshutdown')), false, 'marker consumed on open');
    const a2 = again.getLog('alpha', 0)!;
    assert.equal(a2.logStartOffset, 25n);
    assert.equal(a2.recoveryPoint, 40n);
    assert.equal(a2.logEndOffset, 40n);
    assert.equal(again.getLog('beta.x', 3)!.logEndOffset, 2n);
    again.close();
  });

  it('the clean-shutdown marker is consumed on open; an unclean close leaves none and recovery runs', () => {
    const d = join(root, 'data');
    const m = manager();
    appendMany(m.getOrCreateLog('t', 0), 5);
    m.close();
    assert.ok(existsSync(join(d, '.kafka_cleanshutdown')));
    const m2 = manager();
    assert.equal(m2.hadCleanShutdown, true);
    assert.ok(!existsSync(join(d, '.kafka_cleanshutdown')));
    const log = m2.getLog('t', 0)!;
    appendMany(log, 2);
    // garbage at the end of the active segment, then an unclean close
    const path = log.activeSegment.log.path;
    m2.closeUnclean();
    const fd = openSync(path, 'a');
    writeSync(fd, Buffer.alloc(30, 0xee));
    closeSync(fd);
    const m3 = manager();
    assert.equal(m3.hadCleanShutdown, false);
    const l3 = m3.getLog('t', 0)!;
    assert.equal(l3.logEndOffset, 7n);
    assert.equal(l3.recoveryReports.length, 1);
    m3.close();
  });

  it('.lock refuses a second opener in another process while the first is alive, and is free after it exits', async () => {
    const d = join(root, 'data');
    const m = manager(d);
    m.close();
    const script = `import { LogManager } from ${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'storage', 'log-manager.js'))};
const m = LogManager.open(${JSON.stringify(d)});
process.stdout.write('locked\\n');
setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (x) => (err += x));
        child.stdout.on('data', (x: Buffer) => x.toString().includes('locked') && resolve());
        child.on('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)));
      });
      assert.throws(() => LogManager.open(d), (e: { code?: string; message: string }) => e.code === 'STORAGE_ERROR' && /lock/i.test(e.message));
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    const after = LogManager.open(d);
    after.close();
  });

  it('.lock refuses a second opener in the same process while the first is open (Kafka: OverlappingFileLock → KafkaException)', () => {
    const d = join(root, 'data');
    const m = manager(d);
    try {
      assert.throws(() => LogManager.open(d), { code: 'STORAGE_ERROR' });
    } finally {
      m.close();
    }
  });

  it('getOrCreateLog writes partition.metadata sharing the topic id across partitions', () => {
    const m = manager();
    m.getOrCreateLog('gamma', 0);
    m.getOrCreateLog('gamma', 1);
    const d = join(root, 'data');
    const p0 = readFileSync(join(d, 'gamma-0', 'partition.metadata'), 'utf8');
    const p1 = readFileSync(join(d, 'gamma-1', 'partition.metadata'), 'utf8');
    assert.match(p0, /^version: 0\ntopic_id: [A-Za-z0-9_-]{22}$/);
    assert.equal(p0, p1);
    assert.throws(() => m.getOrCreateLog('../evil', 0), { code: 'INVALID_TOPIC' });
    m.close();
  });
});
