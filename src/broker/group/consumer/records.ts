/**
 * A consumer group in memory ⇄ its `__consumer_offsets` records (Kafka `GroupCoordinatorRecordHelpers`
 * and `GroupMetadataManager.replay` / `onLoaded`). Kafka writes a record for each change a heartbeat
 * makes; here the coordinator computes the group's records after each change and writes those whose
 * value differs from what it last wrote (`ConsumerGroup.persisted`), tombstones for those gone, in
 * the order Kafka's replay accepts (`inWriteOrder`). A heartbeat that changes nothing writes nothing.
 */
import {
  consumerGroupRecordKey,
  consumerGroupRecordValue,
  inWriteOrder,
  recordSlot,
  storedConsumerGroupRecords,
  type ConsumerGroupRecord,
  type StoredConsumerGroup,
  type StoredCurrentAssignment,
  type StoredTopicPartitions,
} from '../../../internal-topics/consumer-group-records.js';
import { parseUuid, uuidToString } from '../../../storage/uuid.js';
import type { OffsetsRecord } from '../offsets-topic.js';
import { addPartition, emptyAssignment, type Assignment } from './assignment.js';
import { ConsumerGroup } from './group.js';
import { ConsumerGroupMember, type MemberState } from './member.js';

/** Kafka `MemberState.value()`. */
const MEMBER_STATE_VALUES: { readonly [s in MemberState]: number } = { STABLE: 0, UNREVOKED_PARTITIONS: 1, UNRELEASED_PARTITIONS: 2, UNKNOWN: 127 };

const MEMBER_STATES: readonly MemberState[] = ['STABLE', 'UNREVOKED_PARTITIONS', 'UNRELEASED_PARTITIONS', 'UNKNOWN'];

/** Kafka `MemberState.fromValue`: a value this version does not know is UNKNOWN. */
function memberState(value: number): MemberState {
  return MEMBER_STATES.find((s) => MEMBER_STATE_VALUES[s] === value) ?? 'UNKNOWN';
}

function toStored(a: Assignment): StoredTopicPartitions[] {
  return [...a.keys()]
    .sort()
    .flatMap((t) => {
      const ps = [...(a.get(t) ?? [])].sort((x, y) => x - y);
      return ps.length === 0 ? [] : [{ topicId: parseUuid(t), partitions: ps }];
    });
}

function fromStored(tps: readonly StoredTopicPartitions[]): Assignment {
  const a = emptyAssignment();
  for (const tp of tps) for (const p of tp.partitions) addPartition(a, uuidToString(tp.topicId), p);
  return a;
}

/** The group's records as Kafka would have written them; `topicName` names a subscribed topic id. */
export function groupRecords(g: ConsumerGroup, topicName: (topicId: string) => string): ConsumerGroupRecord[] {
  const out: ConsumerGroupRecord[] = [
    { kind: 'groupEpoch', value: { epoch: g.groupEpoch } },
    {
      kind: 'partitionMetadata',
      value: {
        topics: [...g.subscriptionMetadata.keys()].sort().map((t) => ({ topicId: parseUuid(t), topicName: topicName(t), numPartitions: g.subscriptionMetadata.get(t) ?? 0, partitionMetadata: [] })),
      },
    },
    { kind: 'targetEpoch', value: { assignmentEpoch: g.assignmentEpoch } },
  ];
  for (const [memberId, target] of g.targets) out.push({ kind: 'targetMember', memberId, value: { topicPartitions: toStored(target) } });
  for (const m of g.members.values()) {
    out.push({
      kind: 'memberMetadata',
      memberId: m.memberId,
      value: {
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames],
        subscribedTopicRegex: m.subscribedTopicRegex,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        serverAssignor: m.serverAssignor,
        classicMemberMetadata: m.classic === null ? null : { sessionTimeoutMs: m.classic.sessionTimeoutMs, supportedProtocols: m.classic.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
      },
    });
    const current: StoredCurrentAssignment = {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: MEMBER_STATE_VALUES[m.state],
      assignedPartitions: toStored(m.assigned),
      partitionsPendingRevocation: toStored(m.pendingRevocation),
    };
    out.push({ kind: 'currentAssignment', memberId: m.memberId, value: current });
  }
  return out;
}

/**
 * The records that bring the log from `g.persisted` to `records` (new and changed values, and
 * tombstones for slots no longer there), in write order, with the new `persisted` map to adopt once
 * they are written.
 */
export function changedRecords(g: ConsumerGroup, records: readonly ConsumerGroupRecord[]): { records: OffsetsRecord[]; persisted: Map<string, Buffer> } {
  const next = new Map<string, Buffer>();
  const changes: ConsumerGroupRecord[] = [];
  const values = new Map<ConsumerGroupRecord, Buffer | null>();
  for (const r of records) {
    const value = consumerGroupRecordValue(r);
    if (value === null) continue;
    const slot = recordSlot(r);
    next.set(slot, value);
    const before = g.persisted.get(slot);
    if (before === undefined || !before.equals(value)) {
      changes.push(r);
      values.set(r, value);
    }
  }
  for (const [slot, r] of g.persistedRecords) {
    if (next.has(slot)) continue;
    const tombstone = tombstoneOf(r);
    changes.push(tombstone);
    values.set(tombstone, null);
  }
  const ordered = inWriteOrder(changes).map((r) => ({ key: consumerGroupRecordKey(g.groupId, r), value: values.get(r) ?? null }));
  return { records: ordered, persisted: next };
}

/** The tombstones of every record the group has in the log (the group's deletion). */
export function groupTombstones(g: ConsumerGroup): OffsetsRecord[] {
  return inWriteOrder([...g.persistedRecords.values()].map(tombstoneOf)).map((r) => ({ key: consumerGroupRecordKey(g.groupId, r), value: null }));
}

function tombstoneOf(r: ConsumerGroupRecord): ConsumerGroupRecord {
  switch (r.kind) {
    case 'memberMetadata':
    case 'targetMember':
    case 'currentAssignment':
      return { kind: r.kind, memberId: r.memberId, value: null };
    default:
      return { kind: r.kind, value: null };
  }
}

/** Remembers `records` as what the log holds for the group. */
export function adoptPersisted(g: ConsumerGroup, records: readonly ConsumerGroupRecord[], persisted: Map<string, Buffer>): void {
  g.persisted = persisted;
  g.persistedRecords = new Map(records.filter((r) => r.value !== null).map((r) => [recordSlot(r), r]));
}

/** A group rebuilt from its stored records (Kafka `replay`); the caller starts the members' timers (`onLoaded`). */
export function restoreGroup(groupId: string, s: StoredConsumerGroup): ConsumerGroup {
  const g = new ConsumerGroup(groupId);
  g.groupEpoch = s.groupEpoch;
  g.assignmentEpoch = s.assignmentEpoch;
  g.subscriptionMetadata = new Map(s.topics.map((t) => [uuidToString(t.topicId), t.numPartitions]));
  for (const [memberId, target] of s.targets) g.targets.set(memberId, fromStored(target));
  for (const [memberId, stored] of s.members) {
    const m = new ConsumerGroupMember(memberId);
    const md = stored.metadata;
    if (md !== null) {
      m.instanceId = md.instanceId;
      m.rackId = md.rackId;
      m.clientId = md.clientId;
      m.clientHost = md.clientHost;
      m.subscribedTopicNames = [...md.subscribedTopicNames];
      m.subscribedTopicRegex = md.subscribedTopicRegex;
      m.rebalanceTimeoutMs = md.rebalanceTimeoutMs;
      m.serverAssignor = md.serverAssignor;
      const classic = md.classicMemberMetadata ?? null;
      m.classic = classic === null ? null : { sessionTimeoutMs: classic.sessionTimeoutMs, protocols: classic.supportedProtocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })) };
    }
    const c = stored.current;
    if (c !== null) {
      m.memberEpoch = c.memberEpoch;
      m.previousMemberEpoch = c.previousMemberEpoch;
      m.state = memberState(c.state);
      m.assigned = fromStored(c.assignedPartitions);
      m.pendingRevocation = fromStored(c.partitionsPendingRevocation);
    }
    g.members.set(memberId, m);
    if (m.instanceId !== null) g.staticMembers.set(m.instanceId, memberId);
  }
  const records = storedConsumerGroupRecords(s);
  const persisted = new Map<string, Buffer>();
  for (const r of records) {
    const v = consumerGroupRecordValue(r);
    if (v !== null) persisted.set(recordSlot(r), v);
  }
  adoptPersisted(g, records, persisted);
  return g;
}
