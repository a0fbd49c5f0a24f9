/**
 * LeaveGroup (13). v0-2 name one member and answer with its error at the top level; v3+ batch
 * members (KIP-345), by member id or by group.instance.id, each answered on its own; v5 adds
 * each member's reason, which Kafka only logs.
 */
import { LeaveGroup, type LeaveGroupRequest, type LeaveGroupResponse } from '../../protocol/schemas/leave-group.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const leaveGroupHandler: ApiHandler<LeaveGroupRequest, LeaveGroupResponse> = {
  api: LeaveGroup,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    const denied = groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, members: [] };
    if (ctx.apiVersion < 3) {
      const r = groups.leave(request.groupId, [{ memberId: request.memberId ?? '', groupInstanceId: null }]);
      return { throttleTimeMs: 0, errorCode: r.errorCode !== ErrorCode.NONE ? r.errorCode : (r.members[0]?.errorCode ?? ErrorCode.NONE), members: [] };
    }
    const members = (request.members ?? []).map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }));
    return { throttleTimeMs: 0, ...groups.leave(request.groupId, members) };
  },
};
