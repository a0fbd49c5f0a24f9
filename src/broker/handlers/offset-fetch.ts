/**
 * OffsetFetch (9). v2+ fetch every committed partition when topics is null and carry a top-level
 * error; v8 asks for several groups at once. Unknown groups and partitions answer offset -1 with
 * no error. With requireStable (v7+), a partition whose transactional offset commit waits for its
 * marker answers UNSTABLE_OFFSET_COMMIT (KIP-447), which clients retry.
 */
import { OffsetFetch, type OffsetFetchRequest, type OffsetFetchResponse } from '../../protocol/schemas/offset-fetch.js';
import type { ApiHandler } from '../handler.js';
import { fetchOffsets } from '../group/offset-ops.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const offsetFetchHandler: ApiHandler<OffsetFetchRequest, OffsetFetchResponse> = {
  api: OffsetFetch,
  minVersion: 1,
  maxVersion: 9,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    const active = groups.isActive;
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: (request.groups ?? []).map((g) => {
          // v9: a KIP-848 member reads at its current epoch (Kafka `ConsumerGroup.validateOffsetFetch`)
          const errorCode = !active ? ErrorCode.NOT_COORDINATOR : ctx.apiVersion >= 9 ? groups.consumer.validateOffsetFetch(g.groupId, g.memberId ?? null, g.memberEpoch ?? -1) : ErrorCode.NONE;
          return { groupId: g.groupId, topics: errorCode === ErrorCode.NONE ? fetchOffsets(groups, g.groupId, g.topics, request.requireStable ?? false) : [], errorCode };
        }),
      };
    }
    if (!active) {
      // v1 has no top-level error: each requested partition carries it
      const topics = (request.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NOT_COORDINATOR })),
      }));
      return { throttleTimeMs: 0, topics, errorCode: ErrorCode.NOT_COORDINATOR };
    }
    return { throttleTimeMs: 0, topics: fetchOffsets(groups, request.groupId ?? '', request.topics ?? null, request.requireStable ?? false), errorCode: ErrorCode.NONE };
  },
};
