/** Resolving a (topic, partition) of a request to its log, with Kafka's error for each miss. */
import type { PartitionLog } from '../../storage/partition-log.js';
import { ApiError } from '../api-error.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../../protocol/error-codes.js';

/** The partition's log, or UNKNOWN_TOPIC_OR_PARTITION (Kafka's answer for both a missing topic and partition). */
export function partitionLog(broker: Broker, topic: string, partition: number): PartitionLog {
  const t = broker.topics.get(topic);
  const log = t !== undefined && partition >= 0 && partition < t.partitions ? broker.logs.getLog(topic, partition) : undefined;
  if (log === undefined) throw new ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `This server does not host this topic-partition: ${topic}-${partition}`);
  return log;
}
