/**
 * OffsetDelete (47), v0 (KIP-496): deletes committed offsets of topics the group's members do not
 * consume (GROUP_SUBSCRIBED_TO_TOPIC for those they do); a non-consumer group must be empty.
 */
import type { ApiHandler, Message } from '../handler.js';
import { deleteOffsets } from '../group/offset-ops.js';
import { partitionExists } from '../group/topic-partitions.js';
import { apiSchemas } from './api.js';

export const offsetDeleteHandler: ApiHandler = {
  api: apiSchemas(47),
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const topics = (request.topics as Message[]).map((t) => ({ name: t.name as string, partitions: t.partitions as { partitionIndex: number }[] }));
    return { throttleTimeMs: 0, ...deleteOffsets(ctx.broker.groups, request.groupId as string, topics, partitionExists(ctx.broker.topics)) };
  },
};
