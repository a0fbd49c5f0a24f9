/**
 * `__transaction_state` records read back, written by hand from the TransactionLogKey/Value JSON
 * definitions (v0: producerId, producerEpoch, timeout, status, partitions, last update, start).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRecordError } from '../../src/errors.js';
import { decodeTransactionLogKey, decodeTransactionLogValue, transactionLogKey, transactionLogValue } from '../../src/internal-topics/transaction-log.js';
import { encodeVersionPrefixed } from '../../src/internal-topics/version-prefixed.js';
import { TransactionLogValue } from '../../src/protocol/schemas/internal/transaction-coordinator.js';
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
      startTimestampMs: 1200n,
      stateId: 1,
      previousProducerId: -1n,
      nextProducerId: -1n,
      clientTransactionVersion: 0,
    });
    assert.equal(decodeTransactionLogValue(value(7)).state, 'PrepareEpochFence');
  });

  test('an unknown status is an InvalidRecordError', () => {
    assert.throws(() => decodeTransactionLogValue(value(8)), (e: unknown) => e instanceof InvalidRecordError && /unknown transaction status 8/.test(e.message));
  });

  test('what the coordinator writes: key v0 and the flexible value v1 of Kafka 4, byte for byte', () => {
    assert.deepEqual(transactionLogKey('txn-1'), cat(i16(0), str('txn-1')));
    const v = transactionLogValue({ producerId: 9n, producerEpoch: 2, timeoutMs: 60000, stateId: 2, partitions: [{ topic: 't', partitionIds: [0, 4] }], lastUpdateTimestampMs: 1234, startTimestampMs: 1200 });
    // compact array (n+1), compact string (len+1), compact int32 array, each struct's empty tag buffer, then the value's
    const partitions = cat(i8(2), i8(2), Buffer.from('t'), i8(3), i32(0), i32(4), i8(0));
    assert.deepEqual(v, cat(i16(1), i64(9n), i16(2), i32(60000), i8(2), partitions, i64(1234n), i64(1200n), i8(0)));
    assert.deepEqual(decodeTransactionLogValue(v), {
      producerId: 9n,
      producerEpoch: 2,
      state: 'PrepareCommit',
      partitions: [{ topic: 't', partitionIds: [0, 4] }],
      lastUpdateTimestampMs: 1234n,
      timeoutMs: 60000,
      startTimestampMs: 1200n,
      stateId: 2,
      previousProducerId: -1n,
      nextProducerId: -1n,
      clientTransactionVersion: 0,
    });
    // tagged fields in ascending tag order, each uvarint tag, uvarint size, value; then read back
    const tagged = transactionLogValue({ producerId: 9n, producerEpoch: 0, timeoutMs: 60000, stateId: 4, partitions: [], lastUpdateTimestampMs: 1, startTimestampMs: 5, previousProducerId: 8n, clientTransactionVersion: 2 });
    assert.deepEqual(tagged.subarray(tagged.length - 15), cat(i8(2), i8(0), i8(8), i64(8n), i8(2), i8(2), i16(2)));
    const back = decodeTransactionLogValue(tagged);
    assert.deepEqual([back.previousProducerId, back.nextProducerId, back.clientTransactionVersion], [8n, -1n, 2]);
    // Empty writes null partitions (compact 0), Complete an empty array (compact 1)
    const empty = transactionLogValue({ producerId: 9n, producerEpoch: 3, timeoutMs: 60000, stateId: 0, partitions: null, lastUpdateTimestampMs: 1, startTimestampMs: -1 });
    assert.equal(empty[2 + 8 + 2 + 4 + 1], 0);
    const complete = transactionLogValue({ producerId: 9n, producerEpoch: 3, timeoutMs: 60000, stateId: 4, partitions: [], lastUpdateTimestampMs: 1, startTimestampMs: 5 });
    assert.equal(complete[2 + 8 + 2 + 4 + 1], 1);
  });

  test('the hand-written value encoder writes what the schema codec writes, for every shape of value', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const ids = [-1n, 0n, 9n, 2n ** 53n + 1n, 2n ** 63n - 1n];
    const topics = ['t', 'orders.v2', 'ü-topic', 'x'.repeat(200)];
    for (let i = 0; i < 400; i++) {
      const partitions =
        rand(4) === 0
          ? null
          : Array.from({ length: rand(3) }, (_, t) => ({ topic: topics[(t + i) % topics.length]!, partitionIds: Array.from({ length: rand(3) === 0 ? 70 : rand(4) }, () => rand(5000)) }));
      const v = {
        producerId: ids[rand(ids.length)]!,
        producerEpoch: [0, 3, 32766, -1][rand(4)]!,
        timeoutMs: [1, 60000, 2147483647][rand(3)]!,
        stateId: rand(8),
        partitions,
        lastUpdateTimestampMs: [0, 1733100000000, -1][rand(3)]!,
        startTimestampMs: [-1, 1733100000000][rand(2)]!,
        previousProducerId: ids[rand(ids.length)]!,
        nextProducerId: ids[rand(ids.length)]!,
        clientTransactionVersion: [0, 2][rand(2)]!,
      };
      const viaCodec = encodeVersionPrefixed(TransactionLogValue, 1, {
        producerId: v.producerId,
        producerEpoch: v.producerEpoch,
        transactionTimeoutMs: v.timeoutMs,
        transactionStatus: v.stateId,
        transactionPartitions: v.partitions,
        transactionLastUpdateTimestampMs: BigInt(v.lastUpdateTimestampMs),
        transactionStartTimestampMs: BigInt(v.startTimestampMs),
        previousProducerId: v.previousProducerId,
        nextProducerId: v.nextProducerId,
        clientTransactionVersion: v.clientTransactionVersion,
      });
      assert.deepEqual(transactionLogValue(v), viaCodec, `value ${i}`);
    }
  });
});
