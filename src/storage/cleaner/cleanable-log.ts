/**
 * Which logs the cleaner may clean and how far (Kafka
 * `LogCleanerManager.cleanableOffsets`, `calculateCleanableBytes`, `maxCompactionDelay`,
 * `grabFilthiestCompactedLog`).
 *
 * The dirty section starts at the checkpointed first dirty offset (reset to the log start when the
 * checkpoint is outside [logStartOffset, LEO]) and ends at the first uncleanable offset: the
 * earliest of the LSO, the active segment's base and, with `min.compaction.lag.ms`, the first dirty
 * segment holding a record younger than the lag. A log is cleaned when its dirty ratio exceeds
 * `min.cleanable.dirty.ratio`, or when a dirty segment's first batch is older than
 * `max.compaction.lag.ms`; among those, the filthiest goes first.
 */
import type { LogSegment } from '../log-segment.js';
import type { PartitionLog } from '../partition-log.js';

export interface CleanableOffsets {
  firstDirtyOffset: bigint;
  firstUncleanableDirtyOffset: bigint;
  /** The checkpoint was out of range and must be rewritten with firstDirtyOffset. */
  forceUpdateCheckpoint: boolean;
}

export interface LogToClean {
  log: PartitionLog;
  firstDirtyOffset: bigint;
  /** Base offset of the first segment that cannot be cleaned. */
  firstUncleanableOffset: bigint;
  cleanBytes: number;
  cleanableBytes: number;
  cleanableRatio: number;
  needCompactionNow: boolean;
  forceUpdateCheckpoint: boolean;
}

/** True when the log's cleanup.policy includes compact. */
export function isCompacted(log: PartitionLog): boolean {
  return log.config.cleanupPolicy.includes('compact');
}

/** Kafka `LocalLog.logSegments(from, to)`: the segment holding `from` and every later one starting below `to`. */
export function segmentsInRange(log: PartitionLog, from: bigint, to: bigint): LogSegment[] {
  if (from >= to) return [];
  const all = log.segmentList();
  let start = 0;
  for (let i = 0; i < all.length; i++) if (all[i]!.baseOffset <= from) start = i;
  const out: LogSegment[] = [];
  for (let i = start; i < all.length && all[i]!.baseOffset < to; i++) out.push(all[i]!);
  return out;
}

/** Kafka `nonActiveLogSegmentsFrom`: from the segment holding `from` up to the active one (excluded). */
function nonActiveSegmentsFrom(log: PartitionLog, from: bigint): LogSegment[] {
  return segmentsInRange(log, from, log.activeSegment.baseOffset);
}

export function cleanableOffsets(log: PartitionLog, lastCleanOffset: bigint | undefined, now: number): CleanableOffsets {
  const logStart = log.logStartOffset;
  const checkpointed = lastCleanOffset ?? logStart;
  let firstDirtyOffset = checkpointed;
  let forceUpdateCheckpoint = false;
  if (checkpointed < logStart || checkpointed > log.logEndOffset) {
    firstDirtyOffset = logStart;
    forceUpdateCheckpoint = true;
  }
  let uncleanable = log.lastStableOffset;
  if (log.activeSegment.baseOffset < uncleanable) uncleanable = log.activeSegment.baseOffset;
  const lag = Math.max(log.config.minCompactionLagMs, 0);
  if (lag > 0) {
    const young = nonActiveSegmentsFrom(log, firstDirtyOffset).find((s) => s.largestTimestamp() > BigInt(now - lag));
    if (young !== undefined && young.baseOffset < uncleanable) uncleanable = young.baseOffset;
  }
  return {
    firstDirtyOffset,
    firstUncleanableDirtyOffset: uncleanable > firstDirtyOffset ? uncleanable : firstDirtyOffset,
    forceUpdateCheckpoint,
  };
}

/** How long past `max.compaction.lag.ms` the oldest dirty segment is (0: not overdue). */
export function maxCompactionDelay(log: PartitionLog, firstDirtyOffset: bigint, now: number): number {
  let earliest: bigint | undefined;
  for (const s of nonActiveSegmentsFrom(log, firstDirtyOffset)) {
    const ts = s.firstBatchTimestamp();
    if (ts !== undefined && ts > 0n && (earliest === undefined || ts < earliest)) earliest = ts;
  }
  if (earliest === undefined) return 0;
  const cleanUntil = now - Math.max(log.config.maxCompactionLagMs, 0);
  return Number(earliest) < cleanUntil ? cleanUntil - Number(earliest) : 0;
}

/** The sizes that make the dirty ratio, and the segment-aligned end of the cleanable section. */
export function logToClean(log: PartitionLog, lastCleanOffset: bigint | undefined, now: number): LogToClean {
  const offsets = cleanableOffsets(log, lastCleanOffset, now);
  const firstDirty = offsets.firstDirtyOffset;
  const firstUncleanableSegment = nonActiveSegmentsFrom(log, offsets.firstUncleanableDirtyOffset)[0] ?? log.activeSegment;
  const firstUncleanable = firstUncleanableSegment.baseOffset;
  let cleanBytes = 0;
  for (const s of log.segmentList()) if (s.baseOffset < firstDirty) cleanBytes += s.size;
  let cleanableBytes = 0;
  for (const s of segmentsInRange(log, firstDirty < firstUncleanable ? firstDirty : firstUncleanable, firstUncleanable)) cleanableBytes += s.size;
  const total = cleanBytes + cleanableBytes;
  return {
    log,
    firstDirtyOffset: firstDirty,
    firstUncleanableOffset: firstUncleanable,
    cleanBytes,
    cleanableBytes,
    cleanableRatio: total === 0 ? 0 : cleanableBytes / total,
    needCompactionNow: maxCompactionDelay(log, firstDirty, now) > 0,
    forceUpdateCheckpoint: offsets.forceUpdateCheckpoint,
  };
}

/** Kafka `grabFilthiestCompactedLog`: the compacted log most worth cleaning now, if any. */
export function filthiestLog(
  logs: readonly PartitionLog[],
  lastCleanOffset: (log: PartitionLog) => bigint | undefined,
  now: number,
  onForcedCheckpoint?: (log: PartitionLog, offset: bigint) => void,
): LogToClean | undefined {
  let best: LogToClean | undefined;
  for (const log of logs) {
    if (!isCompacted(log)) continue;
    const candidate = logToClean(log, lastCleanOffset(log), now);
    if (candidate.forceUpdateCheckpoint) onForcedCheckpoint?.(log, candidate.firstDirtyOffset);
    if (candidate.cleanBytes + candidate.cleanableBytes === 0) continue;
    const cleanable =
      (candidate.needCompactionNow && candidate.cleanableBytes > 0) || candidate.cleanableRatio > log.config.minCleanableDirtyRatio;
    if (cleanable && (best === undefined || candidate.cleanableRatio > best.cleanableRatio)) best = candidate;
  }
  return best;
}
