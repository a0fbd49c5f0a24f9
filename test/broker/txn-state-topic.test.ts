/**
 * `__transaction_state` appends (src/broker/txn/state-topic.ts): a state change written straight
 * into its one-record batch is the batch the generic builder makes of the same key and value, byte
 * for byte from the magic byte on (the log assigns the base offset and leader epoch), and it
 * reloads as written.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRANSACTION_STATE_TOPIC, transactionLogKey, transactionLogValue, type TransactionLogValueInput } from '../../src/internal-topics/transaction-log.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { withBroker } from '../helpers/broker.js';

const values: TransactionLogValueInput[] = [
  { producerId: 5n, producerEpoch: 0, timeoutMs: 60000, stateId: 0, partitions: null, lastUpdateTimestampMs: 1733100000000, startTimestampMs: -1 },
  { producerId: 5n, producerEpoch: 1, timeoutMs: 60000, stateId: 1, partitions: [{ topic: 'orders', partitionIds: [0, 3] }, { topic: 'ü', partitionIds: [7] }], lastUpdateTimestampMs: 1733100000001, startTimestampMs: 1733100000001 },
  { producerId: 5n, producerEpoch: 1, timeoutMs: 60000, stateId: 2, partitions: [{ topic: 'o'.repeat(300), partitionIds: Array.from({ length: 40 }, (_, i) => i) }], lastUpdateTimestampMs: 1733100000002, startTimestampMs: 1733100000001 },
  { producerId: 6n, producerEpoch: 0, timeoutMs: 900000, stateId: 4, partitions: [], lastUpdateTimestampMs: 1733100000003, startTimestampMs: 1733100000001, previousProducerId: 5n, nextProducerId: 9n, clientTransactionVersion: 2 },
];

describe('__transaction_state appends', () => {
  test('appendState writes the batch encodeRecordBatch builds of the same record', async () => {
    await withBroker({}, async (broker) => {
      const store = broker.transactions.store;
      // one id, so every batch lands in one partition; each value once by hand, once by the builder
      const id = 'state-topic-test';
      const key = transactionLogKey(id);
      for (const [i, v] of values.entries()) {
        const now = 1733100000100 + i;
        store.appendState(id, key, v, now);
        store.append(id, key, transactionLogValue(v), now);
        // a key of another size moves the record's varints
        const longKey = transactionLogKey(id + 'x'.repeat(200));
        store.appendState(id, longKey, v, now);
        store.append(id, longKey, transactionLogValue(v), now);
      }
      const log = broker.logs.getLog(TRANSACTION_STATE_TOPIC, store.partitionFor(id))!;
      const r = log.read(log.logStartOffset, { maxBytes: 1 << 20, minOneMessage: true });
      const reader = readRecordBatches(r.records, { verifyCrc: true });
      const raw: Buffer[] = [];
      for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
        assert.equal(b.isControl, false);
        raw.push(Buffer.from(b.bytes));
      }
      assert.equal(raw.length, values.length * 4);
      for (let i = 0; i < raw.length; i += 2) {
        const [byHand, byBuilder] = [raw[i]!, raw[i + 1]!];
        // the batch length, then everything from the magic byte (CRC included) is the same
        assert.deepEqual(byHand.subarray(8, 12), byBuilder.subarray(8, 12), `batch ${i}: length`);
        assert.deepEqual(byHand.subarray(16), byBuilder.subarray(16), `batch ${i}`);
      }
      // and the store reads them back
      const loaded = store.load(() => assert.fail('unreadable record'));
      const last = values[values.length - 1]!;
      assert.deepEqual([loaded.get(id)?.producerId, loaded.get(id)?.nextProducerId, loaded.get(id)?.clientTransactionVersion], [last.producerId, 9n, 2]);
    });
  });
});
