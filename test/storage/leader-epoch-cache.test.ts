/**
 * LeaderEpochFileCache (assigned by `UnifiedLog.append` and `LogSegment.recover`), after Kafka's LeaderEpochFileCacheTest: monotonic
 * epochs and offsets, truncation from start and end, end offsets for epochs, persistence.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import { LeaderEpochFileCache } from '../../src/storage/leader-epoch-cache.js';

const root = mkdtempSync(join(tmpdir(), 'kafkalite-epochs-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A fresh partition dir's checkpoint path. */
function checkpointPath(content?: string): string {
  const dir = join(root, `foo-${n++}`);
  mkdirSync(dir);
  const path = join(dir, 'leader-epoch-checkpoint');
  if (content !== undefined) writeFileSync(path, content);
  return path;
}
const entries = (cache: LeaderEpochFileCache) => cache.epochEntries().map((e) => [e.epoch, Number(e.startOffset)]);
const fileOf = (path: string) => readFileSync(path, 'utf8');
/** A cache holding (epoch, offset) pairs, assigned in order. */
function cacheWith(...pairs: [number, number][]): LeaderEpochFileCache {
  const cache = new LeaderEpochFileCache(checkpointPath());
  for (const [epoch, offset] of pairs) cache.assign(epoch, BigInt(offset));
  return cache;
}

describe('LeaderEpochFileCache', () => {
  test('a new cache creates an empty checkpoint and knows no epoch', () => {
    const path = checkpointPath();
    const cache = new LeaderEpochFileCache(path);
    assert.equal(statSync(path).size, 0);
    assert.equal(cache.latestEpoch(), undefined);
    assert.equal(cache.earliestEntry(), undefined);
    assert.equal(cache.nonEmpty(), false);
    assert.deepEqual(cache.endOffsetFor(0, 0n), { epoch: -1, endOffset: -1n });
  });

  test('assign persists and reload restores the entries', () => {
    const path = checkpointPath();
    const cache = new LeaderEpochFileCache(path);
    cache.assign(2, 6n);
    cache.assign(3, 8n);
    assert.equal(fileOf(path), '0\n2\n2 6\n3 8\n');
    const reloaded = new LeaderEpochFileCache(path);
    assert.deepEqual(entries(reloaded), [[2, 6], [3, 8]]);
    assert.equal(reloaded.latestEpoch(), 3);
    assert.deepEqual(reloaded.earliestEntry(), { epoch: 2, startOffset: 6n });
    assert.deepEqual(reloaded.latestEntry(), { epoch: 3, startOffset: 8n });
  });

  test('the same epoch at a higher offset changes nothing and does not rewrite the file', () => {
    const path = checkpointPath();
    const cache = new LeaderEpochFileCache(path);
    cache.assign(2, 6n);
    rmSync(path);
    cache.assign(2, 7n);
    cache.assign(2, 6n);
    assert.equal(existsSync(path), false);
    assert.deepEqual(entries(cache), [[2, 6]]);
  });

  test('the same epoch at a lower offset replaces the entry', () => {
    const cache = cacheWith([2, 6]);
    cache.assign(2, 5n);
    assert.deepEqual(entries(cache), [[2, 5]]);
  });

  test('a lower epoch drops every newer entry (epochs stay monotonic)', () => {
    const cache = cacheWith([2, 6], [3, 8], [4, 11]);
    cache.assign(3, 12n);
    assert.deepEqual(entries(cache), [[2, 6], [3, 12]]);
    assert.equal(fileOf(cache.checkpointPath), '0\n2\n2 6\n3 12\n');
  });

  test('a higher epoch at a lower offset drops entries starting at or after it (offsets stay monotonic)', () => {
    const cache = cacheWith([2, 6], [3, 8], [4, 11]);
    cache.assign(5, 8n);
    assert.deepEqual(entries(cache), [[2, 6], [5, 8]]);
    const cache2 = cacheWith([2, 6], [3, 8]);
    cache2.assign(4, 2n);
    assert.deepEqual(entries(cache2), [[4, 2]]);
  });

  test('a new higher epoch at a higher offset appends', () => {
    const cache = cacheWith([0, 0], [2, 3]);
    cache.assign(5, 4n);
    assert.deepEqual(entries(cache), [[0, 0], [2, 3], [5, 4]]);
  });

  test('a new epoch at the latest entry\'s start offset replaces it (no data was written in it)', () => {
    const cache = cacheWith([0, 0], [2, 3]);
    cache.assign(5, 3n);
    assert.deepEqual(entries(cache), [[0, 0], [5, 3]]);
  });

  test('negative epochs or offsets are refused', () => {
    const cache = cacheWith();
    assert.throws(() => cache.assign(-1, 0n), InvalidArgumentError);
    assert.throws(() => cache.assign(0, -1n), InvalidArgumentError);
  });

  test('loading replays the assign rules, so a non-monotonic file is repaired in memory', () => {
    const cache = new LeaderEpochFileCache(checkpointPath('0\n3\n1 0\n5 10\n3 20\n'));
    assert.deepEqual(entries(cache), [[1, 0], [3, 20]]);
  });

  test('an unreadable or invalid checkpoint is a StorageError', () => {
    assert.throws(() => new LeaderEpochFileCache(checkpointPath('0\n1\n1 2 3\n')), StorageError);
    assert.throws(() => new LeaderEpochFileCache(checkpointPath('1\n0\n')), StorageError);
    assert.throws(() => new LeaderEpochFileCache(checkpointPath('0\n1\n-1 5\n')), StorageError);
    assert.throws(() => new LeaderEpochFileCache(join(root, 'missing-dir', 'leader-epoch-checkpoint')), StorageError);
  });

  describe('endOffsetFor (OffsetsForLeaderEpoch)', () => {
    const cache = cacheWith([2, 6], [4, 11], [6, 15]);
    test('the latest epoch ends at the log end offset', () => {
      assert.deepEqual(cache.endOffsetFor(6, 20n), { epoch: 6, endOffset: 20n });
    });
    test('a known earlier epoch ends where the next one starts', () => {
      assert.deepEqual(cache.endOffsetFor(2, 20n), { epoch: 2, endOffset: 11n });
      assert.deepEqual(cache.endOffsetFor(4, 20n), { epoch: 4, endOffset: 15n });
    });
    test('an unknown epoch between two known ones answers with the largest smaller epoch', () => {
      assert.deepEqual(cache.endOffsetFor(3, 20n), { epoch: 2, endOffset: 11n });
      assert.deepEqual(cache.endOffsetFor(5, 20n), { epoch: 4, endOffset: 15n });
    });
    test('an epoch below every known one answers with itself and the first start offset', () => {
      assert.deepEqual(cache.endOffsetFor(1, 20n), { epoch: 1, endOffset: 6n });
      assert.deepEqual(cache.endOffsetFor(0, 20n), { epoch: 0, endOffset: 6n });
    });
    test('UNDEFINED_EPOCH or an epoch above every known one is undefined', () => {
      assert.deepEqual(cache.endOffsetFor(-1, 20n), { epoch: -1, endOffset: -1n });
      assert.deepEqual(cache.endOffsetFor(7, 20n), { epoch: -1, endOffset: -1n });
    });
  });

  describe('truncateFromEnd', () => {
    test('removes entries starting at or after the end offset and persists', () => {
      const cache = cacheWith([2, 6], [3, 8], [4, 11]);
      cache.truncateFromEnd(9n);
      assert.deepEqual(entries(cache), [[2, 6], [3, 8]]);
      assert.equal(fileOf(cache.checkpointPath), '0\n2\n2 6\n3 8\n');
      cache.truncateFromEnd(8n);
      assert.deepEqual(entries(cache), [[2, 6]]);
      cache.truncateFromEnd(0n);
      assert.deepEqual(entries(cache), []);
      assert.equal(fileOf(cache.checkpointPath), '0\n0\n');
    });
    test('beyond the latest start offset, or negative, is a no-op', () => {
      const cache = cacheWith([2, 6], [3, 8]);
      cache.truncateFromEnd(9n);
      cache.truncateFromEnd(-1n);
      assert.deepEqual(entries(cache), [[2, 6], [3, 8]]);
    });
  });

  describe('truncateFromStart', () => {
    test('keeps the epoch containing the new start, moved to start there', () => {
      const cache = cacheWith([2, 6], [3, 8], [4, 11]);
      cache.truncateFromStart(9n);
      assert.deepEqual(entries(cache), [[3, 9], [4, 11]]);
      assert.equal(fileOf(cache.checkpointPath), '0\n2\n3 9\n4 11\n');
    });
    test('is exclusive: an entry at exactly the offset is kept', () => {
      const cache = cacheWith([2, 6], [3, 8], [4, 11]);
      cache.truncateFromStart(8n);
      assert.deepEqual(entries(cache), [[3, 8], [4, 11]]);
    });
    test('before the first entry is a no-op; past the last leaves one entry', () => {
      const cache = cacheWith([2, 6], [3, 8], [4, 11]);
      cache.truncateFromStart(5n);
      assert.deepEqual(entries(cache), [[2, 6], [3, 8], [4, 11]]);
      cache.truncateFromStart(100n);
      assert.deepEqual(entries(cache), [[4, 100]]);
    });
  });

  test('clear empties the cache and the file; a vanished directory is tolerated', () => {
    const cache = cacheWith([2, 6]);
    cache.clear();
    assert.deepEqual(entries(cache), []);
    assert.equal(fileOf(cache.checkpointPath), '0\n0\n');
    const doomed = cacheWith([1, 1]);
    rmSync(join(doomed.checkpointPath, '..'), { recursive: true });
    doomed.clear();
    doomed.truncateFromEnd(0n);
    assert.equal(doomed.latestEpoch(), undefined);
  });

  test('epochForOffset', () => {
    const cache = cacheWith([2, 6], [4, 11]);
    assert.equal(cache.epochForOffset(5n), undefined);
    assert.equal(cache.epochForOffset(6n), 2);
    assert.equal(cache.epochForOffset(10n), 2);
    assert.equal(cache.epochForOffset(11n), 4);
    assert.equal(cache.epochForOffset(1000n), 4);
  });

  test('epochEntries returns copies', () => {
    const cache = cacheWith([2, 6]);
    (cache.epochEntries()[0] as { epoch: number }).epoch = 99;
    assert.equal(cache.latestEpoch(), 2);
  });
});
