/** Heartbeat (12): keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
import { Heartbeat, type HeartbeatRequest, type HeartbeatResponse } from '../../protocol/schemas/heartbeat.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';

export const heartbeatHandler: ApiHandler<HeartbeatRequest, HeartbeatResponse> = {
  api: Heartbeat,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const denied = groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied };
    const errorCode = ctx.broker.groups.heartbeat(request.groupId, request.memberId, request.groupInstanceId ?? null, request.generationId);
    return { throttleTimeMs: 0, errorCode };
  },
};
