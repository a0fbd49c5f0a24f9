/**
 * A classic consumer group's state (Kafka `ClassicGroup` / `GroupMetadata`): the state machine
 * Empty → PreparingRebalance → CompletingRebalance → Stable (and Dead), the generation, the
 * selected protocol and leader, the members (static ones also indexed by group.instance.id), the
 * members told MEMBER_ID_REQUIRED that have not rejoined yet, and the committed offsets.
 */
import { ConsumerProtocolSubscription } from '../../protocol/schemas/internal/consumer-protocol.js';
import { CONSUMER_PROTOCOL_TYPE, decodeConsumerProtocol } from '../../internal-topics/consumer-protocol.js';
import type { TimerTask } from '../timer.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { GroupMember, GroupProtocol } from './member.js';
import type { OffsetAndMetadata } from '../../internal-topics/offsets.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** Kafka `ClassicGroupState.validPreviousStates`. */
const VALID_PREVIOUS: Readonly<Record<GroupState, readonly GroupState[]>> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export class ClassicGroup {
  state: GroupState = 'Empty';
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  currentStateTimestamp: bigint;
  readonly members = new Map<string, GroupMember>();
  /** group.instance.id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED (KIP-394), expiring after the session timeout. */
  readonly pendingMembers = new Map<string, TimerTask>();
  /** Members that must still SyncGroup in this generation (Kafka `pendingSyncMembers`). */
  readonly pendingSync = new Set<string>();
  /** topic → partition → committed offset. */
  readonly offsets = new Map<string, Map<number, OffsetAndMetadata>>();
  /** A member joined since the initial delayed join was scheduled (Kafka `newMemberAdded`). */
  newMemberAdded = false;
  /** The running delayed join / pending-sync timer. */
  joinTimer: TimerTask | undefined;
  syncTimer: TimerTask | undefined;
  /** Delayed join is the initial one (completes only by its timer). */
  initialJoin = false;

  constructor(
    readonly groupId: string,
    now: number,
  ) {
    this.currentStateTimestamp = BigInt(now);
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: GroupState, now = Date.now()): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`Group ${this.groupId} should be in one of ${VALID_PREVIOUS[state].join(', ')} before moving to ${state}, not ${this.state}`);
    }
    this.state = state;
    this.currentStateTimestamp = BigInt(now);
  }

  get isEmpty(): boolean {
    return this.members.size === 0;
  }

  add(member: GroupMember): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
  }

  remove(memberId: string): GroupMember | undefined {
    const m = this.members.get(memberId);
    if (m === undefined) return undefined;
    m.stopSessionTimer();
    this.members.delete(memberId);
    this.pendingSync.delete(memberId);
    if (m.groupInstanceId !== null && this.staticMembers.get(m.groupInstanceId) === memberId) this.staticMembers.delete(m.groupInstanceId);
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
    return m;
  }

  /** A static member rejoining with a new member id takes the old member's place (Kafka `replaceStaticMember`). */
  replaceStaticMember(oldMemberId: string, newMemberId: string): GroupMember {
    const m = this.members.get(oldMemberId)!;
    this.members.delete(oldMemberId);
    this.pendingSync.delete(oldMemberId);
    m.memberId = newMemberId;
    this.members.set(newMemberId, m);
    this.staticMembers.set(m.groupInstanceId!, newMemberId);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    return m;
  }

  /** The instance id is known but names another member id (Kafka `isStaticMemberFenced`). */
  isStaticMemberFenced(memberId: string, groupInstanceId: string | null): boolean {
    if (groupInstanceId === null) return false;
    const current = this.staticMembers.get(groupInstanceId);
    return current !== undefined && current !== memberId;
  }

  /**
   * Kafka's `ClassicGroup.validateOffsetCommit` (the error code, NONE to accept), in its order: a
   * dead group; generation -1 to an empty group (an admin client or a consumer without group
   * management); with member data, the member (static id first: unknown or fenced) and then the
   * generation; without any, a plain commit only to an empty group; and last, for a plain commit,
   * REBALANCE_IN_PROGRESS while the group completes its rebalance. Transactional commits (older
   * versions carry no member data) are not held to the group's state.
   */
  offsetCommitError(memberId: string, groupInstanceId: string | null, generationId: number, isTransactional: boolean): number {
    if (this.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (generationId < 0 && this.is('Empty')) return ErrorCode.NONE;
    if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
      if (groupInstanceId !== null) {
        const existing = this.staticMembers.get(groupInstanceId);
        if (existing === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
        if (existing !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      }
      if (!this.members.has(memberId)) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (generationId !== this.generationId) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!isTransactional && !this.is('Empty')) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (!isTransactional && this.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  /** Protocols every member supports (Kafka `candidateProtocols`). */
  candidateProtocols(): Set<string> {
    let out: Set<string> | undefined;
    for (const m of this.members.values()) {
      const names = new Set(m.protocols.map((p) => p.name));
      out = out === undefined ? names : new Set([...out].filter((n) => names.has(n)));
    }
    return out ?? new Set();
  }

  /** Whether a joining member fits the group (Kafka `supportsProtocols`). */
  supportsProtocols(protocolType: string, protocols: readonly GroupProtocol[]): boolean {
    if (this.isEmpty) return protocolType !== '' && protocols.length > 0;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Each member votes for its preferred candidate; the most votes wins (Kafka `selectProtocol`). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      if (v !== undefined) votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best: string | undefined;
    for (const [name, n] of votes) if (best === undefined || n > votes.get(best)!) best = name;
    if (best === undefined) throw new Error(`group ${this.groupId} has no protocol every member supports`);
    return best;
  }

  /** Every member awaits its JoinGroup answer and no MEMBER_ID_REQUIRED member is outstanding. */
  hasAllMembersJoined(): boolean {
    for (const m of this.members.values()) if (m.awaitingJoin === undefined) return false;
    return this.pendingMembers.size === 0;
  }

  /** Largest rebalance timeout of the members (Kafka `rebalanceTimeoutMs`). */
  rebalanceTimeoutMs(): number {
    let t = 0;
    for (const m of this.members.values()) t = Math.max(t, m.rebalanceTimeoutMs);
    return t;
  }

  /**
   * Topics the members subscribe to, read from their consumer protocol metadata (Kafka
   * `computeSubscribedTopics`); undefined when not a consumer group or a subscription is unreadable.
   */
  subscribedTopics(): Set<string> | undefined {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE || this.protocolName === null) return undefined;
    const out = new Set<string>();
    for (const m of this.members.values()) {
      const meta = m.metadataFor(this.protocolName);
      const sub = decodeConsumerProtocol<{ topics: string[] }>(ConsumerProtocolSubscription, meta, 'read-as-newest');
      if (sub === undefined) return undefined;
      for (const t of sub.value.topics) out.add(t);
    }
    return out;
  }

  offset(topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.offsets.get(topic)?.get(partition);
  }

  setOffset(topic: string, partition: number, o: OffsetAndMetadata): void {
    let t = this.offsets.get(topic);
    if (t === undefined) this.offsets.set(topic, (t = new Map()));
    t.set(partition, o);
  }

  deleteOffset(topic: string, partition: number): boolean {
    const t = this.offsets.get(topic);
    if (t === undefined || !t.delete(partition)) return false;
    if (t.size === 0) this.offsets.delete(topic);
    return true;
  }
}
