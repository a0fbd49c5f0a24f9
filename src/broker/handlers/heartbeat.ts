/** Heartbeat (12): keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
import { Heartbeat, type HeartbeatRequest, type HeartbeatResponse } from '../../protocol/schemas/heartbeat.js';
import type { ApiHandler } from '../handler.js';

export const heartbeatHandler: ApiHandler<HeartbeatRequest, HeartbeatResponse> = {
  api: Heartbeat,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const errorCode = ctx.broker.groups.heartbeat(request.groupId, request.memberId, request.groupInstanceId ?? null, request.generationId);
    return { throttleTimeMs: 0, errorCode };
  },
};
