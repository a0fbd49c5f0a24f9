/**
 * `__consumer_offsets` read as compaction will leave it (Kafka
 * `GroupMetadataManager.doLoadGroupsAndOffsets`): the last record per key wins, tombstones remove.
 */
import type { OffsetAndMetadata, OffsetsTopicRecord, StoredGroup } from './offsets.js';

/** One group as the log's last records per key leave it: its metadata (null: none or deleted) and its live offsets. */
export interface ReplayedGroup {
  stored: StoredGroup | null;
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
  for (const r of records) {
    if (r.type === 'group') {
      metadata.set(r.group, r.value);
      continue;
    }
    let m = offsets.get(r.group);
    if (m === undefined) offsets.set(r.group, (m = new Map()));
    m.set(`${r.partition}:${r.topic}`, { topic: r.topic, partition: r.partition, value: r.value });
  }
  const out = new Map<string, ReplayedGroup>();
  for (const groupId of new Set([...metadata.keys(), ...offsets.keys()])) {
    const stored = metadata.get(groupId) ?? null;
    const live = [...(offsets.get(groupId)?.values() ?? [])].flatMap((o) => (o.value === null ? [] : [{ topic: o.topic, partition: o.partition, value: o.value }]));
    if (stored === null && live.length === 0) continue;
    out.set(groupId, { stored, offsets: live });
  }
  return out;
}
