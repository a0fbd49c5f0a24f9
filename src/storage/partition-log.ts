/**
 * The log of one partition (Kafka `UnifiedLog`, single node): appends through Kafka's validator,
 * producer state and transactions, the leader-epoch cache, the log start offset, high watermark
 * and last stable offset, reads bounded by them, ListOffsets, retention and truncation. The
 * segments themselves are the LocalLog (local-log.ts); opening and recovery are the LogLoader
 * (log-loader.ts).
 *
 * On a single node the high watermark is the log end offset. One writer per partition; readers in
 * the same process only ever see whole appended batches (a segment's logical size moves after the
 * bytes are written).
 */
import { join } from 'node:path';
import { OffsetOutOfRangeError, RecordListTooLargeError } from '../errors.js';
import type { RecordBatch } from '../record/batch.js';
import { readRecordBatches } from '../record/batches.js';
import { encodeEndTransactionMarker } from '../record/builder.js';
import { NO_TIMESTAMP } from '../record/constants.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from './file-names.js';
import { LeaderEpochFileCache } from './leader-epoch-cache.js';
import { LocalLog, type LogSink } from './local-log.js';
import type { LogConfig } from './log-config.js';
import { LogLoader, type LogLoaderOptions, type RecoveryReport } from './log-loader.js';
import type { LogSegment, TimestampAndOffset } from './log-segment.js';
import { validateAndAssignOffsets, type ValidationContext, type ValidationResult } from './log-validator.js';
import { analyzeRaftLeaderRecords } from './raft-leader-append.js';
import type { AppendOrigin, CompletedTxn, ProducerAppendInfo } from './producer-append-info.js';
import type { ProducerStateManager } from './producer-state.js';
import { completeTxn, reloadProducerState } from './producer-state-rebuild.js';
import type { AbortedTxn } from './transaction-index.js';
import type { ReadTarget } from './file-records.js';
import type { HeldAppends } from './held-appends.js';
import { createLogResources, type LogResources } from './log-resources.js';

export type { LogSink } from './local-log.js';
export type { RecoveryReport } from './log-loader.js';

/** Long.MAX_VALUE: flush.messages' default. */
const LONG_MAX = 0x7fffffffffffffffn;

/** ListOffsets special timestamps (`ListOffsetsRequest`). */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;

export interface PartitionLogOptions extends LogLoaderOptions {
  config: LogConfig;
  /** Clock in ms (tests drive it). */
  time?: () => number;
  /** Where recovery and retention say what they did (Kafka logs these at WARN/INFO). */
  logger?: LogSink;
}

export interface AppendResult extends Pick<ValidationResult, 'firstOffset' | 'lastOffset' | 'maxTimestamp' | 'logAppendTime' | 'recordCount'> {
  logStartOffset: bigint;
  /** The batch repeated one of the producer's last five: nothing was written, the offsets are the original's. */
  duplicate: boolean;
}

export type IsolationLevel = 'read_uncommitted' | 'read_committed';

export interface ReadResult {
  /** Whole batches from the one holding the fetch offset (the last one may be partial). */
  records: Buffer;
  firstEntryIncomplete: boolean;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  logEndOffset: bigint;
  /** read_committed only: aborted transactions overlapping the returned range (Kafka FetchResponse). */
  abortedTransactions?: AbortedTxn[];
}

export class PartitionLog {
  private readonly localLog: LocalLog;
  private startOffset: bigint;
  /** Reused copy of each append's input (the validator mutates a copy, never the caller's bytes). */
  private readonly appendScratch = { buffer: Buffer.allocUnsafe(0) };
  private validation: ValidationContext | undefined;
  /** "topic-partition" for error messages, built once (every append passes it). */
  private readonly topicPartition: string;
  readonly recoveryReports: RecoveryReport[];
  readonly leaderEpochCache: LeaderEpochFileCache;
  /** Producer ids, sequences and open transactions. */
  readonly producerStateManager: ProducerStateManager;

  private readonly time: () => number;
  /** Its data directory's budgets and flush mode (log-resources.ts), shared with the cleaner. */
  readonly resources: LogResources;

  /** Opens the log in `dir`: loads and, where needed, recovers it (log-loader.ts). */
  static open(dir: string, topic: string, partition: number, options: PartitionLogOptions): PartitionLog {
    return new PartitionLog(dir, topic, partition, options);
  }

  private constructor(
    readonly dir: string,
    readonly topic: string,
    readonly partition: number,
    options: PartitionLogOptions,
  ) {
    const time = (this.time = options.time ?? Date.now);
    const resources = (this.resources = options.resources ?? createLogResources());
    this.topicPartition = `${topic}-${partition}`;
    const openedMs = time();
    this.leaderEpochCache = new LeaderEpochFileCache(join(dir, LEADER_EPOCH_CHECKPOINT_FILE), options.isNew === true);
    const loaded = new LogLoader(dir, options.config, time, this.leaderEpochCache, { ...options, resources }).load();
    this.recoveryReports = loaded.recoveryReports;
    this.startOffset = loaded.logStartOffset;
    this.producerStateManager = loaded.producerStateManager;
    this.localLog = new LocalLog(dir, options.config, time, resources, loaded.segments, loaded.logEndOffset, loaded.recoveryPoint, openedMs, options.logger, (baseOffset) =>
      this.producerStateManager.removeAndMarkSnapshotForDeletion(baseOffset),
    );
  }

  /** The log's configuration; a new one applies from the next operation (dynamic topic config). */
  get config(): LogConfig {
    return this.localLog.config;
  }
  set config(config: LogConfig) {
    this.localLog.config = config;
  }
  get logEndOffset(): bigint {
    return this.localLog.logEndOffset;
  }
  /** Single node: every appended record is replicated to every (one) replica. */
  get highWatermark(): bigint {
    return this.localLog.logEndOffset;
  }
  get logStartOffset(): bigint {
    return this.startOffset;
  }
  get recoveryPoint(): bigint {
    return this.localLog.recoveryPoint;
  }
  /** LSO: the first offset of the oldest open (or not yet replicated) transaction, capped by the HW. */
  get lastStableOffset(): bigint {
    const unstable = this.producerStateManager.firstUnstableOffset();
    return unstable !== undefined && unstable < this.highWatermark ? unstable : this.highWatermark;
  }
  get activeSegment(): LogSegment {
    return this.localLog.activeSegment;
  }
  get segmentCount(): number {
    return this.localLog.segmentCount;
  }
  get size(): number {
    return this.localLog.size;
  }
  /** The segments in offset order (for tools and tests; do not mutate). */
  segmentList(): readonly LogSegment[] {
    return this.localLog.segmentList();
  }
  segmentBaseOffsets(): bigint[] {
    return this.localLog.segmentList().map((s) => s.baseOffset);
  }

  /**
   * The cleaner's swap (Kafka `LocalLog.replaceSegments`, segment-swap.ts): `cleaned` (files
   * suffixed `.cleaned`, flushed) takes the place of `oldSegments`, whose offsets end before
   * `groupEnd`. A crash at any point reopens to the old segments or the new one.
   */
  replaceSegments(cleaned: LogSegment, oldSegments: readonly LogSegment[], groupEnd: bigint): void {
    this.guarded(() => this.unguardedReplaceSegments(cleaned, oldSegments, groupEnd));
  }

  private unguardedReplaceSegments(cleaned: LogSegment, oldSegments: readonly LogSegment[], groupEnd: bigint): void {
    this.localLog.replaceSegments(cleaned, oldSegments, groupEnd, this.topicPartition);
  }

  /** Runs an operation on the log's files as Kafka's `maybeHandleIOException` (log-dir-failure.ts). */
  private guarded<T>(fn: () => T): T {
    return this.resources.logDirFailure.guard(this.dir, fn);
  }

  // ---- append (Kafka UnifiedLog.append) --------------------------------------------------------

  /**
   * Validates, assigns offsets and appends a producer's records (Kafka `appendAsLeader`).
   * `mutateInput`: the caller hands `records` over (e.g. a produce request's buffer it will not read
   * again): offsets, leader epoch and timestamps are then written into it rather than into a copy,
   * as Kafka does with the request's buffer; after an error its content is unspecified.
   * `heldAppends` (with `mutateInput`): when the validated batches are still the caller's bytes, their
   * file write is held for these (held-appends.ts), and the caller must leave
   * `records` unchanged until it was written. Batches rebuilt by validation are written at once.
   */
  append(
    records: Buffer,
    options: { leaderEpoch?: number; origin?: AppendOrigin; mutateInput?: boolean; heldAppends?: HeldAppends } = {},
  ): AppendResult {
    // Kafka's maybeHandleIOException, inlined on this hot path: see log-dir-failure.ts
    const failures = this.resources.logDirFailure;
    failures.check();
    try {
      return this.appendToLog(records, options);
    } catch (e) {
      throw failures.caught(this.dir, e);
    }
  }

  /**
   * `append` itself. Nothing changes before the roll and the segment append have succeeded (the
   * roll opens the new segment before it touches the old one, and the segment checks its indexes
   * before it writes), so a failure leaves the log end offset, the segments, their indexes, the
   * leader-epoch cache and the producer state as they were: a later append never reuses offsets
   * already written.
   */
  private appendToLog(
    records: Buffer,
    options: { leaderEpoch?: number; origin?: AppendOrigin; mutateInput?: boolean; heldAppends?: HeldAppends },
  ): AppendResult {
    const leo = this.localLog.logEndOffset;
    if (records.length === 0) {
      return { firstOffset: leo, lastOffset: leo - 1n, maxTimestamp: NO_TIMESTAMP, logAppendTime: NO_TIMESTAMP, recordCount: 0, logStartOffset: this.startOffset, duplicate: false };
    }
    const now = this.time();
    const validated =
      options.origin === 'raftLeader'
        ? analyzeRaftLeaderRecords(records, { config: this.config, nextOffset: leo, leaderEpoch: options.leaderEpoch ?? 0, topicPartition: this.topicPartition })
        : validateAndAssignOffsets(records, this.validationContext(leo, now, options));
    const bytes = validated.records;
    if (bytes.length > this.config.segmentBytes) {
      throw new RecordListTooLargeError(
        `Message batch size is ${bytes.length} bytes in append to partition ${this.topic}-${this.partition} which exceeds the maximum configured segment size of ${this.config.segmentBytes}.`,
      );
    }
    const origin = options.origin ?? 'client';
    const batches = validated.batches;
    // producer state (Kafka UnifiedLog.analyzeAndValidateProducerState): duplicates return the original offsets, nothing is written;
    // the map and list are created only for idempotent batches (most appends have none)
    let infos: Map<bigint, ProducerAppendInfo> | undefined;
    let completed: CompletedTxn[] | undefined;
    const state = this.producerStateManager;
    for (const batch of batches) {
      if (batch.kind !== 'v2' || !batch.hasProducerId) continue;
      if (origin === 'client') {
        const duplicate = state.findDuplicateBatch(batch);
        if (duplicate) {
          return {
            firstOffset: duplicate.lastOffset - BigInt(duplicate.offsetDelta),
            lastOffset: duplicate.lastOffset,
            maxTimestamp: duplicate.timestamp,
            // UnifiedLog.append answers a duplicate with the cached batch's timestamp as its append
            // time (on a LogAppendTime topic, the time the original was appended)
            logAppendTime: duplicate.timestamp,
            recordCount: 0,
            logStartOffset: this.startOffset,
            duplicate: true,
          };
        }
      }
      infos ??= new Map();
      let info = infos.get(batch.producerId);
      if (!info) infos.set(batch.producerId, (info = state.prepareUpdate(batch.producerId, origin)));
      const txn = info.append(batch as RecordBatch);
      if (txn) (completed ??= []).push(txn);
    }
    const segment = this.maybeRoll(bytes.length, validated, now);
    // held only when the bytes are the caller's (in place): a rebuilt batch may sit in a reused scratch
    const held = options.heldAppends !== undefined && options.mutateInput === true && within(bytes, records) ? options.heldAppends : undefined;
    segment.append(validated.lastOffset, validated.maxTimestamp, validated.shallowOffsetOfMaxTimestamp, bytes, held);
    // leader epoch cache: every v2 batch assigns its epoch; legacy data clears it (Kafka UnifiedLog.append).
    // After the segment append, so that a failed append leaves it as it was
    for (const batch of batches) {
      if (batch.kind === 'v2') {
        if (batch.partitionLeaderEpoch >= 0) this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
      } else {
        this.leaderEpochCache.clear();
      }
    }
    const newLeo = validated.lastOffset + 1n;
    this.localLog.updateLogEndOffset(newLeo);
    if (infos !== undefined) for (const info of infos.values()) state.update(info);
    if (completed !== undefined) for (const txn of completed) completeTxn(state, txn, segment);
    state.updateMapEndOffset(newLeo);
    state.onHighWatermarkUpdated(this.highWatermark);
    // at flush.messages' default (Long.MAX_VALUE) no log end offset below it can be that far past
    // the recovery point: no BigInt subtraction per append then
    const flushMessages = this.config.flushMessages;
    if ((flushMessages < LONG_MAX || newLeo >= LONG_MAX) && newLeo - this.localLog.recoveryPoint >= flushMessages) this.flush();
    return {
      firstOffset: validated.firstOffset,
      lastOffset: validated.lastOffset,
      maxTimestamp: validated.maxTimestamp,
      logAppendTime: validated.logAppendTime,
      recordCount: validated.recordCount,
      logStartOffset: this.startOffset,
      duplicate: false,
    };
  }

  /**
   * Appends batches the KRaft leader built itself, at the log end offset and in `leaderEpoch`
   * (Kafka `appendAsLeader` with origin RAFT_LEADER): written as they are, after the shallow
   * checks of raft-leader-append.ts instead of the validation a producer's records get.
   */
  appendAsRaftLeader(records: Buffer, leaderEpoch: number): AppendResult {
    return this.append(records, { leaderEpoch, origin: 'raftLeader' });
  }

  /**
   * Appends a transaction marker as the coordinator writes it (Kafka `appendAsLeader` with
   * origin COORDINATOR): completes the producer's open transaction; an ABORT lands in the txn index.
   * The marker batch is built here, so it is handed over (`mutateInput`: no copy), and its write may
   * be held as a Produce append's is (`heldAppends`, same rule: written before anything is answered).
   */
  appendEndTxnMarker(
    marker: { type: 'COMMIT' | 'ABORT'; producerId: bigint; producerEpoch: number; coordinatorEpoch: number; leaderEpoch?: number },
    options: { heldAppends?: HeldAppends } = {},
  ): AppendResult {
    const batch = encodeEndTransactionMarker({
      type: marker.type,
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      timestamp: this.time(),
      partitionLeaderEpoch: marker.leaderEpoch ?? 0,
    });
    return this.append(batch, { origin: 'coordinator', leaderEpoch: marker.leaderEpoch ?? 0, mutateInput: true, heldAppends: options.heldAppends });
  }

  /**
   * The context of this append's validation, in the one object this log reuses (nothing keeps it
   * past validateAndAssignOffsets): an object per append was garbage on every Produce.
   */
  private validationContext(leo: bigint, now: number, options: { leaderEpoch?: number; origin?: AppendOrigin; mutateInput?: boolean }): ValidationContext {
    const ctx = (this.validation ??= { config: this.config, nextOffset: 0n, now: 0n, partitionLeaderEpoch: 0, origin: 'client', topicPartition: this.topicPartition, scratch: this.appendScratch, mutateInput: false });
    ctx.config = this.config;
    ctx.nextOffset = leo;
    ctx.now = BigInt(now);
    ctx.partitionLeaderEpoch = options.leaderEpoch ?? 0;
    ctx.origin = options.origin ?? 'client';
    ctx.mutateInput = options.mutateInput === true;
    return ctx;
  }

  /** Drops producers idle for producer.id.expiration.ms (called by a scheduler, as Kafka does every 10 min). */
  removeExpiredProducers(): void {
    this.producerStateManager.removeExpiredProducers(this.time());
  }

  private maxSegmentMs(): number {
    const compact = this.config.cleanupPolicy.includes('compact');
    const lag = this.config.maxCompactionLagMs;
    return compact && lag > 0 ? Math.min(lag, this.config.segmentMs) : this.config.segmentMs;
  }

  private maybeRoll(messagesSize: number, v: ValidationResult, now: number): LogSegment {
    const active = this.localLog.activeSegment;
    if (
      active.shouldRollFor(this.maxSegmentMs(), this.config.segmentBytes, messagesSize, v.maxTimestamp, v.lastOffset, now)
    ) {
      return this.roll(v.firstOffset);
    }
    return active;
  }

  /** Starts a new active segment at max(expectedNextOffset, LEO) (Kafka `UnifiedLog.roll`). */
  roll(expectedNextOffset?: bigint): LogSegment {
    return this.guarded(() => this.unguardedRoll(expectedNextOffset));
  }

  private unguardedRoll(expectedNextOffset?: bigint): LogSegment {
    const leo = this.localLog.logEndOffset;
    const newOffset = expectedNextOffset !== undefined && expectedNextOffset > leo ? expectedNextOffset : leo;
    const { segment, rolled } = this.localLog.roll(newOffset);
    if (rolled === undefined) return segment;
    // a producer snapshot at every segment base (Kafka UnifiedLog.roll)
    this.producerStateManager.updateMapEndOffset(newOffset);
    this.producerStateManager.takeSnapshot(false);
    this.localLog.flushRolled(rolled, newOffset);
    return segment;
  }

  /** Resolves once the background flushes of rolled segments started so far are done. */
  backgroundFlushes(): Promise<void> {
    return this.localLog.backgroundFlushes();
  }

  // ---- reads -------------------------------------------------------------------------------

  /**
   * Reads whole batches from the one holding `fetchOffset` (Kafka `UnifiedLog.read`): at most
   * `maxBytes`, but the first batch whole when `minOneMessage`. read_committed stops at the last
   * stable offset and lists the aborted transactions the consumer must drop.
   */
  read(
    fetchOffset: bigint,
    options: {
      maxBytes: number;
      minOneMessage?: boolean;
      isolation?: IsolationLevel;
      /**
       * A reused buffer to read into when large enough (the result's records are then a view of
       * it), or a function giving the buffer for the bytes to read (file-records.ts ReadTarget).
       */
      into?: ReadTarget;
    },
  ): ReadResult {
    return this.guarded(() => this.unguardedRead(fetchOffset, options));
  }

  private unguardedRead(
    fetchOffset: bigint,
    options: {
      maxBytes: number;
      minOneMessage?: boolean;
      isolation?: IsolationLevel;
      /**
       * A reused buffer to read into when large enough (the result's records are then a view of
       * it), or a function giving the buffer for the bytes to read (file-records.ts ReadTarget).
       */
      into?: ReadTarget;
    },
  ): ReadResult {
    const committed = options.isolation === 'read_committed';
    const bound = committed ? this.lastStableOffset : this.highWatermark;
    const leo = this.localLog.logEndOffset;
    const result = (records: Buffer, firstEntryIncomplete = false, abortedTransactions?: AbortedTxn[]): ReadResult => ({
      records,
      firstEntryIncomplete,
      highWatermark: this.highWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.startOffset,
      logEndOffset: leo,
      ...(committed ? { abortedTransactions: abortedTransactions ?? [] } : {}),
    });
    if (fetchOffset < this.startOffset || fetchOffset > leo) {
      throw new OffsetOutOfRangeError(
        `Received request for offset ${fetchOffset} for partition ${this.topic}-${this.partition}, but we only have log segments in the range ${this.startOffset} to ${leo}.`,
      );
    }
    if (fetchOffset >= bound) return result(Buffer.alloc(0));
    const r = this.localLog.read(fetchOffset, options.maxBytes, options.minOneMessage ?? true, options.into);
    if (r === undefined) return result(Buffer.alloc(0));
    if (!committed) return result(r.records, r.firstEntryIncomplete);
    const { records, nextOffset } = batchesBelow(r.records, bound);
    return result(records, r.firstEntryIncomplete, this.collectAbortedTxns(fetchOffset, nextOffset < bound ? nextOffset : bound));
  }

  /** Aborted transactions overlapping [fetchOffset, upperBound), from the txn indexes of the segments there. */
  collectAbortedTxns(fetchOffset: bigint, upperBound: bigint): AbortedTxn[] {
    return this.localLog.collectAbortedTxns(fetchOffset, upperBound);
  }

  /** ListOffsets (Kafka UnifiedLog.fetchOffsetByTimestamp): -2 earliest, -1 latest, -3 max timestamp, or the first offset with timestamp >= t. */
  fetchOffsetByTimestamp(timestamp: bigint): TimestampAndOffset | undefined {
    return this.guarded(() => this.unguardedFetchOffsetByTimestamp(timestamp));
  }

  private unguardedFetchOffsetByTimestamp(timestamp: bigint): TimestampAndOffset | undefined {
    if (timestamp === EARLIEST_TIMESTAMP) {
      // the first cached epoch is the log start's when it begins at or before it (UnifiedLog)
      const earliest = this.leaderEpochCache.earliestEntry();
      return { timestamp: -1n, offset: this.startOffset, ...(earliest !== undefined && earliest.startOffset <= this.startOffset ? { leaderEpoch: earliest.epoch } : {}) };
    }
    if (timestamp === LATEST_TIMESTAMP) return { timestamp: -1n, offset: this.highWatermark };
    if (timestamp === MAX_TIMESTAMP) return this.maxTimestampOffset();
    if (timestamp < 0n) return undefined;
    const segment = this.localLog.segmentList().find((s) => s.largestTimestamp() >= timestamp);
    const found = segment?.findOffsetByTimestamp(timestamp, this.startOffset);
    return found !== undefined && found.offset < this.highWatermark ? found : undefined;
  }

  private maxTimestampOffset(): TimestampAndOffset | undefined {
    let best: LogSegment | undefined;
    for (const s of this.localLog.segmentList()) {
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

  // ---- retention, deletion, truncation (Kafka UnifiedLog.deleteOldSegments, truncateTo) ---------

  /** Applies log-start, size and time retention; returns how many segments were deleted. */
  deleteOldSegments(): number {
    return this.guarded(() => this.unguardedDeleteOldSegments());
  }

  private unguardedDeleteOldSegments(): number {
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
    const segments = this.localLog.segmentList();
    let count = 0;
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      const next = segments[i + 1];
      const upperBound = next?.baseOffset ?? this.localLog.logEndOffset;
      const isLastEmpty = next === undefined && s.size === 0;
      if (this.highWatermark < upperBound || isLastEmpty || !predicate(s, next)) break;
      count++;
    }
    if (count === 0) return 0;
    if (count === segments.length) this.roll(); // keep an active segment
    const doomed = this.localLog.removeOldestSegments(count);
    const newStart = this.localLog.segmentList()[0]!.baseOffset;
    if (newStart > this.startOffset) {
      this.startOffset = newStart;
      this.leaderEpochCache.truncateFromStart(newStart);
      this.producerStateManager.onLogStartOffsetIncremented(newStart);
    }
    this.localLog.deleteSegmentFiles(doomed);
    return count;
  }

  /** Physically removes `.deleted` files whose `file.delete.delay.ms` has passed. */
  deleteDueFiles(): void {
    this.guarded(() => this.unguardedDeleteDueFiles());
  }

  private unguardedDeleteDueFiles(): void {
    this.localLog.deleteDueFiles();
  }

  /** DeleteRecords: raises the log start offset (never beyond the high watermark). */
  deleteRecordsBefore(offset: bigint): bigint {
    this.resources.logDirFailure.checkBeforeChange();
    return this.guarded(() => this.unguardedDeleteRecordsBefore(offset));
  }

  private unguardedDeleteRecordsBefore(offset: bigint): bigint {
    if (offset > this.highWatermark) {
      throw new OffsetOutOfRangeError(`Cannot increment the log start offset to ${offset} of partition ${this.topic}-${this.partition} since it is larger than the high watermark ${this.highWatermark}`);
    }
    if (offset > this.startOffset) {
      this.startOffset = offset;
      this.leaderEpochCache.truncateFromStart(offset);
      this.producerStateManager.onLogStartOffsetIncremented(offset);
      this.deleteOldSegments();
    }
    return this.startOffset;
  }

  /** Removes everything from `targetOffset` on (Kafka `UnifiedLog.truncateTo`). */
  truncateTo(targetOffset: bigint): void {
    this.resources.logDirFailure.checkBeforeChange();
    this.guarded(() => this.unguardedTruncateTo(targetOffset));
  }

  private unguardedTruncateTo(targetOffset: bigint): void {
    if (targetOffset < 0n) throw new OffsetOutOfRangeError(`Cannot truncate partition ${this.topic}-${this.partition} to a negative offset ${targetOffset}`);
    if (targetOffset >= this.localLog.logEndOffset) return;
    if (this.localLog.truncateTo(targetOffset)) this.startOffset = targetOffset;
    this.leaderEpochCache.truncateFromEnd(targetOffset);
    // producer state from the nearest snapshot plus the log up to the new end (Kafka truncateTo)
    const state = this.producerStateManager;
    reloadProducerState(this.localLog.segmentList(), state, this.startOffset, targetOffset, this.time());
    state.onHighWatermarkUpdated(this.highWatermark);
  }

  // ---- durability (flush.messages, flush.ms) -------------------------------------------------

  /** fsyncs every segment holding offsets below `upTo` (default LEO) and advances the recovery point. */
  flush(upTo: bigint = this.localLog.logEndOffset): void {
    this.guarded(() => this.unguardedFlush(upTo));
  }

  private unguardedFlush(upTo: bigint = this.localLog.logEndOffset): void {
    this.localLog.flush(upTo);
  }

  /** `flush.ms`: flush when that long has passed since the last flush (called by a scheduler). */
  maybeFlushByTime(): void {
    this.guarded(() => this.unguardedMaybeFlushByTime());
  }

  private unguardedMaybeFlushByTime(): void {
    if (BigInt(this.localLog.timeSinceLastFlush()) >= this.config.flushMs) this.flush();
  }

  close(): void {
    if (this.resources.logDirFailure.failed === undefined) {
      this.localLog.deleteAllPending();
      // the clean-shutdown snapshot at the log end (Kafka UnifiedLog.close)
      this.producerStateManager.updateMapEndOffset(this.localLog.logEndOffset);
      this.producerStateManager.takeSnapshot(true);
    }
    // offline (log-dir-failure.ts): no snapshot of a state that may be ahead of the files; the
    // segments close, writing nothing held, and the next start recovers them
    this.localLog.close(); // each segment trims and syncs what changed
  }
}

/**
 * The leading whole batches of `records` whose offsets are all below `bound` (the LSO lies on a
 * batch boundary), and the offset after the last one kept.
 */
function batchesBelow(records: Buffer, bound: bigint): { records: Buffer; nextOffset: bigint } {
  let end = 0;
  let nextOffset = bound;
  const reader = readRecordBatches(records, { verifyCrc: false });
  for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
    if (b.lastOffset >= bound) break;
    end = reader.position;
    nextOffset = b.lastOffset + 1n;
  }
  // a partial trailing batch below the bound stays, as Kafka returns partial batches
  if (end === reader.position && reader.incompleteBytes > 0) end = records.length;
  return { records: end === records.length ? records : records.subarray(0, end), nextOffset };
}

/** Whether `part` lies inside `whole`'s bytes (a view of it, not a copy). */
function within(part: Buffer, whole: Buffer): boolean {
  return part.buffer === whole.buffer && part.byteOffset >= whole.byteOffset && part.byteOffset + part.length <= whole.byteOffset + whole.length;
}
