/** ListGroups (16), v0-4 (v4 filters by state). Every group is on this node. */
import type { ApiHandler } from '../handler.js';
import { GroupError } from '../group/errors.js';
import { listGroups } from '../group/group-admin.js';
import { apiSchemas } from './api.js';

export const listGroupsHandler: ApiHandler = {
  api: apiSchemas(16),
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    if (!groups.isActive) return { throttleTimeMs: 0, errorCode: GroupError.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const states = ctx.apiVersion >= 4 ? (request.statesFilter as string[]) : [];
    const types = ctx.apiVersion >= 5 ? (request.typesFilter as string[]) : [];
    return { throttleTimeMs: 0, errorCode: GroupError.NONE, groups: listGroups(groups, states, types) };
  },
};
