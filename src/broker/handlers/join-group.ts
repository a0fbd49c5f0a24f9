/**
 * JoinGroup (11). v0 has no rebalance timeout (the session timeout serves, as Kafka does); v4+ new
 * members get MEMBER_ID_REQUIRED first (KIP-394); v5+ carries group.instance.id (static
 * membership); v7+ answer the protocol type and a nullable protocol name; v8+ give a reason
 * (logged by Kafka, ignored here); v9 tells a rejoining static leader to skip the assignment
 * (KIP-814). The answer waits for the rebalance to complete (src/broker/group/coordinator.ts).
 */
import { JoinGroup, type JoinGroupRequest, type JoinGroupResponse } from '../../protocol/schemas/join-group.js';
import type { ApiHandler } from '../handler.js';
import { clientHostOf } from '../group/member.js';
import { AclOperation } from '../auth/acl.js';
import { groupError } from '../auth/checks.js';

export const joinGroupHandler: ApiHandler<JoinGroupRequest, JoinGroupResponse> = {
  api: JoinGroup,
  minVersion: 0,
  maxVersion: 9,
  async handle(request, ctx) {
    const v = ctx.apiVersion;
    const denied = groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, generationId: -1, protocolType: null, protocolName: '', leader: '', skipAssignment: false, memberId: request.memberId, members: [] };
    const r = await ctx.broker.groups.join({
      groupId: request.groupId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId ?? null,
      requireKnownMemberId: v >= 4,
      clientId: ctx.clientId,
      clientHost: clientHostOf(ctx.remote),
      sessionTimeoutMs: request.sessionTimeoutMs,
      rebalanceTimeoutMs: v >= 1 ? (request.rebalanceTimeoutMs ?? -1) : request.sessionTimeoutMs,
      protocolType: request.protocolType,
      protocols: request.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
      supportSkippingAssignment: v >= 9,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      generationId: r.generationId,
      protocolType: r.protocolType,
      // nullable from v7 only
      protocolName: v >= 7 ? r.protocolName : (r.protocolName ?? ''),
      leader: r.leader,
      skipAssignment: r.skipAssignment ?? false,
      memberId: r.memberId,
      members: r.members,
    };
  },
};
