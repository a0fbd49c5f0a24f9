/**
 * ListOffsets (2), v1-6: earliest (-2), latest (-1: the high watermark, or the last stable offset
 * for read_committed, v2+), max timestamp (-3), or the first offset whose timestamp is >= t
 * (`UnifiedLog.fetchOffsetByTimestamp`). No match: offset and timestamp -1.
 */
import { errorCodeOf } from '../api-error.js';
import { LATEST_TIMESTAMP } from '../../storage/partition-log.js';
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';
import { partitionLog } from './partitions.js';

export const listOffsetsHandler: ApiHandler = {
  api: apiSchemas(2),
  minVersion: 1,
  maxVersion: 6,
  handle(request, ctx) {
    const broker = ctx.broker;
    const committed = request.isolationLevel === 1;
    const topics: Message[] = [];
    for (const t of request.topics as Message[]) {
      const partitions: Message[] = [];
      for (const p of t.partitions as Message[]) {
        const out: Message = { partitionIndex: p.partitionIndex, errorCode: 0, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
        partitions.push(out);
        try {
          const log = partitionLog(broker, t.name, p.partitionIndex);
          if (p.timestamp === LATEST_TIMESTAMP && committed) {
            out.offset = log.lastStableOffset;
            continue;
          }
          const found = log.fetchOffsetByTimestamp(p.timestamp as bigint);
          if (found !== undefined) {
            out.timestamp = found.timestamp;
            out.offset = found.offset;
            // leader_epoch exists from v4 and is not ignorable below it
            if (found.leaderEpoch !== undefined && ctx.apiVersion >= 4) out.leaderEpoch = found.leaderEpoch;
          }
        } catch (e) {
          out.errorCode = errorCodeOf(e);
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
};
