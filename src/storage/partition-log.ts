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
import type { RecordBatch } from '../record/batch.js';
import { readRecordBatches, type AnyRecordBatch } from '../record/batches.js';
import { encodeEndTransactionMarker } from '../record/builder.js';
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
import { readSwapEndHints, removeSwapEndHints, writeSwapEndHint } from './cleaner/swap-hint.js';
import { fsyncDirSync } from './fs-util.js';
import { LeaderEpochFileCache } from './leader-epoch-cache.js';
import { messageFormatMagic, type LogConfig } from './log-config.js';
import { LogSegment, type TimestampAndOffset } from './log-segment.js';
import { validateAndAssignOffsets, type ValidationResult } from './log-validator.js';
import { ProducerStateManager, type CompletedTxn, type ProducerAppendInfo } from './producer-state.js';
import type { AbortedTxn } from './transaction-index.js';
import type { ReadTarget } from './file-records.js';
import type { HeldAppends } from './held-appends.js';
import { createLogResources, type LogResources } from './log-resources.js';


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
  /** producer.id.expiration.ms (default 86400000). */
  producerIdExpirationMs?: number;
  /** Its data directory's budgets and flush mode (log-resources.ts, from the LogManager); its own when not given. */
  resources?: LogResources;
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
  private segments: LogSegment[] = [];
  private leo = 0n;
  private startOffset = 0n;
  private recoveryPointOffset = 0n;
  private lastFlushMs: number;
  /**
   * Background flushes of rolled segments, chained in roll order: resolves to whether all of them
   * succeeded so far, and each success moves the recovery point to its roll's offset.
   */
  private backgroundFlush: Promise<boolean> = Promise.resolve(true);
  private logger: LogSink | undefined;
  private readonly time: () => number;
  /** Reused copy of each append's input (the validator mutates a copy, never the caller's bytes). */
  private readonly appendScratch = { buffer: Buffer.allocUnsafe(0) };
  /** "topic-partition" for error messages, built once (every append passes it). */
  private readonly topicPartition: string;
  private readonly pendingDeletes: { segment: LogSegment; dueMs: number; extraFiles: string[] }[] = [];
  readonly recoveryReports: RecoveryReport[] = [];
  readonly leaderEpochCache: LeaderEpochFileCache;
  /** Producer ids, sequences and open transactions (created once recovery has settled the segments). */
  producerStateManager!: ProducerStateManager;

  private constructor(
    readonly dir: string,
    readonly topic: string,
    readonly partition: number,
    public config: LogConfig,
    time: () => number,
    readonly resources: LogResources,
  ) {
    this.time = time;
    this.topicPartition = `${topic}-${partition}`;
    this.lastFlushMs = time();
    this.leaderEpochCache = new LeaderEpochFileCache(join(dir, LEADER_EPOCH_CHECKPOINT_FILE));
  }

  static open(dir: string, topic: string, partition: number, options: PartitionLogOptions): PartitionLog {
    const log = new PartitionLog(dir, topic, partition, options.config, options.time ?? Date.now, options.resources ?? createLogResources());
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
  /** LSO: the first offset of the oldest open (or not yet replicated) transaction, capped by the HW. */
  get lastStableOffset(): bigint {
    const unstable = this.producerStateManager.firstUnstableOffset();
    return unstable !== undefined && unstable < this.highWatermark ? unstable : this.highWatermark;
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
      time: this.time,
      resources: this.resources,
      ...(this.config.preallocate ? { initFileSize: this.config.segmentBytes } : {}),
    });
  }

  // ---- loading and recovery (Kafka LogLoader, spec §10) -------------------------------------

  private load(options: PartitionLogOptions): void {
    this.logger = options.logger;
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
      this.segments.push(
        LogSegment.open(this.dir, baseOffset, this.segmentConfig(), { create: false, rollJitterMs: this.rollJitter(), time: this.time, resources: this.resources }),
      );
    }

    const recoveryPoint = options.recoveryPoint ?? 0n;
    const clean = options.hadCleanShutdown ?? false;
    const psmOptions = this.producerStateOptions(options);
    // producer state while recovering: loaded up to the first recovered segment, then replayed
    // batch by batch, so each segment's .txnindex is rebuilt as Kafka's LogSegment.recover does
    let recoveryState: ProducerStateManager | undefined;
    for (let i = 0; i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      const nextBase = this.segments[i + 1]?.baseOffset;
      const unflushed = !clean && (nextBase === undefined || nextBase > recoveryPoint);
      if (!unflushed && !needsRecovery.has(segment.baseOffset)) continue;
      recoveryState ??= this.stateUpTo(segment.baseOffset, options.logStartOffset ?? 0n, psmOptions);
      const state = recoveryState;
      const before = segment.size;
      const truncated = segment.recover((batch) => {
        this.recoverLeaderEpoch(batch);
        this.replay(state, batch, segment);
      });
      state.updateMapEndOffset(segment.readNextOffset());
      state.takeSnapshot(false);
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
    this.rebuildProducerState(clean, psmOptions);
  }

  private producerStateOptions(options: PartitionLogOptions) {
    return {
      time: this.time,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.producerIdExpirationMs !== undefined ? { producerIdExpirationMs: options.producerIdExpirationMs } : {}),
    };
  }

  /** Recovery keeps the leader-epoch cache: an epoch above the latest starts at its batch (spec §10.3). */
  private recoverLeaderEpoch(batch: AnyRecordBatch): void {
    if (batch.kind === 'v2' && batch.partitionLeaderEpoch >= 0) {
      const latest = this.leaderEpochCache.latestEpoch();
      if (latest === undefined || batch.partitionLeaderEpoch > latest) {
        this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
      }
    }
  }

  /**
   * Feeds one batch from the log to a producer state (Kafka `LogSegment.updateProducerState`): a
   * marker that completes a transaction writes the aborted ones to `segment`'s txn index when given.
   */
  private replay(state: ProducerStateManager, batch: AnyRecordBatch, segment?: LogSegment): void {
    if (batch.kind !== 'v2') {
      state.updateMapEndOffset(batch.lastOffset + 1n);
      return;
    }
    const completed = state.replayBatch(batch);
    if (completed) this.completeTxn(state, completed, segment);
  }

  private completeTxn(state: ProducerStateManager, completed: CompletedTxn, segment?: LogSegment): void {
    if (completed.isAborted && segment) {
      segment.txnIndex.append({
        producerId: completed.producerId,
        firstOffset: completed.firstOffset,
        lastOffset: completed.lastOffset,
        lastStableOffset: state.lastStableOffset(completed),
      });
    }
    state.completeTxn(completed);
  }

  /** Replays the batches in [from, to) into `state`, snapshotting at the listed segment bases. */
  private replayRange(state: ProducerStateManager, from: bigint, to: bigint, snapshotAt: readonly bigint[] = []): void {
    for (let i = Math.max(0, this.floorSegmentIndex(from)); i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      if (segment.baseOffset >= to) break;
      if (snapshotAt.includes(segment.baseOffset) && segment.baseOffset > state.mapEndOffset) {
        state.updateMapEndOffset(segment.baseOffset);
        state.takeSnapshot(false);
      }
      const start = segment.offsetIndex.lookup(from).position;
      for (const { batch } of segment.log.batches(start)) {
        if (batch.lastOffset < from) continue;
        if (batch.kind === 'v2' ? batch.baseOffset >= to : batch.lastOffset >= to) break;
        this.replay(state, batch);
      }
    }
  }

  /** A producer state as of `offset`: the newest snapshot at or below it plus the log after it. */
  private stateUpTo(offset: bigint, logStartOffset: bigint, psmOptions: ReturnType<PartitionLog['producerStateOptions']>): ProducerStateManager {
    const state = new ProducerStateManager(this.dir, psmOptions);
    state.truncateAndReload(logStartOffset, offset, this.time());
    const from = state.mapEndOffset > logStartOffset ? state.mapEndOffset : logStartOffset;
    this.replayRange(state, from, offset);
    state.updateMapEndOffset(offset);
    return state;
  }

  /** Kafka `UnifiedLog.rebuildProducerState` at the end of loading (spec §13.6). */
  private rebuildProducerState(clean: boolean, psmOptions: ReturnType<PartitionLog['producerStateOptions']>): void {
    const state = new ProducerStateManager(this.dir, psmOptions);
    this.producerStateManager = state;
    state.removeStraySnapshots(this.segmentBaseOffsets());
    const n = this.segments.length;
    const snapshotAt = [this.segments[n - 2]?.baseOffset, this.segments[n - 1]!.baseOffset, this.leo].filter(
      (o): o is bigint => o !== undefined,
    );
    if (messageFormatMagic(this.config) < 2 || (state.latestSnapshotOffset() === undefined && clean)) {
      // no producer state can exist (old format), or none was ever kept: empty snapshots, no scan
      state.truncateFullyAndStartAt(this.startOffset);
      for (const o of snapshotAt) {
        state.updateMapEndOffset(o);
        state.takeSnapshot(false);
      }
    } else {
      state.truncateAndReload(this.startOffset, this.leo, this.time());
      const from = state.mapEndOffset > this.startOffset ? state.mapEndOffset : this.startOffset;
      this.replayRange(state, from, this.leo, snapshotAt);
    }
    state.updateMapEndOffset(this.leo);
    state.takeSnapshot(false);
    state.onHighWatermarkUpdated(this.highWatermark);
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
    const swapEnds = readSwapEndHints(this.dir);
    if (swapLogs.length > 0) {
      let lo: bigint | undefined;
      let hi: bigint | undefined;
      for (const name of swapLogs) {
        const base = offsetFromFileName(name);
        const seg = LogSegment.open(this.dir, base, this.segmentConfig(), { create: false, suffix: SWAP_SUFFIX, resources: this.resources });
        const next = seg.readNextOffset();
        seg.close();
        // opening the segment created empty .index.swap/.timeindex.swap files the swap did not
        // have: drop them, or they would outlive this load (Kafka rebuilds missing indexes anyway)
        for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX]) {
          const indexSwap = name.slice(0, -(LOG_SUFFIX + SWAP_SUFFIX).length) + suffix + SWAP_SUFFIX;
          if (!swaps.includes(indexSwap)) rmSync(join(this.dir, indexSwap), { force: true });
        }
        if (lo === undefined || base < lo) lo = base;
        if (hi === undefined || next > hi) hi = next;
        // the replaced segments may reach past the cleaned one's last batch (see cleaner/swap-hint.ts)
        const end = swapEnds.get(base);
        if (end !== undefined && end > hi) hi = end;
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
    removeSwapEndHints(this.dir);
  }

  /**
   * The cleaner's swap (Kafka `LocalLog.replaceSegments`, spec §12.7): `cleaned` (files suffixed
   * `.cleaned`, flushed) takes the place of `oldSegments`, whose offsets end before `groupEnd`.
   * Each step is a rename followed by a directory fsync, so a crash at any point reopens to the old
   * segments or the new one (spec §10.1).
   */
  replaceSegments(cleaned: LogSegment, oldSegments: readonly LogSegment[], groupEnd: bigint): void {
    const first = this.segments.indexOf(oldSegments[0]!);
    if (first < 0 || oldSegments.some((s, i) => this.segments[first + i] !== s) || oldSegments.includes(this.activeSegment)) {
      throw new StorageError(`Cannot replace segments of ${this.topic}-${this.partition}: they are no longer the log's inactive segments`);
    }
    writeSwapEndHint(this.dir, cleaned.baseOffset, groupEnd);
    cleaned.changeFileSuffixes(CLEANED_SUFFIX, SWAP_SUFFIX);
    fsyncDirSync(this.dir);
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
    fsyncDirSync(this.dir);
    cleaned.changeFileSuffixes(SWAP_SUFFIX, '');
    fsyncDirSync(this.dir);
    removeSwapEndHints(this.dir);
    this.deleteDueFiles();
  }

  // ---- append (spec §7.2, §9) -----------------------------------------------------------------

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
    options: { leaderEpoch?: number; origin?: 'client' | 'replication' | 'coordinator'; mutateInput?: boolean; heldAppends?: HeldAppends } = {},
  ): AppendResult {
    if (records.length === 0) {
      return { firstOffset: this.leo, lastOffset: this.leo - 1n, maxTimestamp: -1n, logAppendTime: -1n, recordCount: 0, logStartOffset: this.startOffset, duplicate: false };
    }
    const now = this.time();
    const validated = validateAndAssignOffsets(records, {
      config: this.config,
      nextOffset: this.leo,
      now: BigInt(now),
      partitionLeaderEpoch: options.leaderEpoch ?? 0,
      origin: options.origin ?? 'client',
      topicPartition: this.topicPartition,
      scratch: this.appendScratch,
      mutateInput: options.mutateInput === true,
    });
    const bytes = validated.records;
    if (bytes.length > this.config.segmentBytes) {
      throw new RecordListTooLargeError(
        `Message batch size is ${bytes.length} bytes in append to partition ${this.topic}-${this.partition} which exceeds the maximum configured segment size of ${this.config.segmentBytes}.`,
      );
    }
    const origin = options.origin ?? 'client';
    const batches = validated.batches;
    // producer state (spec §9.3 step 2): duplicates return the original offsets, nothing is written;
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
            logAppendTime: -1n,
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
    // leader epoch cache: every v2 batch assigns its epoch; legacy data clears it (spec §9.3)
    for (const batch of batches) {
      if (batch.kind === 'v2') {
        if (batch.partitionLeaderEpoch >= 0) this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
      } else {
        this.leaderEpochCache.clear();
      }
    }
    const segment = this.maybeRoll(bytes.length, validated, now);
    // held only when the bytes are the caller's (in place): a rebuilt batch may sit in a reused scratch
    const held = options.heldAppends !== undefined && options.mutateInput === true && within(bytes, records) ? options.heldAppends : undefined;
    segment.append(validated.lastOffset, validated.maxTimestamp, validated.shallowOffsetOfMaxTimestamp, bytes, held);
    this.leo = validated.lastOffset + 1n;
    if (infos !== undefined) for (const info of infos.values()) state.update(info);
    if (completed !== undefined) for (const txn of completed) this.completeTxn(state, txn, segment);
    state.updateMapEndOffset(this.leo);
    state.onHighWatermarkUpdated(this.highWatermark);
    if (this.leo - this.recoveryPointOffset >= this.config.flushMessages) this.flush();
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
   * Appends a transaction marker as the coordinator writes it (Kafka `appendAsLeader` with
   * origin COORDINATOR): completes the producer's open transaction; an ABORT lands in the txn index.
   */
  appendEndTxnMarker(marker: { type: 'COMMIT' | 'ABORT'; producerId: bigint; producerEpoch: number; coordinatorEpoch: number; leaderEpoch?: number }): AppendResult {
    const batch = encodeEndTransactionMarker({
      type: marker.type,
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      timestamp: this.time(),
      partitionLeaderEpoch: marker.leaderEpoch ?? 0,
    });
    return this.append(batch, { origin: 'coordinator', leaderEpoch: marker.leaderEpoch ?? 0 });
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
    const segment = this.newSegment(newOffset);
    this.segments.push(segment);
    // a producer snapshot at every segment base (Kafka UnifiedLog.roll)
    this.producerStateManager.updateMapEndOffset(newOffset);
    this.producerStateManager.takeSnapshot(false);
    this.flushRolled(active, newOffset);
    return segment;
  }

  /**
   * Kafka flushes the rolled segment in the background and moves the recovery point to the new
   * segment's base once that is done (UnifiedLog.roll's "flush-log" task, spec §7.2). Without the
   * native addon the flush is inline, as it was. A failed background flush leaves the recovery
   * point where it was (recovery after a crash then checks those segments) and the files dirty, so
   * the next flush() or close() syncs them again inline.
   */
  private flushRolled(rolled: LogSegment, upTo: bigint): void {
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
    const committed = options.isolation === 'read_committed';
    const bound = committed ? this.lastStableOffset : this.highWatermark;
    const result = (records: Buffer, firstEntryIncomplete = false, abortedTransactions?: AbortedTxn[]): ReadResult => ({
      records,
      firstEntryIncomplete,
      highWatermark: this.highWatermark,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.startOffset,
      logEndOffset: this.leo,
      ...(committed ? { abortedTransactions: abortedTransactions ?? [] } : {}),
    });
    if (fetchOffset < this.startOffset || fetchOffset > this.leo) {
      throw new OffsetOutOfRangeError(
        `Received request for offset ${fetchOffset} for partition ${this.topic}-${this.partition}, but we only have log segments in the range ${this.startOffset} to ${this.leo}.`,
      );
    }
    if (fetchOffset >= bound) return result(Buffer.alloc(0));
    for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < this.segments.length; i++) {
      const r = this.segments[i]!.read(fetchOffset, options.maxBytes, this.segments[i]!.size, options.minOneMessage ?? true, options.into);
      if (r === undefined) continue;
      if (!committed) return result(r.records, r.firstEntryIncomplete);
      const { records, nextOffset } = batchesBelow(r.records, bound);
      return result(records, r.firstEntryIncomplete, this.collectAbortedTxns(fetchOffset, nextOffset < bound ? nextOffset : bound));
    }
    return result(Buffer.alloc(0));
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
      this.producerStateManager.onLogStartOffsetIncremented(newStart);
    }
    for (const s of doomed) this.scheduleDelete(s);
    return doomed.length;
  }

  /** Renames a segment (and its producer snapshot) to `.deleted`; removal follows after file.delete.delay.ms. */
  private scheduleDelete(segment: LogSegment): void {
    segment.changeFileSuffixes('', DELETED_SUFFIX);
    const snapshot = this.producerStateManager?.removeAndMarkSnapshotForDeletion(segment.baseOffset);
    this.pendingDeletes.push({ segment, dueMs: this.time() + this.config.fileDeleteDelayMs, extraFiles: snapshot ? [snapshot] : [] });
    this.deleteDueFiles();
  }

  /** Physically removes `.deleted` files whose `file.delete.delay.ms` has passed. */
  deleteDueFiles(): void {
    const now = this.time();
    for (let i = this.pendingDeletes.length - 1; i >= 0; i--) {
      if (this.pendingDeletes[i]!.dueMs <= now) removePending(this.pendingDeletes.splice(i, 1)[0]!);
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
      this.producerStateManager.onLogStartOffsetIncremented(offset);
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
    // producer state from the nearest snapshot plus the log up to the new end (Kafka truncateTo)
    const state = this.producerStateManager;
    state.truncateAndReload(this.startOffset, targetOffset, this.time());
    const from = state.mapEndOffset > this.startOffset ? state.mapEndOffset : this.startOffset;
    this.replayRange(state, from, targetOffset);
    state.updateMapEndOffset(targetOffset);
    state.onHighWatermarkUpdated(this.highWatermark);
  }

  // ---- durability (spec §9.3 step 4, flush.ms) ------------------------------------------------

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

  /** `flush.ms`: flush when that long has passed since the last flush (called by a scheduler). */
  maybeFlushByTime(): void {
    if (BigInt(this.time() - this.lastFlushMs) >= this.config.flushMs) this.flush();
  }

  close(): void {
    for (const p of this.pendingDeletes.splice(0)) removePending(p);
    // the clean-shutdown snapshot at the log end (Kafka UnifiedLog.close)
    this.producerStateManager.updateMapEndOffset(this.leo);
    this.producerStateManager.takeSnapshot(true);
    for (const s of this.segments) s.close(); // each trims and syncs what changed
    this.recoveryPointOffset = this.leo;
  }
}

function removePending(p: { segment: LogSegment; extraFiles: string[] }): void {
  p.segment.deleteFiles();
  for (const f of p.extraFiles) rmSync(f, { force: true });
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
