/**
 * ListOffsets (2): earliest (-2), latest (-1: the high watermark, or the last stable offset
 * for read_committed, v2+), max timestamp (-3), or the first offset whose timestamp is >= t
 * (`UnifiedLog.fetchOffsetByTimestamp`). No match: offset and timestamp -1. v0 answers a list of
 * segment-boundary offsets instead (legacy-list-offsets.ts). v7-10 add MAX_TIMESTAMP (-3),
 * EARLIEST_LOCAL (-4), LATEST_TIERED (-5) and a timeout for remote reads, which a broker without
 * tiered storage never waits on.
 */
import {
  ListOffsets,
  type ListOffsetsPartitionResponse,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type ListOffsetsTopicResponse,
} from '../../protocol/schemas/list-offsets.js';
import { errorCodeOf } from '../api-error.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../storage/partition-log.js';

/** ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP (KIP-405). */
const EARLIEST_LOCAL_TIMESTAMP = -4n;
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { legacyOffsetsBefore } from '../legacy-list-offsets.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';

export const listOffsetsHandler: ApiHandler<ListOffsetsRequest, ListOffsetsResponse> = {
  api: ListOffsets,
  minVersion: 0,
  maxVersion: 10,
  handle(request, ctx) {
    const broker = ctx.broker;
    const committed = request.isolationLevel === 1;
    const topics: ListOffsetsTopicResponse[] = [];
    for (const t of request.topics) {
      const partitions: ListOffsetsPartitionResponse[] = [];
      for (const p of t.partitions) {
        const out: ListOffsetsPartitionResponse = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1n, offset: -1n, leaderEpoch: -1, oldStyleOffsets: [] };
        partitions.push(out);
        try {
          requireTopic(ctx, AclOperation.DESCRIBE, t.name);
          const log = partitionLog(broker, t.name, p.partitionIndex);
          if (ctx.apiVersion === 0) {
            out.oldStyleOffsets = legacyOffsetsBefore(log, p.timestamp, p.maxNumOffsets ?? 1, Date.now());
            continue;
          }
          if (p.timestamp === LATEST_TIMESTAMP && committed) {
            out.offset = log.lastStableOffset;
            continue;
          }
          // without tiered storage (KIP-405) the local log is the log: EARLIEST_LOCAL (-4, v8+) is
          // EARLIEST, and LATEST_TIERED (-5, v9+) finds nothing (`UnifiedLog.fetchOffsetByTimestamp`)
          const found = log.fetchOffsetByTimestamp(p.timestamp === EARLIEST_LOCAL_TIMESTAMP ? EARLIEST_TIMESTAMP : p.timestamp);
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
