/**
 * SyncGroup (14): the leader sends the assignment, every member waits for its own
 * (src/broker/group/coordinator.ts). v3+ carries group.instance.id; the protocol type and name
 * checks of v5+ are not served.
 */
import { SyncGroup, type SyncGroupRequest, type SyncGroupResponse } from '../../protocol/schemas/sync-group.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';

export const syncGroupHandler: ApiHandler<SyncGroupRequest, SyncGroupResponse> = {
  api: SyncGroup,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, ctx) {
    const denied = groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
    const r = await ctx.broker.groups.sync({
      groupId: request.groupId,
      generationId: request.generationId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId ?? null,
      protocolType: null,
      protocolName: null,
      assignments: request.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
  },
};
