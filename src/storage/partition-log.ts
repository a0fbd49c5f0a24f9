/**
 * The log of one partition (Kafka `UnifiedLog` + `LocalLog` + `LogLoader`, single node): segments
 * in offset order, appends through Kafka's validator, rolls, reads by offset and by time,
 * retention, truncation, flushes and recovery at open (storage spec §7-§11).
 *
 * On a single node the high watermark is the log end offset. One writer per partition; readers in
 * the same process only ever see whole appended batches (a segment's logical size moves after the
 * bytes are written).
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { OffsetOutOfRangeError, RecordListTooLargeError, StorageError } from '../errors.js';
import { readRecordBatches } from '../record/batches.js';
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LOG_SUFFIX,
  offsetFromFileName,
  offsetIndexPath,
  SWAP_SUFFIX,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
} from './file-names.js';
import { LeaderEpochFileCache } from './leader-epoch-cache.js';
import type { LogConfig } from './log-config.js';
import { LogSegment, type TimestampAndOffset } from './log-segment.js';
import { validateAndAssignOffsets, type ValidationResult } from './log-validator.js';


/** ListOffsets special timestamps (`ListOffsetsRequest`). */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;

export interface PartitionLogOptions {
  config: LogConfig;
  /** From recovery-point-offset-checkpoint; 0 when absent. */
  recoveryPoint?: bigint;
  /** From log-start-offset-checkpoint. */
  logStartOffset?: bigint;
  /** The data directory had a `.kafka_cleanshutdown` marker: skip recovery. */
  hadCleanShutdown?: boolean;
  /** Clock in ms (tests drive it). */
  time?: () => number;
  /** Where recovery and retention say what they did (Kafka logs these at WARN/INFO). */
  logger?: LogSink;
}

export type LogSink = (level: 'info' | 'warn', message: string) => void;

/** What recovery cut from a segment (reported through the API and the logs). */
export interface RecoveryReport {
  segment: string;
  /** First byte removed. */
  position: number;
  bytesTruncated: number;
}

export interface AppendResult extends Pick<ValidationResult, 'firstOffset' | 'lastOffset' | 'maxTimestamp' | 'logAppendTime' | 'recordCount'> {
  logStartOffset: bigint;
}

export interface ReadResult {
  /** Whole batches from the one holding the fetch offset (the last one may be partial). */
  records: Buffer;
  firstEntryIncomplete: boolean;
  highWatermark: bigint;
  logStartOffset: bigint;
  logEndOffset: bigint;
}

export class PartitionLog {
  private segments: LogSegment[] = [];
  private leo = 0n;
  private startOffset = 0n;
  private recoveryPointOffset = 0n;
  private lastFlushMs: number;
  private readonly time: () => number;
  private readonly pendingDeletes: { segment: LogSegment; dueMs: number }[] = [];
  readonly recoveryReports: RecoveryReport[] = [];
  readonly leaderEpochCache: LeaderEpochFileCache;

  private constructor(
    readonly dir: string,
    readonly topic: string,
    readonly partition: number,
    public config: LogConfig,
    time: () => number,
  ) {
    this.time = time;
    this.lastFlushMs = time();
    this.leaderEpochCache = new LeaderEpochFileCache(join(dir, LEADER_EPOCH_CHECKPOINT_FILE));
  }

  static open(dir: string, topic: string, partition: number, options: PartitionLogOptions): PartitionLog {
    const log = new PartitionLog(dir, topic, partition, options.config, options.time ?? Date.now);
    log.load(options);
    return log;
  }

  get logEndOffset(): bigint {
    return this.leo;
  }
  /** Single node: every appended record is replicated to every (one) replica. */
  get highWatermark(): bigint {
    return this.leo;
  }
  get logStartOffset(): bigint {
    return this.startOffset;
  }
  get recoveryPoint(): bigint {
    return this.recoveryPointOffset;
  }
  get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1]!;
  }
  get segmentCount(): number {
    return this.segments.length;
  }
  get size(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }
  /** The segments in offset order (for tools and tests; do not mutate). */
  segmentList(): readonly LogSegment[] {
    return this.segments;
  }
  segmentBaseOffsets(): bigint[] {
    return this.segments.map((s) => s.baseOffset);
  }

  private segmentConfig() {
    return { indexIntervalBytes: this.config.indexIntervalBytes, segmentIndexBytes: this.config.segmentIndexBytes };
  }

  private rollJitter(): number {
    const jitter = Math.min(this.config.segmentJitterMs, this.config.segmentMs);
    return jitter > 0 ? Math.floor(Math.random() * jitter) : 0;
  }

  private newSegment(baseOffset: bigint): LogSegment {
    return LogSegment.open(this.dir, baseOffset, this.segmentConfig(), {
      create: true,
      rollJitterMs: this.rollJitter(),
      ...(this.config.preallocate ? { initFileSize: this.config.segmentBytes } : {}),
    });
  }

  // ---- loading and recovery (Kafka LogLoader, spec §10) -------------------------------------

  private load(options: PartitionLogOptions): void {
    this.cleanUpStateFiles();
    const needsRecovery = new Set<bigint>();
    const names = readdirSync(this.dir).sort();
    for (const name of names) {
      const path = join(this.dir, name);
      const isIndex = name.endsWith(INDEX_SUFFIX) || name.endsWith(TIME_INDEX_SUFFIX) || name.endsWith(TXN_INDEX_SUFFIX);
      if (isIndex && !existsSync(join(this.dir, name.slice(0, name.indexOf('.')) + LOG_SUFFIX))) {
        rmSync(path, { force: true }); // an index without its log is stale
      }
    }
    for (const name of readdirSync(this.dir).sort()) {
      if (!name.endsWith(LOG_SUFFIX)) continue;
      const baseOffset = offsetFromFileName(name);
      if (!existsSync(offsetIndexPath(this.dir, baseOffset))) needsRecovery.add(baseOffset);
      this.segments.push(LogSegment.open(this.dir, baseOffset, this.segmentConfig(), { create: false, rollJitterMs: this.rollJitter() }));
    }

    const recoveryPoint = options.recoveryPoint ?? 0n;
    const clean = options.hadCleanShutdown ?? false;
    for (let i = 0; i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      const nextBase = this.segments[i + 1]?.baseOffset;
      const unflushed = !clean && (nextBase === undefined || nextBase > recoveryPoint);
      if (!unflushed && !needsRecovery.has(segment.baseOffset)) continue;
      const before = segment.size;
      const truncated = this.recoverSegment(segment);
      if (truncated > 0) {
        this.recoveryReports.push({ segment: segment.log.path, position: before - truncated, bytesTruncated: truncated });
        options.logger?.(
          'warn',
          `Found invalid messages in log segment ${segment.log.path} at byte offset ${before - truncated}: truncated ${truncated} bytes`,
        );
        // everything after a damaged segment is unreliable: delete it (spec §10.3)
        for (const later of this.segments.splice(i + 1)) {
          this.recoveryReports.push({ segment: later.log.path, position: 0, bytesTruncated: later.size });
          options.logger?.('warn', `Deleting segment ${later.log.path} after the corruption found in ${segment.log.path}`);
          later.deleteFiles();
        }
        break;
      }
    }

    if (this.segments.length === 0) this.segments.push(this.newSegment(options.logStartOffset ?? 0n));
    this.leo = this.activeSegment.readNextOffset();
    const checkpointedStart = options.logStartOffset ?? 0n;
    if (this.leo < checkpointedStart) {
      for (const s of this.segments.splice(0)) s.deleteFiles();
      this.segments.push(this.newSegment(checkpointedStart));
      this.leo = checkpointedStart;
    }
    this.startOffset = checkpointedStart > this.segments[0]!.baseOffset ? checkpointedStart : this.segments[0]!.baseOffset;
    this.recoveryPointOffset = clean ? this.leo : recoveryPoint < this.leo ? recoveryPoint : this.leo;
    this.activeSegment.offsetIndex.resize(this.config.segmentIndexBytes);
    this.activeSegment.timeIndex.resize(this.config.segmentIndexBytes);
    this.leaderEpochCache.truncateFromEnd(this.leo);
    this.leaderEpochCache.truncateFromStart(this.startOffset);
  }

  private recoverSegment(segment: LogSegment): number {
    return segment.recover((batch) => {
      if (batch.kind === 'v2' && batch.partitionLeaderEpoch >= 0) {
        const latest = this.leaderEpochCache.latestEpoch();
        if (latest === undefined || batch.partitionLeaderEpoch > latest) {
          this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
        }
      }
    });
  }

  /** Kafka `LogLoader` file cleanup passes (spec §10.1). */
  private cleanUpStateFiles(): void {
    const cleaned: string[] = [];
    const swaps: string[] = [];
    let minCleanedOffset: bigint | undefined;
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (!statSync(path).isFile()) continue;
      if (name.endsWith(DELETED_SUFFIX)) {
        if (!name.endsWith('.checkpoint' + DELETED_SUFFIX)) rmSync(path, { force: true });
      } else if (name.endsWith(CLEANED_SUFFIX)) {
        cleaned.push(name);
        const o = offsetFromFileName(name);
        if (minCleanedOffset === undefined || o < minCleanedOffset) minCleanedOffset = o;
      } else if (name.endsWith(SWAP_SUFFIX)) {
        swaps.push(name);
      }
    }
    const keptSwaps: string[] = [];
    for (const name of swaps) {
      // a swap at or beyond a .cleaned file belongs to an interrupted split: not complete
      if (minCleanedOffset !== undefined && offsetFromFileName(name) >= minCleanedOffset) rmSync(join(this.dir, name), { force: true });
      else keptSwaps.push(name);
    }
    for (const name of cleaned) rmSync(join(this.dir, name), { force: true });
    const swapLogs = keptSwaps.filter((n) => n.endsWith(LOG_SUFFIX + SWAP_SUFFIX));
    if (swapLogs.length > 0) {
      let lo: bigint | undefined;
      let hi: bigint | undefined;
      for (const name of swapLogs) {
        const base = offsetFromFileName(name);
        const seg = LogSegment.open(this.dir, base, this.segmentConfig(), { create: false, suffix: SWAP_SUFFIX });
        const next = seg.readNextOffset();
        seg.close();
        if (lo === undefined || base < lo) lo = base;
        if (hi === undefined || next > hi) hi = next;
      }
      for (const name of readdirSync(this.dir)) {
        if (name.endsWith(SWAP_SUFFIX) || !/^\d/.test(name)) continue;
        const o = offsetFromFileName(name);
        if (o >= lo! && o < hi!) rmSync(join(this.dir, name), { force: true });
      }
    }
    for (const name of keptSwaps) {
      renameSync(join(this.dir, name), join(this.dir, name.slice(0, -SWAP_SUFFIX.length)));
    }
  }

  // ---- append (spec §7.2, §9) -----------------------------------------------------------------

  /** Validates, assigns offsets and appends a producer's records (Kafka `appendAsLeader`). */
  append(records: Buffer, options: { leaderEpoch?: number; origin?: 'client' | 'replication' | 'coordinator' } = {}): AppendResult {
    const now = this.time();
    const validated = validateAndAssignOffsets(records, {
      config: this.config,
      nextOffset: this.leo,
      now: BigInt(now),
      partitionLeaderEpoch: options.leaderEpoch ?? 0,
      origin: options.origin ?? 'client',
    });
    const bytes = validated.records;
    if (bytes.length > this.config.segmentBytes) {
      throw new RecordListTooLargeError(
        `Message batch size is ${bytes.length} bytes in append to partition ${this.topic}-${this.partition} which exceeds the maximum configured segment size of ${this.config.segmentBytes}.`,
      );
    }
    // leader epoch cache: every v2 batch assigns its epoch; legacy data clears it (spec §9.3)
    for (const batch of readRecordBatches(bytes, { verifyCrc: false })) {
      if (batch.kind === 'v2') {
        if (batch.partitionLeaderEpoch >= 0) this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
      } else {
        this.leaderEpochCache.clear();
      }
    }
    const segment = this.maybeRoll(bytes.length, validated, now);
    segment.append(validated.lastOffset, validated.maxTimestamp, validated.shallowOffsetOfMaxTimestamp, bytes);
    this.leo = validated.lastOffset + 1n;
    if (this.leo - this.recoveryPointOffset >= this.config.flushMessages) this.flush();
    return {
      firstOffset: validated.firstOffset,
      lastOffset: validated.lastOffset,
      maxTimestamp: validated.maxTimestamp,
      logAppendTime: validated.logAppendTime,
      recordCount: validated.recordCount,
      logStartOffset: this.startOffset,
    };
  }

  private maxSegmentMs(): number {
    const compact = this.config.cleanupPolicy.includes('compact');
    const lag = this.config.maxCompactionLagMs;
    return compact && lag > 0 ? Math.min(lag, this.config.segmentMs) : this.config.segmentMs;
  }

  private maybeRoll(messagesSize: number, v: ValidationResult, now: number): LogSegment {
    const active = this.activeSegment;
    if (
      active.shouldRoll({
        maxSegmentMs: this.maxSegmentMs(),
        segmentBytes: this.config.segmentBytes,
        messagesSize,
        maxTimestampInMessages: v.maxTimestamp,
        maxOffsetInMessages: v.lastOffset,
        now,
      })
    ) {
      return this.roll(v.firstOffset);
    }
    return active;
  }

  /** Starts a new active segment at max(expectedNextOffset, LEO) (Kafka `LocalLog.roll`). */
  roll(expectedNextOffset?: bigint): LogSegment {
    const newOffset = expectedNextOffset !== undefined && expectedNextOffset > this.leo ? expectedNextOffset : this.leo;
    const active = this.activeSegment;
    if (active.baseOffset === newOffset) {
      if (active.size === 0) return active; // the empty active segment already starts there
      throw new StorageError(`Trying to roll a new log segment with start offset ${newOffset} that already exists`);
    }
    if (newOffset < active.baseOffset) {
      throw new StorageError(`Trying to roll a new log segment with start offset ${newOffset} below the active segment ${active.baseOffset}`);
    }
    active.onBecomeInactiveSegment();
    active.flush();
    const segment = this.newSegment(newOffset);
    this.segments.push(segment);
    if (this.recoveryPointOffset < newOffset) this.recoveryPointOffset = newOffset;
    return segment;
  }

  // ---- reads (spec §8) ----------------------------------------------------------------------

  private floorSegmentIndex(offset: bigint): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.segments[mid]!.baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * Reads whole batches from the one holding `fetchOffset` (Kafka `UnifiedLog.read`): at most
   * `maxBytes`, but the first batch whole when `minOneMessage`.
   */
  read(fetchOffset: bigint, options: { maxBytes: number; minOneMessage?: boolean }): ReadResult {
    const result = (records: Buffer, firstEntryIncomplete = false): ReadResult => ({
      records,
      firstEntryIncomplete,
      highWatermark: this.highWatermark,
      logStartOffset: this.startOffset,
      logEndOffset: this.leo,
    });
    if (fetchOffset < this.startOffset || fetchOffset > this.leo) {
      throw new OffsetOutOfRangeError(
        `Received request for offset ${fetchOffset} for partition ${this.topic}-${this.partition}, but we only have log segments in the range ${this.startOffset} to ${this.leo}.`,
      );
    }
    if (fetchOffset === this.highWatermark) return result(Buffer.alloc(0));
    for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < this.segments.length; i++) {
      const r = this.segments[i]!.read(fetchOffset, options.maxBytes, this.segments[i]!.size, options.minOneMessage ?? true);
      if (r !== undefined) return result(r.records, r.firstEntryIncomplete);
    }
    return result(Buffer.alloc(0));
  }

  /** ListOffsets (spec §8.4): -2 earliest, -1 latest, -3 max timestamp, or the first offset with timestamp >= t. */
  fetchOffsetByTimestamp(timestamp: bigint): TimestampAndOffset | undefined {
    if (timestamp === EARLIEST_TIMESTAMP) return { timestamp: -1n, offset: this.startOffset };
    if (timestamp === LATEST_TIMESTAMP) return { timestamp: -1n, offset: this.highWatermark };
    if (timestamp === MAX_TIMESTAMP) return this.maxTimestampOffset();
    if (timestamp < 0n) return undefined;
    const segment = this.segments.find((s) => s.largestTimestamp() >= timestamp);
    const found = segment?.findOffsetByTimestamp(timestamp, this.startOffset);
    return found !== undefined && found.offset < this.highWatermark ? found : undefined;
  }

  private maxTimestampOffset(): TimestampAndOffset | undefined {
    let best: LogSegment | undefined;
    for (const s of this.segments) {
      if (best === undefined || s.maxTimestampAndOffset().timestamp > best.maxTimestampAndOffset().timestamp) best = s;
    }
    if (best === undefined) return undefined;
    const { timestamp, offset } = best.maxTimestampAndOffset();
    if (timestamp < 0n) return undefined;
    const position = best.offsetIndex.lookup(offset).position;
    for (const { batch } of best.log.batches(position)) {
      if (batch.maxTimestamp !== timestamp) continue;
      for (const r of batch.records({ verifyCrc: false })) {
        if (r.timestamp === timestamp) {
          return { timestamp, offset: r.offset, ...(batch.kind === 'v2' && batch.partitionLeaderEpoch >= 0 ? { leaderEpoch: batch.partitionLeaderEpoch } : {}) };
        }
      }
    }
    return undefined;
  }

  // ---- retention, deletion, truncation (spec §11) ---------------------------------------------

  /** Applies log-start, size and time retention; returns how many segments were deleted. */
  deleteOldSegments(): number {
    let deleted = this.deleteSegmentsWhile((s, next) => next !== undefined && next.baseOffset <= this.startOffset);
    if (!this.config.cleanupPolicy.includes('delete')) return deleted;
    if (this.config.retentionBytes >= 0) {
      let diff = this.size - this.config.retentionBytes;
      if (diff >= 0) {
        deleted += this.deleteSegmentsWhile((s) => {
          if (diff - s.size < 0) return false;
          diff -= s.size;
          return true;
        });
      }
    }
    if (this.config.retentionMs >= 0) {
      const now = BigInt(this.time());
      const limit = BigInt(this.config.retentionMs);
      deleted += this.deleteSegmentsWhile((s) => now - s.largestTimestamp() > limit);
    }
    return deleted;
  }

  private deleteSegmentsWhile(predicate: (segment: LogSegment, next: LogSegment | undefined) => boolean): number {
    const doomed: LogSegment[] = [];
    for (let i = 0; i < this.segments.length; i++) {
      const s = this.segments[i]!;
      const next = this.segments[i + 1];
      const upperBound = next?.baseOffset ?? this.leo;
      const isLastEmpty = next === undefined && s.size === 0;
      if (this.highWatermark < upperBound || isLastEmpty || !predicate(s, next)) break;
      doomed.push(s);
    }
    if (doomed.length === 0) return 0;
    if (doomed.length === this.segments.length) this.roll(); // keep an active segment
    this.segments.splice(0, doomed.length);
    const newStart = this.segments[0]!.baseOffset;
    if (newStart > this.startOffset) {
      this.startOffset = newStart;
      this.leaderEpochCache.truncateFromStart(newStart);
    }
    for (const s of doomed) this.scheduleDelete(s);
    return doomed.length;
  }

  private scheduleDelete(segment: LogSegment): void {
    segment.changeFileSuffixes('', DELETED_SUFFIX);
    this.pendingDeletes.push({ segment, dueMs: this.time() + this.config.fileDeleteDelayMs });
    this.deleteDueFiles();
  }

  /** Physically removes `.deleted` files whose `file.delete.delay.ms` has passed. */
  deleteDueFiles(): void {
    const now = this.time();
    for (let i = this.pendingDeletes.length - 1; i >= 0; i--) {
      if (this.pendingDeletes[i]!.dueMs <= now) this.pendingDeletes.splice(i, 1)[0]!.segment.deleteFiles();
    }
  }

  /** DeleteRecords: raises the log start offset (never beyond the high watermark). */
  deleteRecordsBefore(offset: bigint): bigint {
    if (offset > this.highWatermark) {
      throw new OffsetOutOfRangeError(`Cannot increment the log start offset to ${offset} of partition ${this.topic}-${this.partition} since it is larger than the high watermark ${this.highWatermark}`);
    }
    if (offset > this.startOffset) {
      this.startOffset = offset;
      this.leaderEpochCache.truncateFromStart(offset);
      this.deleteOldSegments();
    }
    return this.startOffset;
  }

  /** Removes everything from `targetOffset` on (Kafka `UnifiedLog.truncateTo`). */
  truncateTo(targetOffset: bigint): void {
    if (targetOffset < 0n) throw new OffsetOutOfRangeError(`Cannot truncate partition ${this.topic}-${this.partition} to a negative offset ${targetOffset}`);
    if (targetOffset >= this.leo) return;
    if (targetOffset < this.segments[0]!.baseOffset) {
      for (const s of this.segments.splice(0)) this.scheduleDelete(s);
      this.segments.push(this.newSegment(targetOffset));
      this.startOffset = targetOffset;
    } else {
      const keep = this.floorSegmentIndex(targetOffset);
      for (const s of this.segments.splice(keep + 1)) this.scheduleDelete(s);
      this.activeSegment.truncateTo(targetOffset);
      this.activeSegment.offsetIndex.resize(this.config.segmentIndexBytes);
      this.activeSegment.timeIndex.resize(this.config.segmentIndexBytes);
    }
    this.leo = targetOffset;
    if (this.recoveryPointOffset > targetOffset) this.recoveryPointOffset = targetOffset;
    this.leaderEpochCache.truncateFromEnd(targetOffset);
  }

  // ---- durability (spec §9.3 step 4, flush.ms) ------------------------------------------------

  /** fsyncs every segment holding offsets below `upTo` (default LEO) and advances the recovery point. */
  flush(upTo: bigint = this.leo): void {
    if (upTo <= this.recoveryPointOffset) return;
    const from = Math.max(0, this.floorSegmentIndex(this.recoveryPointOffset));
    for (let i = from; i < this.segments.length && this.segments[i]!.baseOffset < upTo; i++) this.segments[i]!.flush();
    this.recoveryPointOffset = upTo;
    this.lastFlushMs = this.time();
  }

  /** `flush.ms`: flush when that long has passed since the last flush (called by a scheduler). */
  maybeFlushByTime(): void {
    if (BigInt(this.time() - this.lastFlushMs) >= this.config.flushMs) this.flush();
  }

  close(): void {
    for (const p of this.pendingDeletes.splice(0)) p.segment.deleteFiles();
    for (const s of this.segments) s.close();
    this.recoveryPointOffset = this.leo;
  }
}
