/** DeleteGroups (42): an Empty group's offsets and metadata are tombstoned and it is gone. */
import { DeleteGroups, type DeleteGroupsRequest, type DeleteGroupsResponse } from '../../protocol/schemas/delete-groups.js';
import type { ApiHandler } from '../handler.js';
import { deleteGroup } from '../group/group-admin.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';

export const deleteGroupsHandler: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  api: DeleteGroups,
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    return {
      throttleTimeMs: 0,
      results: request.groupsNames.map((groupId) => ({ groupId, errorCode: groupError(ctx, AclOperation.DELETE, groupId) || deleteGroup(ctx.broker.groups, groupId) })),
    };
  },
};
