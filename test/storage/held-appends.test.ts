/**
 * Held appends (src/storage/held-appends.ts): a file's held appends
 * reach the file, in order, at `writeAll`, at the bound, or before anything reads or changes
 * the file; rebuilt batches are never held; and a failed held write fails every later `writeAll`.
 * What is on disk is read with `readFileSync`, not through the code under test.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { HeldAppends } from '../../src/storage/held-appends.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkalite-held-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);
const onDisk = (path: string) => readFileSync(path);

describe('FileRecords held appends', () => {
  test('are not in the file until writeAll, then are there in order at the positions append returned', () => {
    const path = join(dir, 'a.log');
    const log = FileRecords.openWritable(path, { create: true });
    const held = new HeldAppends();
    assert.equal(log.append(bytes(100, 1), held), 0);
    assert.equal(log.append(bytes(50, 2), held), 100);
    assert.equal(log.sizeInBytes, 150);
    assert.equal(held.holding, true);
    assert.equal(onDisk(path).length, 0);
    held.writeAll();
    assert.equal(held.holding, false);
    assert.deepEqual(onDisk(path), Buffer.concat([bytes(100, 1), bytes(50, 2)]));
    log.close();
  });

  test('a read, a truncation, a flush, an append written at once and close each write them first', () => {
    const held = new HeldAppends();
    const steps: [string, (log: FileRecords) => void, Buffer][] = [
      ['readBytes', (log) => assert.deepEqual(log.readBytes(0, 30), Buffer.concat([bytes(20, 1), bytes(10, 2)])), Buffer.concat([bytes(20, 1), bytes(10, 2)])],
      ['truncateTo', (log) => log.truncateTo(25), Buffer.concat([bytes(20, 1), bytes(5, 2)])],
      ['flush', (log) => log.flush(), Buffer.concat([bytes(20, 1), bytes(10, 2)])],
      ['append now', (log) => log.append(bytes(5, 3)), Buffer.concat([bytes(20, 1), bytes(10, 2), bytes(5, 3)])],
      ['close', (log) => log.close(), Buffer.concat([bytes(20, 1), bytes(10, 2)])],
    ];
    for (const [name, step, expected] of steps) {
      const path = join(dir, `${name}.log`);
      const log = FileRecords.openWritable(path, { create: true });
      log.append(bytes(20, 1), held);
      log.append(bytes(10, 2), held);
      assert.equal(onDisk(path).length, 0, name);
      step(log);
      assert.deepEqual(onDisk(path), expected, name);
      log.close();
    }
    // every file wrote its own: nothing is left for writeAll to write twice
    held.writeAll();
  });

  test('holding past the bound writes everything held at once', () => {
    const path = join(dir, 'bound.log');
    const log = FileRecords.openWritable(path, { create: true });
    const held = new HeldAppends(1000);
    log.append(bytes(600, 1), held);
    assert.equal(onDisk(path).length, 0);
    log.append(bytes(600, 2), held);
    assert.deepEqual(onDisk(path), Buffer.concat([bytes(600, 1), bytes(600, 2)]));
    assert.equal(held.holding, false);
    log.close();
  });

  test('a held write that fails fails writeAll then and after, and the file refuses further use', () => {
    // /dev/full takes an open for writing and fails every write with ENOSPC
    const full = FileRecords.openWritable('/dev/full', { create: false });
    const path = join(dir, 'ok.log');
    const ok = FileRecords.openWritable(path, { create: true });
    const held = new HeldAppends();
    full.append(bytes(10, 1), held);
    assert.throws(() => held.writeAll(), (e: Error & { code?: string }) => e.code === 'STORAGE_ERROR' && /\/dev\/full/.test(e.message));
    assert.equal(held.failed?.code, 'STORAGE_ERROR');
    // appends held after the failure are never acknowledged: writeAll keeps failing
    ok.append(bytes(10, 2), held);
    assert.throws(() => held.writeAll(), (e: Error & { code?: string }) => e.code === 'STORAGE_ERROR');
    assert.throws(() => full.readBytes(0, 10), (e: Error & { code?: string }) => e.code === 'STORAGE_ERROR');
    assert.throws(() => full.append(bytes(1, 1), held), (e: Error & { code?: string }) => e.code === 'STORAGE_ERROR');
    full.close(); // closing after the failure writes nothing and does not throw
    ok.close();
    assert.deepEqual(onDisk(path), bytes(10, 2));
  });
});

describe('PartitionLog.append with heldAppends', () => {
  test('holds batches validated in place, and writes rebuilt ones at once', () => {
    const held = new HeldAppends();
    const batch = () => encodeRecordBatch([{ value: bytes(100, 7) }, { value: bytes(100, 8) }]);
    const segmentFile = (sub: string) => join(dir, sub, '00000000000000000000.log');

    const plainDir = join(dir, 'plain-0');
    mkdirSync(plainDir);
    const plain = PartitionLog.open(plainDir, 'plain', 0, { config: DEFAULT_LOG_CONFIG });
    const first = batch();
    plain.append(first, { mutateInput: true, heldAppends: held });
    assert.equal(statSync(segmentFile('plain-0')).size, 0, 'an in-place batch waits for writeAll');
    held.writeAll();
    assert.equal(statSync(segmentFile('plain-0')).size, first.length);
    // what was held is the caller's buffer with the offsets the log assigned
    assert.deepEqual(onDisk(segmentFile('plain-0')), first);
    plain.close();

    // compression.type=gzip makes validation rebuild the batch: it is written before append returns
    const gzipDir = join(dir, 'gzip-0');
    mkdirSync(gzipDir);
    const gzip = PartitionLog.open(gzipDir, 'gzip', 0, { config: { ...DEFAULT_LOG_CONFIG, compressionType: 'gzip' } });
    gzip.append(batch(), { mutateInput: true, heldAppends: held });
    assert.ok(statSync(segmentFile('gzip-0')).size > 0, 'a rebuilt batch is not held');
    assert.equal(held.holding, false);
    gzip.close();
  });
});
