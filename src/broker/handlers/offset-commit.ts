/**
 * OffsetCommit (8); Kafka 4 dropped v0-1. Generation -1 with an empty member id is a standalone
 * commit, accepted while the group has no members. v2-4 may set a retention time; v7+ carries
 * group.instance.id. The commit is written to __consumer_offsets before it is answered.
 */
import { OffsetCommit, type OffsetCommitRequest, type OffsetCommitResponse } from '../../protocol/schemas/offset-commit.js';
import type { ApiHandler } from '../handler.js';
import { commitOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';

export const offsetCommitHandler: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = {
  api: OffsetCommit,
  minVersion: 2,
  maxVersion: 9,
  handle(request, ctx) {
    const topics = commitOffsets(
      ctx.broker.groups,
      {
        groupId: request.groupId,
        generationId: request.generationIdOrMemberEpoch ?? -1,
        memberId: request.memberId ?? '',
        groupInstanceId: request.groupInstanceId ?? null,
        retentionTimeMs: request.retentionTimeMs ?? -1n,
        apiVersion: ctx.apiVersion,
        topics: request.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            committedOffset: p.committedOffset,
            committedLeaderEpoch: p.committedLeaderEpoch ?? -1,
            committedMetadata: p.committedMetadata,
          })),
        })),
      },
      partitionExists(ctx.broker.topics),
    );
    return { throttleTimeMs: 0, topics };
  },
};
