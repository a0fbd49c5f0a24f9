/**
 * Transactional offset commits (Kafka `GroupMetadata.prepareTxnOffsetCommit` /
 * `completePendingTxnOffsetCommit`, `OffsetMetadataManager.replay` for KIP-848's coordinator):
 * TxnOffsetCommit writes the offsets inside a transactional batch of the producer to
 * `__consumer_offsets` and keeps them pending under the producer id, invisible to OffsetFetch;
 * the transaction's marker on that partition (WriteTxnMarkers) then makes them committed (COMMIT)
 * or drops them (ABORT); a regular commit written after one supersedes it, a tombstone of its
 * partition drops it. A load replays the same rules (offsets-txn-settle.ts): offsets whose marker is
 * in the log are settled, those without stay pending for the marker a restarted transaction
 * coordinator writes again.
 */
import type { GroupCoordinator } from './coordinator.js';
import type { ClassicGroup } from './group.js';
import { offsetCommitKey, offsetCommitValue, type OffsetAndMetadata } from '../../internal-topics/offsets.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { PartitionErrors } from './offset-ops.js';

export interface PendingOffset {
  groupId: string;
  topic: string;
  partition: number;
  value: OffsetAndMetadata;
  /**
   * A regular commit of the same partition was written after this one: at COMMIT it is not applied
   * (Kafka `OffsetMetadataManager.replayEndTransactionMarker` keeps the offset with the higher
   * record offset, so a replay after compaction gives the same answer).
   */
  superseded?: boolean;
}

/** Pending offsets by producer id, then by group/topic/partition (the last commit per partition wins). */
export class PendingTxnOffsets {
  private readonly byProducer = new Map<bigint, Map<string, PendingOffset>>();

  add(producerId: bigint, o: PendingOffset): void {
    let m = this.byProducer.get(producerId);
    if (m === undefined) this.byProducer.set(producerId, (m = new Map()));
    m.set(`${o.groupId}\u0000${o.topic}\u0000${o.partition}`, o);
  }

  /** Removes and returns the producer's pending offsets of groups `inPartition` accepts. */
  take(producerId: bigint, inPartition: (groupId: string) => boolean): PendingOffset[] {
    const m = this.byProducer.get(producerId);
    if (m === undefined) return [];
    const out: PendingOffset[] = [];
    for (const [k, o] of m) {
      if (!inPartition(o.groupId)) continue;
      out.push(o);
      m.delete(k);
    }
    if (m.size === 0) this.byProducer.delete(producerId);
    return out;
  }

  /** A regular commit of the partition was written: the pending offsets of it are older than it. */
  supersede(groupId: string, topic: string, partition: number): void {
    const k = `${groupId}\u0000${topic}\u0000${partition}`;
    for (const m of this.byProducer.values()) {
      const o = m.get(k);
      if (o !== undefined) o.superseded = true;
    }
  }

  /** A tombstone of the partition's offset was written: it removes the pending offsets too (Kafka `OffsetMetadataManager.replay`). */
  drop(groupId: string, topic: string, partition: number): void {
    const k = `${groupId}\u0000${topic}\u0000${partition}`;
    for (const [producerId, m] of this.byProducer) if (m.delete(k) && m.size === 0) this.byProducer.delete(producerId);
  }

  /** Whether a group's partition has an offset waiting for a marker (OffsetFetch RequireStable: UNSTABLE_OFFSET_COMMIT). */
  hasPending(groupId: string, topic: string, partition: number): boolean {
    const k = `${groupId}\u0000${topic}\u0000${partition}`;
    for (const m of this.byProducer.values()) if (m.has(k)) return true;
    return false;
  }

  /** Groups with pending offsets (they are kept even with nothing committed). */
  hasGroup(groupId: string): boolean {
    for (const m of this.byProducer.values()) for (const o of m.values()) if (o.groupId === groupId) return true;
    return false;
  }
}

export interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  producerId: bigint;
  producerEpoch: number;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null }[] }[];
}

function allWith(topics: TxnOffsetCommitRequest['topics'], errorCode: number): PartitionErrors {
  return topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

/**
 * Kafka's `ClassicGroup.validateOffsetCommit` for transactional commits: with no member data the
 * commit is accepted even by a group with members; with member data the member and generation must match.
 */
function txnCommitAllowed(g: ClassicGroup, req: TxnOffsetCommitRequest): number {
  return g.offsetCommitError(req.memberId ?? '', req.groupInstanceId ?? null, req.generationId ?? -1, true);
}

/** Writes the offsets in a transactional batch and keeps them pending (the caller verified the transaction). */
export function commitTxnOffsets(c: GroupCoordinator, req: TxnOffsetCommitRequest, topicExists: (name: string, partition: number) => boolean): PartitionErrors {
  if (!c.isActive) return allWith(req.topics, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (req.groupId === '') return allWith(req.topics, ErrorCode.INVALID_GROUP_ID);
  let g = c.group(req.groupId);
  // a KIP-848 consumer group checks the member and its epoch (ConsumerGroup.validateOffsetCommit,
  // transactional, so in every version); its offsets are kept in the classic group entry, as OffsetCommit's
  const consumerCheck = c.consumer.validateOffsetCommit(req.groupId, req.memberId ?? '', req.generationId ?? -1, 0, true);
  if (consumerCheck !== undefined) {
    // OffsetMetadataManager.validateTransactionalOffsetCommit: STALE_MEMBER_EPOCH is not part of
    // TxnOffsetCommit, so a stale epoch is ILLEGAL_GENERATION
    if (consumerCheck !== ErrorCode.NONE) return allWith(req.topics, consumerCheck === ErrorCode.STALE_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : consumerCheck);
    g = c.getOrCreateGroup(req.groupId);
  } else {
    if (g === undefined) {
      if (req.generationId >= 0) return allWith(req.topics, ErrorCode.ILLEGAL_GENERATION);
      g = c.getOrCreateGroup(req.groupId);
    }
    const allowed = txnCommitAllowed(g, req);
    if (allowed !== ErrorCode.NONE) return allWith(req.topics, allowed);
  }
  const now = BigInt(c.timer.now());
  const out: PartitionErrors = [];
  const accepted: { o: PendingOffset; result: { errorCode: number } }[] = [];
  for (const t of req.topics) {
    const partitions: PartitionErrors[number]['partitions'] = [];
    out.push({ name: t.name, partitions });
    for (const p of t.partitions) {
      const result = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE as number };
      partitions.push(result);
      const metadata = p.committedMetadata ?? '';
      if (!topicExists(t.name, p.partitionIndex)) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      // OffsetMetadataManager.isMetadataInvalid: Java's String.length(), UTF-16 code units as JavaScript's
      else if (metadata.length > c.config.offsetMetadataMaxBytes) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
      else {
        const value = { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata, commitTimestamp: now, expireTimestamp: -1n };
        accepted.push({ o: { groupId: g.groupId, topic: t.name, partition: p.partitionIndex, value }, result });
      }
    }
  }
  if (accepted.length === 0) return out;
  const code = c.writeTransactional(
    g.groupId,
    accepted.map((a) => ({ key: offsetCommitKey(a.o.groupId, a.o.topic, a.o.partition), value: offsetCommitValue(a.o.value) })),
    req.producerId,
    req.producerEpoch,
  );
  for (const a of accepted) {
    if (code === ErrorCode.NONE) c.txnOffsets.add(req.producerId, a.o);
    else a.result.errorCode = code;
  }
  return out;
}

/**
 * A transaction marker for `__consumer_offsets-<partition>` (Kafka `GroupCoordinator.completeTransaction`):
 * the marker is appended to the partition, then the producer's pending offsets of the partition's groups
 * become committed (COMMIT; those a later regular commit superseded excepted) or are dropped (ABORT). Throws the log's typed errors.
 */
export function completeTxnOffsets(c: GroupCoordinator, partition: number, marker: { producerId: bigint; producerEpoch: number; commit: boolean; coordinatorEpoch: number }): void {
  c.store.appendMarker(partition, marker);
  const settled = c.txnOffsets.take(marker.producerId, (groupId) => c.store.partitionFor(groupId) === partition);
  if (!marker.commit) return;
  for (const o of settled) if (o.superseded !== true) c.getOrCreateGroup(o.groupId).setOffset(o.topic, o.partition, o.value);
}
