/**
 * LeaveGroup (13), v0-4. v0-2 name one member and answer with its error at the top level; v3+
 * batch members (KIP-345), by member id or by group.instance.id, each answered on its own.
 */
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';

export const leaveGroupHandler: ApiHandler = {
  api: apiSchemas(13),
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const groups = ctx.broker.groups;
    if (ctx.apiVersion < 3) {
      const r = groups.leave(request.groupId as string, [{ memberId: request.memberId as string, groupInstanceId: null }]);
      return { throttleTimeMs: 0, errorCode: r.errorCode !== 0 ? r.errorCode : (r.members[0]?.errorCode ?? 0), members: [] };
    }
    const members = (request.members as Message[]).map((m) => ({ memberId: m.memberId as string, groupInstanceId: m.groupInstanceId as string | null }));
    return { throttleTimeMs: 0, ...groups.leave(request.groupId as string, members) };
  },
};
