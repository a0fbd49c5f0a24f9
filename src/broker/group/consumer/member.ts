/**
 * A KIP-848 member (Kafka `ConsumerGroupMember` and `MemberState`): its epochs, subscription, the
 * partitions it owns now (assigned, and pending revocation) and the reconciliation state.
 */
import type { TimerTask } from '../../timer.js';
import type { GroupProtocol } from '../member.js';
import { emptyAssignment, type Assignment } from './assignment.js';

/** Kafka `MemberState` (the int8 of ConsumerGroupCurrentMemberAssignmentValue). */
export type MemberState = 'STABLE' | 'UNREVOKED_PARTITIONS' | 'UNRELEASED_PARTITIONS' | 'UNKNOWN';

/** Member epoch −1: leave the group; −2: a static member leaves temporarily (KIP-848). */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export class ConsumerGroupMember {
  memberEpoch = 0;
  previousMemberEpoch = -1;
  state: MemberState = 'STABLE';
  instanceId: string | null = null;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  rebalanceTimeoutMs = -1;
  subscribedTopicNames: string[] = [];
  subscribedTopicRegex: string | null = null;
  serverAssignor: string | null = null;
  /**
   * Whether the principal of the member's latest heartbeat may DESCRIBE a topic: the topics its
   * regex matches are filtered by it, as Kafka's `GroupMetadataManager.refreshRegularExpressions`
   * filters a group's resolved regexes with the triggering heartbeat's context
   * (`filterTopicDescribeAuthorizedTopics`). Everything without an authorizer.
   */
  canDescribeTopic: (topic: string) => boolean = () => true;
  assigned: Assignment = emptyAssignment();
  pendingRevocation: Assignment = emptyAssignment();
  /** Fences the member when no heartbeat arrives within the session timeout. */
  sessionTimer: TimerTask | undefined;
  /** The delay `sessionTimer` was armed with. */
  sessionTimeoutMs = 0;
  /** Fences the member when it does not revoke within its rebalance timeout (UNREVOKED_PARTITIONS). */
  rebalanceTimer: TimerTask | undefined;
  /**
   * A member speaking the classic protocol (JoinGroup/SyncGroup/Heartbeat) inside the consumer
   * group (KIP-848 online migration): its session timeout and JoinGroup protocols (Kafka
   * `ConsumerGroupMember.classicMemberMetadata`); null for a consumer-protocol member.
   */
  classic: { sessionTimeoutMs: number; protocols: GroupProtocol[] } | null = null;
  /** A classic member's join or sync deadline (Kafka's consumer-group join and sync timeouts). */
  classicTimer: TimerTask | undefined;

  constructor(readonly memberId: string) {}

  /** Kafka `ConsumerGroupMember.isReconciledTo`. */
  isReconciledTo(assignmentEpoch: number): boolean {
    return this.state === 'STABLE' && this.memberEpoch === assignmentEpoch;
  }

  cancelTimers(): void {
    this.sessionTimer?.cancel();
    this.rebalanceTimer?.cancel();
    this.classicTimer?.cancel();
    this.sessionTimer = undefined;
    this.rebalanceTimer = undefined;
    this.classicTimer = undefined;
  }
}
