/**
 * JoinGroup (11), v0-6. v0 has no rebalance timeout (the session timeout serves, as Kafka does);
 * v4+ new members get MEMBER_ID_REQUIRED first (KIP-394); v5+ carries group.instance.id (static
 * membership). The answer waits for the rebalance to complete (src/broker/group/coordinator.ts).
 */
import type { ApiHandler, Message } from '../handler.js';
import { clientHostOf } from '../group/member.js';
import { apiSchemas } from './api.js';

export const joinGroupHandler: ApiHandler = {
  api: apiSchemas(11),
  minVersion: 0,
  maxVersion: 6,
  async handle(request, ctx) {
    const v = ctx.apiVersion;
    const r = await ctx.broker.groups.join({
      groupId: request.groupId as string,
      memberId: request.memberId as string,
      groupInstanceId: v >= 5 ? (request.groupInstanceId as string | null) : null,
      requireKnownMemberId: v >= 4,
      clientId: ctx.clientId,
      clientHost: clientHostOf(ctx.remote),
      sessionTimeoutMs: request.sessionTimeoutMs as number,
      rebalanceTimeoutMs: v >= 1 ? (request.rebalanceTimeoutMs as number) : (request.sessionTimeoutMs as number),
      protocolType: request.protocolType as string,
      protocols: (request.protocols as Message[]).map((p) => ({ name: p.name as string, metadata: Buffer.from(p.metadata as Buffer) })),
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      // nullable from v7 only
      protocolName: r.protocolName ?? (v >= 7 ? null : ''),
      leader: r.leader,
      skipAssignment: false,
      memberId: r.memberId,
      members: r.members,
    };
  },
};
