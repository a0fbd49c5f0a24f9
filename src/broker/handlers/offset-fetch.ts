/**
 * OffsetFetch (9). v2+ fetch every committed partition when topics is null and carry a top-level
 * error; v8 asks for several groups at once. Unknown groups and partitions answer offset -1 with
 * no error. With requireStable (v7+), a partition whose transactional offset commit waits for its
 * marker answers UNSTABLE_OFFSET_COMMIT (KIP-447), which clients retry. v0 read offsets from
 * ZooKeeper: a KRaft Kafka 3.x answers it UNSUPPORTED_VERSION in every requested partition
 * (`KafkaApis.handleOffsetFetchRequestFromZookeeper`, "Version 0 offset fetch requests", through
 * `OffsetFetchRequest.getErrorResponse`), and so does kafkalite.
 */
import { OffsetFetch, type OffsetFetchRequest, type OffsetFetchResponse } from '../../protocol/schemas/offset-fetch.js';
import type { ApiHandler } from '../handler.js';
import { fetchOffsets } from '../group/offset-ops.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { RequestContext } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { canDescribeTopic, groupError } from '../auth/checks.js';

type Fetched = ReturnType<typeof fetchOffsets>;

/**
 * DESCRIBE on each topic (KafkaApis.handleOffsetFetchRequest): asked for all partitions, the topics
 * the principal may not describe are left out; named, their partitions are TOPIC_AUTHORIZATION_FAILED.
 */
function describableOnly(ctx: RequestContext, all: boolean, fetched: Fetched): Fetched {
  if (ctx.broker.authorizer === undefined) return fetched;
  if (all) return fetched.filter((t) => canDescribeTopic(ctx, t.name));
  const denied = (p: Fetched[number]['partitions'][number]) => ({ ...p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
  return fetched.map((t) => (canDescribeTopic(ctx, t.name) ? t : { name: t.name, partitions: t.partitions.map(denied) }));
}

export const offsetFetchHandler: ApiHandler<OffsetFetchRequest, OffsetFetchResponse> = {
  api: OffsetFetch,
  minVersion: 0,
  maxVersion: 9,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    const active = groups.isActive;
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: (request.groups ?? []).map((g) => {
          const denied = groupError(ctx, AclOperation.DESCRIBE, g.groupId);
          if (denied) return { groupId: g.groupId, topics: [], errorCode: denied };
          // v9: a KIP-848 member reads at its current epoch (Kafka `ConsumerGroup.validateOffsetFetch`)
          const errorCode = !active ? ErrorCode.NOT_COORDINATOR : ctx.apiVersion >= 9 ? groups.consumer.validateOffsetFetch(g.groupId, g.memberId ?? null, g.memberEpoch ?? -1) : ErrorCode.NONE;
          return {
            groupId: g.groupId,
            topics: errorCode === ErrorCode.NONE ? describableOnly(ctx, g.topics === null, fetchOffsets(groups, g.groupId, g.topics, request.requireStable ?? false)) : [],
            errorCode,
          };
        }),
      };
    }
    const denied = ctx.apiVersion === 0 ? ErrorCode.NONE : groupError(ctx, AclOperation.DESCRIBE, request.groupId ?? '');
    const failed = ctx.apiVersion === 0 ? ErrorCode.UNSUPPORTED_VERSION : denied || (!active ? ErrorCode.NOT_COORDINATOR : ErrorCode.NONE);
    if (failed !== ErrorCode.NONE) {
      // v0-1 have no top-level error: each requested partition carries it
      const topics = (request.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: failed })),
      }));
      return { throttleTimeMs: 0, topics, errorCode: failed };
    }
    const fetched = fetchOffsets(groups, request.groupId ?? '', request.topics ?? null, request.requireStable ?? false);
    return { throttleTimeMs: 0, topics: describableOnly(ctx, (request.topics ?? null) === null, fetched), errorCode: ErrorCode.NONE };
  },
};
