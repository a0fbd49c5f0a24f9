/**
 * Produce semantics over the raw protocol: v0-2 with magic 0/1 message sets are served and
 * up-converted to the topic's format (Kafka 3.x; KIP-896 removed Produce v0-2 in 4.0), v3+ must carry exactly one
 * magic-2 batch (`ProduceRequest.validateRecords`), and each partition gets Kafka's error code:
 * INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_OR_PARTITION, MESSAGE_TOO_LARGE, CORRUPT_MESSAGE,
 * INVALID_RECORD, OUT_OF_ORDER_SEQUENCE_NUMBER; a duplicate idempotent batch answers with the
 * original offset.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { describe, test } from 'node:test';
import { encodeRecordBatch, type RecordBatchOptions } from '../../src/record/builder.js';
import { encodeLegacyMessageSet } from '../../src/record/legacy-builder.js';
import { storedBatches, withBroker } from '../helpers/broker.js';
import { RawClient, type Msg } from '../helpers/raw-client.js';


function produceBody(topic: string, records: Buffer, acks = -1, partition = 0): Msg {
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

async function produce(c: RawClient, version: number, topic: string, records: Buffer, acks = -1, partition = 0): Promise<Msg> {
  const r = await c.request(0, version, produceBody(topic, records, acks, partition));
  return r.responses[0].partitionResponses[0];
}

async function withTopic(body: (c: RawClient, dataDir: string) => Promise<void>, config: Record<string, string> = {}): Promise<void> {
  await withBroker({}, async (broker) => {
    broker.topics.create('t', 2, config, broker.logs);
    const c = await RawClient.connect(broker.port);
    try {
      await body(c, broker.dataDir);
    } finally {
      c.socket.destroy();
    }
  });
}

const v2 = (values: string[], o: RecordBatchOptions = {}) => encodeRecordBatch(values.map((v, i) => ({ key: `k${i}`, value: v, timestamp: 1700000000000 + i })), o);

describe('Produce', () => {
  for (const [version, magic] of [[0, 0], [1, 0], [2, 1]] as const) {
    for (const compression of ['none', 'gzip'] as const) {
      test(`v${version} with a magic-${magic} ${compression} message set is up-converted to v2 with dense offsets`, async () => {
        await withTopic(async (c, dataDir) => {
          const first = await produce(c, version, 't', encodeLegacyMessageSet([{ key: 'a', value: 'one' }, { key: 'b', value: 'two' }], { magic, compression }));
          assert.equal(errorName(first.errorCode), 'NONE');
          assert.equal(first.baseOffset, 0n);
          const second = await produce(c, version, 't', encodeLegacyMessageSet([{ key: null, value: 'three' }], { magic, compression }));
          assert.equal(second.baseOffset, 2n);
          const batches = storedBatches(dataDir, 't', 0);
          assert.deepEqual(
            batches.flatMap((b) => b.records.map((r) => [r.offset, r.key?.toString() ?? null, r.value?.toString()])),
            [[0n, 'a', 'one'], [1n, 'b', 'two'], [2n, null, 'three']],
          );
        });
      });
    }
  }

  test('v3+ needs exactly one magic-2 batch per partition: INVALID_RECORD otherwise', async () => {
    await withTopic(async (c) => {
      const legacy = await produce(c, 7, 't', encodeLegacyMessageSet([{ value: 'x' }], { magic: 1 }));
      assert.equal(errorName(legacy.errorCode), 'INVALID_RECORD');
      const two = await produce(c, 8, 't', Buffer.concat([v2(['a']), v2(['b'])])); // v8+ carries error_message
      assert.equal(errorName(two.errorCode), 'INVALID_RECORD');
      assert.match(two.errorMessage, /exactly one record batch/);
      const ok = await produce(c, 9, 't', v2(['a', 'b', 'c']));
      assert.deepEqual([errorName(ok.errorCode), ok.baseOffset, ok.logStartOffset], ['NONE', 0n, 0n]);
    });
  });

  test('per-partition errors: acks, unknown topic or partition, too large, corrupt CRC', async () => {
    await withTopic(
      async (c) => {
        assert.equal(errorName((await produce(c, 9, 't', v2(['a']), 2)).errorCode), 'INVALID_REQUIRED_ACKS');
        // the acks are checked after the topic is known (ReplicaManager.appendRecords, after KafkaApis)
        assert.equal(errorName((await produce(c, 9, 'no-such-topic', v2(['a']), 2)).errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        assert.equal(errorName((await produce(c, 9, 'no-such-topic', v2(['a']))).errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        assert.equal(errorName((await produce(c, 9, 't', v2(['a']), -1, 7)).errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        assert.equal(errorName((await produce(c, 9, 't', v2(['x'.repeat(2000)]))).errorCode), 'MESSAGE_TOO_LARGE');
        const corrupt = v2(['hello']);
        corrupt[corrupt.length - 1]! ^= 0xff;
        assert.equal(errorName((await produce(c, 9, 't', corrupt)).errorCode), 'CORRUPT_MESSAGE');
        // the other partition of the same request is unaffected
        const r = await c.request(0, 9, {
          transactionalId: null,
          acks: 1,
          timeoutMs: 5000,
          topicData: [{ name: 't', partitionData: [{ index: 0, records: corrupt }, { index: 1, records: v2(['fine']) }] }],
        });
        assert.deepEqual(r.responses[0].partitionResponses.map((p: Msg) => [p.index, errorName(p.errorCode)]), [[0, 'CORRUPT_MESSAGE'], [1, 'NONE']]);
      },
      { 'max.message.bytes': '1024' },
    );
  });

  test('idempotent producer: InitProducerId, a duplicate gets the original offset, a gap is OUT_OF_ORDER_SEQUENCE_NUMBER', async () => {
    await withTopic(async (c, dataDir) => {
      const init = await c.request(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
      assert.equal(errorName(init.errorCode), 'NONE');
      const init2 = await c.request(22, 1, { transactionalId: null, transactionTimeoutMs: 60000 });
      assert.notEqual(init2.producerId, init.producerId, 'each producer gets its own id');
      const p = { producerId: init.producerId as bigint, producerEpoch: init.producerEpoch as number };
      const a = await produce(c, 9, 't', v2(['a', 'b'], { ...p, baseSequence: 0 }));
      const b = await produce(c, 9, 't', v2(['c'], { ...p, baseSequence: 2 }));
      const dup = await produce(c, 9, 't', v2(['a', 'b'], { ...p, baseSequence: 0 }));
      assert.deepEqual([a.baseOffset, b.baseOffset, errorName(dup.errorCode), dup.baseOffset], [0n, 2n, 'NONE', 0n]);
      const gap = await produce(c, 9, 't', v2(['z'], { ...p, baseSequence: 9 }));
      assert.equal(errorName(gap.errorCode), 'OUT_OF_ORDER_SEQUENCE_NUMBER');
      // an append the log refused carries the log start offset (ReplicaManager.processFailedRecord)
      assert.equal(gap.logStartOffset, 0n);
      assert.equal(storedBatches(dataDir, 't', 0).length, 2, 'the duplicate and the gap were not written');
    });
  });

  test('KIP-467: a batch validation refuses answers INVALID_RECORD with each bad record\'s index and message, and the log start offset', async () => {
    await withTopic(
      async (c) => {
        const batch = encodeRecordBatch([{ key: 'k', value: 'a', timestamp: 1700000000000n }, { key: null, value: 'b', timestamp: 1700000000001n }, { key: null, value: 'c', timestamp: 1700000000002n }]);
        const r = await produce(c, 9, 't', batch);
        assert.equal(errorName(r.errorCode), 'INVALID_RECORD');
        assert.deepEqual(r.recordErrors.map((e: Msg) => e.batchIndex), [1, 2]);
        for (const e of r.recordErrors) assert.match(e.batchIndexErrorMessage, /^Compacted topic cannot accept message without key/);
        assert.match(r.errorMessage, /One or more records have been rejected/);
        assert.equal(r.logStartOffset, 0n);
      },
      { 'cleanup.policy': 'compact' },
    );
  });

  test('a duplicate idempotent batch on a LogAppendTime topic answers the original append time (UnifiedLog.append)', async () => {
    await withTopic(
      async (c) => {
        const init = await c.request(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
        const p = { producerId: init.producerId as bigint, producerEpoch: init.producerEpoch as number, baseSequence: 0 };
        const first = await produce(c, 9, 't', v2(['a'], p));
        assert.ok(first.logAppendTimeMs > 0n, `append time ${first.logAppendTimeMs}`);
        const again = await produce(c, 9, 't', v2(['a'], p));
        assert.deepEqual([errorName(again.errorCode), again.baseOffset, again.logAppendTimeMs], ['NONE', 0n, first.logAppendTimeMs]);
      },
      { 'message.timestamp.type': 'LogAppendTime' },
    );
  });
});
