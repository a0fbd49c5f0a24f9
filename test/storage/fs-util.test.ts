/** Atomic replace (Kafka Utils.atomicMoveWithFallback) and directory fsync. */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageError } from '../../src/errors.js';
import { atomicWriteFileSync, fsyncDirSync } from '../../src/storage/fs-util.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-fsutil-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('atomicWriteFileSync', () => {
  test('creates, then replaces, leaving no .tmp behind', () => {
    const path = join(dir, 'file');
    atomicWriteFileSync(path, 'first');
    assert.equal(readFileSync(path, 'utf8'), 'first');
    atomicWriteFileSync(path, Buffer.from([0, 1, 2]));
    assert.deepEqual(readFileSync(path), Buffer.from([0, 1, 2]));
    atomicWriteFileSync(path, '');
    assert.equal(readFileSync(path).length, 0);
    assert.deepEqual(readdirSync(dir), ['file']);
  });

  test('writes strings as UTF-8', () => {
    const path = join(dir, 'utf8');
    atomicWriteFileSync(path, 'é');
    assert.deepEqual(readFileSync(path), Buffer.from([0xc3, 0xa9]));
  });

  test('a missing directory is a StorageError', () => {
    const path = join(dir, 'missing', 'file');
    assert.throws(() => atomicWriteFileSync(path, 'x'), StorageError);
    assert.equal(existsSync(path + '.tmp'), false);
  });

  test('the target being a directory is a StorageError and the temp file is removed', () => {
    const path = join(dir, 'adir');
    mkdirSync(join(path, 'child'), { recursive: true }); // rename(file, non-empty dir) fails
    assert.throws(() => atomicWriteFileSync(path, 'x'), StorageError);
    assert.equal(existsSync(path + '.tmp'), false);
  });
});

describe('fsyncDirSync', () => {
  test('syncs an existing directory', () => {
    fsyncDirSync(dir);
  });
  test('a missing directory is a StorageError', () => {
    assert.throws(() => fsyncDirSync(join(dir, 'nope')), StorageError);
  });
});

