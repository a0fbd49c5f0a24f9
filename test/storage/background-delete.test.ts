/**
 * Removal of deleted files off the event loop (background-delete.ts): a broker's LogManager hands
 * the files of deleted segments and partitions to libuv's thread pool, as Kafka removes them from
 * its scheduler thread; a log opened on its own removes them inline.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BackgroundRemovals } from '../../src/storage/background-delete.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { deleteDirName } from '../../src/storage/topic.js';
import { clientBatch, tempDir } from '../helpers/storage.js';

describe('BackgroundRemovals', () => {
  it('removes files and directories; a missing path is no error, any other failure goes to onError', async (t) => {
    const { dir, cleanup } = tempDir('kafkalite-bgdelete-');
    t.after(cleanup);
    const file = join(dir, 'a.log.deleted');
    const tree = join(dir, 't-0.abc-delete');
    writeFileSync(file, 'x');
    mkdirSync(tree);
    writeFileSync(join(tree, '00000000000000000000.log'), 'x');
    const failed: string[] = [];
    const removals = new BackgroundRemovals((path) => failed.push(path));
    removals.remove(file);
    removals.remove(tree, true);
    removals.remove(join(dir, 'never-there'));
    removals.remove(dir); // a directory without `recursive`: EISDIR, an error of the directory
    assert.equal(removals.pending, 4, 'nothing finishes before the event loop turns');
    await removals.settled();
    assert.equal(removals.pending, 0);
    assert.equal(existsSync(file), false);
    assert.equal(existsSync(tree), false);
    assert.deepEqual(failed, [dir]);
  });

  it('once closed (its LogManager closed), a failing removal is not reported: nothing is left to take offline', async (t) => {
    const { dir, cleanup } = tempDir('kafkalite-bgdelete-');
    t.after(cleanup);
    const failed: string[] = [];
    const removals = new BackgroundRemovals((path) => failed.push(path));
    removals.remove(dir); // EISDIR, as above
    removals.close();
    await removals.settled();
    assert.deepEqual(failed, []);
  });

  it('is off for a log opened on its own, on for a LogManager unless asked not to be', (t) => {
    assert.equal(createLogResources().removals, undefined);
    assert.ok(createLogResources({ backgroundDelete: true }).removals instanceof BackgroundRemovals);
    assert.throws(() => createLogResources({ backgroundDelete: 'yes' as unknown as boolean }), /backgroundDelete must be true or false/);
    const { dir, cleanup } = tempDir('kafkalite-bgdelete-');
    t.after(cleanup);
    const on = LogManager.open(join(dir, 'on'));
    const off = LogManager.open(join(dir, 'off'), { backgroundDelete: false });
    try {
      assert.ok(on.resources.removals instanceof BackgroundRemovals);
      assert.equal(off.resources.removals, undefined);
    } finally {
      on.close();
      off.close();
    }
  });
});

describe('LogManager with background removal', () => {
  it("a retention deletion's due files are handed to the thread pool, and are gone once it finishes", async (t) => {
    const { dir, cleanup } = tempDir('kafkalite-bgdelete-');
    t.after(cleanup);
    const one = clientBatch(1, Date.now(), 100).length;
    const logs = LogManager.open(dir);
    try {
      const log = logs.getOrCreateLog('t', 0, { ...DEFAULT_LOG_CONFIG, segmentBytes: one * 2, retentionBytes: one * 2, retentionMs: -1, fileDeleteDelayMs: 0 });
      for (let i = 0; i < 6; i++) log.append(clientBatch(1, Date.now(), 100));
      assert.equal(log.deleteOldSegments(), 2);
      const removals = logs.resources.removals!;
      // deleteOldSegments renamed them and, their delay being 0, handed them over at once
      assert.ok(removals.pending > 0, 'the removals are in flight, not done inline');
      await removals.settled();
      assert.deepEqual(readdirSync(log.dir).filter((n) => n.endsWith('.deleted')), []);
      assert.deepEqual(log.segmentBaseOffsets(), [4n]);
    } finally {
      logs.close();
    }
  });

  it("a deleted partition's renamed directory is removed on the thread pool; one left by a crash is removed at the next open", async (t) => {
    const { dir, cleanup } = tempDir('kafkalite-bgdelete-');
    t.after(cleanup);
    const logs = LogManager.open(dir);
    try {
      logs.getOrCreateLog('t', 0).append(clientBatch(1, Date.now(), 100));
      assert.equal(logs.deleteLog('t', 0), true);
      assert.equal(existsSync(join(dir, 't-0')), false, 'renamed before this returned');
      await logs.resources.removals!.settled();
      assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('-delete')), []);
    } finally {
      logs.close();
    }
    // a crash between the rename and the removal
    const left = join(dir, deleteDirName('u', 0));
    mkdirSync(left);
    writeFileSync(join(left, '00000000000000000000.log'), 'x');
    const again = LogManager.open(dir);
    try {
      await again.resources.removals!.settled();
      assert.equal(existsSync(left), false);
      assert.equal(again.hasLog('u', 0), false);
    } finally {
      again.close();
    }
  });
});
