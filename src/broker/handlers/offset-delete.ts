/**
 * OffsetDelete (47, KIP-496): deletes committed offsets of topics the group's members do not
 * consume (GROUP_SUBSCRIBED_TO_TOPIC for those they do); a non-consumer group must be empty.
 */
import { OffsetDelete, type OffsetDeleteRequest, type OffsetDeleteResponse } from '../../protocol/schemas/offset-delete.js';
import type { ApiHandler } from '../handler.js';
import { deleteOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';

export const offsetDeleteHandler: ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> = {
  api: OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    return { throttleTimeMs: 0, ...deleteOffsets(ctx.broker.groups, request.groupId, request.topics, partitionExists(ctx.broker.topics)) };
  },
};
