/**
 * DescribeProducers (61) v0: each partition's producer state (idempotent and transactional
 * producers written through the log), and UNKNOWN_TOPIC_OR_PARTITION for a partition or topic the
 * broker does not host. No client but Java's admin offers it, so the request is driven through its
 * handler (encoded and decoded at v0 as on the wire).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const DESCRIBE_PRODUCERS = 61;

describe('DescribeProducers', () => {
  test('v0: producer id, epoch, last sequence and timestamp, coordinator epoch, open transaction start', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('p', 2, {}, broker.logs);
      const log = broker.logs.getLog('p', 1)!;
      const ts = 1_700_000_000_000;
      log.append(encodeRecordBatch([{ value: 'a', timestamp: ts }, { value: 'b', timestamp: ts + 1 }], { producerId: 7n, producerEpoch: 2, baseSequence: 0 }));
      log.append(encodeRecordBatch([{ value: 'c', timestamp: ts + 5 }], { producerId: 7n, producerEpoch: 2, baseSequence: 2 }));
      log.append(encodeRecordBatch([{ value: 't', timestamp: ts + 9 }], { producerId: 9n, producerEpoch: 0, baseSequence: 0, isTransactional: true }));
      const r = await call(broker, DESCRIBE_PRODUCERS, 0, { topics: [{ name: 'p', partitionIndexes: [0, 1, 5] }, { name: 'none', partitionIndexes: [0] }] });
      const [p0, p1, p5] = r.topics[0].partitions;
      assert.deepEqual([p0.partitionIndex, errorName(p0.errorCode), p0.activeProducers], [0, 'NONE', []]);
      assert.deepEqual([p1.partitionIndex, errorName(p1.errorCode)], [1, 'NONE']);
      const producers = [...p1.activeProducers].sort((a, b) => Number(a.producerId - b.producerId));
      assert.deepEqual(producers, [
        { producerId: 7n, producerEpoch: 2, lastSequence: 2, lastTimestamp: BigInt(ts + 5), coordinatorEpoch: -1, currentTxnStartOffset: -1n },
        { producerId: 9n, producerEpoch: 0, lastSequence: 0, lastTimestamp: BigInt(ts + 9), coordinatorEpoch: -1, currentTxnStartOffset: 3n },
      ]);
      // the transaction's commit marker ends it and records the coordinator's epoch
      log.appendEndTxnMarker({ type: 'COMMIT', producerId: 9n, producerEpoch: 0, coordinatorEpoch: 4 });
      const after = await call(broker, DESCRIBE_PRODUCERS, 0, { topics: [{ name: 'p', partitionIndexes: [1] }] });
      const nine = after.topics[0].partitions[0].activeProducers.find((x: { producerId: bigint }) => x.producerId === 9n);
      assert.deepEqual([nine.coordinatorEpoch, nine.currentTxnStartOffset], [4, -1n]);
      assert.deepEqual([p5.partitionIndex, errorName(p5.errorCode)], [5, 'UNKNOWN_TOPIC_OR_PARTITION']);
      assert.equal(errorName(r.topics[1].partitions[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
    });
  });
});
