/**
 * The segments of one partition log on local disk (Kafka `LocalLog`): the segment list in offset
 * order, the log end offset, the recovery point and flushes, rolls, reads by offset, truncation,
 * the swap of cleaned segments and the delayed deletion of `.deleted` files.
 *
 * What the records mean (producer state, leader epochs, the log start offset, the high watermark,
 * retention) is the UnifiedLog's part, partition-log.ts; loading is log-loader.ts.
 */
import { StorageError } from '../errors.js';
import { DELETED_SUFFIX } from './file-names.js';
import type { LogConfig } from './log-config.js';
import type { LogResources } from './log-resources.js';
import { removePath, type BackgroundRemovals } from './background-delete.js';
import { LogSegment, type SegmentConfig } from './log-segment.js';
import { swapInCleanedSegment } from './segment-swap.js';
import type { AbortedTxn } from './transaction-index.js';
import type { ReadTarget } from './file-records.js';

export type LogSink = (level: 'info' | 'warn', message: string) => void;

/** `segment.index.bytes` and `index.interval.bytes`: what a segment of the log is opened with. */
export function segmentConfigOf(config: LogConfig): SegmentConfig {
  return { indexIntervalBytes: config.indexIntervalBytes, segmentIndexBytes: config.segmentIndexBytes };
}

/** A random part of segment.jitter.ms (never above segment.ms) for each segment's time-based roll. */
function rollJitter(config: LogConfig): number {
  const jitter = Math.min(config.segmentJitterMs, config.segmentMs);
  return jitter > 0 ? Math.floor(Math.random() * jitter) : 0;
}

/** Opens a segment's existing files (`create: false`) or creates them, preallocated when configured. */
export function openSegment(dir: string, config: LogConfig, time: () => number, resources: LogResources, baseOffset: bigint, create: boolean, isNew = false): LogSegment {
  return LogSegment.open(dir, baseOffset, segmentConfigOf(config), {
    create,
    isNew,
    rollJitterMs: rollJitter(config),
    time,
    resources,
    ...(create && config.preallocate ? { initFileSize: config.segmentBytes } : {}),
  });
}

/** Index of the last of `segments` (in offset order) whose base is at or below `offset`, -1 when none is. */
export function floorSegmentIndex(segments: readonly LogSegment[], offset: bigint): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.baseOffset <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

interface PendingDelete {
  segment: LogSegment;
  dueMs: number;
  extraFiles: string[];
}

export class LocalLog {
  private leo: bigint;
  private recoveryPointOffset: bigint;
  private lastFlushMs: number;
  /**
   * Background flushes of rolled segments, chained in roll order: resolves to whether all of them
   * succeeded so far, and each success moves the recovery point to its roll's offset.
   */
  private backgroundFlush: Promise<boolean> = Promise.resolve(true);
  private readonly pendingDeletes: PendingDelete[] = [];

  constructor(
    readonly dir: string,
    public config: LogConfig,
    private readonly time: () => number,
    /** Its data directory's budgets and flush mode (log-resources.ts). */
    readonly resources: LogResources,
    /** The loaded segments, in offset order (LogLoader), never empty. */
    private readonly segments: LogSegment[],
    logEndOffset: bigint,
    recoveryPoint: bigint,
    lastFlushMs: number,
    private readonly logger: LogSink | undefined,
    /**
     * The producer snapshot at a deleted segment's base, renamed for deletion along with it (Kafka
     * `UnifiedLog.deleteSegmentFiles`): its path, or undefined when there is none.
     */
    private readonly markSnapshotForDeletion: (baseOffset: bigint) => string | undefined,
  ) {
    this.leo = logEndOffset;
    this.recoveryPointOffset = recoveryPoint;
    this.lastFlushMs = lastFlushMs;
  }

  get logEndOffset(): bigint {
    return this.leo;
  }
  /** Kafka `LocalLog.updateLogEndOffset`: after an append. */
  updateLogEndOffset(offset: bigint): void {
    this.leo = offset;
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
  /** The segments in offset order (do not mutate). */
  segmentList(): readonly LogSegment[] {
    return this.segments;
  }

  /** Index of the last segment whose base is at or below `offset`, -1 when none is. */
  floorSegmentIndex(offset: bigint): number {
    return floorSegmentIndex(this.segments, offset);
  }

  private newSegment(baseOffset: bigint): LogSegment {
    return openSegment(this.dir, this.config, this.time, this.resources, baseOffset, true);
  }

  /** The active segment's indexes at full size again (they are trimmed when it stops being active). */
  private resizeActiveIndexes(): void {
    this.activeSegment.offsetIndex.resize(this.config.segmentIndexBytes);
    this.activeSegment.timeIndex.resize(this.config.segmentIndexBytes);
  }

  // ---- roll and flush ------------------------------------------------------------------------

  /**
   * Starts a new active segment at `newOffset` (Kafka `LocalLog.roll`); `rolled` is the segment it
   * replaces as active, absent when the active segment was empty and already started there.
   */
  roll(newOffset: bigint): { segment: LogSegment; rolled?: LogSegment } {
    const active = this.activeSegment;
    if (active.baseOffset === newOffset) {
      if (active.size === 0) return { segment: active }; // the empty active segment already starts there
      throw new StorageError(`Trying to roll a new log segment with start offset ${newOffset} that already exists`);
    }
    if (newOffset < active.baseOffset) {
      throw new StorageError(`Trying to roll a new log segment with start offset ${newOffset} below the active segment ${active.baseOffset}`);
    }
    // the new segment first (Kafka makes the old one inactive first): when its files cannot be
    // created (EPERM, ENOSPC) the active segment is untouched, its indexes still at full size, so a
    // failed roll changes nothing and the next append cannot land in a trimmed segment
    const segment = this.newSegment(newOffset);
    try {
      active.onBecomeInactiveSegment();
    } catch (e) {
      try {
        segment.deleteFiles();
      } catch {
        // best effort: the directory is failing already, and the error that matters is `e`
      }
      throw e;
    }
    this.segments.push(segment);
    return { segment, rolled: active };
  }

  /**
   * Kafka flushes the rolled segment in the background and moves the recovery point to the new
   * segment's base once that is done (UnifiedLog.roll's "flush-log" task). Without the native addon
   * the flush is inline, as it was. A failed background flush leaves the recovery point where it
   * was (recovery after a crash then checks those segments) and takes the log directory offline
   * (log-dir-failure.ts), as Kafka does on a failed flush.
   */
  flushRolled(rolled: LogSegment, upTo: bigint): void {
    const flushed = rolled.flushInBackground();
    if (flushed === undefined) {
      rolled.flush();
      if (this.recoveryPointOffset < upTo) this.recoveryPointOffset = upTo;
      return;
    }
    const ok = flushed.then(
      () => true,
      (e: unknown) => {
        this.logger?.('warn', `Background flush of ${rolled.log.path} failed, the recovery point stays at ${this.recoveryPointOffset}: ${(e as Error).message}`);
        // a failed fsync may have dropped the dirty pages it was to write: Kafka takes the log
        // directory offline on it as on any IOException of the flush (UnifiedLog.flush)
        this.resources.logDirFailure.fail(rolled.log.path, e);
        return false;
      },
    );
    this.backgroundFlush = Promise.all([this.backgroundFlush, ok]).then(([before, now]) => {
      if (before && now && this.recoveryPointOffset < upTo) {
        this.recoveryPointOffset = upTo;
        this.lastFlushMs = this.time();
      }
      return before && now;
    });
  }

  /** Resolves once the background flushes of rolled segments started so far are done. */
  backgroundFlushes(): Promise<void> {
    return this.backgroundFlush.then(() => undefined);
  }

  /** fsyncs every segment holding offsets below `upTo` (default LEO) and advances the recovery point. */
  flush(upTo: bigint = this.leo): void {
    if (upTo <= this.recoveryPointOffset) return;
    const from = Math.max(0, this.floorSegmentIndex(this.recoveryPointOffset));
    const last = this.segments.length - 1;
    for (let i = from; i <= last && this.segments[i]!.baseOffset < upTo; i++) this.segments[i]!.flush(i !== last);
    this.recoveryPointOffset = upTo;
    this.lastFlushMs = this.time();
    // everything below upTo is on disk now, whatever became of earlier background flushes
    this.backgroundFlush = Promise.resolve(true);
  }

  /** Milliseconds since the last flush (flush.ms). */
  timeSinceLastFlush(): number {
    return this.time() - this.lastFlushMs;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /**
   * Whole batches from the one holding `fetchOffset`, from the first segment that has any (Kafka
   * `LocalLog.read`); undefined when no segment from there holds that offset or a later one.
   */
  read(fetchOffset: bigint, maxBytes: number, minOneMessage: boolean, into?: ReadTarget): { records: Buffer; firstEntryIncomplete: boolean } | undefined {
    for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < this.segments.length; i++) {
      const r = this.segments[i]!.read(fetchOffset, maxBytes, this.segments[i]!.size, minOneMessage, into);
      if (r !== undefined) return r;
    }
    return undefined;
  }

  /** Aborted transactions overlapping [fetchOffset, upperBound), from the txn indexes of the segments there. */
  collectAbortedTxns(fetchOffset: bigint, upperBound: bigint): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < this.segments.length; i++) {
      const r = this.segments[i]!.txnIndex.collectAbortedTxns(fetchOffset, upperBound);
      out.push(...r.abortedTransactions);
      if (r.isComplete) break;
    }
    return out;
  }

  // ---- removing segments ---------------------------------------------------------------------

  /**
   * Takes the `count` oldest segments out of the list (Kafka `LocalLog.removeAndDeleteSegments`
   * without the deletion: `deleteSegmentFiles` follows once the log start offset moved). The
   * caller rolls first when that is every segment, so that an active segment remains.
   */
  removeOldestSegments(count: number): LogSegment[] {
    return this.segments.splice(0, count);
  }

  /** Schedules the deletion of segments already taken out of the list (Kafka `LocalLog.deleteSegmentFiles`). */
  deleteSegmentFiles(segments: readonly LogSegment[]): void {
    for (const s of segments) this.scheduleDelete(s);
  }

  /**
   * Removes everything from `targetOffset` on (Kafka `LocalLog.truncateTo`; `targetOffset` is below
   * the LEO). Returns true when the whole log went, and a new empty segment starts at `targetOffset`
   * (Kafka `truncateFullyAndStartAt`).
   */
  truncateTo(targetOffset: bigint): boolean {
    let fully = false;
    if (targetOffset < this.segments[0]!.baseOffset) {
      for (const s of this.segments.splice(0)) this.scheduleDelete(s);
      this.segments.push(this.newSegment(targetOffset));
      fully = true;
    } else {
      const keep = this.floorSegmentIndex(targetOffset);
      for (const s of this.segments.splice(keep + 1)) this.scheduleDelete(s);
      this.activeSegment.truncateTo(targetOffset);
      this.resizeActiveIndexes();
    }
    this.leo = targetOffset;
    if (this.recoveryPointOffset > targetOffset) this.recoveryPointOffset = targetOffset;
    return fully;
  }

  /**
   * The cleaner's swap (Kafka `LocalLog.replaceSegments`, segment-swap.ts): `cleaned` (files suffixed
   * `.cleaned`, flushed) takes the place of `oldSegments`, whose offsets end before `groupEnd`.
   */
  replaceSegments(cleaned: LogSegment, oldSegments: readonly LogSegment[], groupEnd: bigint, topicPartition: string): void {
    const first = this.segments.indexOf(oldSegments[0]!);
    if (first < 0 || oldSegments.some((s, i) => this.segments[first + i] !== s) || oldSegments.includes(this.activeSegment)) {
      throw new StorageError(`Cannot replace segments of ${topicPartition}: they are no longer the log's inactive segments`);
    }
    swapInCleanedSegment(this.dir, cleaned, groupEnd, () => {
      this.segments.splice(first, oldSegments.length, cleaned);
      for (const old of oldSegments) {
        if (old.baseOffset === cleaned.baseOffset) {
          // its producer snapshot now belongs to the cleaned segment
          old.changeFileSuffixes('', DELETED_SUFFIX);
          this.pendingDeletes.push({ segment: old, dueMs: this.time() + this.config.fileDeleteDelayMs, extraFiles: [] });
        } else {
          this.scheduleDelete(old);
        }
      }
    });
    this.deleteDueFiles();
  }

  /** Renames a segment (and its producer snapshot) to `.deleted`; removal follows after file.delete.delay.ms. */
  private scheduleDelete(segment: LogSegment): void {
    segment.changeFileSuffixes('', DELETED_SUFFIX);
    const snapshot = this.markSnapshotForDeletion(segment.baseOffset);
    this.pendingDeletes.push({ segment, dueMs: this.time() + this.config.fileDeleteDelayMs, extraFiles: snapshot ? [snapshot] : [] });
    this.deleteDueFiles();
  }

  /** Physically removes `.deleted` files whose `file.delete.delay.ms` has passed. */
  deleteDueFiles(): void {
    const now = this.time();
    const removals = this.resources.removals;
    for (let i = this.pendingDeletes.length - 1; i >= 0; i--) {
      if (this.pendingDeletes[i]!.dueMs <= now) removePending(this.pendingDeletes.splice(i, 1)[0]!, removals);
    }
  }

  /** Removes every `.deleted` file now, due or not, before this returns (at close). */
  deleteAllPending(): void {
    for (const p of this.pendingDeletes.splice(0)) removePending(p, undefined);
  }

  /** Closes every segment (each trims and syncs what changed): everything is on disk. */
  close(): void {
    for (const s of this.segments) s.close();
    this.recoveryPointOffset = this.leo;
  }
}

/** Removes a pending delete's files: on the thread pool given `removals`, else before this returns. */
function removePending(p: PendingDelete, removals: BackgroundRemovals | undefined): void {
  if (removals === undefined) p.segment.deleteFiles();
  else for (const path of p.segment.closeForRemoval()) removals.remove(path);
  for (const f of p.extraFiles) removePath(removals, f);
}
