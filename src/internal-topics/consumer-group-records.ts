/**
 * The KIP-848 consumer-group records of `__consumer_offsets` (Kafka 4.0
 * `GroupCoordinatorRecordHelpers` and `GroupCoordinatorRecordSerde`): key versions 3-8 name the
 * record, the value is version 0 of its flexible schema.
 *
 * | key | record | per |
 * |---|---|---|
 * | 3 | ConsumerGroupMetadata (the group epoch) | group |
 * | 4 | ConsumerGroupPartitionMetadata (subscribed topics' partition counts) | group |
 * | 5 | ConsumerGroupMemberMetadata (subscription, client, timeouts) | member |
 * | 6 | ConsumerGroupTargetAssignmentMetadata (the assignment epoch) | group |
 * | 7 | ConsumerGroupTargetAssignmentMember (a member's target) | member |
 * | 8 | ConsumerGroupCurrentMemberAssignment (epochs, state, owned and revoking partitions) | member |
 *
 * A null value is the record's tombstone. `replayConsumerGroup` folds the live records of one
 * group into what the coordinator rebuilds at load (Kafka `GroupMetadataManager.replay`).
 */
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMemberMetadataValue,
  ConsumerGroupMetadataKey,
  ConsumerGroupMetadataValue,
  ConsumerGroupPartitionMetadataKey,
  ConsumerGroupPartitionMetadataValue,
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMemberValue,
  ConsumerGroupTargetAssignmentMetadataKey,
  ConsumerGroupTargetAssignmentMetadataValue,
  type TopicMetadata,
  type TopicPartitions,
} from '../protocol/schemas/internal/group-coordinator.js';
import type { MessageSchema } from '../protocol/schema.js';
import { encodeVersionPrefixed } from './version-prefixed.js';

// The records' values are the generated message types (Kafka's JSON); these names are the ones the
// coordinator uses for them.
/** Topic id (16 bytes) and partitions, the shape every assignment field of these records uses. */
export type StoredTopicPartitions = TopicPartitions;
export type StoredTopicMetadata = TopicMetadata;
/** `classicMemberMetadata` is present for a classic member of a consumer group (its session timeout and JoinGroup protocols). */
export type StoredMemberMetadata = ConsumerGroupMemberMetadataValue;
/** `state` is Kafka's `MemberState.value()`: 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS, 127 UNKNOWN. */
export type StoredCurrentAssignment = ConsumerGroupCurrentMemberAssignmentValue;

/** One consumer-group record of a group; `value` null is its tombstone. */
export type ConsumerGroupRecord =
  | { kind: 'groupEpoch'; value: { epoch: number } | null }
  | { kind: 'partitionMetadata'; value: { topics: StoredTopicMetadata[] } | null }
  | { kind: 'memberMetadata'; memberId: string; value: StoredMemberMetadata | null }
  | { kind: 'targetEpoch'; value: { assignmentEpoch: number } | null }
  | { kind: 'targetMember'; memberId: string; value: { topicPartitions: StoredTopicPartitions[] } | null }
  | { kind: 'currentAssignment'; memberId: string; value: StoredCurrentAssignment | null };

export type ConsumerGroupRecordKind = ConsumerGroupRecord['kind'];

interface KindFormat {
  keyVersion: number;
  key: MessageSchema;
  value: MessageSchema;
}

/** Kafka's key versions (the record types of `CoordinatorRecordType`) and schemas, by kind. */
export const CONSUMER_GROUP_RECORD_FORMATS: { readonly [k in ConsumerGroupRecordKind]: KindFormat } = {
  groupEpoch: { keyVersion: 3, key: ConsumerGroupMetadataKey, value: ConsumerGroupMetadataValue },
  partitionMetadata: { keyVersion: 4, key: ConsumerGroupPartitionMetadataKey, value: ConsumerGroupPartitionMetadataValue },
  memberMetadata: { keyVersion: 5, key: ConsumerGroupMemberMetadataKey, value: ConsumerGroupMemberMetadataValue },
  targetEpoch: { keyVersion: 6, key: ConsumerGroupTargetAssignmentMetadataKey, value: ConsumerGroupTargetAssignmentMetadataValue },
  targetMember: { keyVersion: 7, key: ConsumerGroupTargetAssignmentMemberKey, value: ConsumerGroupTargetAssignmentMemberValue },
  currentAssignment: { keyVersion: 8, key: ConsumerGroupCurrentMemberAssignmentKey, value: ConsumerGroupCurrentMemberAssignmentValue },
};

/** The kind a key version names, or undefined (not a consumer-group record). */
export function consumerGroupRecordKind(keyVersion: number): ConsumerGroupRecordKind | undefined {
  return KINDS.find((k) => CONSUMER_GROUP_RECORD_FORMATS[k].keyVersion === keyVersion);
}

const KINDS: readonly ConsumerGroupRecordKind[] = ['groupEpoch', 'partitionMetadata', 'memberMetadata', 'targetEpoch', 'targetMember', 'currentAssignment'];

/** Value schema version Kafka 4.0 writes for every one of these records. */
const VALUE_VERSION = 0;

function memberIdOf(r: ConsumerGroupRecord): string | null {
  return 'memberId' in r ? r.memberId : null;
}

/** What identifies the record's key inside one group: kind and member. */
export function recordSlot(r: ConsumerGroupRecord): string {
  const m = memberIdOf(r);
  return m === null ? r.kind : `${r.kind}\u0000${m}`;
}

export function consumerGroupRecordKey(groupId: string, r: ConsumerGroupRecord): Buffer {
  const f = CONSUMER_GROUP_RECORD_FORMATS[r.kind];
  const m = memberIdOf(r);
  return encodeVersionPrefixed(f.key, f.keyVersion, m === null ? { groupId } : { groupId, memberId: m });
}

export function consumerGroupRecordValue(r: ConsumerGroupRecord): Buffer | null {
  return r.value === null ? null : encodeVersionPrefixed(CONSUMER_GROUP_RECORD_FORMATS[r.kind].value, VALUE_VERSION, r.value);
}

/** A group as its live consumer-group records leave it (the input of the coordinator's load). */
export interface StoredConsumerGroup {
  groupEpoch: number;
  assignmentEpoch: number;
  topics: StoredTopicMetadata[];
  /** Members by id: a member exists once its metadata or current assignment record does (Kafka `getOrMaybeCreateMember`). */
  members: Map<string, { metadata: StoredMemberMetadata | null; current: StoredCurrentAssignment | null }>;
  /** Target assignments by member id (a target may outlive its member until the next epoch). */
  targets: Map<string, StoredTopicPartitions[]>;
}

/**
 * Folds one group's records, in log order, into its state: the last record per key wins and a
 * tombstone removes it. Undefined when no record is left (the group was deleted).
 */
export function replayConsumerGroup(records: Iterable<ConsumerGroupRecord>): StoredConsumerGroup | undefined {
  const live = new Map<string, ConsumerGroupRecord>();
  for (const r of records) {
    if (r.value === null) live.delete(recordSlot(r));
    else live.set(recordSlot(r), r);
  }
  if (live.size === 0) return undefined;
  const g: StoredConsumerGroup = { groupEpoch: 0, assignmentEpoch: 0, topics: [], members: new Map(), targets: new Map() };
  const member = (id: string): { metadata: StoredMemberMetadata | null; current: StoredCurrentAssignment | null } => {
    let m = g.members.get(id);
    if (m === undefined) g.members.set(id, (m = { metadata: null, current: null }));
    return m;
  };
  for (const r of live.values()) {
    switch (r.kind) {
      case 'groupEpoch':
        g.groupEpoch = r.value?.epoch ?? 0;
        break;
      case 'partitionMetadata':
        g.topics = r.value?.topics ?? [];
        break;
      case 'targetEpoch':
        g.assignmentEpoch = r.value?.assignmentEpoch ?? 0;
        break;
      case 'memberMetadata':
        member(r.memberId).metadata = r.value;
        break;
      case 'currentAssignment':
        member(r.memberId).current = r.value;
        break;
      case 'targetMember':
        if (r.value !== null) g.targets.set(r.memberId, r.value.topicPartitions);
        break;
    }
  }
  return g;
}

/** The records that write `g` back (the inverse of `replayConsumerGroup`, up to record order). */
export function storedConsumerGroupRecords(g: StoredConsumerGroup): ConsumerGroupRecord[] {
  const out: ConsumerGroupRecord[] = [{ kind: 'groupEpoch', value: { epoch: g.groupEpoch } }, { kind: 'partitionMetadata', value: { topics: g.topics } }];
  for (const [memberId, m] of g.members) if (m.metadata !== null) out.push({ kind: 'memberMetadata', memberId, value: m.metadata });
  for (const [memberId, t] of g.targets) out.push({ kind: 'targetMember', memberId, value: { topicPartitions: t } });
  out.push({ kind: 'targetEpoch', value: { assignmentEpoch: g.assignmentEpoch } });
  for (const [memberId, m] of g.members) if (m.current !== null) out.push({ kind: 'currentAssignment', memberId, value: m.current });
  return out;
}

/**
 * The order Kafka writes a change in, so that Kafka's own replay accepts the batch: tombstones
 * first, a member's current assignment and target before its metadata and the group's epochs last
 * (`createGroupTombstoneRecords`, `removeMember`); then new values, subscriptions and epoch before
 * the target, the target before the members' current assignments (`consumerGroupHeartbeat`).
 */
const TOMBSTONE_ORDER: readonly ConsumerGroupRecordKind[] = ['currentAssignment', 'targetMember', 'targetEpoch', 'memberMetadata', 'partitionMetadata', 'groupEpoch'];
const VALUE_ORDER: readonly ConsumerGroupRecordKind[] = ['memberMetadata', 'partitionMetadata', 'groupEpoch', 'targetMember', 'targetEpoch', 'currentAssignment'];

export function inWriteOrder(records: readonly ConsumerGroupRecord[]): ConsumerGroupRecord[] {
  const rank = (r: ConsumerGroupRecord): number => (r.value === null ? TOMBSTONE_ORDER.indexOf(r.kind) : TOMBSTONE_ORDER.length + VALUE_ORDER.indexOf(r.kind));
  return [...records].sort((a, b) => rank(a) - rank(b));
}
