/**
 * OffsetDelete (47, KIP-496): deletes committed offsets of topics the group's members do not
 * consume (GROUP_SUBSCRIBED_TO_TOPIC for those they do); a non-consumer group must be empty.
 */
import { OffsetDelete, type OffsetDeleteRequest, type OffsetDeleteResponse } from '../../protocol/schemas/offset-delete.js';
import type { ApiHandler } from '../handler.js';
import { deleteOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';
import { AclOperation } from '../auth/acl.js';
import { groupError, splitByTopicAccess } from '../auth/checks.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const offsetDeleteHandler: ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  api: OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    // KafkaApis.handleOffsetDeleteRequest: DELETE on the group (top-level error), then READ on each topic
    const groupDenied = groupError(ctx, AclOperation.DELETE, request.groupId);
    if (groupDenied) return { throttleTimeMs: 0, errorCode: groupDenied, topics: [] };
    const { allowed, denied } = splitByTopicAccess(ctx, AclOperation.READ, request.topics);
    const r = deleteOffsets(ctx.broker.groups, request.groupId, allowed, partitionExists(ctx.broker.topics));
    const deniedTopics = denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) }));
    return { throttleTimeMs: 0, errorCode: r.errorCode, topics: [...r.topics, ...deniedTopics] };
  },
};
