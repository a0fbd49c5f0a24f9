/** ListGroups (16); v4 filters by state, v5 by group type (KIP-848) and names each group's type. Every group is on this node. */
import { ListGroups, type ListGroupsRequest, type ListGroupsResponse } from '../../protocol/schemas/list-groups.js';
import type { ApiHandler } from '../handler.js';
import { listGroups } from '../group/group-admin.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized, groupError } from '../auth/checks.js';

export const listGroupsHandler: ApiHandler<ListGroupsRequest, ListGroupsResponse> = {
  api: ListGroups,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    if (!groups.isActive) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    // DESCRIBE on the cluster lists every group, else only the groups the principal may DESCRIBE (KafkaApis.handleListGroupsRequest)
    const all = clusterAuthorized(ctx, AclOperation.DESCRIBE);
    const listed = listGroups(groups, request.statesFilter ?? [], request.typesFilter ?? []).filter((g) => all || !groupError(ctx, AclOperation.DESCRIBE, g.groupId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups: listed };
  },
};
