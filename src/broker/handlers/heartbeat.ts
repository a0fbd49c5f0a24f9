/** Heartbeat (12), v0-4: keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
import type { ApiHandler } from '../handler.js';
import { apiSchemas } from './api.js';

export const heartbeatHandler: ApiHandler = {
  api: apiSchemas(12),
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const groupInstanceId = ctx.apiVersion >= 3 ? (request.groupInstanceId as string | null) : null;
    const errorCode = ctx.broker.groups.heartbeat(request.groupId as string, request.memberId as string, groupInstanceId, request.generationId as number);
    return { throttleTimeMs: 0, errorCode };
  },
};
