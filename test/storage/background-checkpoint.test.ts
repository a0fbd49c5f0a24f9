/**
 * The broker's periodic checkpoint is written off the event loop (LogManager.checkpointInBackground,
 * fs-util.ts atomicWriteFile): the files it writes are byte for byte those of the synchronous
 * checkpoint, with the offsets of the moment it was started; a second call while one is in progress
 * joins it (the two would share the `.tmp` files); the asynchronous atomic write leaves no `.tmp`
 * and fails with a StorageError.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { atomicWriteFile } from '../../src/storage/fs-util.js';

const FILES = ['recovery-point-offset-checkpoint', 'log-start-offset-checkpoint', 'replication-offset-checkpoint'];

describe('background checkpoint', () => {
  test('writes what the synchronous checkpoint writes, as of its start; a second call joins the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bgckpt-'));
    try {
      const manager = LogManager.open(dir, {});
      try {
        for (const t of ['a', 'b']) manager.getOrCreateLog(t, 0).append(encodeRecordBatch([{ value: Buffer.from(t) }, { value: Buffer.from(t) }]));
        const first = manager.checkpointInBackground();
        assert.equal(manager.checkpointInBackground(), first, 'a checkpoint in progress is joined, not started twice');
        // appended after the start: not in this checkpoint
        manager.getLog('a', 0)!.append(encodeRecordBatch([{ value: Buffer.from('later') }]));
        await first;
        const background = FILES.map((f) => readFileSync(join(dir, f), 'utf8'));
        assert.match(background[2]!, /^0\n2\n/);
        assert.ok(background[2]!.includes('a 0 2\n') && background[2]!.includes('b 0 2\n'), background[2]);
        manager.checkpoint();
        const sync = FILES.map((f) => readFileSync(join(dir, f), 'utf8'));
        assert.equal(sync[2]!.includes('a 0 3\n'), true, 'the synchronous one, now, has the later append');
        assert.deepEqual([background[0], background[1]], [sync[0], sync[1]]);
        await manager.checkpointWritten();
      } finally {
        manager.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a synchronous checkpoint during a background one: no shared temporary file, and the newer offsets stay, whichever write finishes first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bgckpt-'));
    try {
      const manager = LogManager.open(dir, {});
      try {
        const log = manager.getOrCreateLog('a', 0);
        // the synchronous checkpoint lands at every point of the background one's writes
        for (let turns = 0; turns < 40; turns++) {
          log.append(encodeRecordBatch([{ value: Buffer.from('x') }]));
          const background = manager.checkpointInBackground();
          log.append(encodeRecordBatch([{ value: Buffer.from('y') }]));
          for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
          manager.checkpoint();
          await background;
          const hw = readFileSync(join(dir, 'replication-offset-checkpoint'), 'utf8');
          assert.equal(hw, `0\n1\na 0 ${log.highWatermark}\n`, `after ${turns} turns`);
          assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], `after ${turns} turns`);
        }
        manager.checkOnline();
      } finally {
        manager.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('atomicWriteFile leaves no .tmp behind and throws a StorageError when it cannot write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bgckpt-'));
    try {
      await atomicWriteFile(join(dir, 'x'), 'one\n');
      await atomicWriteFile(join(dir, 'x'), 'two\n');
      assert.equal(readFileSync(join(dir, 'x'), 'utf8'), 'two\n');
      assert.deepEqual(readdirSync(dir), ['x']);
      if (process.getuid?.() !== 0) {
        chmodSync(dir, 0o500);
        await assert.rejects(atomicWriteFile(join(dir, 'y'), 'z'), (e: Error) => e.name === 'StorageError');
        chmodSync(dir, 0o700);
      }
      await assert.rejects(atomicWriteFile(join(dir, 'missing', 'y'), 'z'), (e: Error) => e.name === 'StorageError' && /failed to write/.test(e.message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
