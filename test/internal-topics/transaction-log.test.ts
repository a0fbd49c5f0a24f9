/**
 * `__transaction_state` records read back, written by hand from the TransactionLogKey/Value JSON
 * definitions (v0: producerId, producerEpoch, timeout, status, partitions, last update, start).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRecordError } from '../../src/errors.js';
import { decodeTransactionLogKey, decodeTransactionLogValue } from '../../src/internal-topics/transaction-log.js';
import { cat, i16, i32, i64, i8, str } from '../helpers/classic-encoding.js';

const value = (status: number) =>
  cat(i16(0), i64(9n), i16(2), i32(60000), i8(status), i32(1), str('t'), i32(2), i32(0), i32(4), i64(1234n), i64(1200n));

describe('__transaction_state records', () => {
  test('key and value v0 decode, the status named as TransactionState', () => {
    assert.equal(decodeTransactionLogKey(cat(i16(0), str('txn-1'))), 'txn-1');
    assert.deepEqual(decodeTransactionLogValue(value(1)), {
      producerId: 9n,
      producerEpoch: 2,
      state: 'Ongoing',
      partitions: [{ topic: 't', partitionIds: [0, 4] }],
      lastUpdateTimestampMs: 1234n,
      timeoutMs: 60000,
    });
    assert.equal(decodeTransactionLogValue(value(7)).state, 'PrepareEpochFence');
  });

  test('an unknown status is an InvalidRecordError', () => {
    assert.throws(() => decodeTransactionLogValue(value(8)), (e: unknown) => e instanceof InvalidRecordError && /unknown transaction status 8/.test(e.message));
  });
});
