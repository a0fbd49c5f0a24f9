/**
 * DeleteRecords (21): moves the log start offset (`UnifiedLog.deleteRecordsBefore`); offset -1
 * means the high watermark. Offsets above the high watermark are OFFSET_OUT_OF_RANGE.
 */
import {
  DeleteRecords,
  type DeleteRecordsPartitionResult,
  type DeleteRecordsRequest,
  type DeleteRecordsResponse,
  type DeleteRecordsTopicResult,
} from '../../protocol/schemas/delete-records.js';
import { errorCodeOf } from '../api-error.js';
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';

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
          const offset = p.offset === -1n ? log.highWatermark : p.offset;
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
