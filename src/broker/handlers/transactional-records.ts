/**
 * The refusal of transactional records from a producer with no transactional id (Kafka
 * `KafkaApis.handleProduceRequest`, `RequestUtils.hasTransactionalRecords`). Such a batch opens a
 * transaction that no coordinator knows, so no marker would ever end it and the partition's last
 * stable offset would stay at it for good. Kafka refuses the whole request before any append and
 * answers every topic-partition of it with TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 * (`ProduceRequest.getErrorResponse`); with acks=0 it answers nothing and closes the connection.
 */
import { readInt16BE, readInt32BE } from '../../bytes/big-endian.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { PartitionProduceResponse, ProduceRequest, TopicProduceResponse } from '../../protocol/schemas/produce.js';
import { ATTRIBUTES_OFFSET, HEADER_SIZE_UP_TO_MAGIC, LENGTH_OFFSET, LOG_OVERHEAD, MAGIC_OFFSET, MIN_ENTRY_SIZE, TRANSACTIONAL_FLAG_MASK } from '../../record/constants.js';

/**
 * Whether the first batch of `records` is a transactional v2 batch (`ByteBufferLogInputStream.nextBatch`
 * then `RecordBatch.isTransactional`): Kafka looks at the first batch of each partition only, and an
 * incomplete first batch is no batch. A size field below Kafka's minimum is left to the validator.
 */
function firstBatchIsTransactional(records: Buffer | null): boolean {
  if (records === null || records.length < HEADER_SIZE_UP_TO_MAGIC) return false;
  const size = readInt32BE(records, LENGTH_OFFSET);
  if (size < MIN_ENTRY_SIZE || records.length < LOG_OVERHEAD + size) return false;
  if (records[MAGIC_OFFSET]! < 2) return false; // magic 0/1 messages have no transactional bit
  return (readInt16BE(records, ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) !== 0;
}

/** `RequestUtils.hasTransactionalRecords`: some partition's first batch is transactional. */
export function hasTransactionalRecords(request: ProduceRequest): boolean {
  // loops, not closures: this runs for every Produce request
  for (const t of request.topicData) for (const p of t.partitionData) if (firstBatchIsTransactional(p.records)) return true;
  return false;
}

/**
 * The answer when the request must be refused, else undefined: Kafka's condition is "no
 * transactional id, or one the principal may not write" (`mayWrite`: WRITE on the TRANSACTIONAL_ID). One entry per distinct topic-partition (Kafka builds it from
 * `partitionSizes()`, a map), grouped by topic, offsets -1, no message (ApiError drops a message
 * equal to the error's default one).
 */
export function refuseTransactionalWithoutId(request: ProduceRequest, mayWrite: (transactionalId: string) => boolean = () => true): TopicProduceResponse[] | undefined {
  if (!hasTransactionalRecords(request)) return undefined;
  if (request.transactionalId !== null && request.transactionalId !== undefined && mayWrite(request.transactionalId)) return undefined;
  const topics = new Map<string, Map<number, PartitionProduceResponse>>();
  for (const t of request.topicData) {
    let partitions = topics.get(t.name);
    if (partitions === undefined) topics.set(t.name, (partitions = new Map()));
    for (const p of t.partitionData) {
      partitions.set(p.index, {
        index: p.index,
        errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        baseOffset: -1n,
        logAppendTimeMs: -1n,
        logStartOffset: -1n,
        recordErrors: [],
        errorMessage: null,
      });
    }
  }
  return [...topics].map(([name, partitions]) => ({ name, partitionResponses: [...partitions.values()] }));
}
