/**
 * OffsetForLeaderEpoch (23, KIP-101/KIP-320): for each partition, the largest leader epoch <= the
 * requested one that the log knows and the offset where it ends (the start of the next epoch, or
 * the log end offset for the latest), from the partition's leader-epoch cache as Kafka's
 * `UnifiedLog.endOffsetForEpoch` answers; no such epoch: (-1, -1) with no error. Consumers use
 * it to detect truncation after a leader change (librdkafka 2.1+, the Java consumer).
 *
 * Per partition: UNKNOWN_TOPIC_OR_PARTITION for one this node does not host; a current leader
 * epoch (v2+) older than the leader's is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH
 * (`Partition.lastOffsetForLeaderEpoch`).
 *
 * Authorization (`KafkaApis.handleOffsetForLeaderEpochRequest`): CLUSTER_ACTION on the cluster (the
 * inter-broker use) covers every topic; otherwise each topic needs DESCRIBE (KIP-320's consumer
 * use), and every partition of a topic without it answers TOPIC_AUTHORIZATION_FAILED, whether or
 * not the topic exists.
 */
import {
  OffsetForLeaderEpoch,
  type EpochEndOffset,
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponse,
  type OffsetForLeaderTopicResult,
} from '../../protocol/schemas/offset-for-leader-epoch.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from '../../storage/leader-epoch-cache.js';
import { errorCodeOf } from '../api-error.js';
import type { ApiHandler } from '../handler.js';
import { currentLeaderEpochError, NO_EPOCH, PARTITION_LEADER_EPOCH } from './leader-epoch.js';
import { partitionLog } from './partitions.js';
import { AclOperation } from '../auth/acl.js';
import { canDescribeTopic, clusterAuthorized } from '../auth/checks.js';

/**
 * `UnifiedLog.endOffsetForEpoch`. Kafka's leader assigns its epoch's start offset in the cache
 * when it takes leadership (`Partition.makeLeader`), so even a partition never written to knows
 * the current epoch; kafkalite's cache gains its first entry with the first batch, so an empty
 * cache answers the current epoch as ending at the log end, as Kafka's would.
 */
export function endOffsetForEpoch(log: PartitionLog, leaderEpoch: number): { epoch: number; endOffset: bigint } {
  const cache = log.leaderEpochCache;
  const found = cache.nonEmpty()
    ? cache.endOffsetFor(leaderEpoch, log.logEndOffset)
    : leaderEpoch === PARTITION_LEADER_EPOCH
      ? { epoch: leaderEpoch, endOffset: log.logEndOffset }
      : { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
  return found.endOffset === UNDEFINED_EPOCH_OFFSET ? { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET } : found;
}

export const offsetForLeaderEpochHandler: ApiHandler<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse> = {
  api: OffsetForLeaderEpoch,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const topics: OffsetForLeaderTopicResult[] = [];
    const clusterAction = clusterAuthorized(ctx, AclOperation.CLUSTER_ACTION);
    for (const t of request.topics) {
      const partitions: EpochEndOffset[] = [];
      if (!clusterAction && !canDescribeTopic(ctx, t.topic)) {
        for (const p of t.partitions) partitions.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET });
        topics.push({ topic: t.topic, partitions });
        continue;
      }
      for (const p of t.partitions) {
        const out: EpochEndOffset = { errorCode: ErrorCode.NONE, partition: p.partition, leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
        partitions.push(out);
        try {
          const log = partitionLog(ctx.broker, t.topic, p.partition);
          const epochError = currentLeaderEpochError(p.currentLeaderEpoch ?? NO_EPOCH);
          if (epochError !== undefined) {
            out.errorCode = ErrorCode[epochError];
            continue;
          }
          const found = endOffsetForEpoch(log, p.leaderEpoch);
          out.leaderEpoch = found.epoch;
          out.endOffset = found.endOffset;
        } catch (e) {
          out.errorCode = errorCodeOf(e);
        }
      }
      topics.push({ topic: t.topic, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
