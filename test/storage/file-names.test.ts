/**
 * Segment and metadata file names (Kafka LogFileUtils; LocalLogTest.testOffsetFromFile).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  SNAPSHOT_SUFFIX,
  SWAP_SUFFIX,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
  formatOffset,
  logFilePath,
  offsetFromFileName,
  offsetIndexPath,
  snapshotPath,
  timeIndexPath,
  txnIndexPath,
} from '../../src/storage/file-names.js';

describe('file names', () => {
  test('suffixes are Kafka\'s', () => {
    assert.deepEqual(
      [LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, SNAPSHOT_SUFFIX, DELETED_SUFFIX, CLEANED_SUFFIX, SWAP_SUFFIX],
      ['.log', '.index', '.timeindex', '.txnindex', '.snapshot', '.deleted', '.cleaned', '.swap'],
    );
  });

  test('formatOffset pads to 20 digits', () => {
    assert.equal(formatOffset(0n), '00000000000000000000');
    assert.equal(formatOffset(123n), '00000000000000000123');
    assert.equal(formatOffset((1n << 63n) - 1n), '09223372036854775807');
  });

  test('formatOffset refuses offsets outside [0, Long.MAX]', () => {
    assert.throws(() => formatOffset(-1n), InvalidArgumentError);
    assert.throws(() => formatOffset(1n << 63n), InvalidArgumentError);
  });

  test('paths put temporary suffixes after the extension', () => {
    assert.equal(logFilePath('/d', 5n), '/d/00000000000000000005.log');
    assert.equal(logFilePath('/d', 5n, SWAP_SUFFIX), '/d/00000000000000000005.log.swap');
    assert.equal(offsetIndexPath('/d', 0n, CLEANED_SUFFIX), '/d/00000000000000000000.index.cleaned');
    assert.equal(timeIndexPath('/d', 42n), '/d/00000000000000000042.timeindex');
    assert.equal(txnIndexPath('/d', 42n, DELETED_SUFFIX), '/d/00000000000000000042.txnindex.deleted');
    assert.equal(snapshotPath('/d', 123n), '/d/00000000000000000123.snapshot');
  });

  test('offsetFromFileName reads the digits before the first dot (LocalLogTest.testOffsetFromFile)', () => {
    const offset = 23423423n;
    for (const path of [logFilePath('x', offset), offsetIndexPath('x', offset), timeIndexPath('x', offset)]) {
      assert.equal(offsetFromFileName(path.slice(2)), offset);
    }
    assert.equal(offsetFromFileName('00000000000000000007.log.swap'), 7n);
    assert.equal(offsetFromFileName('00000000000000000123.snapshot.deleted'), 123n);
    assert.equal(offsetFromFileName('09223372036854775807.log'), (1n << 63n) - 1n);
    assert.equal(offsetFromFileName('5.log'), 5n); // Long.parseLong needs no padding
  });

  test('offsetFromFileName: not a number → StorageError', () => {
    for (const name of ['leader-epoch-checkpoint', 'abc.log', '.log', '0x10.log', '9223372036854775808.log', '1 2.log', '', '.']) {
      assert.throws(() => offsetFromFileName(name), StorageError, name);
    }
  });
});
