/**
 * ListOffsets v0's answer (Kafka 3.x `UnifiedLog.legacyFetchOffsetsBefore`, through
 * `Partition.legacyFetchOffsetsForTimestamp`): not one offset but up to `max_num_offsets` of them,
 * newest first, taken from the segment boundaries. Each segment stands for its base offset (at
 * least the log start) and the last-modified time of its file; a non-empty active segment adds
 * the log end offset at the current time. LATEST starts from the last entry, EARLIEST from the
 * first, a timestamp from the newest entry modified at or before it. For a consumer, offsets past
 * the high watermark are replaced by the high watermark.
 */
import { statSync } from 'node:fs';
import type { PartitionLog } from '../storage/partition-log.js';

const LATEST = -1n;
const EARLIEST = -2n;

export function legacyOffsetsBefore(log: PartitionLog, timestamp: bigint, maxNumOffsets: number, nowMs: number): bigint[] {
  const segments = log.segmentList();
  const entries: { offset: bigint; time: number }[] = segments.map((s) => ({
    offset: s.baseOffset > log.logStartOffset ? s.baseOffset : log.logStartOffset,
    time: statSync(s.log.path).mtimeMs,
  }));
  if (segments[segments.length - 1]!.size > 0) entries.push({ offset: log.logEndOffset, time: nowMs });
  let start: number;
  if (timestamp === LATEST) start = entries.length - 1;
  else if (timestamp === EARLIEST) start = 0;
  else {
    start = entries.length - 1;
    while (start >= 0 && entries[start]!.time > Number(timestamp)) start--;
  }
  const out: bigint[] = [];
  for (let i = start; i >= 0 && out.length < maxNumOffsets; i--) out.push(entries[i]!.offset);
  out.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  // a consumer never sees an offset past the high watermark (Partition.legacyFetchOffsetsForTimestamp)
  const hw = log.highWatermark;
  if (out.some((o) => o > hw)) return [hw, ...out.filter((o) => o <= hw)];
  return out;
}
