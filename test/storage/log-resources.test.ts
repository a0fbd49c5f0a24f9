/**
 * What a data directory's files share (src/storage/log-resources.ts) belongs to its LogManager, not
 * to the process: two LogManagers in one process keep separate page-cache and index-cache budgets,
 * and a bad option is refused before the directory is touched.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { InvalidArgumentError } from '../../src/errors.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { WRITEBACK_CHUNK_BYTES, type PageCacheCalls } from '../../src/storage/page-cache-budget.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kafkalite-resources-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Counts the hints instead of making them, so the test does not depend on the native addon. */
function countingCalls(): PageCacheCalls & { writebacks: number; drops: number } {
  const calls = {
    writebacks: 0,
    drops: 0,
    startWriteback: () => (calls.writebacks++, 0),
    dropPages: () => (calls.drops++, 0),
  };
  return calls;
}

describe('LogResources', () => {
  test('two LogManagers in one process keep separate page-cache budgets', () => {
    const a = LogManager.open(join(root, 'a'), { pageCacheBudgetBytes: WRITEBACK_CHUNK_BYTES });
    const b = LogManager.open(join(root, 'b'));
    try {
      assert.notEqual(a.resources.pageCache, b.resources.pageCache);
      const callsA = (a.resources.pageCache.os = countingCalls());
      const callsB = (b.resources.pageCache.os = countingCalls());
      assert.equal(a.resources.pageCache.limitBytes, WRITEBACK_CHUNK_BYTES);
      assert.equal(b.resources.pageCache.limitBytes, 64 * 1024 * 1024);
      // batches of exactly 1 MiB, so that every fourth append completes a writeback chunk
      const overhead = encodeRecordBatch([{ value: Buffer.alloc(1_000_000) }]).length - 1_000_000;
      const batch = () => encodeRecordBatch([{ value: Buffer.alloc(1024 * 1024 - overhead, 7) }]);
      assert.equal(batch().length, 1024 * 1024);
      // 13 MiB into a: three writeback chunks, of which a's budget of one chunk keeps the newest
      const logA = a.getOrCreateLog('t', 0);
      for (let i = 0; i < 13; i++) logA.append(batch());
      assert.equal(callsA.writebacks, 3);
      assert.equal(a.resources.pageCache.heldBytes, WRITEBACK_CHUNK_BYTES);
      assert.equal(a.resources.pageCache.dropped, 2);
      assert.deepEqual([callsB.writebacks, b.resources.pageCache.heldBytes], [0, 0], "a's appends are not in b's budget");
      // the same into b: b's larger budget keeps all of it, and a's is untouched
      const logB = b.getOrCreateLog('t', 0);
      for (let i = 0; i < 13; i++) logB.append(batch());
      assert.equal(callsB.writebacks, 3);
      assert.equal(b.resources.pageCache.heldBytes, 3 * WRITEBACK_CHUNK_BYTES);
      assert.equal(b.resources.pageCache.dropped, 0);
      assert.equal(callsB.drops, 0);
      assert.deepEqual([callsA.writebacks, a.resources.pageCache.heldBytes, a.resources.pageCache.dropped], [3, WRITEBACK_CHUNK_BYTES, 2]);
    } finally {
      a.close();
      b.close();
    }
  });

  test('two LogManagers in one process keep separate index-cache budgets', () => {
    const a = LogManager.open(join(root, 'a'), { indexCacheBudgetBytes: 1 << 20 });
    const b = LogManager.open(join(root, 'b'), { indexCacheBudgetBytes: 2 << 20 });
    try {
      assert.deepEqual([a.resources.indexCache.limitBytes, b.resources.indexCache.limitBytes], [1 << 20, 2 << 20]);
      // batches past index.interval.bytes: an index entry per append; a roll hands the index to the budget
      const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 * 1024 };
      const fill = (manager: LogManager) => {
        const log = manager.getOrCreateLog('idx', 0, config);
        for (let i = 0; i < 40; i++) log.append(encodeRecordBatch([{ value: Buffer.alloc(5000, i) }]));
        return log;
      };
      const logA = fill(a);
      assert.ok(logA.segmentBaseOffsets().length > 1, 'the log rolled');
      assert.ok(a.resources.indexCache.usedBytes > 0, "a's rolled indexes are cached in a's budget");
      assert.equal(b.resources.indexCache.usedBytes, 0, "and not in b's");
      const usedA = a.resources.indexCache.usedBytes;
      fill(b);
      assert.ok(b.resources.indexCache.usedBytes > 0);
      assert.equal(a.resources.indexCache.usedBytes, usedA, "b's indexes do not count in a's budget");
      // lowering one budget evicts from that one only
      a.resources.indexCache.limitBytes = 0;
      assert.equal(a.resources.indexCache.usedBytes, 0);
      assert.ok(b.resources.indexCache.usedBytes > 0);
    } finally {
      a.close();
      b.close();
    }
  });

  test('a bad budget or flush option is refused by name, before the data directory is created', () => {
    const dir = join(root, 'never');
    const refused = (name: string) => (e: unknown) => e instanceof InvalidArgumentError && e.message.includes(name);
    assert.throws(() => LogManager.open(dir, { pageCacheBudgetBytes: -1 }), refused('pageCacheBudgetBytes'));
    assert.throws(() => LogManager.open(dir, { indexCacheBudgetBytes: 1.5 }), refused('indexCacheBudgetBytes'));
    assert.throws(() => LogManager.open(dir, { backgroundFlush: 'off' as unknown as boolean }), refused('backgroundFlush'));
    assert.equal(existsSync(dir), false);
    assert.equal(createLogResources({ backgroundFlush: false }).backgroundFlush, false);
  });
});
