/**
 * The KIP-848 consumer-group coordinator (Kafka `GroupMetadataManager.consumerGroupHeartbeat` and
 * its timers): validation, group and member lookup with the epoch fencing rules, subscription
 * changes bumping the group epoch, the target assignment computed by the server-side assignor
 * when the group epoch is ahead of the assignment epoch, one reconciliation step per heartbeat
 * (reconcile.ts), session and rebalance timeouts on the injected Timer, leave (−1) and static
 * leave (−2). It lives beside the classic coordinator, which keeps holding the committed offsets
 * of every group id (classic or consumer) so OffsetCommit/OffsetFetch stay one code path; this
 * module adds the member-epoch checks Kafka's `ConsumerGroup.validateOffsetCommit/Fetch` make.
 * Every change is written to `__consumer_offsets` in Kafka's consumer-group records (records.ts)
 * before the heartbeat is answered, and takes effect only when that write succeeds (snapshot.ts:
 * a failed write puts the group back); `restore` rebuilds a group from them at load.
 */
import { storeGroupError, type GroupCoordinator } from '../coordinator.js';
import { groupMetadataKey } from '../../../internal-topics/offsets.js';
import type { StoredConsumerGroup } from '../../../internal-topics/consumer-group-records.js';
import { adoptPersisted, changedRecords, groupRecords, groupTombstones, restoreGroup } from './records.js';
import { ErrorCode } from '../../../protocol/error-codes.js';
import type { TopicInfo } from '../../topic-registry.js';
import { randomUuid, uuidToString } from '../../../storage/uuid.js';
import { addPartition, copyAssignment, emptyAssignment, sameAssignment, toTopicPartitions, type Assignment } from './assignment.js';
import { SERVER_ASSIGNORS, type AssignorMember } from './assignors.js';
import { ConsumerGroup } from './group.js';
import { ConsumerGroupMember, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH } from './member.js';
import { reconcile } from './reconcile.js';
import { GroupSnapshot } from './snapshot.js';
import type { ClassicGroup } from '../group.js';
import { downgradeAllowed, downgradeToClassic, upgradeClassicGroup } from './migration.js';

export interface HeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: { topicId: Buffer; partitions: number[] }[] | null;
}

export interface HeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: { topicId: Buffer; partitions: number[] }[] } | null;
}

export interface HeartbeatContext {
  /** ConsumerGroupHeartbeat version (v1: the client generates the member id, KIP-1082). */
  apiVersion: number;
  clientId: string;
  clientHost: string;
  /** The requester's DESCRIBE check on topics, with an authorizer (regex matches are filtered by it). */
  canDescribeTopic?: (topic: string) => boolean;
}

class HeartbeatError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export class ConsumerGroupCoordinator {
  readonly groups = new Map<string, ConsumerGroup>();
  /** The classic group the heartbeat in progress upgrades (detached once the consumer group is written). */
  private upgrading: ClassicGroup | undefined;

  constructor(readonly classic: GroupCoordinator) {}

  get timer() {
    return this.classic.timer;
  }

  get config() {
    return this.classic.config;
  }

  group(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  heartbeat(req: HeartbeatRequest, ctx: HeartbeatContext): HeartbeatResult {
    // the group as it is before the heartbeat: a heartbeat that fails (its write included) leaves it so
    const before = this.groups.get(req.groupId);
    const snapshot = before === undefined ? undefined : new GroupSnapshot(before);
    try {
      if (!this.classic.isActive) throw new HeartbeatError(ErrorCode.NOT_COORDINATOR, 'The coordinator is not active.');
      this.validate(req, ctx.apiVersion);
      const result = req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH ? this.leave(req) : this.join(req, ctx);
      const g = this.groups.get(req.groupId);
      // Kafka answers once the heartbeat's records are written (the coordinator runtime's commit)
      const code = g === undefined ? ErrorCode.NONE : this.persist(g);
      if (code !== ErrorCode.NONE) throw new HeartbeatError(code, `Writing group ${req.groupId} to __consumer_offsets failed.`);
      // the upgraded classic group lets go of its members once the consumer group is written
      if (this.upgrading !== undefined) this.classic.detachForUpgrade(this.upgrading);
      return result;
    } catch (e) {
      if (!(e instanceof HeartbeatError)) throw e;
      this.rollback(req.groupId, before, snapshot);
      return { errorCode: e.code, errorMessage: e.message, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
    } finally {
      this.upgrading = undefined;
    }
  }

  /**
   * A failed heartbeat's changes undone (Kafka's coordinator runtime reverts its timeline state to
   * the last committed snapshot when a write fails): a group it created (or upgraded from a classic
   * group, which keeps its members) is dropped, an existing one goes back to `snapshot`.
   */
  private rollback(groupId: string, before: ConsumerGroup | undefined, snapshot: GroupSnapshot | undefined): void {
    const now = this.groups.get(groupId);
    if (before === undefined || snapshot === undefined) {
      if (now === undefined) return;
      for (const m of now.members.values()) m.cancelTimers();
      this.groups.delete(groupId);
      return;
    }
    if (now !== undefined && now !== before) for (const m of now.members.values()) m.cancelTimers();
    this.groups.set(groupId, before);
    this.revert(before, snapshot);
  }

  /** Puts `g` back to `snapshot`, re-arming the timers of the members it holds again. */
  revert(g: ConsumerGroup, snapshot: GroupSnapshot): void {
    for (const m of snapshot.revert()) {
      if (m.sessionTimer === undefined) this.scheduleSessionTimeout(g, m);
      if (m.state === 'UNREVOKED_PARTITIONS') {
        if (m.rebalanceTimer === undefined) this.scheduleRebalanceTimeout(g, m);
      } else {
        m.rebalanceTimer?.cancel();
        m.rebalanceTimer = undefined;
      }
    }
  }

  /** Runs a change of `g` that ends in its write (`change` answers the write's code); on an error the group is as before. */
  changeOrRevert(g: ConsumerGroup, change: () => number): number {
    const snapshot = new GroupSnapshot(g);
    const code = change();
    if (code !== ErrorCode.NONE && this.groups.get(g.groupId) === g) this.revert(g, snapshot);
    return code;
  }

  /** Kafka `throwIfConsumerGroupHeartbeatRequestIsInvalid`. */
  private validate(req: HeartbeatRequest, apiVersion: number): void {
    const invalid = (m: string): HeartbeatError => new HeartbeatError(ErrorCode.INVALID_REQUEST, m);
    if (req.groupId === '') throw invalid('GroupId can\'t be empty.');
    if (req.instanceId === '') throw invalid('InstanceId can\'t be empty.');
    if (req.rackId === '') throw invalid('RackId can\'t be empty.');
    if (req.memberId === '' && (apiVersion >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH)) throw invalid('MemberId can\'t be empty.');
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) throw invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
    } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (req.instanceId === null) throw invalid('InstanceId can\'t be null.');
    } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw invalid(`MemberEpoch is invalid: ${req.memberEpoch}.`);
    }
    if (req.serverAssignor !== null && !SERVER_ASSIGNORS.some((a) => a.name === req.serverAssignor)) {
      throw new HeartbeatError(ErrorCode.UNSUPPORTED_ASSIGNOR, `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${SERVER_ASSIGNORS.map((a) => a.name).join(', ')}.`);
    }
    if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== undefined) compileRegex(req.subscribedTopicRegex);
  }

  /**
   * The group for a joining (epoch 0) or known member. An empty classic group is converted (Kafka's
   * online upgrade of an empty group: the classic metadata goes, its committed offsets stay); a
   * classic group with members answers GROUP_ID_NOT_FOUND, as Kafka does when it cannot upgrade.
   */
  private groupFor(req: HeartbeatRequest): ConsumerGroup {
    let g = this.groups.get(req.groupId);
    if (g !== undefined) return g;
    const classic = this.classic.group(req.groupId);
    if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    if (classic !== undefined && !classic.is('Empty') && !classic.is('Dead')) {
      // KIP-848's online upgrade: the classic members stay, speaking their protocol inside the consumer group
      const upgraded = upgradeClassicGroup(this, classic);
      if (upgraded === undefined) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a consumer group.`);
      this.upgrading = classic;
      return upgraded;
    }
    g = new ConsumerGroup(req.groupId);
    g.replacesClassicGroup = classic !== undefined;
    this.groups.set(req.groupId, g);
    return g;
  }

  private join(req: HeartbeatRequest, ctx: HeartbeatContext): HeartbeatResult {
    const g = this.groupFor(req);
    let member: ConsumerGroupMember;
    try {
      member = this.memberFor(g, req, ctx);
    } catch (e) {
      // a refused first join leaves no empty group behind
      if (g.members.size === 0 && g.groupEpoch === 0) this.groups.delete(g.groupId);
      throw e;
    }
    const before = copyAssignment(member.assigned);

    // the updated member: a subscription change bumps the group epoch
    if (req.instanceId !== null) member.instanceId = req.instanceId;
    if (req.rackId !== null) member.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.serverAssignor !== null) member.serverAssignor = req.serverAssignor;
    member.clientId = ctx.clientId;
    member.clientHost = ctx.clientHost;
    if (ctx.canDescribeTopic !== undefined) member.canDescribeTopic = ctx.canDescribeTopic;
    // a new member changes the membership: the target must be recomputed
    let bump = !g.targets.has(member.memberId);
    if (req.subscribedTopicNames !== null && !sameNames(req.subscribedTopicNames, member.subscribedTopicNames)) {
      member.subscribedTopicNames = [...req.subscribedTopicNames];
      bump = true;
    }
    if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== member.subscribedTopicRegex) {
      member.subscribedTopicRegex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex;
      bump = true;
    }
    this.advance(g, member, bump, req.topicPartitions === null ? null : ownedFrom(req.topicPartitions));
    this.scheduleSessionTimeout(g, member);

    // Kafka answers the assignment on a full request or when it changed
    const full = req.memberEpoch === 0 || (req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.topicPartitions !== null);
    const changed = !sameAssignment(before, member.assigned);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.consumerHeartbeatIntervalMs,
      assignment: full || changed ? { topicPartitions: toTopicPartitions(member.assigned, (t) => this.topicById(t)?.topicIdBytes) } : null,
    };
  }

  /**
   * Kafka `consumerGroupHeartbeat` steps 1-3 after the member was updated (also for classic
   * members' JoinGroup, classic-members.ts): a changed subscription or partition count bumps the
   * group epoch, a group epoch ahead of the assignment epoch computes the target, and the member
   * takes one reconciliation step given what it owns.
   */
  advance(g: ConsumerGroup, member: ConsumerGroupMember, bump: boolean, owned: Assignment | null): void {
    // the subscribed topics' partition counts (created, deleted or grown topics bump the epoch too)
    const metadata = this.subscriptionMetadata(g);
    if (!sameCounts(metadata, g.subscriptionMetadata)) {
      g.subscriptionMetadata = metadata;
      bump = true;
    }
    if (bump) g.groupEpoch++;
    if (g.groupEpoch > g.assignmentEpoch) this.computeTargetAssignment(g);
    if (!member.isReconciledTo(g.assignmentEpoch)) this.reconcileMember(g, member, owned);
  }

  /** Kafka's member lookup with `throwIfMemberEpochIsInvalid` and the static-member rules. */
  private memberFor(g: ConsumerGroup, req: HeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupMember {
    const full = (): void => {
      if (g.members.size >= this.config.consumerMaxSize) throw new HeartbeatError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.config.consumerMaxSize} members.`);
    };
    if (req.instanceId !== null) {
      const existingId = g.staticMembers.get(req.instanceId);
      const existing = existingId === undefined ? undefined : g.members.get(existingId);
      if (req.memberEpoch === 0) {
        if (existing === undefined) {
          full();
          return this.newMember(g, req, ctx);
        }
        if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
          throw new HeartbeatError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${existing.memberId} with instance id ${req.instanceId} is not released yet.`);
        }
        // the new incarnation takes over the old one's target (Kafka `replaceMember`)
        const target = g.target(existing.memberId);
        g.removeMember(existing.memberId);
        const m = this.newMember(g, req, ctx);
        m.subscribedTopicNames = existing.subscribedTopicNames;
        m.subscribedTopicRegex = existing.subscribedTopicRegex;
        g.targets.set(m.memberId, target);
        return m;
      }
      if (existing === undefined) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
      if (existing.memberId !== req.memberId) throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Instance id ${req.instanceId} belongs to another member.`);
      checkEpoch(existing, req);
      return existing;
    }
    const existing = req.memberId === '' ? undefined : g.members.get(req.memberId);
    if (existing === undefined) {
      if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${g.groupId}.`);
      full();
      return this.newMember(g, req, ctx);
    }
    checkEpoch(existing, req);
    return existing;
  }

  private newMember(g: ConsumerGroup, req: HeartbeatRequest, ctx: HeartbeatContext): ConsumerGroupMember {
    // v0: the coordinator names the member; v1 clients bring their own id (KIP-1082)
    const m = new ConsumerGroupMember(ctx.apiVersion >= 1 || req.memberId !== '' ? req.memberId : randomUuid());
    m.previousMemberEpoch = 0;
    g.members.set(m.memberId, m);
    if (req.instanceId !== null) g.staticMembers.set(req.instanceId, m.memberId);
    return m;
  }

  subscriptionMetadata(g: ConsumerGroup): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of g.members.values()) for (const t of this.subscribedTopics(m)) out.set(t.topicId, t.partitions);
    return out;
  }

  /** The existing topics a member subscribes to, by name and by regex (full match, as RE2/J `matches`). */
  private subscribedTopics(m: ConsumerGroupMember): TopicInfo[] {
    const out = new Map<string, TopicInfo>();
    for (const n of m.subscribedTopicNames) {
      const t = this.classic.host.topics.get(n);
      if (t !== undefined) out.set(t.name, t);
    }
    if (m.subscribedTopicRegex !== null) {
      const re = compileRegex(m.subscribedTopicRegex);
      // internal topics are never matched by a subscription pattern (Kafka's consumer excludes them)
      for (const t of this.classic.host.topics.all()) if (!t.name.startsWith('__') && re.test(t.name) && m.canDescribeTopic(t.name)) out.set(t.name, t);
    }
    return [...out.values()];
  }

  /** The names of the topics the group's target was computed over (its subscription metadata). */
  subscribedTopicNames(g: ConsumerGroup): Set<string> {
    const out = new Set<string>();
    for (const id of g.subscriptionMetadata.keys()) {
      const t = this.topicById(id);
      if (t !== undefined) out.add(t.name);
    }
    return out;
  }

  topicById(topicId: string): TopicInfo | undefined {
    for (const t of this.classic.host.topics.all()) if (t.topicId === topicId) return t;
    return undefined;
  }

  /** Kafka `TargetAssignmentBuilder.build` with the group's preferred assignor (else the default). */
  computeTargetAssignment(g: ConsumerGroup): void {
    const assignor = SERVER_ASSIGNORS.find((a) => a.name === g.preferredAssignor()) ?? SERVER_ASSIGNORS[0];
    if (assignor === undefined) return;
    const members: AssignorMember[] = [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      topics: this.subscribedTopics(m).map((t) => t.topicId),
      target: g.target(m.memberId),
    }));
    const targets = assignor.assign(members, g.subscriptionMetadata);
    for (const m of g.members.values()) g.targets.set(m.memberId, targets.get(m.memberId) ?? emptyAssignment());
    g.assignmentEpoch = g.groupEpoch;
  }

  /** One `CurrentAssignmentBuilder` step; entering UNREVOKED_PARTITIONS arms the rebalance timeout. */
  reconcileMember(g: ConsumerGroup, m: ConsumerGroupMember, owned: Assignment | null): void {
    const next = reconcile(m.memberId, m, g.assignmentEpoch, g.target(m.memberId), owned, (t, p) => g.ownerOf(t, p));
    if (next.memberEpoch !== m.memberEpoch) m.previousMemberEpoch = m.memberEpoch;
    const wasUnrevoked = m.state === 'UNREVOKED_PARTITIONS';
    m.memberEpoch = next.memberEpoch;
    m.state = next.state;
    m.assigned = next.assigned;
    m.pendingRevocation = next.pendingRevocation;
    if (m.state === 'UNREVOKED_PARTITIONS' && !wasUnrevoked) {
      this.scheduleRebalanceTimeout(g, m);
    } else if (m.state !== 'UNREVOKED_PARTITIONS') {
      m.rebalanceTimer?.cancel();
      m.rebalanceTimer = undefined;
    }
  }

  private scheduleRebalanceTimeout(g: ConsumerGroup, m: ConsumerGroupMember): void {
    m.rebalanceTimer?.cancel();
    const epoch = m.memberEpoch;
    m.rebalanceTimer = this.timer.schedule(Math.max(0, m.rebalanceTimeoutMs), () => {
      // still not revoked at the same epoch: Kafka fences the member
      if (g.members.get(m.memberId) === m && m.memberEpoch === epoch && m.state === 'UNREVOKED_PARTITIONS') this.fenceOnTimeout(g, m, 'did not revoke within its rebalance timeout');
    });
  }

  /** (Re)starts the member's session timer: group.consumer.session.timeout.ms, or a classic member's own session timeout. */
  scheduleSessionTimeout(g: ConsumerGroup, m: ConsumerGroupMember): void {
    const timeoutMs = m.classic?.sessionTimeoutMs ?? this.config.consumerSessionTimeoutMs;
    if (m.sessionTimer !== undefined && m.sessionTimeoutMs === timeoutMs) {
      m.sessionTimer.refresh();
      return;
    }
    m.sessionTimer?.cancel();
    m.sessionTimeoutMs = timeoutMs;
    m.sessionTimer = this.timer.schedule(timeoutMs, () => {
      if (g.members.get(m.memberId) === m) this.fenceOnTimeout(g, m, `no heartbeat within its session timeout (${timeoutMs} ms)`);
    });
  }

  /** A timer fenced the member: written like a heartbeat's change. */
  fenceOnTimeout(g: ConsumerGroup, m: ConsumerGroupMember, why: string): void {
    this.classic.host.logger.info(`Member ${m.memberId} of consumer group ${g.groupId} is fenced: ${why}`);
    // a failed write leaves the member in (its session timer re-armed: Kafka's timer retries the operation)
    const code = this.changeOrRevert(g, () => this.fenceMember(g, m));
    if (code !== ErrorCode.NONE) this.classic.host.logger.warn(`writing group ${g.groupId} after fencing member ${m.memberId} failed (error ${code})`);
  }

  /**
   * Kafka `consumerGroupFenceMember`: when only classic members would stay, the group goes back to a
   * classic group (the online downgrade, migration.ts); otherwise the member is removed and the
   * group epoch bumped. Written before it returns; the write's error code.
   */
  fenceMember(g: ConsumerGroup, m: ConsumerGroupMember): number {
    if (downgradeAllowed(this, g, m.memberId)) return downgradeToClassic(this, g, m.memberId);
    this.fence(g, m);
    return this.persist(g);
  }

  /**
   * Writes the records that changed since the last write (records.ts); the error clients get when
   * the write fails (Kafka `storeGroupError` mapping), else NONE.
   */
  persist(g: ConsumerGroup): number {
    const records = groupRecords(g, (t) => this.topicById(t)?.name ?? '');
    const changed = changedRecords(g, records);
    // the upgrade from an empty classic group removes the classic metadata in the same batch
    const batch = g.replacesClassicGroup ? [{ key: groupMetadataKey(g.groupId), value: null }, ...changed.records] : changed.records;
    if (batch.length === 0) return ErrorCode.NONE;
    const code = this.classic.write(g.groupId, batch);
    if (code !== ErrorCode.NONE) return storeGroupError(code);
    g.replacesClassicGroup = false;
    adoptPersisted(g, records, changed.persisted);
    return ErrorCode.NONE;
  }

  /**
   * Removes an empty group and writes its tombstones (DeleteGroups, the downgrade of an empty group,
   * offsets expiry); the write's error code, the group kept when it fails.
   */
  deleteGroup(g: ConsumerGroup): number {
    const code = g.persistedRecords.size === 0 ? ErrorCode.NONE : this.classic.write(g.groupId, groupTombstones(g));
    if (code !== ErrorCode.NONE) return code;
    for (const m of g.members.values()) m.cancelTimers();
    this.groups.delete(g.groupId);
    return ErrorCode.NONE;
  }

  /**
   * A group loaded from its records (Kafka `replay`, then `onLoaded`): members keep their ids,
   * epochs and assignments, and each gets its session timeout again, so a member that does not
   * come back after a restart is fenced as Kafka fences it; one still revoking gets its rebalance
   * timeout too.
   */
  restore(groupId: string, stored: StoredConsumerGroup): ConsumerGroup {
    const g = restoreGroup(groupId, stored);
    this.groups.set(groupId, g);
    for (const m of g.members.values()) {
      this.scheduleSessionTimeout(g, m);
      if (m.state === 'UNREVOKED_PARTITIONS') this.scheduleRebalanceTimeout(g, m);
    }
    return g;
  }

  /** Removes a member and bumps the group epoch so the others get its partitions (Kafka `fenceMember`). */
  private fence(g: ConsumerGroup, m: ConsumerGroupMember): void {
    g.removeMember(m.memberId);
    g.groupEpoch++;
    g.subscriptionMetadata = this.subscriptionMetadata(g);
    // the remaining members get the new target on their next heartbeat
  }

  /** Epoch −1 leaves; −2 (static) keeps the member and its target for the next incarnation. */
  private leave(req: HeartbeatRequest): HeartbeatResult {
    const g = this.groups.get(req.groupId);
    if (g === undefined) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    let m: ConsumerGroupMember | undefined;
    if (req.instanceId !== null) {
      const id = g.staticMembers.get(req.instanceId);
      m = id === undefined ? undefined : g.members.get(id);
      if (m === undefined) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
      if (m.memberId !== req.memberId) throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Instance id ${req.instanceId} belongs to another member.`);
    } else {
      m = g.members.get(req.memberId);
      if (m === undefined) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${g.groupId}.`);
    }
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // the partitions are released; the target stays for the instance's next incarnation
      m.memberEpoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
      m.assigned = emptyAssignment();
      m.pendingRevocation = emptyAssignment();
      m.rebalanceTimer?.cancel();
      this.scheduleSessionTimeout(g, m);
    } else {
      const code = this.fenceMember(g, m);
      if (code !== ErrorCode.NONE) throw new HeartbeatError(code, `Writing group ${g.groupId} to __consumer_offsets failed.`);
    }
    return { errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null };
  }

  /**
   * Kafka `ConsumerGroup.validateOffsetCommit`: an empty group takes a commit with a negative
   * epoch; otherwise the member must exist, commit with OffsetCommit v9+ (below v9 only
   * transactionally), at its current epoch. Undefined when the group is not a consumer group.
   */
  validateOffsetCommit(groupId: string, memberId: string, memberEpoch: number, apiVersion: number, transactional: boolean): number | undefined {
    const g = this.groups.get(groupId);
    if (g === undefined) return undefined;
    if (memberEpoch < 0 && g.members.size === 0) return ErrorCode.NONE;
    const m = g.members.get(memberId);
    if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    // a classic member commits with its generation (its member epoch), in any version (Kafka `validateMemberEpoch`)
    if (m.classic !== null) return memberEpoch === m.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
    if (!transactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** Kafka `ConsumerGroup.validateOffsetFetch` (OffsetFetch v9+ with a member id or epoch). */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const g = this.groups.get(groupId);
    if (g === undefined || (memberId === null && memberEpoch < 0)) return ErrorCode.NONE;
    const m = memberId === null ? undefined : g.members.get(memberId);
    if (m === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /**
   * A classic JoinGroup for a group id held by an empty consumer group: the group is removed (the
   * empty-group downgrade). A consumer group with members takes the classic member in
   * (classic-members.ts); this answers INCONSISTENT_GROUP_PROTOCOL for it as a last resort.
   */
  classicJoinError(groupId: string): number {
    const g = this.groups.get(groupId);
    if (g === undefined) return ErrorCode.NONE;
    if (g.members.size > 0) return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    const code = this.deleteGroup(g);
    return code === ErrorCode.NONE ? code : storeGroupError(code);
  }

  /** Assignments with topic names, for ConsumerGroupDescribe. */
  describeAssignment(a: Assignment): { topicId: Buffer; topicName: string; partitions: number[] }[] {
    return toTopicPartitions(a, (t) => this.topicById(t)?.topicIdBytes).map((tp) => {
      const info = this.topicById(uuidKey(tp.topicId));
      return { topicId: tp.topicId, topicName: info?.name ?? '', partitions: tp.partitions };
    });
  }

  /** The assignor a describe names: the preferred one, else the default. */
  assignorName(g: ConsumerGroup): string {
    return g.preferredAssignor() ?? SERVER_ASSIGNORS[0]?.name ?? 'uniform';
  }

  close(): void {
    for (const g of this.groups.values()) for (const m of g.members.values()) m.cancelTimers();
  }
}

function checkEpoch(m: ConsumerGroupMember, req: HeartbeatRequest): void {
  if (req.memberEpoch > m.memberEpoch) {
    throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a greater member epoch (${req.memberEpoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
  if (req.memberEpoch < m.memberEpoch) {
    // the answer carrying the bump may have been lost: the previous epoch is accepted while the
    // member owns no more than its assignment
    const owned = req.topicPartitions === null ? null : ownedFrom(req.topicPartitions);
    const subset = owned !== null && [...owned].every(([t, ps]) => [...ps].every((p) => m.assigned.get(t)?.has(p) ?? false));
    if (req.memberEpoch !== m.previousMemberEpoch || !subset) {
      throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a smaller member epoch (${req.memberEpoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    }
  }
}

function ownedFrom(tps: readonly { topicId: Buffer; partitions: number[] }[]): Assignment {
  const a = emptyAssignment();
  for (const tp of tps) for (const p of tp.partitions) addPartition(a, uuidKey(tp.topicId), p);
  return a;
}

/** The topic registry's Uuid string of 16 id bytes. */
function uuidKey(id: Buffer): string {
  return uuidToString(id);
}

function compileRegex(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch {
    // Kafka 4.0 answers INVALID_REGULAR_EXPRESSION (128), absent from the generated error table
    throw new HeartbeatError(ErrorCode.INVALID_REQUEST, `SubscribedTopicRegex ${source} is not a valid regular expression.`);
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
