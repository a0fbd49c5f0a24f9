/**
 * ListOffsets (2), as Kafka's `ReplicaManager.fetchOffset` and `Partition.fetchOffsetForTimestamp`:
 * - earliest (-2) and earliest local (-4, KIP-405: without tiered storage the local log is the
 *   log): the log start offset, with the first cached leader epoch when it begins there;
 * - latest (-1): the last fetchable offset, with the partition's leader epoch;
 * - max timestamp (-3, KIP-734), latest tiered (-5: nothing without tiered storage) or a timestamp
 *   (`UnifiedLog.fetchOffsetByTimestamp`): found only below the last fetchable offset, otherwise
 *   offset and timestamp -1.
 * The last fetchable offset is, for a consumer (replica id -1), the last stable offset under
 * read_committed (v2+) and the high watermark otherwise; for anyone else the log end offset.
 * Errors per partition: a partition listed twice is INVALID_REQUEST, a negative timestamp the
 * request's version does not define is UNSUPPORTED_VERSION (`isListOffsetsTimestampUnsupported`),
 * a current leader epoch (v4+) other than this node's is FENCED_LEADER_EPOCH or
 * UNKNOWN_LEADER_EPOCH (`Partition.localLogWithEpochOrThrow`). v0 answers a list of
 * segment-boundary offsets instead (legacy-list-offsets.ts), and UNSUPPORTED_VERSION for a
 * timestamp below -2. v10's timeout is for remote reads, which a broker without tiered storage
 * never waits on.
 */
import {
  ListOffsets,
  type ListOffsetsPartition,
  type ListOffsetsPartitionResponse,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type ListOffsetsTopicResponse,
} from '../../protocol/schemas/list-offsets.js';
import { ApiError, errorCodeOf } from '../api-error.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, type PartitionLog } from '../../storage/partition-log.js';
import type { TimestampAndOffset } from '../../storage/log-segment.js';
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { legacyOffsetsBefore } from '../legacy-list-offsets.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';
import { currentLeaderEpochError, NO_EPOCH, PARTITION_LEADER_EPOCH } from './leader-epoch.js';

/** ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP (KIP-405). */
const EARLIEST_LOCAL_TIMESTAMP = -4n;
/** ListOffsetsRequest.LATEST_TIERED_TIMESTAMP (KIP-1005). */
const LATEST_TIERED_TIMESTAMP = -5n;
/** ListOffsetsRequest.CONSUMER_REPLICA_ID. */
const CONSUMER_REPLICA_ID = -1;

/** The first version defining each negative timestamp (ReplicaManager.timestampMinSupportedVersion). */
const TIMESTAMP_MIN_VERSION = new Map<bigint, number>([
  [EARLIEST_TIMESTAMP, 1],
  [LATEST_TIMESTAMP, 1],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL_TIMESTAMP, 8],
  [LATEST_TIERED_TIMESTAMP, 9],
]);

function timestampUnsupported(timestamp: bigint, version: number): boolean {
  if (timestamp >= 0n) return false;
  const min = TIMESTAMP_MIN_VERSION.get(timestamp);
  return min === undefined || version < min;
}

/** The partitions a request lists more than once (ListOffsetsRequest.duplicatePartitions). */
function duplicatePartitions(request: ListOffsetsRequest): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const t of request.topics) {
    for (const p of t.partitions) {
      const key = `${p.partitionIndex}:${t.name}`;
      if (seen.has(key)) duplicates.add(key);
      seen.add(key);
    }
  }
  return duplicates;
}

/** One partition's answer from v1 on (`Partition.fetchOffsetForTimestamp`, `ReplicaManager.fetchOffset`). */
function offsetFor(log: PartitionLog, p: ListOffsetsPartition, lastFetchableOffset: bigint): TimestampAndOffset | undefined {
  const epochError = currentLeaderEpochError(p.currentLeaderEpoch ?? NO_EPOCH);
  if (epochError !== undefined) throw new ApiError(epochError);
  if (p.timestamp === LATEST_TIMESTAMP) return { timestamp: -1n, offset: lastFetchableOffset, leaderEpoch: PARTITION_LEADER_EPOCH };
  if (p.timestamp === EARLIEST_TIMESTAMP || p.timestamp === EARLIEST_LOCAL_TIMESTAMP) return log.fetchOffsetByTimestamp(EARLIEST_TIMESTAMP);
  if (p.timestamp === LATEST_TIERED_TIMESTAMP) return undefined;
  const found = log.fetchOffsetByTimestamp(p.timestamp);
  return found !== undefined && found.offset < lastFetchableOffset ? found : undefined;
}

export const listOffsetsHandler: ApiHandler<ListOffsetsRequest, ListOffsetsResponse> = {
  api: ListOffsets,
  minVersion: 0,
  maxVersion: 10,
  handle(request, ctx) {
    const broker = ctx.broker;
    const version = ctx.apiVersion;
    const committed = request.isolationLevel === 1;
    const duplicates = version === 0 ? new Set<string>() : duplicatePartitions(request);
    const topics: ListOffsetsTopicResponse[] = [];
    for (const t of request.topics) {
      const partitions: ListOffsetsPartitionResponse[] = [];
      for (const p of t.partitions) {
        const out: ListOffsetsPartitionResponse = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1n, offset: -1n, leaderEpoch: -1, oldStyleOffsets: [] };
        partitions.push(out);
        try {
          requireTopic(ctx, AclOperation.DESCRIBE, t.name);
          if (duplicates.has(`${p.partitionIndex}:${t.name}`)) throw new ApiError('INVALID_REQUEST');
          // v0 defines only -1 and -2 (KafkaApis.handleListOffsetRequestV0)
          if (version === 0 ? p.timestamp < EARLIEST_TIMESTAMP : timestampUnsupported(p.timestamp, version)) throw new ApiError('UNSUPPORTED_VERSION');
          const log = partitionLog(broker, t.name, p.partitionIndex);
          if (version === 0) {
            out.oldStyleOffsets = legacyOffsetsBefore(log, p.timestamp, p.maxNumOffsets ?? 1, Date.now());
            continue;
          }
          const lastFetchableOffset = request.replicaId !== CONSUMER_REPLICA_ID ? log.logEndOffset : committed ? log.lastStableOffset : log.highWatermark;
          const found = offsetFor(log, p, lastFetchableOffset);
          if (found !== undefined) {
            out.timestamp = found.timestamp;
            out.offset = found.offset;
            // leader_epoch exists from v4 and is not ignorable below it
            if (found.leaderEpoch !== undefined && version >= 4) out.leaderEpoch = found.leaderEpoch;
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
