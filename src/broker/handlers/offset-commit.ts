/**
 * OffsetCommit (8); Kafka 4 dropped v0-1. Generation -1 with an empty member id is a standalone
 * commit, accepted while the group has no members. v0 stored offsets in ZooKeeper: a KRaft Kafka 3.x
 * answers it UNSUPPORTED_VERSION in every partition (`KafkaApis.handleOffsetCommitRequest`,
 * "Version 0 offset commit requests"), and so does kafkalite; v1 may name each commit's timestamp. v2-4 may set a retention time; v7+ carries
 * group.instance.id. The commit is written to __consumer_offsets before it is answered.
 */
import { OffsetCommit, type OffsetCommitRequest, type OffsetCommitResponse } from '../../protocol/schemas/offset-commit.js';
import type { ApiHandler } from '../handler.js';
import { commitOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';
import { AclOperation } from '../auth/acl.js';
import { groupError, splitByTopicAccess } from '../auth/checks.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const offsetCommitHandler: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = {
  api: OffsetCommit,
  minVersion: 0,
  maxVersion: 9,
  handle(request, ctx) {
    if (ctx.apiVersion === 0) {
      const errorCode = ErrorCode.UNSUPPORTED_VERSION;
      return { topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })) };
    }
    // KafkaApis.handleOffsetCommitRequest: READ on the group, then READ on each topic
    const every = (name: string, partitions: { partitionIndex: number }[], errorCode: number) => ({ name, partitions: partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) });
    const groupDenied = groupError(ctx, AclOperation.READ, request.groupId);
    if (groupDenied) return { throttleTimeMs: 0, topics: request.topics.map((t) => every(t.name, t.partitions, groupDenied)) };
    const { allowed, denied } = splitByTopicAccess(ctx, AclOperation.READ, request.topics);
    const topics = commitOffsets(
      ctx.broker.groups,
      {
        groupId: request.groupId,
        generationId: request.generationIdOrMemberEpoch ?? -1,
        memberId: request.memberId ?? '',
        groupInstanceId: request.groupInstanceId ?? null,
        retentionTimeMs: request.retentionTimeMs ?? -1n,
        apiVersion: ctx.apiVersion,
        topics: allowed.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            committedOffset: p.committedOffset,
            committedLeaderEpoch: p.committedLeaderEpoch ?? -1,
            committedMetadata: p.committedMetadata,
            ...(p.commitTimestamp !== undefined ? { commitTimestamp: p.commitTimestamp } : {}),
          })),
        })),
      },
      partitionExists(ctx.broker.topics),
    );
    return { throttleTimeMs: 0, topics: [...topics, ...denied.map((t) => every(t.name, t.partitions, ErrorCode.TOPIC_AUTHORIZATION_FAILED))] };
  },
};
