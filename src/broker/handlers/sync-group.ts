/**
 * SyncGroup (14), v0-4: the leader sends the assignment, every member waits for its own
 * (src/broker/group/coordinator.ts). v3+ carries group.instance.id.
 */
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';

export const syncGroupHandler: ApiHandler = {
  api: apiSchemas(14),
  minVersion: 0,
  maxVersion: 4,
  async handle(request, ctx) {
    const v = ctx.apiVersion;
    const r = await ctx.broker.groups.sync({
      groupId: request.groupId as string,
      generationId: request.generationId as number,
      memberId: request.memberId as string,
      groupInstanceId: v >= 3 ? (request.groupInstanceId as string | null) : null,
      protocolType: v >= 5 ? (request.protocolType as string | null) : null,
      protocolName: v >= 5 ? (request.protocolName as string | null) : null,
      assignments: (request.assignments as Message[]).map((a) => ({ memberId: a.memberId as string, assignment: a.assignment as Buffer })),
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
  },
};
