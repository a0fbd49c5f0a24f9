/**
 * `hasTransactionalRecords` reads the first batch of each partition as Kafka's
 * `RequestUtils.hasTransactionalRecords` does: magic 0/1 messages have no transactional bit, an
 * incomplete first batch is no batch, and only the first batch of a partition is looked at.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hasTransactionalRecords, refuseTransactionalWithoutId } from '../../src/broker/handlers/transactional-records.js';
import type { ProduceRequest } from '../../src/protocol/schemas/produce.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { encodeLegacyMessageSet } from '../../src/record/legacy-builder.js';

const plain = encodeRecordBatch([{ value: 'a', timestamp: 1 }]);
const txn = encodeRecordBatch([{ value: 'a', timestamp: 1 }], { isTransactional: true, producerId: 1n, producerEpoch: 0, baseSequence: 0 });

function request(records: (Buffer | null)[], transactionalId: string | null = null): ProduceRequest {
  return { transactionalId, acks: -1, timeoutMs: 1000, topicData: [{ name: 't', partitionData: records.map((r, i) => ({ index: i, records: r })) }] };
}

describe('hasTransactionalRecords', () => {
  test('the first batch of any partition decides', () => {
    assert.equal(hasTransactionalRecords(request([plain, txn])), true);
    assert.equal(hasTransactionalRecords(request([plain, Buffer.concat([plain, txn])])), false, 'a later batch is not looked at');
    assert.equal(hasTransactionalRecords(request([null, Buffer.alloc(0), plain])), false);
    assert.equal(hasTransactionalRecords(request([encodeLegacyMessageSet([{ value: 'x' }], { magic: 1 })])), false);
    assert.equal(hasTransactionalRecords(request([txn.subarray(0, txn.length - 1)])), false, 'an incomplete batch is no batch');
    assert.equal(hasTransactionalRecords(request([txn.subarray(0, 16)])), false);
  });

  test('refused only without a transactional id; one answer per distinct partition', () => {
    assert.equal(refuseTransactionalWithoutId(request([txn], 'tx')), undefined);
    assert.equal(refuseTransactionalWithoutId(request([plain])), undefined);
    const dup: ProduceRequest = { transactionalId: null, acks: 1, timeoutMs: 1, topicData: [{ name: 't', partitionData: [{ index: 0, records: txn }] }, { name: 't', partitionData: [{ index: 0, records: plain }, { index: 1, records: plain }] }] };
    const r = refuseTransactionalWithoutId(dup)!;
    assert.deepEqual(r.map((t) => [t.name, t.partitionResponses.map((p) => p.index)]), [['t', [0, 1]]]);
  });
});
