/**
 * Classic members inside a consumer group (KIP-848's online migration; Kafka 4.0
 * `GroupMetadataManager.classicGroupJoinToConsumerGroup`, `classicGroupSyncToConsumerGroup`,
 * `classicGroupHeartbeatToConsumerGroup`, `classicGroupLeaveToConsumerGroup`). A consumer still on
 * JoinGroup/SyncGroup/Heartbeat takes part in a consumer group through them:
 *
 * - JoinGroup updates the member from its subscription (topics; owned partitions from
 *   ConsumerProtocolSubscription v1+, none for an eager client, which gave everything up before
 *   rejoining), runs the same epoch bump, server-side target assignment and reconciliation step as a
 *   ConsumerGroupHeartbeat, and answers at once with the member epoch as the generation, no leader
 *   and no member list (so the client sends an empty SyncGroup).
 * - SyncGroup answers the member's current partitions as a ConsumerProtocolAssignment.
 * - Heartbeat answers REBALANCE_IN_PROGRESS while the member is behind the group epoch, must
 *   revoke, or waits for partitions that are now free: the client rejoins and takes the next step.
 * - LeaveGroup removes the member and bumps the group epoch.
 *
 * A classic member that is told to rejoin and does not within its rebalance timeout, or does not
 * sync after a join, is fenced (Kafka's consumer-group join and sync timeouts).
 */
import { CONSUMER_PROTOCOL_TYPE } from '../../../internal-topics/consumer-protocol.js';
import { ErrorCode } from '../../../protocol/error-codes.js';
import type { JoinGroupRequest, MemberIdentity, SyncGroupRequest } from '../coordinator.js';
import { joinError, syncError, type JoinGroupResult, type SyncGroupResult } from '../member.js';
import { hasPartition } from './assignment.js';
import type { ConsumerGroupCoordinator } from './coordinator.js';
import type { ConsumerGroup } from './group.js';
import { ConsumerGroupMember } from './member.js';
import { GroupSnapshot } from './snapshot.js';
import { byTopicId, decodeSubscription, encodeAssignment, newClassicMemberId } from './migration.js';

export function classicJoin(cc: ConsumerGroupCoordinator, g: ConsumerGroup, req: JoinGroupRequest): JoinGroupResult {
  const fail = (code: number, memberId = req.memberId): JoinGroupResult => joinError(code, memberId);
  const isUnknown = req.memberId === '';
  const memberId = isUnknown ? newClassicMemberId() : req.memberId;
  // Kafka `throwIfConsumerGroupIsFull`, `throwIfClassicProtocolIsNotSupported`
  if (!g.members.has(memberId) && g.members.size >= cc.config.consumerMaxSize) return fail(ErrorCode.GROUP_MAX_SIZE_REACHED);
  const first = req.protocols[0];
  const sub = first === undefined ? undefined : decodeSubscription(first.metadata);
  if (req.protocolType !== CONSUMER_PROTOCOL_TYPE || sub === undefined) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  const existing = g.members.get(memberId);
  if (existing !== undefined && existing.classic === null) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
  // KIP-394 as in a classic group: a dynamic member gets its id first
  if (req.requireKnownMemberId && isUnknown && req.groupInstanceId === null) return fail(ErrorCode.MEMBER_ID_REQUIRED, memberId);

  // the join takes effect only once written (Kafka's coordinator runtime): a failed write puts the group back
  const snapshot = new GroupSnapshot(g);
  let member: ConsumerGroupMember;
  let bump: boolean;
  if (req.groupInstanceId !== null) {
    const staticId = g.staticMembers.get(req.groupInstanceId);
    const previous = staticId === undefined ? undefined : g.members.get(staticId);
    if (previous !== undefined && previous.memberId !== memberId) {
      if (!isUnknown) return fail(ErrorCode.FENCED_INSTANCE_ID);
      // a restarted static member takes its instance's place and target (Kafka `replaceMember`)
      const target = g.target(previous.memberId);
      g.removeMember(previous.memberId);
      member = addMember(g, memberId, req.groupInstanceId);
      member.memberEpoch = previous.memberEpoch;
      member.previousMemberEpoch = previous.previousMemberEpoch;
      g.targets.set(memberId, target);
      bump = false;
    } else {
      member = previous ?? existing ?? addMember(g, memberId, req.groupInstanceId);
      bump = previous === undefined && existing === undefined;
    }
  } else {
    member = existing ?? addMember(g, memberId, null);
    bump = existing === undefined;
  }
  if (!g.targets.has(member.memberId)) bump = true;
  if (sub.rackId !== null) member.rackId = sub.rackId;
  member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
  member.serverAssignor = null;
  member.clientId = req.clientId;
  member.clientHost = req.clientHost;
  member.classic = { sessionTimeoutMs: req.sessionTimeoutMs, protocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })) };
  if (!sameTopics(sub.topics, member.subscribedTopicNames)) {
    member.subscribedTopicNames = [...sub.topics];
    bump = true;
  }
  cc.advance(g, member, bump, byTopicId(cc, sub.ownedPartitions));
  const code = cc.persist(g);
  if (code !== ErrorCode.NONE) {
    cc.revert(g, snapshot);
    return fail(code);
  }
  // joined: the join deadline ends, the session restarts, and the member must sync within its rebalance timeout
  member.classicTimer?.cancel();
  cc.scheduleSessionTimeout(g, member);
  member.classicTimer = cc.timer.schedule(req.rebalanceTimeoutMs, () => {
    if (g.members.get(member.memberId) === member) cc.fenceOnTimeout(g, member, 'the member failed to sync within timeout');
  });
  return {
    errorCode: ErrorCode.NONE,
    generationId: member.memberEpoch,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: first?.name ?? null,
    leader: '',
    memberId: member.memberId,
    members: [],
  };
}

function addMember(g: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
  const m = new ConsumerGroupMember(memberId);
  m.previousMemberEpoch = 0;
  m.instanceId = instanceId;
  g.members.set(memberId, m);
  if (instanceId !== null) g.staticMembers.set(instanceId, memberId);
  return m;
}

/** Kafka `validateConsumerGroupMember` + `throwIfMemberDoesNotUseClassicProtocol`: the member, or the error code. */
function classicMember(g: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember | number {
  if (instanceId !== null) {
    const id = g.staticMembers.get(instanceId);
    if (id === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (id !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
  }
  const m = g.members.get(memberId);
  if (m === undefined || m.classic === null) return ErrorCode.UNKNOWN_MEMBER_ID;
  return m;
}

/** Whether a partition of the member's target still belongs to another member (Kafka `waitingOnUnreleasedPartition`). */
function waitingOnUnreleased(g: ConsumerGroup, m: ConsumerGroupMember): boolean {
  if (m.state !== 'UNRELEASED_PARTITIONS') return false;
  for (const [t, ps] of g.target(m.memberId)) {
    for (const p of ps) {
      if (hasPartition(m.assigned, t, p)) continue;
      const owner = g.ownerOf(t, p);
      if (owner !== undefined && owner !== m.memberId) return true;
    }
  }
  return false;
}

/** Kafka `scheduleConsumerGroupJoinTimeoutIfAbsent`: a member told to rejoin is fenced when it does not. */
function expectRejoin(cc: ConsumerGroupCoordinator, g: ConsumerGroup, m: ConsumerGroupMember): void {
  if (m.classicTimer !== undefined) return;
  m.classicTimer = cc.timer.schedule(m.rebalanceTimeoutMs, () => {
    if (g.members.get(m.memberId) === m) cc.fenceOnTimeout(g, m, 'the classic member failed to join within the rebalance timeout');
  });
}

export function classicSync(cc: ConsumerGroupCoordinator, g: ConsumerGroup, req: SyncGroupRequest): SyncGroupResult {
  const m = classicMember(g, req.memberId, req.groupInstanceId);
  if (typeof m === 'number') return syncError(m);
  if (req.generationId !== m.memberEpoch) return syncError(ErrorCode.ILLEGAL_GENERATION);
  const protocols = m.classic?.protocols ?? [];
  if ((req.protocolType !== null && req.protocolType !== CONSUMER_PROTOCOL_TYPE) || (req.protocolName !== null && !protocols.some((p) => p.name === req.protocolName))) {
    return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  }
  // Kafka `throwIfRebalanceInProgress`: a newer group epoch means another join first (unless still revoking)
  if (g.groupEpoch > m.memberEpoch && m.state !== 'UNREVOKED_PARTITIONS') {
    expectRejoin(cc, g, m);
    return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
  }
  m.classicTimer?.cancel();
  m.classicTimer = undefined;
  cc.scheduleSessionTimeout(g, m);
  return {
    errorCode: ErrorCode.NONE,
    protocolType: req.protocolType ?? CONSUMER_PROTOCOL_TYPE,
    protocolName: req.protocolName ?? protocols[0]?.name ?? null,
    assignment: encodeAssignment(cc, m.assigned, protocols[0]?.metadata),
  };
}

export function classicHeartbeat(cc: ConsumerGroupCoordinator, g: ConsumerGroup, memberId: string, instanceId: string | null, generationId: number): number {
  const m = classicMember(g, memberId, instanceId);
  if (typeof m === 'number') return m;
  if (generationId !== m.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
  cc.scheduleSessionTimeout(g, m);
  if (m.memberEpoch < g.groupEpoch || m.state === 'UNREVOKED_PARTITIONS' || (m.state === 'UNRELEASED_PARTITIONS' && !waitingOnUnreleased(g, m))) {
    expectRejoin(cc, g, m);
    return ErrorCode.REBALANCE_IN_PROGRESS;
  }
  return ErrorCode.NONE;
}

export function classicLeave(cc: ConsumerGroupCoordinator, g: ConsumerGroup, members: readonly MemberIdentity[]): { errorCode: number; members: (MemberIdentity & { errorCode: number })[] } {
  const out = members.map((id) => {
    let memberId = id.memberId;
    if (id.groupInstanceId !== null) {
      const current = g.staticMembers.get(id.groupInstanceId);
      if (current === undefined) return { ...id, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      if (memberId !== '' && current !== memberId) return { ...id, errorCode: ErrorCode.FENCED_INSTANCE_ID };
      memberId = current;
    }
    const m = g.members.get(memberId);
    if (m === undefined || m.classic === null) return { ...id, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    cc.classic.host.logger.info(`Classic member ${memberId} leaves consumer group ${g.groupId}`);
    return { ...id, memberId, errorCode: cc.changeOrRevert(g, () => cc.fenceMember(g, m)) };
  });
  return { errorCode: ErrorCode.NONE, members: out };
}

function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
