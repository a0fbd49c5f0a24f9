/** DeleteGroups (42), v0-2: an Empty group's offsets and metadata are tombstoned and it is gone. */
import type { ApiHandler } from '../handler.js';
import { deleteGroup } from '../group/group-admin.js';
import { apiSchemas } from './api.js';

export const deleteGroupsHandler: ApiHandler = {
  api: apiSchemas(42),
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      results: (request.groupsNames as string[]).map((groupId) => ({ groupId, errorCode: deleteGroup(ctx.broker.groups, groupId) })),
    };
  },
};
