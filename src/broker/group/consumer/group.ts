/**
 * A KIP-848 consumer group (Kafka `modern/consumer/ConsumerGroup`): the group epoch, the target
 * assignment and its epoch, the members (static ones also by instance id), the partition counts of
 * the subscribed topics the target was computed from, and the state derived from them.
 */
import { emptyAssignment, hasPartition, type Assignment } from './assignment.js';
import type { ConsumerGroupMember } from './member.js';
import type { ConsumerGroupRecord } from '../../../internal-topics/consumer-group-records.js';

/** Kafka `ConsumerGroup.ConsumerGroupState`, capitalised as ConsumerGroupDescribe and ListGroups show it. */
export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** member id → target assignment. */
  readonly targets = new Map<string, Assignment>();
  /** Subscribed topic id → partition count, as of the last epoch bump (Kafka's subscription metadata). */
  subscriptionMetadata = new Map<string, number>();
  /** What `__consumer_offsets` holds for the group: record slot → value bytes, and the records (records.ts). */
  persisted = new Map<string, Buffer>();
  persistedRecords = new Map<string, ConsumerGroupRecord>();
  /** Created from an empty classic group: its GroupMetadata record gets a tombstone with the first write (Kafka's online upgrade). */
  replacesClassicGroup = false;

  constructor(readonly groupId: string) {}

  /** Kafka `ConsumerGroup.maybeUpdateGroupState`. */
  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!m.isReconciledTo(this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  target(memberId: string): Assignment {
    return this.targets.get(memberId) ?? emptyAssignment();
  }

  /** The member owning a partition now (assigned or pending revocation; Kafka's partition epochs). */
  ownerOf(topicId: string, partition: number): string | undefined {
    for (const m of this.members.values()) {
      if (hasPartition(m.assigned, topicId, partition) || hasPartition(m.pendingRevocation, topicId, partition)) return m.memberId;
    }
    return undefined;
  }

  /** The most common server assignor among members (Kafka `ConsumerGroup.computePreferredServerAssignor`), else undefined. */
  preferredAssignor(): string | undefined {
    const counts = new Map<string, number>();
    for (const m of this.members.values()) if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | undefined;
    let n = 0;
    for (const [a, c] of counts) if (c > n) (best = a), (n = c);
    return best;
  }

  removeMember(memberId: string): void {
    const m = this.members.get(memberId);
    if (m === undefined) return;
    m.cancelTimers();
    this.members.delete(memberId);
    this.targets.delete(memberId);
    if (m.instanceId !== null && this.staticMembers.get(m.instanceId) === memberId) this.staticMembers.delete(m.instanceId);
  }
}
