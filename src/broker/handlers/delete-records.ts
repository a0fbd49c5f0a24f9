/**
 * DeleteRecords (21): moves the log start offset (`UnifiedLog.deleteRecordsBefore`); offset -1
 * means the high watermark. As Kafka's `ReplicaManager.deleteRecordsOnLocalLog` and
 * `Partition.deleteRecordsOnLeader`:
 * - an internal topic (__consumer_offsets, __transaction_state) is INVALID_TOPIC_EXCEPTION: its
 *   records are the broker's state, and deleting them loses committed offsets and transactions;
 * - a topic whose cleanup.policy does not include delete (compact only) is POLICY_VIOLATION;
 * - any other negative offset, and one above the high watermark, is OFFSET_OUT_OF_RANGE.
 */
import {
  DeleteRecords,
  type DeleteRecordsPartitionResult,
  type DeleteRecordsRequest,
  type DeleteRecordsResponse,
  type DeleteRecordsTopicResult,
} from '../../protocol/schemas/delete-records.js';
import { ApiError, errorCodeOf } from '../api-error.js';
import { OffsetOutOfRangeError } from '../../errors.js';
import { INTERNAL_TOPICS } from '../../storage/topic.js';
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';

/** DeleteRecordsRequest.HIGH_WATERMARK: delete everything below the high watermark. */
const HIGH_WATERMARK = -1n;

export const deleteRecordsHandler: ApiHandler<DeleteRecordsRequest, DeleteRecordsResponse> = {
  api: DeleteRecords,
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const broker = ctx.broker;
    const topics: DeleteRecordsTopicResult[] = [];
    for (const t of request.topics) {
      const partitions: DeleteRecordsPartitionResult[] = [];
      for (const p of t.partitions) {
        const out: DeleteRecordsPartitionResult = { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.NONE };
        partitions.push(out);
        try {
          requireTopic(ctx, AclOperation.DELETE, t.name);
          const log = partitionLog(broker, t.name, p.partitionIndex);
          if (INTERNAL_TOPICS.has(t.name)) throw new ApiError('INVALID_TOPIC_EXCEPTION', `Cannot delete records of internal topic ${t.name}`);
          if (!log.config.cleanupPolicy.includes('delete')) {
            throw new ApiError('POLICY_VIOLATION', `Records of partition ${t.name}-${p.partitionIndex} can not be deleted due to the configured policy`);
          }
          const offset = p.offset === HIGH_WATERMARK ? log.highWatermark : p.offset;
          if (offset < 0n) throw new OffsetOutOfRangeError(`The offset ${offset} for partition ${t.name}-${p.partitionIndex} is not valid`);
          out.lowWatermark = log.deleteRecordsBefore(offset);
        } catch (e) {
          out.errorCode = errorCodeOf(e);
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
