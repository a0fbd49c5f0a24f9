/**
 * DeleteRecords (21), v0-2: moves the log start offset (`UnifiedLog.deleteRecordsBefore`); offset
 * -1 means the high watermark. Offsets above the high watermark are OFFSET_OUT_OF_RANGE.
 */
import { errorCodeOf } from '../api-error.js';
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';
import { partitionLog } from './partitions.js';

export const deleteRecordsHandler: ApiHandler = {
  api: apiSchemas(21),
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const broker = ctx.broker;
    const topics: Message[] = [];
    for (const t of request.topics as Message[]) {
      const partitions: Message[] = [];
      for (const p of t.partitions as Message[]) {
        const out: Message = { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: 0 };
        partitions.push(out);
        try {
          const log = partitionLog(broker, t.name, p.partitionIndex);
          const offset = p.offset === -1n ? log.highWatermark : (p.offset as bigint);
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
