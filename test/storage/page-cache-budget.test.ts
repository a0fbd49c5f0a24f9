/**
 * The page-cache budget (src/storage/page-cache-budget.ts): which ranges get their writeback
 * started and their pages dropped, in what order, and what is never touched (closed files, hot
 * reads, a budget of 0); FileRecords reporting its appends; and the real system calls on a real file
 * (residency read by util-linux `fincore`, not by kafkalite).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { nativeAddon } from '../../src/native/addon.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { PageCacheBudget, WRITEBACK_CHUNK_BYTES, type PageCacheCalls, type PageCacheFile } from '../../src/storage/page-cache-budget.js';

const MiB = 1024 * 1024;

/** Records every call as `name fd offset length`. */
function recordingCalls(): PageCacheCalls & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    startWriteback: (fd, offset, length) => (log.push(`writeback ${fd} ${offset} ${length}`), 0),
    dropPages: (fd, offset, length) => (log.push(`drop ${fd} ${offset} ${length}`), 0),
  };
}

function file(fd: number): PageCacheFile & { pageCacheClosed: boolean } {
  return { pageCacheFd: fd, pageCacheClosed: false, pageCacheColdBefore: 0, pageCacheReadDroppedTo: 0 };
}

describe('page-cache budget', () => {
  test('written ranges start their writeback; the oldest ones, across files, are dropped once the budget is exceeded', () => {
    const calls = recordingCalls();
    const budget = new PageCacheBudget(10, calls);
    const a = file(7);
    const b = file(8);
    budget.written(a, 0, 4);
    budget.written(b, 0, 4);
    assert.deepEqual(calls.log, ['writeback 7 0 4', 'writeback 8 0 4']);
    assert.equal(budget.heldBytes, 8);
    budget.written(a, 4, 8); // 12 > 10: a's first range goes
    assert.deepEqual(calls.log.slice(2), ['writeback 7 4 4', 'drop 7 0 4']);
    assert.equal(a.pageCacheColdBefore, 4);
    assert.equal(budget.heldBytes, 8);
    b.pageCacheClosed = true;
    budget.written(a, 8, 12); // b's range is next, but b is closed: its descriptor number is not used
    assert.deepEqual(calls.log.slice(4), ['writeback 7 8 4']);
    assert.equal(budget.heldBytes, 8);
    budget.written(b, 4, 8); // nothing for a closed file
    assert.equal(calls.log.length, 5);
    budget.limitBytes = 4; // lowering the budget drops at once
    assert.deepEqual(calls.log.slice(5), ['drop 7 4 4']);
    assert.equal(a.pageCacheColdBefore, 8);
    assert.equal(budget.dropped, 2);
  });

  test('a budget of 0, or no native calls, leaves the page cache to the OS', () => {
    const calls = recordingCalls();
    const off = new PageCacheBudget(0, calls);
    off.written(file(3), 0, 100);
    off.readCold({ ...file(3), pageCacheColdBefore: 1000 }, 0, 100);
    assert.deepEqual(calls.log, []);
    assert.equal(off.active, false);
    assert.equal(new PageCacheBudget(64, null).active, false);
    assert.throws(() => new PageCacheBudget(-1, calls), RangeError);
    assert.throws(() => (off.limitBytes = 1.5), RangeError);
  });

  test('cold reads drop the pages behind them, whole pages up to the read, never the read itself or a hot range', () => {
    const calls = recordingCalls();
    const budget = new PageCacheBudget(1, calls);
    const f = { ...file(9), pageCacheColdBefore: 100_000 };
    budget.readCold(f, 0, 10_000); // nothing behind the first read
    budget.readCold(f, 9_000, 20_000); // the pages before 8192 (the page holding 9000 stays)
    budget.readCold(f, 20_000, 30_000);
    budget.readCold(f, 5_000, 6_000); // a read behind: nothing
    budget.readCold(f, 95_000, 100_001); // reaches past the cold part: a read at the tail, nothing
    assert.deepEqual(calls.log, ['drop 9 0 8192', 'drop 9 8192 8192']);
    assert.equal(f.pageCacheReadDroppedTo, 16_384);
  });

  test('FileRecords hands every WRITEBACK_CHUNK_BYTES of appends to its budget, and cold reads to readCold', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-pagecache-'));
    const calls = recordingCalls();
    const resources = createLogResources({ pageCacheBudgetBytes: 2 * WRITEBACK_CHUNK_BYTES });
    resources.pageCache.os = calls;
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const log = FileRecords.openWritable(join(dir, '00000000000000000000.log'), { create: true, resources });
    const fd = log.pageCacheFd;
    const mib = Buffer.alloc(MiB, 1);
    for (let i = 0; i < 13; i++) log.append(mib);
    const chunk = WRITEBACK_CHUNK_BYTES;
    assert.deepEqual(calls.log, [`writeback ${fd} 0 ${chunk}`, `writeback ${fd} ${chunk} ${chunk}`, `writeback ${fd} ${2 * chunk} ${chunk}`, `drop ${fd} 0 ${chunk}`]);
    assert.equal(log.pageCacheColdBefore, chunk);
    // a truncation below what was handed over: the next range starts at the new end
    log.truncateTo(10 * MiB);
    for (let i = 0; i < 4; i++) log.append(mib);
    assert.equal(calls.log[4], `writeback ${fd} ${10 * MiB} ${chunk}`);
    // reading the cold start of the file drops behind; reading the tail does not
    calls.log.length = 0;
    log.readBytes(0, MiB);
    log.readBytes(2 * MiB, MiB);
    log.readBytes(13 * MiB, MiB);
    assert.deepEqual(calls.log, [`drop ${fd} 0 ${2 * MiB}`]);
    log.close();
  });

  test('FileRecords starts writeback on whole pages only: the partly written last page, which the next append writes, is left to the next range', (t) => {
    // sync_file_range locks each page while it queues it; an append into the page being queued
    // waited on that lock, for as long as a full device queue held it (bench/README.md, session 14)
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-pagecache-'));
    const calls = recordingCalls();
    const resources = createLogResources({ pageCacheBudgetBytes: 8 * WRITEBACK_CHUNK_BYTES });
    resources.pageCache.os = calls;
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const log = FileRecords.openWritable(join(dir, '00000000000000000000.log'), { create: true, resources });
    const fd = log.pageCacheFd;
    const append = Buffer.alloc(1_033_997, 1); // a 1 MiB Produce batch of the broker bench: not a whole number of pages
    for (let i = 0; i < 10; i++) log.append(append);
    // the first range is handed over at the 5th append (5,169,985 bytes: 4 MiB or more), up to its
    // last whole page; the second at the 10th (10,339,970), from there to its last whole page
    const page = 4096;
    const firstEnd = 5 * 1_033_997 - ((5 * 1_033_997) % page);
    const secondEnd = 10 * 1_033_997 - ((10 * 1_033_997) % page);
    assert.deepEqual(calls.log, [`writeback ${fd} 0 ${firstEnd}`, `writeback ${fd} ${firstEnd} ${secondEnd - firstEnd}`]);
    log.close();
  });

  test('the native calls work on a real file: dropped pages leave the page cache (util-linux fincore)', { skip: nativeAddon === undefined ? 'kafkalite-native is not built' : false }, () => {
    const addon = nativeAddon!;
    // a disk file system: the unit tier's TMPDIR is tmpfs (test/tiers.ts), where pages are never dropped
    const dir = mkdtempSync(join(process.env.KAFKALITE_DISK_TMPDIR ?? tmpdir(), 'kafkalite-pagecache-'));
    try {
      const path = join(dir, 'f');
      const fd = openSync(path, 'w+');
      writeSync(fd, Buffer.alloc(4 * MiB, 7));
      assert.equal(addon.startWriteback(fd, 0, 4 * MiB), 0);
      // numbers a descriptor or an offset cannot hold exactly are refused, not cut to other ones
      assert.throws(() => addon.dropPages(fd + 2 ** 32, 0, 4 * MiB), TypeError, 'a descriptor beyond INT_MAX');
      assert.throws(() => addon.pageHintsAsync(fd, 0.5, 4096, 0, 0), TypeError, 'a fractional offset');
      assert.throws(() => addon.fdatasyncAsync(fd + 2 ** 32, () => undefined), TypeError, 'fdatasyncAsync: a descriptor beyond INT_MAX');
      fdatasyncSync(fd); // clean pages: the ones POSIX_FADV_DONTNEED drops
      readSync(fd, Buffer.alloc(4 * MiB), 0, 4 * MiB, 0);
      const resident = (): number => Number(execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', path], { encoding: 'utf8' }).trim());
      assert.ok(resident() > 0, 'the file was just read: some of it is cached');
      assert.equal(addon.dropPages(fd, 0, 4 * MiB), 0);
      assert.equal(resident(), 0);
      // the thread-pool variant works on a duplicate: closing the descriptor right away is fine
      readSync(fd, Buffer.alloc(4 * MiB), 0, 4 * MiB, 0);
      assert.ok(resident() > 0);
      assert.equal(addon.pageHintsAsync(fd, 0, 4 * MiB, 0, 4 * MiB), 0);
      closeSync(fd);
      const guard = Date.now() + 10_000; // a hang guard, not a timing claim
      while (resident() > 0 && Date.now() < guard) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      assert.equal(resident(), 0, 'the pages were dropped through the duplicate descriptor');
      assert.equal(addon.dropPages(fd, 0, 1), 9, 'EBADF for a closed descriptor');
      assert.equal(addon.pageHintsAsync(fd, 0, 1, 0, 1), 9);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
