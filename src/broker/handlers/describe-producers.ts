/**
 * DescribeProducers (61, KIP-664): the producers a partition's ProducerStateManager tracks, each as
 * Kafka's `UnifiedLog.activeProducers` reports it: id, epoch, the last sequence and timestamp of its
 * newest batch, the epoch of the coordinator that last wrote a marker for it, and the first offset
 * of its open transaction (-1 when none). A partition this node does not host is
 * UNKNOWN_TOPIC_OR_PARTITION, per partition.
 */
import {
  DescribeProducers,
  type DescribeProducersRequest,
  type DescribeProducersResponse,
  type PartitionResponse,
  type TopicResponse,
} from '../../protocol/schemas/describe-producers.js';
import { entryLastSeq } from '../../storage/producer-state.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';

export const describeProducersHandler: ApiHandler<DescribeProducersRequest, DescribeProducersResponse> = {
  api: DescribeProducers,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const topics: TopicResponse[] = [];
    for (const t of request.topics) {
      const partitions: PartitionResponse[] = [];
      for (const p of t.partitionIndexes) {
        const out: PartitionResponse = { partitionIndex: p, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers: [] };
        partitions.push(out);
        try {
          requireTopic(ctx, AclOperation.READ, t.name);
          const log = partitionLog(ctx.broker, t.name, p);
          for (const entry of log.producerStateManager.activeProducers().values()) {
            out.activeProducers.push({
              producerId: entry.producerId,
              producerEpoch: entry.producerEpoch,
              lastSequence: entryLastSeq(entry),
              lastTimestamp: entry.lastTimestamp,
              coordinatorEpoch: entry.coordinatorEpoch,
              currentTxnStartOffset: entry.currentTxnFirstOffset ?? -1n,
            });
          }
        } catch (e) {
          out.errorCode = errorCodeOf(e);
          out.errorMessage = errorMessageOf(e);
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
