/**
 * Re-encode a decoded batch with kafkalite's encoder from its decoded fields only, so tests can
 * compare the result with the original bytes. Record timestamps are taken from the stored deltas
 * (baseTimestamp + timestampDelta), not from `Record.timestamp`, which under LogAppendTime reports
 * maxTimestamp for every record (Kafka's rule) and so loses the stored deltas.
 */
import {
  encodeEmptyBatch,
  encodeRecordBatch,
  type CompressionId,
  type RecordBatch,
  type RecordBatchOptions,
  type RecordInput,
} from '../../src/record/index.js';

export function recordInputsOf(batch: RecordBatch): RecordInput[] {
  return batch.records().map((r) => ({
    offsetDelta: r.offsetDelta,
    timestamp: BigInt.asIntN(64, batch.baseTimestamp + BigInt(r.timestampDelta)),
    key: r.key,
    value: r.value,
    headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
  }));
}

export function batchOptionsOf(batch: RecordBatch): RecordBatchOptions {
  const options: RecordBatchOptions = {
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    compression: batch.compressionType as CompressionId,
    timestampType: batch.timestampType,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
  };
  if (batch.timestampType === 'LogAppendTime') options.logAppendTime = batch.maxTimestamp;
  if (batch.hasDeleteHorizon) options.deleteHorizonMs = batch.baseTimestamp;
  return options;
}

/** kafkalite's encoding of `batch`'s decoded fields (the cleaner's empty header for count 0). */
export function reencode(batch: RecordBatch): Buffer {
  if (batch.recordsCount === 0) {
    return encodeEmptyBatch({
      baseOffset: batch.baseOffset,
      lastOffsetDelta: batch.lastOffsetDelta,
      maxTimestamp: batch.maxTimestamp,
      partitionLeaderEpoch: batch.partitionLeaderEpoch,
      timestampType: batch.timestampType,
      isTransactional: batch.isTransactional,
      isControl: batch.isControl,
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence,
    });
  }
  return encodeRecordBatch(recordInputsOf(batch), batchOptionsOf(batch));
}
