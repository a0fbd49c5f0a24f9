/**
 * Transactional offset commits while `__consumer_offsets` is read back (Kafka 4.x
 * `OffsetMetadataManager.replay` / `replayEndTransactionMarker`, and the classic
 * `GroupMetadataManager.doLoadGroupsAndOffsets` before it): an offset written in a transactional
 * batch stays pending under its producer id until that producer's control batch on the
 * partition; a COMMIT applies it unless a regular commit of the same partition was written after
 * it (Kafka keeps the commit with the higher record offset, so compaction cannot bring back an
 * older one), an ABORT drops it, and a tombstone of the partition's offset drops it too. What no
 * marker settles is still pending: read_committed readers do not see it as committed. Shared by
 * the broker's load and the offline `kafkalite groups`.
 */
import { KafkaliteError } from '../errors.js';
import { parseControlRecordKey } from '../record/control.js';
import { offsetsTopicEntries, type OffsetsTopicBatch } from './offsets-replay.js';
import type { OffsetAndMetadata, OffsetsTopicRecord } from './offsets.js';

/** A batch as the settling reads it: its producer and whether it belongs to a transaction. */
export interface OffsetsTopicLogBatch extends OffsetsTopicBatch {
  readonly isTransactional: boolean;
  readonly producerId: bigint;
}

/** An offset of a transaction whose marker is not in the log (yet). */
export interface PendingTxnOffsetRecord {
  producerId: bigint;
  group: string;
  topic: string;
  partition: number;
  value: OffsetAndMetadata;
  /** A regular commit of the partition was written after it: its COMMIT will not apply it (Kafka compares record offsets). */
  superseded: boolean;
}

const offsetKey = (group: string, topic: string, partition: number): string => `${group}\u0000${topic}\u0000${partition}`;

/**
 * The records of ONE `__consumer_offsets` partition's batches (in log order, from `fromOffset`) in
 * the order they take effect: regular records where they are, a transaction's offsets where its
 * COMMIT marker is (those a later regular commit or tombstone superseded left out), nothing of an
 * aborted one. Offsets still pending at the end go to `onPending`. Records of other types in a
 * transactional batch apply where they are, as Kafka's coordinator replays them.
 */
export function* settledOffsetsRecords(
  batches: Iterable<OffsetsTopicLogBatch>,
  fromOffset: bigint,
  onUnreadable: (offset: bigint, e: KafkaliteError) => void,
  onPending: (pending: PendingTxnOffsetRecord[]) => void,
): Generator<OffsetsTopicRecord> {
  /** Producer id → its pending offsets by group/topic/partition (the last one per partition wins) with their record offsets. */
  const open = new Map<bigint, Map<string, { at: bigint; record: PendingTxnOffsetRecord }>>();
  /** Record offset of the committed offset per group/topic/partition (Kafka's `OffsetAndMetadata.recordOffset`). */
  const applied = new Map<string, bigint>();
  for (const b of batches) {
    if (b.isControl) {
      if (!b.isTransactional) continue;
      const first = b.records()[Symbol.iterator]().next();
      if (first.done) continue;
      let commit: boolean;
      try {
        commit = parseControlRecordKey(first.value.key).type === 'COMMIT';
      } catch (e) {
        if (!(e instanceof KafkaliteError)) throw e;
        onUnreadable(first.value.offset, e);
        continue;
      }
      const pending = open.get(b.producerId);
      open.delete(b.producerId);
      if (!commit || pending === undefined) continue;
      for (const [k, p] of pending) {
        const existing = applied.get(k);
        if (existing !== undefined && existing > p.at) continue;
        applied.set(k, p.at);
        yield { type: 'offset', group: p.record.group, topic: p.record.topic, partition: p.record.partition, value: p.record.value };
      }
      continue;
    }
    for (const { offset, record } of offsetsTopicEntries(b, fromOffset, onUnreadable)) {
      if (record.type !== 'offset') {
        yield record;
        continue;
      }
      const k = offsetKey(record.group, record.topic, record.partition);
      if (record.value === null) {
        // a tombstone removes the committed offset and every open transaction's offset of the partition
        applied.delete(k);
        for (const pending of open.values()) pending.delete(k);
        yield record;
      } else if (b.isTransactional) {
        let pending = open.get(b.producerId);
        if (pending === undefined) open.set(b.producerId, (pending = new Map()));
        pending.set(k, { at: offset, record: { producerId: b.producerId, group: record.group, topic: record.topic, partition: record.partition, value: record.value, superseded: false } });
      } else {
        applied.set(k, offset);
        yield record;
      }
    }
  }
  const left = [...open.values()].flatMap((m) =>
    [...m].map(([k, p]) => {
      const existing = applied.get(k);
      return { ...p.record, superseded: existing !== undefined && existing > p.at };
    }),
  );
  if (left.length > 0) onPending(left);
}
