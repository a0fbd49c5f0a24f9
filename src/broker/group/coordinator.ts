/**
 * The classic group coordinator (Kafka `GroupCoordinator` of the classic protocol, and its
 * DelayedJoin / InitialDelayedJoin / DelayedHeartbeat operations) for one node that coordinates
 * every group: JoinGroup (MEMBER_ID_REQUIRED handshake, protocol selection, leader election,
 * rebalance timeout), SyncGroup, Heartbeat, LeaveGroup, session expiry and static membership.
 * JoinGroup and SyncGroup answers are Promises that resolve when the rebalance step completes.
 * Offsets live in offset-ops.ts, admin views in group-admin.ts, the log in offsets-topic.ts.
 */
import { randomUUID } from 'node:crypto';
import { errorCodeOf, errorMessageOf } from '../api-error.js';
import type { Logger } from '../logger.js';
import type { LogManager } from '../../storage/log-manager.js';
import type { TopicRegistry } from '../topic-registry.js';
import { SYSTEM_TIMER, type Timer, type TimerTask } from '../timer.js';
import type { GroupConfig } from './config.js';
import { ClassicGroup } from './group.js';
import { GroupMember, joinError, syncError, type GroupProtocol, type JoinGroupResult, type SyncGroupResult } from './member.js';
import { OffsetsTopic, type OffsetsRecord } from './offsets-topic.js';
import { groupMetadataKey, groupMetadataValue, type StoredGroup } from '../../internal-topics/offsets.js';
import { loadGroups } from './load.js';
import { expireOffsets } from './offset-ops.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { PendingTxnOffsets } from './txn-offsets.js';
import { ConsumerGroupCoordinator } from './consumer/coordinator.js';
import { classicHeartbeat, classicJoin, classicLeave, classicSync } from './consumer/classic-members.js';

export interface CoordinatorHost {
  readonly topics: TopicRegistry;
  readonly logs: LogManager;
  readonly logger: Logger;
  readonly appends: { notify(): void };
}

export interface JoinGroupRequest {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  /** JoinGroup v4+: a new member gets MEMBER_ID_REQUIRED and must rejoin with the id (KIP-394). */
  requireKnownMemberId: boolean;
  clientId: string;
  clientHost: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocolType: string;
  protocols: GroupProtocol[];
  /** JoinGroup v9+ (KIP-814): a rejoining static leader can be told to skip the assignment. */
  supportSkippingAssignment?: boolean;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export interface MemberIdentity {
  memberId: string;
  groupInstanceId: string | null;
}

/**
 * Kafka's mapping of a failed group-metadata write to the error clients see
 * (`GroupMetadataManager.storeGroup`).
 */
export function storeGroupError(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case 19: // NOT_ENOUGH_REPLICAS
    case 20: // NOT_ENOUGH_REPLICAS_AFTER_APPEND
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case 6: // NOT_LEADER_OR_FOLLOWER
    case 56: // KAFKA_STORAGE_ERROR
      return ErrorCode.NOT_COORDINATOR;
    case 10: // MESSAGE_TOO_LARGE
    case 18: // RECORD_LIST_TOO_LARGE
    case 4: // INVALID_FETCH_SIZE
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return code;
  }
}

/** Kafka's GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS: how long a new member's first join may wait. */
const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

export class GroupCoordinator {
  readonly groups = new Map<string, ClassicGroup>();
  readonly store: OffsetsTopic;
  /** TxnOffsetCommit offsets waiting for their transaction's marker (txn-offsets.ts). */
  readonly txnOffsets = new PendingTxnOffsets();
  /** KIP-848 consumer groups, beside the classic ones (consumer/coordinator.ts); offsets stay here. */
  readonly consumer: ConsumerGroupCoordinator = new ConsumerGroupCoordinator(this);
  private closed = false;
  private expiryTimer: TimerTask | undefined;

  constructor(
    readonly host: CoordinatorHost,
    readonly config: GroupConfig,
    /** Session, rebalance and initial-join timeouts and state timestamps (a manual one in tests). */
    readonly timer: Timer = SYSTEM_TIMER,
  ) {
    this.store = new OffsetsTopic(host.topics, host.logs, config, () => host.appends.notify());
  }

  get isActive(): boolean {
    return !this.closed;
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  getOrCreateGroup(groupId: string): ClassicGroup {
    let g = this.groups.get(groupId);
    if (g === undefined) this.groups.set(groupId, (g = new ClassicGroup(groupId, this.timer.now())));
    return g;
  }

  /** Writes records for a group to its __consumer_offsets partition; returns the Kafka error code (0 on success). */
  write(groupId: string, records: readonly OffsetsRecord[]): number {
    try {
      this.store.append(groupId, records);
      return ErrorCode.NONE;
    } catch (e) {
      const code = errorCodeOf(e);
      this.host.logger.warnThrottled(`group-store:${code}`, `writing group ${groupId} to __consumer_offsets failed (error ${code}): ${errorMessageOf(e)}`);
      return code;
    }
  }

  /** Writes records in a transactional batch of the producer (TxnOffsetCommit); the error code as `write`. */
  writeTransactional(groupId: string, records: readonly OffsetsRecord[], producerId: bigint, producerEpoch: number): number {
    try {
      this.store.append(groupId, records, { producerId, producerEpoch });
      return ErrorCode.NONE;
    } catch (e) {
      const code = errorCodeOf(e);
      this.host.logger.warnThrottled(`group-store:${code}`, `writing transactional offsets of group ${groupId} failed (error ${code}): ${errorMessageOf(e)}`);
      return storeGroupError(code);
    }
  }

  /** The group's metadata record (Kafka `GroupMetadataManager.groupMetadataValue`). */
  storedGroup(g: ClassicGroup): StoredGroup {
    return {
      protocolType: g.protocolType ?? '',
      generation: g.generationId,
      protocol: g.protocolName,
      leader: g.leaderId,
      currentStateTimestamp: g.currentStateTimestamp,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeout: m.rebalanceTimeoutMs,
        sessionTimeout: m.sessionTimeoutMs,
        subscription: m.metadataFor(g.protocolName),
        assignment: m.assignment,
      })),
    };
  }

  private storeGroup(g: ClassicGroup): number {
    return this.write(g.groupId, [{ key: groupMetadataKey(g.groupId), value: groupMetadataValue(this.storedGroup(g)) }]);
  }

  // ---- JoinGroup ------------------------------------------------------------------------------

  join(req: JoinGroupRequest): Promise<JoinGroupResult> | JoinGroupResult {
    const fail = (errorCode: number, memberId = req.memberId): JoinGroupResult => joinError(errorCode, memberId);
    if (this.closed) return fail(ErrorCode.NOT_COORDINATOR);
    if (req.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID);
    if (req.sessionTimeoutMs < this.config.minSessionTimeoutMs || req.sessionTimeoutMs > this.config.maxSessionTimeoutMs) {
      return fail(ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    // a classic member joining a consumer group with members (KIP-848 online migration)
    const consumerGroup = this.consumer.group(req.groupId);
    if (consumerGroup !== undefined && consumerGroup.members.size > 0) return classicJoin(this.consumer, consumerGroup, req);
    const consumerGroupError = this.consumer.classicJoinError(req.groupId);
    if (consumerGroupError !== ErrorCode.NONE) return fail(consumerGroupError);
    const unknown = req.memberId === '';
    let g = this.groups.get(req.groupId);
    if (g === undefined) {
      if (!unknown) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
      g = this.getOrCreateGroup(req.groupId);
      const r = this.joinNewMember(g, req, fail);
      // a refused first join leaves no group behind (Kafka would keep an Empty one until cleanup)
      if (!(r instanceof Promise) && r.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) this.groups.delete(req.groupId);
      return r;
    }
    if (g.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (!unknown && !g.members.has(req.memberId) && !g.pendingMembers.has(req.memberId) && g.members.size >= this.config.maxSize) {
      return fail(ErrorCode.GROUP_MAX_SIZE_REACHED);
    }
    if (unknown && g.members.size + g.pendingMembers.size >= this.config.maxSize && !(req.groupInstanceId !== null && g.staticMembers.has(req.groupInstanceId))) {
      return fail(ErrorCode.GROUP_MAX_SIZE_REACHED);
    }
    return unknown ? this.joinNewMember(g, req, fail) : this.joinKnownMember(g, req, fail);
  }

  private joinNewMember(g: ClassicGroup, req: JoinGroupRequest, fail: (code: number, memberId?: string) => JoinGroupResult): Promise<JoinGroupResult> | JoinGroupResult {
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const newMemberId = `${req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) {
      const existing = g.staticMembers.get(req.groupInstanceId);
      if (existing !== undefined) return this.rejoinStaticMember(g, existing, newMemberId, req);
      return this.addMemberAndRebalance(g, newMemberId, req);
    }
    if (req.requireKnownMemberId) {
      // KIP-394: the id is handed out first; it expires if the client never comes back with it
      g.pendingMembers.set(newMemberId, this.timer.schedule(req.sessionTimeoutMs, () => this.expirePendingMember(g, newMemberId)));
      return fail(ErrorCode.MEMBER_ID_REQUIRED, newMemberId);
    }
    return this.addMemberAndRebalance(g, newMemberId, req);
  }

  private joinKnownMember(g: ClassicGroup, req: JoinGroupRequest, fail: (code: number) => JoinGroupResult): Promise<JoinGroupResult> | JoinGroupResult {
    if (g.pendingMembers.has(req.memberId)) {
      if (!g.supportsProtocols(req.protocolType, req.protocols)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      g.pendingMembers.get(req.memberId)!.cancel();
      g.pendingMembers.delete(req.memberId);
      return this.addMemberAndRebalance(g, req.memberId, req);
    }
    if (g.isStaticMemberFenced(req.memberId, req.groupInstanceId)) return fail(ErrorCode.FENCED_INSTANCE_ID);
    const member = g.members.get(req.memberId);
    if (member === undefined) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (!g.supportsProtocols(req.protocolType, req.protocols)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    switch (g.state) {
      case 'PreparingRebalance':
        return this.updateMemberAndRebalance(g, member, req);
      case 'CompletingRebalance':
        // the member lost its JoinGroup answer: send it again unless its protocols changed
        if (member.matches(req.protocols)) return this.currentGenerationResult(g, member);
        return this.updateMemberAndRebalance(g, member, req);
      case 'Stable':
        // the leader rejoining, or a member with new protocols, starts a rebalance
        if (member.memberId === g.leaderId || !member.matches(req.protocols)) return this.updateMemberAndRebalance(g, member, req);
        return this.currentGenerationResult(g, member);
      default:
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  }

  private currentGenerationResult(g: ClassicGroup, member: GroupMember): JoinGroupResult {
    return {
      errorCode: ErrorCode.NONE,
      generationId: g.generationId,
      protocolType: g.protocolType,
      protocolName: g.protocolName,
      leader: g.leaderId ?? '',
      memberId: member.memberId,
      members: member.memberId === g.leaderId ? this.memberMetadata(g) : [],
    };
  }

  private memberMetadata(g: ClassicGroup): JoinGroupResult['members'] {
    return [...g.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(g.protocolName) }));
  }

  /** A known static instance joining with no member id (a restarted client): Kafka `updateStaticMemberAndRebalance`. */
  private rejoinStaticMember(g: ClassicGroup, oldMemberId: string, newMemberId: string, req: JoinGroupRequest): Promise<JoinGroupResult> | JoinGroupResult {
    const old = g.members.get(oldMemberId)!;
    // a client still waiting under the old id is fenced
    const fenced = joinError(ErrorCode.FENCED_INSTANCE_ID, oldMemberId);
    old.answerJoin(fenced);
    old.answerSync(syncError(ErrorCode.FENCED_INSTANCE_ID));
    const member = g.replaceStaticMember(oldMemberId, newMemberId);
    if (g.is('Stable') && member.matches(req.protocols)) {
      member.sessionTimeoutMs = req.sessionTimeoutMs;
      member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
      const code = this.storeGroup(g);
      if (code !== ErrorCode.NONE) {
        g.replaceStaticMember(newMemberId, oldMemberId);
        return { ...fenced, errorCode: storeGroupError(code), memberId: '' };
      }
      this.scheduleSessionExpiry(g, member);
      // the assignment is unchanged: the member learns the generation and keeps its partitions; from
      // JoinGroup v9 a rejoining leader gets the members with skipAssignment (KIP-814), so it knows the
      // group without reassigning it (Kafka `updateStaticMemberAndRebalance`)
      const skipAssignment = req.supportSkippingAssignment === true && g.leaderId === newMemberId;
      return { errorCode: ErrorCode.NONE, generationId: g.generationId, protocolType: g.protocolType, protocolName: g.protocolName, leader: g.leaderId ?? '', memberId: newMemberId, members: skipAssignment ? this.memberMetadata(g) : [], skipAssignment };
    }
    return this.updateMemberAndRebalance(g, member, req);
  }

  private addMemberAndRebalance(g: ClassicGroup, memberId: string, req: JoinGroupRequest): Promise<JoinGroupResult> {
    const member = new GroupMember(
      memberId,
      req.groupInstanceId,
      req.clientId,
      req.clientHost,
      req.rebalanceTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    member.isNew = true;
    // Kafka `addMemberAndRebalance`: only a join into a first rebalance already under way extends the
    // initial delay; the member whose join starts it (group still Empty here) does not
    if (g.is('PreparingRebalance') && g.generationId === 0) g.newMemberAdded = true;
    g.add(member);
    const answer = new Promise<JoinGroupResult>((resolve) => (member.awaitingJoin = resolve));
    // a new member that disconnects before the join completes is dropped after Kafka's new-member
    // join timeout (CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS), not its session timeout: the join may
    // wait up to the rebalance timeout for the other members
    this.scheduleSessionExpiry(g, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalance(g, `Adding new member ${memberId}`);
    this.tryCompleteJoin(g);
    return answer;
  }

  private updateMemberAndRebalance(g: ClassicGroup, member: GroupMember, req: JoinGroupRequest): Promise<JoinGroupResult> {
    member.protocols = req.protocols;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    // an older JoinGroup of the same member still waiting is superseded
    member.answerJoin(joinError(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
    const answer = new Promise<JoinGroupResult>((resolve) => (member.awaitingJoin = resolve));
    this.maybePrepareRebalance(g, `Updating metadata for member ${member.memberId}`);
    this.tryCompleteJoin(g);
    return answer;
  }

  private maybePrepareRebalance(g: ClassicGroup, reason: string): void {
    if (g.is('Stable') || g.is('CompletingRebalance') || g.is('Empty')) this.prepareRebalance(g, reason);
  }

  private prepareRebalance(g: ClassicGroup, reason: string): void {
    if (g.is('CompletingRebalance')) this.resetAssignments(g, ErrorCode.REBALANCE_IN_PROGRESS);
    this.clearSyncTimer(g);
    const initial = g.is('Empty');
    g.transitionTo('PreparingRebalance', this.timer.now());
    this.host.logger.info(`Preparing to rebalance group ${g.groupId} in state PreparingRebalance with old generation ${g.generationId} (reason: ${reason})`);
    this.clearJoinTimer(g);
    g.initialJoin = initial;
    if (initial) {
      // group.initial.rebalance.delay.ms: wait for more members before the first generation
      const delay = this.config.initialRebalanceDelayMs;
      this.scheduleInitialJoin(g, delay, Math.max(g.rebalanceTimeoutMs() - delay, 0));
    } else {
      g.joinTimer = this.timer.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      // Kafka `tryCompleteElseWatch`: members may all be in already (or the last one just left)
      this.tryCompleteJoin(g);
    }
  }

  /** Kafka `InitialDelayedJoin`: extends by another delay while new members keep arriving, up to the rebalance timeout. */
  private scheduleInitialJoin(g: ClassicGroup, delayMs: number, remainingMs: number): void {
    g.joinTimer = this.timer.schedule(delayMs, () => {
      g.joinTimer = undefined;
      if (g.newMemberAdded && remainingMs > 0) {
        g.newMemberAdded = false;
        const next = Math.min(this.config.initialRebalanceDelayMs, remainingMs);
        this.scheduleInitialJoin(g, next, Math.max(remainingMs - next, 0));
      } else {
        this.completeJoin(g);
      }
    });
  }

  /** Kafka `DelayedJoin.tryComplete`: a non-initial join completes as soon as everyone has rejoined. */
  private tryCompleteJoin(g: ClassicGroup): void {
    if (g.is('PreparingRebalance') && !g.initialJoin && g.hasAllMembersJoined()) this.completeJoin(g);
  }

  /**
   * Kafka `completeClassicGroupJoin`: drop the dynamic members that did not rejoin (a static member
   * keeps its place until its session times out), start the next generation, answer the joins. When
   * no member rejoined at all, the join waits another rebalance timeout.
   */
  private completeJoin(g: ClassicGroup): void {
    this.clearJoinTimer(g);
    if (!g.is('PreparingRebalance')) return;
    for (const m of [...g.members.values()]) {
      if (m.awaitingJoin === undefined && m.groupInstanceId === null) {
        this.host.logger.info(`Group ${g.groupId} removes member ${m.memberId}: it did not rejoin within the rebalance timeout`);
        g.remove(m.memberId);
      }
    }
    if (!this.electJoinedLeader(g) && !g.isEmpty) {
      this.host.logger.warn(`Group ${g.groupId} could not complete rebalance because no members rejoined`);
      g.joinTimer = this.timer.schedule(g.rebalanceTimeoutMs(), () => this.completeJoin(g));
      return;
    }
    g.generationId++;
    if (g.isEmpty) {
      g.protocolName = null;
      g.transitionTo('Empty', this.timer.now());
      this.host.logger.info(`Group ${g.groupId} with generation ${g.generationId} is now empty`);
      const code = this.storeGroup(g);
      if (code !== ErrorCode.NONE) this.host.logger.warn(`storing empty group ${g.groupId} failed with error ${code}`);
      return;
    }
    g.protocolName = g.selectProtocol();
    if (g.leaderId === null || !g.members.has(g.leaderId)) g.leaderId = g.members.keys().next().value ?? null;
    g.transitionTo('CompletingRebalance', this.timer.now());
    this.host.logger.info(`Stabilized group ${g.groupId} generation ${g.generationId} with ${g.members.size} member(s), protocol ${g.protocolName}`);
    const all = this.memberMetadata(g);
    g.pendingSync.clear();
    for (const m of g.members.values()) {
      g.pendingSync.add(m.memberId);
      m.answerJoin({
        errorCode: ErrorCode.NONE,
        generationId: g.generationId,
        protocolType: g.protocolType,
        protocolName: g.protocolName,
        leader: g.leaderId ?? '',
        memberId: m.memberId,
        members: m.memberId === g.leaderId ? all : [],
      });
      this.scheduleSessionExpiry(g, m);
    }
    // members that never send SyncGroup are removed after the rebalance timeout (Kafka `DelayedSync`)
    const generation = g.generationId;
    g.syncTimer = this.timer.schedule(g.rebalanceTimeoutMs(), () => this.expirePendingSync(g, generation));
  }

  /**
   * Kafka `ClassicGroup.maybeElectNewJoinedLeader`: a leader that did not rejoin hands over to a
   * member that did; false when no member rejoined.
   */
  private electJoinedLeader(g: ClassicGroup): boolean {
    const leader = g.leaderId === null ? undefined : g.members.get(g.leaderId);
    if (leader === undefined || leader.awaitingJoin !== undefined) return true;
    for (const m of g.members.values()) {
      if (m.awaitingJoin !== undefined) {
        this.host.logger.info(`Group ${g.groupId}'s leader ${leader.memberId} did not rejoin within the rebalance timeout; ${m.memberId} leads`);
        g.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  private expirePendingSync(g: ClassicGroup, generation: number): void {
    g.syncTimer = undefined;
    if (g.generationId !== generation || !(g.is('CompletingRebalance') || g.is('Stable')) || g.pendingSync.size === 0) return;
    for (const id of [...g.pendingSync]) {
      this.host.logger.info(`Group ${g.groupId} removes member ${id}: no SyncGroup within the rebalance timeout`);
      g.remove(id);
    }
    this.prepareRebalance(g, 'Removing members that did not sync');
  }

  private resetAssignments(g: ClassicGroup, errorCode: number): void {
    for (const m of g.members.values()) {
      m.assignment = Buffer.alloc(0);
      m.answerSync(syncError(errorCode));
    }
  }

  private clearJoinTimer(g: ClassicGroup): void {
    g.joinTimer?.cancel();
    g.joinTimer = undefined;
  }

  private clearSyncTimer(g: ClassicGroup): void {
    g.syncTimer?.cancel();
    g.syncTimer = undefined;
  }

  // ---- sessions -------------------------------------------------------------------------------

  /** (Re)starts the member's session timer (Kafka `completeAndScheduleNextHeartbeatExpiration`). */
  scheduleSessionExpiry(g: ClassicGroup, m: GroupMember, delayMs = m.sessionTimeoutMs): void {
    if (m.sessionTimer !== undefined) {
      if (m.sessionTimerMs === delayMs) {
        m.sessionTimer.refresh();
        return;
      }
      // a rejoin changed the session timeout: Kafka reschedules with the member's current one
      // (rescheduleClassicGroupMemberHeartbeat)
      m.sessionTimer.cancel();
    }
    m.sessionTimerMs = delayMs;
    m.sessionTimer = this.timer.schedule(delayMs, () => this.expireSession(g, m));
  }

  private expireSession(g: ClassicGroup, m: GroupMember): void {
    m.sessionTimer = undefined;
    if (g.members.get(m.memberId) !== m) return;
    // Kafka `shouldKeepAlive`: a known member waiting in a rebalance stays; the rebalance timeout governs it
    if ((m.awaitingJoin !== undefined && !m.isNew) || m.awaitingSync !== undefined) {
      this.scheduleSessionExpiry(g, m);
      return;
    }
    this.host.logger.info(`Member ${m.memberId} in group ${g.groupId} has failed (session timeout ${m.sessionTimeoutMs} ms), removing it`);
    this.removeMemberAndUpdateGroup(g, m);
  }

  private expirePendingMember(g: ClassicGroup, memberId: string): void {
    if (!g.pendingMembers.delete(memberId)) return;
    this.host.logger.info(`Pending member ${memberId} in group ${g.groupId} never rejoined, removing it`);
    this.tryCompleteJoin(g);
  }

  private removeMemberAndUpdateGroup(g: ClassicGroup, m: GroupMember): void {
    m.answerJoin(joinError(ErrorCode.UNKNOWN_MEMBER_ID, m.memberId));
    m.answerSync(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    g.remove(m.memberId);
    if (g.is('Stable') || g.is('CompletingRebalance')) this.maybePrepareRebalance(g, `removing member ${m.memberId}`);
    else if (g.is('PreparingRebalance')) this.tryCompleteJoin(g);
  }

  // ---- SyncGroup ------------------------------------------------------------------------------

  sync(req: SyncGroupRequest): Promise<SyncGroupResult> | SyncGroupResult {
    const fail = syncError;
    if (this.closed) return fail(ErrorCode.NOT_COORDINATOR);
    if (req.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID);
    const consumerGroup = this.consumer.group(req.groupId);
    if (consumerGroup !== undefined) return classicSync(this.consumer, consumerGroup, req);
    const g = this.groups.get(req.groupId);
    if (g === undefined) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (g.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (g.isStaticMemberFenced(req.memberId, req.groupInstanceId)) return fail(ErrorCode.FENCED_INSTANCE_ID);
    const member = g.members.get(req.memberId);
    if (member === undefined) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (req.generationId !== g.generationId) return fail(ErrorCode.ILLEGAL_GENERATION);
    if ((req.protocolType !== null && req.protocolType !== g.protocolType) || (req.protocolName !== null && req.protocolName !== g.protocolName)) {
      return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    switch (g.state) {
      case 'Empty':
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        return fail(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Stable':
        g.pendingSync.delete(member.memberId);
        this.scheduleSessionExpiry(g, member);
        return { errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment: member.assignment };
      case 'CompletingRebalance': {
        g.pendingSync.delete(member.memberId);
        member.answerSync(fail(ErrorCode.REBALANCE_IN_PROGRESS));
        const answer = new Promise<SyncGroupResult>((resolve) => (member.awaitingSync = resolve));
        this.scheduleSessionExpiry(g, member);
        if (member.memberId === g.leaderId) this.completeSync(g, req.assignments);
        return answer;
      }
      default:
        return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  }

  /** The leader's assignment arrived: persist the group, then answer every waiting SyncGroup. */
  private completeSync(g: ClassicGroup, assignments: readonly { memberId: string; assignment: Buffer }[]): void {
    const given = new Map(assignments.map((a) => [a.memberId, a.assignment]));
    for (const m of g.members.values()) m.assignment = Buffer.from(given.get(m.memberId) ?? Buffer.alloc(0));
    const code = this.storeGroup(g);
    if (code !== ErrorCode.NONE) {
      // Kafka: the assignment is dropped and the group rebalances again
      this.resetAssignments(g, storeGroupError(code));
      this.prepareRebalance(g, 'failed to store the group assignment');
      return;
    }
    g.transitionTo('Stable', this.timer.now());
    this.host.logger.info(`Assignment received from leader ${g.leaderId} for group ${g.groupId} for generation ${g.generationId}`);
    for (const m of g.members.values()) {
      m.answerSync({ errorCode: ErrorCode.NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment: m.assignment });
    }
  }

  // ---- Heartbeat / LeaveGroup -----------------------------------------------------------------

  heartbeat(groupId: string, memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const consumerGroup = this.consumer.group(groupId);
    if (consumerGroup !== undefined) return classicHeartbeat(this.consumer, consumerGroup, memberId, groupInstanceId, generationId);
    const g = this.groups.get(groupId);
    if (g === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (g.isStaticMemberFenced(memberId, groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    const member = g.members.get(memberId);
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (generationId !== g.generationId) return ErrorCode.ILLEGAL_GENERATION;
    switch (g.state) {
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'PreparingRebalance':
        this.scheduleSessionExpiry(g, member);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        // CompletingRebalance: members may heartbeat between their JoinGroup and SyncGroup answers
        this.scheduleSessionExpiry(g, member);
        return ErrorCode.NONE;
    }
  }

  /** LeaveGroup (v3+ batches members): the group's error and each member's. */
  leave(groupId: string, members: readonly MemberIdentity[]): { errorCode: number; members: (MemberIdentity & { errorCode: number })[] } {
    if (this.closed) return { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const consumerGroup = this.consumer.group(groupId);
    if (consumerGroup !== undefined) return classicLeave(this.consumer, consumerGroup, members);
    const g = this.groups.get(groupId);
    if (g === undefined) return { errorCode: ErrorCode.NONE, members: members.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (g.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const out = members.map((id) => ({ ...id, errorCode: this.leaveOne(g, id) }));
    return { errorCode: ErrorCode.NONE, members: out };
  }

  private leaveOne(g: ClassicGroup, id: MemberIdentity): number {
    let memberId = id.memberId;
    if (id.groupInstanceId !== null) {
      const current = g.staticMembers.get(id.groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (memberId === '') memberId = current;
      else if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    const pending = g.pendingMembers.get(memberId);
    if (pending !== undefined) {
      pending.cancel();
      g.pendingMembers.delete(memberId);
      this.tryCompleteJoin(g);
      return ErrorCode.NONE;
    }
    const member = g.members.get(memberId);
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.host.logger.info(`Member ${memberId} leaves group ${g.groupId}`);
    this.removeMemberAndUpdateGroup(g, member);
    return ErrorCode.NONE;
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Loads the groups from __consumer_offsets and starts the offsets retention check. */
  start(): void {
    const loaded = loadGroups(this);
    if (loaded.groups > 0) this.host.logger.info(`loaded ${loaded.groups} group(s) and ${loaded.offsets} committed offset(s) from __consumer_offsets`);
    this.scheduleOffsetsExpiry();
  }

  /** Kafka's periodic `delete-expired-group-metadata` task, every offsets.retention.check.interval.ms. */
  private scheduleOffsetsExpiry(): void {
    this.expiryTimer = this.timer.schedule(this.config.offsetsRetentionCheckIntervalMs, () => {
      try {
        const n = expireOffsets(this, this.timer.now());
        if (n > 0) this.host.logger.info(`removed ${n} expired offset(s)`);
      } catch (e) {
        this.host.logger.error(`offsets expiry failed: ${(e as Error).stack ?? String(e)}`);
      }
      if (!this.closed) this.scheduleOffsetsExpiry();
    });
  }

  /**
   * The classic side of KIP-848's online upgrade (consumer/migration.ts): waiting joins and syncs
   * answer REBALANCE_IN_PROGRESS, timers stop and the members go; the entry stays, Empty, holding the
   * group's committed offsets.
   */
  detachForUpgrade(g: ClassicGroup): void {
    this.clearJoinTimer(g);
    this.clearSyncTimer(g);
    for (const t of g.pendingMembers.values()) t.cancel();
    g.pendingMembers.clear();
    for (const m of [...g.members.values()]) {
      m.answerJoin(joinError(ErrorCode.REBALANCE_IN_PROGRESS, m.memberId));
      m.answerSync(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      g.remove(m.memberId);
    }
    g.leaderId = null;
    g.protocolName = null;
    g.state = 'Empty';
  }

  /** KIP-848's online downgrade left `g` Stable with the former consumer group's members: they rejoin (Kafka `convertToClassicGroup`). */
  rebalanceDowngraded(g: ClassicGroup): void {
    for (const m of g.members.values()) this.scheduleSessionExpiry(g, m);
    this.prepareRebalance(g, `Downgrade group ${g.groupId} from consumer to classic.`);
  }

  /** Drops a group from memory (DeleteGroups, expiry): it becomes Dead. */
  removeGroup(g: ClassicGroup): void {
    this.clearJoinTimer(g);
    this.clearSyncTimer(g);
    for (const t of g.pendingMembers.values()) t.cancel();
    for (const m of g.members.values()) m.stopSessionTimer();
    g.transitionTo('Dead', this.timer.now());
    this.groups.delete(g.groupId);
  }

  /**
   * Stops the coordinator (broker shutdown, Kafka `onResignation`): waiting joins and syncs
   * answer NOT_COORDINATOR so connections can finish; every timer stops. The groups stay in the log.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.expiryTimer?.cancel();
    this.consumer.close();
    for (const g of this.groups.values()) {
      this.clearJoinTimer(g);
      this.clearSyncTimer(g);
      for (const t of g.pendingMembers.values()) t.cancel();
      for (const m of g.members.values()) {
        m.stopSessionTimer();
        m.answerJoin(joinError(ErrorCode.NOT_COORDINATOR, m.memberId));
        m.answerSync(syncError(ErrorCode.NOT_COORDINATOR));
      }
    }
  }
}
