/**
 * The checks an append by the KRaft leader gets (Kafka `UnifiedLog.appendAsLeader` with
 * `AppendOrigin.RAFT_LEADER`): its batches were built by the leader itself (the RaftClient's
 * `BatchAccumulator`), with their offsets and epoch, so `validateAndAssignOffsets` is false: no
 * `LogValidator` pass (no copy, no walk over the records, no offsets or epochs written), only
 * `analyzeAndValidateRecords`' shallow look at each batch header: the leader's epoch, the size
 * limit and the CRC, and offsets that continue the log (`UnexpectedAppendOffsetException`
 * otherwise). The metadata log's records go this way (internal-topics/metadata-log.ts).
 */
import { CorruptRecordError, InvalidRecordError, RecordTooLargeError } from '../errors.js';
import { BatchReader, type AnyRecordBatch } from '../record/batches.js';
import { CompressionType } from '../record/compression/index.js';
import type { LogConfig } from './log-config.js';
import type { ValidationResult } from './log-validator.js';

export interface RaftLeaderAppendContext {
  config: LogConfig;
  /** The log end offset: the first batch must start there. */
  nextOffset: bigint;
  /** The leader's epoch: every batch must carry it. */
  leaderEpoch: number;
  topicPartition: string;
}

/** The append's batches as they are, after the shallow checks; throws the error Kafka would. */
export function analyzeRaftLeaderRecords(records: Buffer, ctx: RaftLeaderAppendContext): ValidationResult {
  const batches: AnyRecordBatch[] = [];
  const reader = new BatchReader(records, { verifyCrc: false });
  let expected = ctx.nextOffset;
  let maxTimestamp = -1n;
  let shallowOffsetOfMaxTimestamp = -1n;
  let sourceCompression = 0;
  for (let batch = reader.nextBatch(); batch !== null; batch = reader.nextBatch()) {
    if (batch.kind !== 'v2') throw new InvalidRecordError(`Append from Raft leader to ${ctx.topicPartition} is not a v2 record batch`, { position: batch.position });
    if (batch.partitionLeaderEpoch !== ctx.leaderEpoch) {
      throw new InvalidRecordError(
        `Append from Raft leader did not set the batch epoch correctly, expected ${ctx.leaderEpoch} but the batch has ${batch.partitionLeaderEpoch}`,
        { position: batch.position },
      );
    }
    if (batch.baseOffset !== expected) {
      throw new InvalidRecordError(`Append from Raft leader to ${ctx.topicPartition} starts at offset ${batch.baseOffset}, not at ${expected}`, { position: batch.position });
    }
    if (batch.sizeInBytes > ctx.config.maxMessageBytes) {
      throw new RecordTooLargeError(
        `The record batch size in the append to ${ctx.topicPartition} is ${batch.sizeInBytes} bytes which exceeds the maximum configured value of ${ctx.config.maxMessageBytes}.`,
        { position: batch.position },
      );
    }
    if (!batch.isValid()) throw new CorruptRecordError(`Record is corrupt (stored crc = ${batch.crc}) in topic partition ${ctx.topicPartition}.`, { position: batch.position });
    if (batch.maxTimestamp > maxTimestamp) {
      maxTimestamp = batch.maxTimestamp;
      shallowOffsetOfMaxTimestamp = batch.lastOffset;
    }
    if (batch.compressionType !== CompressionType.none) sourceCompression = batch.compressionType;
    expected = batch.lastOffset + 1n;
    batches.push(batch);
  }
  if (batches.length === 0 || reader.position !== records.length) {
    throw new InvalidRecordError(`Append from Raft leader to ${ctx.topicPartition} is not whole record batches`, { position: reader.position });
  }
  return {
    records,
    firstOffset: ctx.nextOffset,
    lastOffset: expected - 1n,
    maxTimestamp,
    shallowOffsetOfMaxTimestamp,
    logAppendTime: -1n,
    recordCount: Number(expected - ctx.nextOffset),
    batchCount: batches.length,
    batches,
    sourceCompression,
    targetCompression: sourceCompression,
    recompressed: false,
    magic: 2,
  };
}
