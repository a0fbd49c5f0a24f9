/**
 * SyncGroup (14): the leader sends the assignment, every member waits for its own
 * (src/broker/group/coordinator.ts). v3+ carries group.instance.id; v5+ the protocol type and
 * name, which must be the group's (INCONSISTENT_GROUP_PROTOCOL otherwise, KIP-559).
 */
import { SyncGroup, type SyncGroupRequest, type SyncGroupResponse } from '../../protocol/schemas/sync-group.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';

export const syncGroupHandler: ApiHandler<SyncGroupRequest, SyncGroupResponse> = {
  api: SyncGroup,
  minVersion: 0,
  maxVersion: 5,
  async handle(request, ctx) {
    const denied = groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
    const r = await ctx.broker.groups.sync({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId ?? null,
      protocolType: request.protocolType ?? null,
      protocolName: request.protocolName ?? null,
      assignments: request.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
  },
};
