/**
 * Committed offsets (Kafka `GroupCoordinator.handleCommitOffsets` / `handleFetchOffsets` /
 * `handleDeleteOffsets` and `GroupMetadataManager.cleanupGroupMetadata`): who may commit to a
 * group in which state, the write to __consumer_offsets before the in-memory update, fetches
 * (unknown partitions answer offset -1 without error), OffsetDelete, and retention expiry with
 * tombstones.
 */
import type { GroupCoordinator } from './coordinator.js';
import type { ClassicGroup } from './group.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../internal-topics/consumer-protocol.js';
import type { OffsetsRecord } from './offsets-topic.js';
import { groupMetadataKey, offsetCommitKey, offsetCommitValue, type OffsetAndMetadata } from '../../internal-topics/offsets.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export interface OffsetCommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** OffsetCommit v2-4 retentionTimeMs; -1 means the broker's offsets.retention.minutes. */
  retentionTimeMs: bigint;
  /** OffsetCommit version: consumer-group members must commit with v9+ (KIP-848). */
  apiVersion?: number;
  topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null; commitTimestamp?: bigint }[] }[];
}

export type PartitionErrors = { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];

/** Kafka's mapping of a failed offset write (`GroupMetadataManager.storeOffsets`). */
function commitWriteError(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    default:
      return code;
  }
}

function allWith(topics: OffsetCommitRequest['topics'], errorCode: number): PartitionErrors {
  return topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

/** Whether a commit from this member/generation is accepted now; the error code otherwise. */
function commitAllowed(c: GroupCoordinator, g: ClassicGroup, req: OffsetCommitRequest): number {
  const error = g.offsetCommitError(req.memberId, req.groupInstanceId ?? null, req.generationId, false);
  if (error !== ErrorCode.NONE) return error;
  // a member's commit counts as a heartbeat (Kafka rescheduleClassicGroupMemberHeartbeat)
  const member = g.members.get(req.memberId);
  if (member !== undefined) c.scheduleSessionExpiry(g, member);
  return ErrorCode.NONE;
}

export function commitOffsets(c: GroupCoordinator, req: OffsetCommitRequest, topicExists: (name: string, partition: number) => boolean): PartitionErrors {
  if (!c.isActive) return allWith(req.topics, ErrorCode.NOT_COORDINATOR);
  let g = c.group(req.groupId);
  // a KIP-848 consumer group checks member epochs; its offsets are kept in the classic group entry
  const consumerCheck = c.consumer.validateOffsetCommit(req.groupId, req.memberId, req.generationId, req.apiVersion ?? 9, false);
  if (consumerCheck !== undefined) {
    if (consumerCheck !== ErrorCode.NONE) return allWith(req.topics, consumerCheck);
    g = c.getOrCreateGroup(req.groupId);
  } else {
    if (g === undefined) {
      // OffsetMetadataManager.validateOffsetCommit: a member commit to a group that does not exist
      // is GROUP_ID_NOT_FOUND from v9 (OffsetCommitResponse.json), ILLEGAL_GENERATION below
      if (req.generationId >= 0) return allWith(req.topics, (req.apiVersion ?? 9) >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION);
      g = c.getOrCreateGroup(req.groupId);
    }
    const allowed = commitAllowed(c, g, req);
    if (allowed !== ErrorCode.NONE) return allWith(req.topics, allowed);
  }
  const now = BigInt(Date.now());
  // Java's long sum would wrap a huge retention into the past; saturate instead (never expire)
  const expire = req.retentionTimeMs >= 0n ? minBigInt(now + req.retentionTimeMs, INT64_MAX) : -1n;
  const out: PartitionErrors = [];
  const accepted: { topic: string; partition: number; value: OffsetAndMetadata; result: { errorCode: number } }[] = [];
  for (const t of req.topics) {
    const partitions: PartitionErrors[number]['partitions'] = [];
    out.push({ name: t.name, partitions });
    for (const p of t.partitions) {
      const result: { partitionIndex: number; errorCode: number } = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      partitions.push(result);
      const metadata = p.committedMetadata ?? '';
      if (!topicExists(t.name, p.partitionIndex)) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      // OffsetMetadataManager.isMetadataInvalid: Java's String.length(), UTF-16 code units as JavaScript's
      else if (metadata.length > c.config.offsetMetadataMaxBytes) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
      else {
        // OffsetCommit v1 may name the commit time (Kafka's GroupCoordinatorAdapter: -1 is now)
        const commitTimestamp = p.commitTimestamp !== undefined && p.commitTimestamp !== -1n ? p.commitTimestamp : now;
        const value = { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata, commitTimestamp, expireTimestamp: expire };
        accepted.push({ topic: t.name, partition: p.partitionIndex, value, result });
      }
    }
  }
  if (accepted.length === 0) return out;
  const code = c.write(
    g.groupId,
    accepted.map((a) => ({ key: offsetCommitKey(g.groupId, a.topic, a.partition), value: offsetCommitValue(a.value) })),
  );
  for (const a of accepted) {
    if (code === ErrorCode.NONE) {
      g.setOffset(a.topic, a.partition, a.value);
      c.txnOffsets.supersede(g.groupId, a.topic, a.partition);
    } else a.result.errorCode = commitWriteError(code);
  }
  return out;
}

export interface FetchedOffset {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  metadata: string;
  errorCode: number;
}

/**
 * The group's committed offsets for the given partitions, or all of them when `topics` is null
 * (OffsetFetch v2+). Unknown partitions and groups answer offset -1, empty metadata, no error.
 * With `requireStable` (v7+), partitions with pending transactional offsets answer UNSTABLE_OFFSET_COMMIT.
 */
export function fetchOffsets(
  c: GroupCoordinator,
  groupId: string,
  topics: { name: string; partitionIndexes: number[] }[] | null,
  requireStable = false,
): { name: string; partitions: FetchedOffset[] }[] {
  const g = c.group(groupId);
  const entry = (topic: string, partition: number): FetchedOffset => {
    // KIP-447: a partition with a transactional commit waiting for its marker is not stable yet
    if (requireStable && c.txnOffsets.hasPending(groupId, topic, partition)) {
      return { partitionIndex: partition, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };
    }
    const o = g?.offset(topic, partition);
    return o === undefined
      ? { partitionIndex: partition, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE }
      : { partitionIndex: partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch, metadata: o.metadata, errorCode: ErrorCode.NONE };
  };
  if (topics !== null) return topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => entry(t.name, p)) }));
  if (g === undefined) return [];
  return [...g.offsets].map(([name, parts]) => ({ name, partitions: [...parts.keys()].sort((a, b) => a - b).map((p) => entry(name, p)) }));
}

/** OffsetDelete: removes offsets of topics the group's members do not subscribe to. */
export function deleteOffsets(
  c: GroupCoordinator,
  groupId: string,
  topics: { name: string; partitions: { partitionIndex: number }[] }[],
  topicExists: (name: string, partition: number) => boolean,
): { errorCode: number; topics: PartitionErrors } {
  if (!c.isActive) return { errorCode: ErrorCode.NOT_COORDINATOR, topics: [] };
  if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
  const g = c.group(groupId);
  if (g === undefined || g.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
  let subscribed: Set<string> | undefined = new Set();
  if (!g.is('Empty')) {
    if (g.protocolType !== CONSUMER_PROTOCOL_TYPE) return { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] };
    subscribed = g.subscribedTopics();
  }
  const out: PartitionErrors = [];
  const removed: { topic: string; partition: number }[] = [];
  for (const t of topics) {
    const partitions: PartitionErrors[number]['partitions'] = [];
    out.push({ name: t.name, partitions });
    for (const p of t.partitions) {
      let errorCode: number = ErrorCode.NONE;
      if (!topicExists(t.name, p.partitionIndex)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (subscribed === undefined || subscribed.has(t.name)) errorCode = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
      // a tombstone also goes for an offset pending in a transaction (Kafka `OffsetMetadataManager.deleteOffsets`)
      else if (g.offset(t.name, p.partitionIndex) !== undefined || c.txnOffsets.hasPending(groupId, t.name, p.partitionIndex)) removed.push({ topic: t.name, partition: p.partitionIndex });
      partitions.push({ partitionIndex: p.partitionIndex, errorCode });
    }
  }
  const code = c.write(groupId, removed.map((r) => ({ key: offsetCommitKey(groupId, r.topic, r.partition), value: null })));
  if (code !== ErrorCode.NONE) return { errorCode: commitWriteError(code), topics: [] };
  for (const r of removed) {
    g.deleteOffset(r.topic, r.partition);
    c.txnOffsets.drop(groupId, r.topic, r.partition);
  }
  return { errorCode: ErrorCode.NONE, topics: out };
}

/** Tombstones for every offset of a group and for the group itself (DeleteGroups, expiry). */
export function groupTombstones(g: ClassicGroup): OffsetsRecord[] {
  const out: OffsetsRecord[] = [];
  for (const [topic, parts] of g.offsets) for (const p of parts.keys()) out.push({ key: offsetCommitKey(g.groupId, topic, p), value: null });
  out.push({ key: groupMetadataKey(g.groupId), value: null });
  return out;
}

/**
 * Kafka `GroupMetadata.removeExpiredOffsets` + `cleanupGroupMetadata`: an empty consumer group's
 * offsets expire `offsets.retention.minutes` after the group became empty; a group without a
 * protocol (standalone commits) expires each offset that long after its commit; an explicit
 * expire timestamp (OffsetCommit v2-4 retention) wins. A group left empty with no offsets dies.
 */
export function expireOffsets(c: GroupCoordinator, now = Date.now()): number {
  let expired = 0;
  const retention = BigInt(c.config.offsetsRetentionMs);
  const nowN = BigInt(now);
  for (const g of [...c.groups.values()]) {
    let baseOf: ((o: OffsetAndMetadata) => bigint) | undefined;
    let subscribed: Set<string> | undefined;
    const consumerGroup = c.consumer.group(g.groupId);
    // a KIP-848 group: offsets of topics it does not subscribe to expire after their commit (Kafka `ConsumerGroup.offsetExpirationCondition`)
    if (consumerGroup !== undefined) (subscribed = c.consumer.subscribedTopicNames(consumerGroup)), (baseOf = (o) => o.commitTimestamp);
    else if (g.protocolType === null || g.protocolType === '') baseOf = (o) => o.commitTimestamp;
    else if (g.is('Empty')) baseOf = () => g.currentStateTimestamp;
    else if (g.is('Stable') && (subscribed = g.subscribedTopics()) !== undefined) baseOf = (o) => o.commitTimestamp;
    const records: OffsetsRecord[] = [];
    const gone: [string, number][] = [];
    if (baseOf !== undefined) {
      for (const [topic, parts] of g.offsets) {
        if (subscribed?.has(topic)) continue;
        for (const [p, o] of parts) {
          const due = o.expireTimestamp >= 0n ? nowN >= o.expireTimestamp : nowN - baseOf(o) >= retention;
          // not while a transaction holds an offset of the partition pending (Kafka `OffsetMetadataManager.cleanupExpiredOffsets`)
          if (due && !c.txnOffsets.hasPending(g.groupId, topic, p)) {
            gone.push([topic, p]);
            records.push({ key: offsetCommitKey(g.groupId, topic, p), value: null });
          }
        }
      }
    }
    let remaining = -gone.length;
    for (const parts of g.offsets.values()) remaining += parts.size;
    // a KIP-848 group holding members keeps its (offset-only) classic entry; an empty one dies with it
    const dies = g.is('Empty') && remaining === 0 && (consumerGroup === undefined || consumerGroup.members.size === 0);
    if (dies) records.push({ key: groupMetadataKey(g.groupId), value: null });
    if (records.length === 0) continue;
    if (c.write(g.groupId, records) !== ErrorCode.NONE) continue;
    for (const [t, p] of gone) {
      g.deleteOffset(t, p);
      c.txnOffsets.drop(g.groupId, t, p);
    }
    expired += gone.length;
    if (dies && consumerGroup !== undefined && c.consumer.deleteGroup(consumerGroup) !== ErrorCode.NONE) continue;
    if (dies) c.removeGroup(g);
  }
  // an empty KIP-848 group with no offsets left is deleted too (Kafka `cleanupGroupMetadata`: empty, nothing to keep)
  for (const cg of [...c.consumer.groups.values()]) {
    if (cg.members.size === 0 && c.group(cg.groupId) === undefined) c.consumer.deleteGroup(cg);
  }
  return expired;
}

const INT64_MAX = 0x7fffffffffffffffn;
const minBigInt = (a: bigint, b: bigint): bigint => (a < b ? a : b);
