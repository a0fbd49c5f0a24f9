/**
 * A failed log directory at the storage level (issue 17, findings 3 and 4; Kafka's
 * LogDirFailureChannel and UnifiedLog.maybeHandleIOException): a roll that cannot create its segment
 * leaves the log as it was and takes the directory offline, so the same offsets are never written
 * twice; a segment refuses an append its indexes cannot take before writing it; and recovery that
 * cuts a segment rebuilds both of its indexes, so `kafkalite verify` is clean afterwards.
 *
 * The immutable directory is made with `chattr +i` (e2fsprogs), which needs root and a file system
 * with the flag (ext4, and tmpfs on Linux 6.0+); CI runs as root.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch, readRecordBatches } from '../../src/record/index.js';
import { formatProblem, verifyPath } from '../../src/cli/verify.js';
import { KafkaliteError, StorageError } from '../../src/errors.js';
import { LogDirFailureChannel } from '../../src/storage/log-dir-failure.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../src/storage/log-config.js';
import { LogSegment } from '../../src/storage/log-segment.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { clientBatch, tempDir } from '../helpers/storage.js';

const T0 = 1_700_000_000_000;
let root: string;
let cleanup: () => void;

beforeEach(() => ({ dir: root, cleanup } = tempDir('logdirfail')));
afterEach(() => cleanup());

function cfg(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

/** Runs `body` with `path` immutable (chattr +i), and mutable again afterwards whatever happens. */
function immutable<T>(path: string, body: () => T): T {
  execFileSync('chattr', ['+i', path]);
  try {
    return body();
  } finally {
    execFileSync('chattr', ['-i', path]);
  }
}

/** Every offset stored in the directory's `.log` files, in file order. */
function offsetsOnDisk(dir: string): bigint[] {
  const out: bigint[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    for (const b of readRecordBatches(readFileSync(join(dir, f)), { verifyCrc: true })) for (const r of b.records()) out.push(r.offset);
  }
  return out;
}

function verifyErrors(path: string): string[] {
  return verifyPath(path).problems.filter((p) => p.severity === 'error').map(formatProblem);
}

const isStorageError = (e: unknown) => e instanceof KafkaliteError && errorName(e.kafkaErrorCode) === 'KAFKA_STORAGE_ERROR';

describe('a failed roll', () => {
  it('changes nothing, takes the directory offline, and never writes the same offsets again', () => {
    const dir = join(root, 'topic-0');
    mkdirSync(dir);
    const log = PartitionLog.open(dir, 'topic', 0, { config: cfg({ segmentBytes: 4000 }), time: () => T0 });
    let appended = 0;
    // fill the first segment up to just before its roll
    while (log.activeSegment.size + 400 <= 4000 - 400) {
      log.append(clientBatch(5, T0 + appended, 40, `r${appended}-`));
      appended += 5;
    }
    assert.equal(log.segmentCount, 1);
    const before = {
      leo: log.logEndOffset,
      size: log.activeSegment.size,
      offsetIndexCapacity: log.activeSegment.offsetIndex.maxEntries,
      timeIndexCapacity: log.activeSegment.timeIndex.maxEntries,
      files: readdirSync(dir).sort(),
    };
    immutable(dir, () => {
      // these appends need a roll, whose new segment cannot be created (EPERM)
      for (let i = 0; i < 8; i++) {
        assert.throws(() => log.append(clientBatch(5, T0 + 1000 + i, 400, `x${i}-`)), isStorageError);
      }
    });
    const failure = log.resources.logDirFailure.failed;
    assert.equal(failure?.errno, 'EPERM');
    assert.match(failure.path, /00000000000000000\d\d\d\.log$/);
    // the log is as it was: end offset, segments, index capacities (not trimmed), files
    assert.equal(log.logEndOffset, before.leo);
    assert.equal(log.segmentCount, 1);
    assert.equal(log.activeSegment.size, before.size);
    assert.equal(log.activeSegment.offsetIndex.maxEntries, before.offsetIndexCapacity);
    assert.equal(log.activeSegment.timeIndex.maxEntries, before.timeIndexCapacity);
    assert.deepEqual(readdirSync(dir).sort(), before.files);
    // the directory stays offline: nothing more is appended, even now that the roll could succeed
    assert.throws(() => log.append(clientBatch(5, T0 + 2000, 40, 'late-')), isStorageError);
    assert.throws(() => log.read(0n, { maxBytes: 1000 }), isStorageError);
    assert.equal(statSync(join(dir, '00000000000000000000.log')).size, before.size);
    log.close();
    // reopened (as after a restart, with recovery): dense offsets, each once, and verify is clean
    const again = PartitionLog.open(dir, 'topic', 0, { config: cfg({ segmentBytes: 4000 }), time: () => T0, hadCleanShutdown: false });
    try {
      assert.equal(again.logEndOffset, BigInt(appended));
      again.append(clientBatch(5, T0 + 3000, 400, 'after-'));
      assert.equal(again.segmentCount, 2, 'the roll succeeds once the directory is writable');
    } finally {
      again.close();
    }
    assert.deepEqual(offsetsOnDisk(dir), Array.from({ length: appended + 5 }, (_, i) => BigInt(i)));
    assert.deepEqual(verifyErrors(dir), []);
  });
});

describe('LogSegment.append', () => {
  it('refuses an append its full index cannot take before writing any byte of it', () => {
    // room for a few index entries (a time index keeps its last slot for the roll's final entry);
    // an entry falls due after every append
    const seg = LogSegment.open(root, 0n, { indexIntervalBytes: 0, segmentIndexBytes: 36 }, { create: true });
    try {
      let next = 0n;
      const batch = () => encodeRecordBatch([{ value: 'v', timestamp: BigInt(T0) + next }], { baseOffset: next });
      while (!seg.offsetIndex.isFull() && !seg.timeIndex.isFull()) {
        seg.append(next, BigInt(T0) + next, next, batch());
        next++;
      }
      assert.ok(next >= 2n);
      const size = seg.size;
      assert.throws(() => seg.append(next, BigInt(T0) + next, next, batch()), (e: unknown) => e instanceof KafkaliteError && e.code === 'STORAGE_ERROR');
      assert.equal(seg.size, size, 'nothing was written');
      assert.equal(seg.readNextOffset(), next);
    } finally {
      seg.close();
    }
  });
});

describe('recovery that cuts a segment', () => {
  it('rebuilds both indexes: no time-index entry is left past the cut, and verify is clean', () => {
    const dir = join(root, 'topic-0');
    mkdirSync(dir);
    // what a double write left: offsets 5-9 twice, the second time with later timestamps, then more
    const b = (base: number, ts: number) => encodeRecordBatch(Array.from({ length: 5 }, (_, i) => ({ value: `v${base + i}`, timestamp: BigInt(ts + i) })), { baseOffset: base });
    writeFileSync(join(dir, '00000000000000000000.log'), Buffer.concat([b(0, T0), b(5, T0 + 10), b(5, T0 + 5000), b(10, T0 + 6000)]));
    // an index entry after every batch (index.interval.bytes 1), so the cut batch had entries due
    const config = cfg({ indexIntervalBytes: 1 });
    const log = PartitionLog.open(dir, 'topic', 0, { config, time: () => T0, hadCleanShutdown: false });
    try {
      assert.equal(log.logEndOffset, 10n);
      assert.equal(log.recoveryReports.length, 1);
      const seg = log.activeSegment;
      for (let i = 0; i < seg.timeIndex.entries; i++) {
        const e = seg.timeIndex.entry(i);
        assert.ok(e.offset < 10n, `time-index entry ${i} names offset ${e.offset}, which is gone`);
        assert.ok(e.timestamp < BigInt(T0 + 5000), `time-index entry ${i} has timestamp ${e.timestamp} of the cut batch`);
      }
      for (let i = 0; i < seg.offsetIndex.entries; i++) assert.ok(seg.offsetIndex.entry(i).position < seg.size);
      assert.equal(log.fetchOffsetByTimestamp(BigInt(T0 + 100)), undefined, 'no record of the cut batch is found by time');
    } finally {
      log.close();
    }
    assert.deepEqual(verifyErrors(dir), []);
    // and after a clean restart too
    const again = PartitionLog.open(dir, 'topic', 0, { config, time: () => T0, hadCleanShutdown: true });
    again.close();
    assert.deepEqual(verifyErrors(dir), []);
    assert.deepEqual(offsetsOnDisk(dir), Array.from({ length: 10 }, (_, i) => BigInt(i)));
  });
});

describe('LogDirFailureChannel', () => {
  const ioError = (code: string) => Object.assign(new Error(`${code}: failed, write`), { code, syscall: 'write' });

  it('takes the directory offline at the first I/O error only, and tells its listeners once', () => {
    const channel = new LogDirFailureChannel('/data');
    const heard: string[] = [];
    channel.onFailure((f) => heard.push(`${f.errno} ${f.path}`));
    // errors that are not I/O errors (validation, offsets) pass through and change nothing
    const invalid = new RangeError('not an I/O error');
    assert.throws(() => channel.guard('/data/t-0', () => { throw invalid; }), (e) => e === invalid);
    const failure = () => channel.failed;
    assert.equal(failure(), undefined);
    assert.equal(channel.guard('/data/t-0', () => 7), 7);
    // an I/O error, directly or as the cause of a StorageError, takes it offline
    assert.throws(() => channel.guard('/data/t-0', () => { throw new StorageError('cannot append', { cause: ioError('ENOSPC') }); }), isStorageError);
    assert.equal(failure()?.errno, 'ENOSPC');
    assert.equal(failure()?.path, '/data/t-0');
    // from then on nothing runs, and a later failure is not a new one
    let ran = false;
    assert.throws(() => channel.guard('/data/t-1', () => (ran = true)), isStorageError);
    assert.equal(ran, false);
    channel.fail('/data/other', ioError('EIO'));
    assert.deepEqual(heard, ['ENOSPC /data/t-0']);
    // a listener added afterwards hears of it at once
    channel.onFailure((f) => heard.push(`late ${f.errno}`));
    assert.deepEqual(heard, ['ENOSPC /data/t-0', 'late ENOSPC']);
  });

  it('writes what is pending before a change that is not an append, and refuses the change when that write fails', () => {
    const channel = new LogDirFailureChannel('/data');
    let written = 0;
    channel.writesPending = () => written++;
    channel.checkBeforeChange();
    assert.equal(written, 1);
    channel.writesPending = () => {
      throw ioError('EPERM');
    };
    assert.throws(() => channel.checkBeforeChange(), isStorageError);
    assert.equal(channel.failed?.errno, 'EPERM');
  });
});
