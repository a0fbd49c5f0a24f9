/**
 * OffsetCommit (8), v2-8 (Kafka 4 dropped v0-1). Generation -1 with an empty member id is a
 * standalone commit, accepted while the group has no members. v2-4 may set a retention time;
 * v7+ carries group.instance.id. The commit is written to __consumer_offsets before it is answered.
 */
import type { ApiHandler, Message } from '../handler.js';
import { commitOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';
import { apiSchemas } from './api.js';

export const offsetCommitHandler: ApiHandler = {
  api: apiSchemas(8),
  minVersion: 2,
  maxVersion: 8,
  handle(request, ctx) {
    const v = ctx.apiVersion;
    const topics = commitOffsets(
      ctx.broker.groups,
      {
        groupId: request.groupId as string,
        generationId: request.generationIdOrMemberEpoch as number,
        memberId: request.memberId as string,
        groupInstanceId: v >= 7 ? (request.groupInstanceId as string | null) : null,
        retentionTimeMs: v <= 4 ? (request.retentionTimeMs as bigint) : -1n,
        topics: (request.topics as Message[]).map((t) => ({
          name: t.name as string,
          partitions: (t.partitions as Message[]).map((p) => ({
            partitionIndex: p.partitionIndex as number,
            committedOffset: p.committedOffset as bigint,
            committedLeaderEpoch: v >= 6 ? (p.committedLeaderEpoch as number) : -1,
            committedMetadata: p.committedMetadata as string | null,
          })),
        })),
      },
      partitionExists(ctx.broker.topics),
    );
    return { throttleTimeMs: 0, topics };
  },
};
