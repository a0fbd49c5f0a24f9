/**
 * One reconciliation step of a member towards its target (Kafka `CurrentAssignmentBuilder`):
 * revoke before assign. A partition the member must give up stays "pending revocation" until a
 * heartbeat shows the member no longer owns it; a partition of the target still owned by another
 * member (assigned or pending revocation) is withheld, the member is UNRELEASED_PARTITIONS, and it
 * gets the partition on a later heartbeat once the previous owner released it.
 */
import { intersect, isEmpty, minus, overlaps, union, addPartition, emptyAssignment, type Assignment } from './assignment.js';
import type { MemberState } from './member.js';

export interface ReconcileInput {
  readonly memberEpoch: number;
  readonly state: MemberState;
  readonly assigned: Assignment;
  readonly pendingRevocation: Assignment;
}

export interface ReconcileResult {
  memberEpoch: number;
  state: MemberState;
  assigned: Assignment;
  pendingRevocation: Assignment;
}

/**
 * `ownedPartitions`: what the request reports (null = not reported); `ownerOf(t, p)`: the member id
 * currently owning the partition, if any, at any epoch.
 */
export function reconcile(
  memberId: string,
  current: ReconcileInput,
  targetEpoch: number,
  target: Assignment,
  ownedPartitions: Assignment | null,
  ownerOf: (topicId: string, partition: number) => string | undefined,
): ReconcileResult {
  switch (current.state) {
    case 'STABLE':
      if (current.memberEpoch !== targetEpoch) return computeNext(memberId, current.memberEpoch, current.assigned, targetEpoch, target, ownedPartitions, ownerOf);
      return { ...current };
    case 'UNREVOKED_PARTITIONS':
      // still owned: keep waiting (Kafka checks the reported list against the pending revocation)
      if (ownedPartitions === null || overlaps(current.pendingRevocation, ownedPartitions)) return { ...current };
      return computeNext(memberId, current.memberEpoch + 1, current.assigned, targetEpoch, target, ownedPartitions, ownerOf);
    case 'UNRELEASED_PARTITIONS':
      return computeNext(memberId, current.memberEpoch, current.assigned, targetEpoch, target, ownedPartitions, ownerOf);
    case 'UNKNOWN':
      return { ...current };
  }
}

/** Kafka `CurrentAssignmentBuilder.computeNextAssignment`. */
function computeNext(
  memberId: string,
  epoch: number,
  current: Assignment,
  targetEpoch: number,
  target: Assignment,
  owned: Assignment | null,
  ownerOf: (topicId: string, partition: number) => string | undefined,
): ReconcileResult {
  const keep = intersect(current, target);
  const revoke = minus(current, keep);
  const pendingAssign = emptyAssignment();
  let withheld = false;
  for (const [t, ps] of minus(target, keep)) {
    for (const p of ps) {
      const owner = ownerOf(t, p);
      if (owner !== undefined && owner !== memberId) withheld = true;
      else addPartition(pendingAssign, t, p);
    }
  }
  if (!isEmpty(revoke) && (owned === null || overlaps(revoke, owned))) {
    return { memberEpoch: epoch, state: 'UNREVOKED_PARTITIONS', assigned: keep, pendingRevocation: revoke };
  }
  if (!isEmpty(pendingAssign)) {
    return { memberEpoch: targetEpoch, state: withheld ? 'UNRELEASED_PARTITIONS' : 'STABLE', assigned: union(keep, pendingAssign), pendingRevocation: emptyAssignment() };
  }
  if (withheld) return { memberEpoch: targetEpoch, state: 'UNRELEASED_PARTITIONS', assigned: keep, pendingRevocation: emptyAssignment() };
  return { memberEpoch: targetEpoch, state: 'STABLE', assigned: keep, pendingRevocation: emptyAssignment() };
}
