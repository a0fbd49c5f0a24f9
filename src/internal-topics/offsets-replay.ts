/**
 * Reading `__consumer_offsets` back (Kafka `GroupMetadataManager.doLoadGroupsAndOffsets`): each
 * batch's records decoded, then replayed as compaction will leave them, the last record per key
 * winning and tombstones removing. Shared by the broker's load and the offline `kafkalite groups`.
 */
import { KafkaliteError } from '../errors.js';
import { decodeOffsetsTopicRecord, type OffsetAndMetadata, type OffsetsTopicRecord, type StoredGroup } from './offsets.js';
import { replayConsumerGroup, type ConsumerGroupRecord, type StoredConsumerGroup } from './consumer-group-records.js';

/**
 * One group as the log's last records per key leave it: its classic metadata (null: none or
 * deleted), its KIP-848 consumer-group state (null: none or deleted) and its live offsets.
 */
export interface ReplayedGroup {
  stored: StoredGroup | null;
  consumer: StoredConsumerGroup | null;
  offsets: { topic: string; partition: number; value: OffsetAndMetadata }[];
}

/**
 * Replays `__consumer_offsets` records in log order: the last record per key wins, tombstones
 * remove. Groups left with neither metadata nor offsets are dropped. Shared by the broker's load
 * and the offline `kafkalite groups`.
 */
export function replayOffsetsRecords(records: Iterable<OffsetsTopicRecord>): Map<string, ReplayedGroup> {
  const metadata = new Map<string, StoredGroup | null>();
  const offsets = new Map<string, Map<string, { topic: string; partition: number; value: OffsetAndMetadata | null }>>();
  const consumerRecords = new Map<string, ConsumerGroupRecord[]>();
  for (const r of records) {
    if (r.type === 'consumerGroup') {
      let list = consumerRecords.get(r.group);
      if (list === undefined) consumerRecords.set(r.group, (list = []));
      list.push(r.record);
      continue;
    }
    if (r.type === 'group') {
      metadata.set(r.group, r.value);
      continue;
    }
    let m = offsets.get(r.group);
    if (m === undefined) offsets.set(r.group, (m = new Map()));
    m.set(`${r.partition}:${r.topic}`, { topic: r.topic, partition: r.partition, value: r.value });
  }
  const out = new Map<string, ReplayedGroup>();
  for (const groupId of new Set([...metadata.keys(), ...consumerRecords.keys(), ...offsets.keys()])) {
    const stored = metadata.get(groupId) ?? null;
    const consumer = replayConsumerGroup(consumerRecords.get(groupId) ?? []) ?? null;
    const live = [...(offsets.get(groupId)?.values() ?? [])].flatMap((o) => (o.value === null ? [] : [{ topic: o.topic, partition: o.partition, value: o.value }]));
    if (stored === null && consumer === null && live.length === 0) continue;
    out.set(groupId, { stored, consumer, offsets: live });
  }
  return out;
}

/** The part of a stored batch the readers of the topic use (v2 or legacy). */
export interface OffsetsTopicBatch {
  readonly isControl: boolean;
  records(): Iterable<{ offset: bigint; key: Uint8Array | null; value: Uint8Array | null }>;
}

/**
 * The decoded records of one `__consumer_offsets` batch at or after `fromOffset` (Kafka
 * `GroupMetadataManager.doLoadGroupsAndOffsets`: control batches and keyless records are
 * skipped; an unreadable record is reported and skipped, so it cannot keep the others from loading).
 * Shared by the broker's load and the offline `kafkalite groups`.
 */
export function* offsetsTopicRecords(batch: OffsetsTopicBatch, fromOffset: bigint, onUnreadable: (offset: bigint, e: KafkaliteError) => void): Generator<OffsetsTopicRecord> {
  for (const e of offsetsTopicEntries(batch, fromOffset, onUnreadable)) yield e.record;
}

/** As `offsetsTopicRecords`, each record with its offset in the log. */
export function* offsetsTopicEntries(batch: OffsetsTopicBatch, fromOffset: bigint, onUnreadable: (offset: bigint, e: KafkaliteError) => void): Generator<{ offset: bigint; record: OffsetsTopicRecord }> {
  if (batch.isControl) return;
  for (const rec of batch.records()) {
    if (rec.offset < fromOffset || rec.key === null) continue;
    let decoded: OffsetsTopicRecord | undefined;
    try {
      decoded = decodeOffsetsTopicRecord(Buffer.from(rec.key), rec.value === null ? null : Buffer.from(rec.value));
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      onUnreadable(rec.offset, e);
      continue;
    }
    if (decoded !== undefined) yield { offset: rec.offset, record: decoded };
  }
}
