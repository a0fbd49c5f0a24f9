/**
 * Producer state of one partition: idempotence and transactions (Kafka
 * `ProducerStateManager`).
 *
 * The manager maps producer ids to {@link ProducerStateEntry}s, tracks the ongoing transactions
 * (sorted by first offset) and the completed ones whose markers are not yet below the high
 * watermark, and keeps track of the `<offset>.snapshot` files of the partition directory (their
 * format and listing: producer-snapshot.ts).
 *
 * An append goes through a {@link ProducerAppendInfo} per producer (producer-append-info.ts):
 * `prepareUpdate` stages it, `update` commits it once the batches are on disk. Completed
 * transactions come back from `ProducerAppendInfo.append`; the caller computes `lastStableOffset`
 * for an aborted one's `.txnindex` entry and then calls `completeTxn`.
 */
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../errors.js';
import type { RecordBatch } from '../record/batch.js';
import { LatestInstance } from '../v8/map-anchors.js';
import { DELETED_SUFFIX, offsetFromFileName, SNAPSHOT_SUFFIX, snapshotPath } from './file-names.js';
import { ProducerAppendInfo, type AppendOrigin, type CompletedTxn, type ProducerStateLogger, type TxnMetadata } from './producer-append-info.js';
import {
  entryFromSnapshot,
  listSnapshotFiles,
  readProducerSnapshot,
  snapshotEntryOf,
  writeProducerSnapshot,
  type ProducerSnapshotEntry,
} from './producer-snapshot.js';
import {
  emptyProducerStateEntry,
  findDuplicateBatch,
  mergeEntry,
  type BatchMetadata,
  type ProducerStateEntry,
} from './producer-state-entry.js';

export * from './producer-state-entry.js';

/** `producer.id.expiration.ms` default (`TransactionLogConfig.PRODUCER_ID_EXPIRATION_MS_DEFAULT`). */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** `transaction.max.timeout.ms` default. */
export const DEFAULT_MAX_TRANSACTION_TIMEOUT_MS = 900_000;
/** `ProducerStateManager.LATE_TRANSACTION_BUFFER_MS`: 5 minutes on top of the max transaction timeout. */
export const LATE_TRANSACTION_BUFFER_MS = 5 * 60 * 1000;

export interface ProducerStateManagerOptions {
  /** `producer.id.expiration.ms` (default 86400000). */
  producerIdExpirationMs?: number;
  /** `transaction.max.timeout.ms` (default 900000), for {@link ProducerStateManager.hasLateTransaction}. */
  maxTransactionTimeoutMs?: number;
  /** Clock in ms (default Date.now). */
  time?: () => number;
  /** Where the warnings Kafka logs for replicated appends go (fencing it does not enforce there). */
  logger?: ProducerStateLogger;
  /**
   * The directory's entry names when the caller has just listed it and changed nothing since (a
   * log's loading): the snapshots are taken from them instead of listing the directory again.
   */
  listing?: readonly string[];
}

function minByFirstOffset(txns: Iterable<TxnMetadata>, skipProducer?: bigint): TxnMetadata | undefined {
  let best: TxnMetadata | undefined;
  for (const t of txns) {
    if (skipProducer !== undefined && t.producerId === skipProducer) continue;
    if (best === undefined || t.firstOffset < best.firstOffset) best = t;
  }
  return best;
}

/** The producer state of one partition (`ProducerStateManager`). */
/**
 * The last append's ProducerAppendInfo, kept until the next: its hidden class, and the optimized
 * append code that checks it, outlive a full GC between an idle broker's clients (map-anchors.ts).
 */
const latestAppendInfo = new LatestInstance<ProducerAppendInfo>();

export class ProducerStateManager {
  readonly producerIdExpirationMs: number;
  readonly maxTransactionTimeoutMs: number;
  private readonly time: () => number;
  private readonly logger: ProducerStateLogger | undefined;

  private readonly producers = new Map<bigint, ProducerStateEntry>();
  /** Ongoing transactions by first offset. */
  private readonly ongoingTxns = new Map<bigint, TxnMetadata>();
  /** Completed transactions whose markers are not yet below the high watermark, by first offset. */
  private readonly unreplicatedTxns = new Map<bigint, TxnMetadata>();
  /** Snapshot files by offset. */
  private snapshots: Map<bigint, string>;
  private lastMapOffset = 0n;
  private lastSnapOffset = 0n;
  private oldestTxnLastTimestamp = -1n;

  constructor(
    readonly dir: string,
    options: ProducerStateManagerOptions = {},
  ) {
    this.producerIdExpirationMs = options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS;
    this.maxTransactionTimeoutMs = options.maxTransactionTimeoutMs ?? DEFAULT_MAX_TRANSACTION_TIMEOUT_MS;
    this.time = options.time ?? Date.now;
    this.logger = options.logger;
    this.snapshots = options.listing !== undefined ? snapshotsFromNames(dir, options.listing) : this.loadSnapshots();
  }

  // ---- queries -------------------------------------------------------------------------------

  /** The offset up to which (exclusive) the state reflects the log. */
  get mapEndOffset(): bigint {
    return this.lastMapOffset;
  }

  activeProducers(): ReadonlyMap<bigint, ProducerStateEntry> {
    return this.producers;
  }

  get producerIdCount(): number {
    return this.producers.size;
  }

  isEmpty(): boolean {
    return this.producers.size === 0 && this.unreplicatedTxns.size === 0;
  }

  lastEntry(producerId: bigint): ProducerStateEntry | undefined {
    return this.producers.get(producerId);
  }

  /** Duplicate detection (`ProducerStateEntry.findDuplicateBatch`, called by `UnifiedLog.append`): the cached batch with the same epoch and (firstSeq, lastSeq), if any. */
  findDuplicateBatch(batch: RecordBatch): BatchMetadata | undefined {
    const entry = this.producers.get(batch.producerId);
    return entry === undefined ? undefined : findDuplicateBatch(entry, batch);
  }

  /**
   * The first offset that is not stable: the earliest of the first ongoing transaction and the
   * first completed transaction whose marker is not yet below the high watermark.
   */
  firstUnstableOffset(): bigint | undefined {
    const unreplicated = minByFirstOffset(this.unreplicatedTxns.values());
    const undecided = minByFirstOffset(this.ongoingTxns.values());
    if (unreplicated === undefined) return undecided?.firstOffset;
    if (undecided === undefined) return unreplicated.firstOffset;
    return undecided.firstOffset < unreplicated.firstOffset ? undecided.firstOffset : unreplicated.firstOffset;
  }

  /** The first offset of the earliest transaction not yet committed or aborted (ignores replication). */
  firstUndecidedOffset(): bigint | undefined {
    return minByFirstOffset(this.ongoingTxns.values())?.firstOffset;
  }

  /** Ongoing transactions sorted by first offset. */
  ongoingTransactions(): TxnMetadata[] {
    return [...this.ongoingTxns.values()].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  }

  /** Whether the oldest open transaction has been silent longer than the max timeout + 5 minutes. */
  hasLateTransaction(now: number = this.time()): boolean {
    const last = this.oldestTxnLastTimestamp;
    return last > 0n && BigInt(now) - last > BigInt(this.maxTransactionTimeoutMs + LATE_TRANSACTION_BUFFER_MS);
  }

  /**
   * The LSO recorded in an aborted transaction's `.txnindex` entry (`ProducerStateManager.lastStableOffset`): the first offset of the
   * earliest ongoing transaction of a different producer, else markerOffset + 1. Call it before
   * {@link completeTxn}.
   */
  lastStableOffset(completed: CompletedTxn): bigint {
    const next = minByFirstOffset(this.ongoingTxns.values(), completed.producerId);
    return next === undefined ? completed.lastOffset + 1n : next.firstOffset;
  }

  // ---- appends -------------------------------------------------------------------------------

  /** Stage an append for one producer; nothing changes until {@link update}. */
  prepareUpdate(producerId: bigint, origin: AppendOrigin): ProducerAppendInfo {
    const current = this.producers.get(producerId) ?? emptyProducerStateEntry(producerId);
    const info = new ProducerAppendInfo(producerId, current, origin, this.logger);
    latestAppendInfo.keep(info);
    return info;
  }

  /** Commit a staged append (after the batches were written). */
  update(info: ProducerAppendInfo): void {
    if (info.producerId === -1n) {
      throw new InvalidArgumentError(`Invalid producer id ${info.producerId} passed to update`);
    }
    const staged = info.toEntry();
    const current = this.producers.get(info.producerId);
    if (current !== undefined) mergeEntry(current, staged);
    else this.producers.set(info.producerId, staged);
    for (const txn of info.startedTransactions()) this.ongoingTxns.set(txn.firstOffset, { ...txn });
    this.updateOldestTxnTimestamp();
  }

  /**
   * Replay one batch from the log during recovery or rebuild (`LogSegment.updateProducerState`):
   * no sequence checks and fencing only logged (origin 'replication'); the map end offset moves to
   * lastOffset + 1. Returns the transaction a marker completes; the caller writes the `.txnindex`
   * entry of an aborted one (with {@link lastStableOffset}) and then calls {@link completeTxn}.
   */
  replayBatch(batch: RecordBatch): CompletedTxn | undefined {
    let completed: CompletedTxn | undefined;
    if (batch.hasProducerId) {
      const info = this.prepareUpdate(batch.producerId, 'replication');
      completed = info.append(batch);
      this.update(info);
    }
    this.updateMapEndOffset(batch.lastOffset + 1n);
    return completed;
  }

  /** Mark a transaction completed; it stays unstable until the high watermark passes its marker. */
  completeTxn(completed: CompletedTxn): void {
    const txn = this.ongoingTxns.get(completed.firstOffset);
    if (txn === undefined) {
      throw new InvalidArgumentError(
        `Attempted to complete transaction of producer ${completed.producerId} at ${completed.firstOffset}..${completed.lastOffset} which was not started`,
      );
    }
    this.ongoingTxns.delete(completed.firstOffset);
    txn.lastOffset = completed.lastOffset;
    this.unreplicatedTxns.set(completed.firstOffset, txn);
    this.updateOldestTxnTimestamp();
  }

  /** Forget completed transactions whose markers are below the high watermark. */
  onHighWatermarkUpdated(highWatermark: bigint): void {
    this.removeUnreplicatedTransactions(highWatermark);
  }

  updateMapEndOffset(offset: bigint): void {
    this.lastMapOffset = offset;
  }

  /** Drop producers idle for producer.id.expiration.ms, except those with an open transaction. */
  removeExpiredProducers(now: number): void {
    for (const [id, entry] of this.producers) {
      if (this.isProducerExpired(now, entry)) this.producers.delete(id);
    }
  }

  /** Forget unreplicated transactions below the new log start and move the map end up to it. */
  onLogStartOffsetIncremented(logStartOffset: bigint): void {
    this.removeUnreplicatedTransactions(logStartOffset);
    if (this.lastMapOffset < logStartOffset) this.lastMapOffset = logStartOffset;
    this.lastSnapOffset = this.latestSnapshotOffset() ?? logStartOffset;
  }

  // ---- snapshots -----------------------------------------------------------------------------

  /** Write `<mapEndOffset>.snapshot` unless the map end offset has not moved past the last snapshot. */
  takeSnapshot(sync = true): void {
    if (this.lastMapOffset <= this.lastSnapOffset) return;
    const path = snapshotPath(this.dir, this.lastMapOffset);
    writeProducerSnapshot(path, this.snapshotEntries(), sync);
    this.snapshots.set(this.lastMapOffset, path);
    this.lastSnapOffset = this.lastMapOffset;
  }

  latestSnapshotOffset(): bigint | undefined {
    let max: bigint | undefined;
    for (const o of this.snapshots.keys()) if (max === undefined || o > max) max = o;
    return max;
  }

  oldestSnapshotOffset(): bigint | undefined {
    let min: bigint | undefined;
    for (const o of this.snapshots.keys()) if (min === undefined || o < min) min = o;
    return min;
  }

  /** Snapshot offsets known to the manager, ascending. */
  snapshotOffsets(): bigint[] {
    return [...this.snapshots.keys()].sort(compareBigint);
  }

  /** The path of the snapshot at exactly `offset`, if the manager knows one. */
  snapshotFileForOffset(offset: bigint): string | undefined {
    return this.snapshots.get(offset);
  }

  /**
   * Drop snapshots outside (logStartOffset, logEndOffset]; if the state is not already at
   * logEndOffset, clear it and load the newest valid snapshot (corrupt ones are deleted and the
   * next older one tried), dropping producers expired at `now`. Without a snapshot the state
   * starts empty at logStartOffset. The caller replays the log from {@link mapEndOffset}.
   */
  truncateAndReload(logStartOffset: bigint, logEndOffset: bigint, now: number): void {
    for (const offset of [...this.snapshots.keys()]) {
      if (offset > logEndOffset || offset <= logStartOffset) this.removeAndDeleteSnapshot(offset);
    }
    if (logEndOffset !== this.lastMapOffset) {
      this.producers.clear();
      this.ongoingTxns.clear();
      this.updateOldestTxnTimestamp();
      // the log end offset is assumed to be at or below the high watermark
      this.unreplicatedTxns.clear();
      this.loadFromSnapshot(logStartOffset, now);
    } else {
      this.onLogStartOffsetIncremented(logStartOffset);
    }
  }

  /** Delete the snapshot files with offsets below `offset`. */
  deleteSnapshotsBefore(offset: bigint): void {
    for (const o of [...this.snapshots.keys()]) {
      if (o < offset) this.removeAndDeleteSnapshot(o);
    }
  }

  /**
   * Forget the snapshot at `offset` and rename its file to `<name>.deleted` for asynchronous
   * deletion. Returns the new path, or undefined when there was no such snapshot or its file is
   * already gone.
   */
  removeAndMarkSnapshotForDeletion(offset: bigint): string | undefined {
    const path = this.snapshots.get(offset);
    if (path === undefined) return undefined;
    this.snapshots.delete(offset);
    const renamed = path + DELETED_SUFFIX;
    try {
      renameSync(path, renamed);
      return renamed;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StorageError(`failed to rename ${path} for deletion: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * Delete snapshots that match no segment base offset, keeping the largest stray one when it lies
   * above every segment base offset (the clean-shutdown snapshot at the log end).
   */
  removeStraySnapshots(segmentBaseOffsets: bigint[], listedAtConstruction = false): void {
    const bases = new Set(segmentBaseOffsets);
    let maxBase: bigint | undefined;
    for (const b of segmentBaseOffsets) if (maxBase === undefined || b > maxBase) maxBase = b;

    // `listedAtConstruction`: the caller made this manager just now, so the constructor's listing
    // is current (a second readdir per partition was a tenth of a clean start's time, issue 21)
    const snapshots = listedAtConstruction ? this.snapshots : this.loadSnapshots();
    let latestStray: bigint | undefined;
    for (const offset of [...snapshots.keys()].sort(compareBigint)) {
      if (bases.has(offset)) continue;
      if (latestStray !== undefined) {
        deleteFile(snapshots.get(latestStray)!);
        snapshots.delete(latestStray);
      }
      latestStray = offset;
    }
    if (latestStray !== undefined && maxBase !== undefined && latestStray < maxBase) {
      deleteFile(snapshots.get(latestStray)!);
      snapshots.delete(latestStray);
    }
    this.snapshots = snapshots;
  }

  /** Clear all state and all snapshot files; the map restarts at `offset`. */
  truncateFullyAndStartAt(offset: bigint): void {
    this.producers.clear();
    this.ongoingTxns.clear();
    this.unreplicatedTxns.clear();
    for (const o of [...this.snapshots.keys()]) this.removeAndDeleteSnapshot(o);
    this.lastSnapOffset = 0n;
    this.lastMapOffset = offset;
    this.updateOldestTxnTimestamp();
  }

  /** Clear all state and snapshots, then rescan the directory for snapshot files. */
  truncateFullyAndReloadSnapshots(): void {
    this.truncateFullyAndStartAt(0n);
    this.snapshots = this.loadSnapshots();
  }

  /** The state as snapshot entries: the newest batch of each producer only (`ProducerStateManager.writeSnapshot`). */
  snapshotEntries(): ProducerSnapshotEntry[] {
    const out: ProducerSnapshotEntry[] = [];
    for (const [producerId, e] of this.producers) out.push(snapshotEntryOf(producerId, e));
    return out;
  }

  /** Add a producer entry as loaded from a snapshot (`loadProducerEntry`); reopens its transaction. */
  loadProducerEntry(entry: ProducerStateEntry): void {
    this.producers.set(entry.producerId, entry);
    const open = entry.currentTxnFirstOffset;
    if (open !== undefined) this.ongoingTxns.set(open, { producerId: entry.producerId, firstOffset: open, lastOffset: undefined });
  }

  // ---- internals -----------------------------------------------------------------------------

  private loadFromSnapshot(logStartOffset: bigint, now: number): void {
    for (;;) {
      const offset = this.latestSnapshotOffset();
      if (offset === undefined) {
        this.lastSnapOffset = logStartOffset;
        this.lastMapOffset = logStartOffset;
        return;
      }
      const path = this.snapshots.get(offset)!;
      let entries: ProducerSnapshotEntry[];
      try {
        entries = readProducerSnapshot(path);
      } catch (e) {
        if (!(e instanceof StorageError)) throw e;
        if (e.position !== undefined) {
          // corrupt (Kafka's CorruptSnapshotException carries no position, ours does): delete, try older
          this.logger?.('warn', `Failed to load producer snapshot from '${path}': ${e.message}`);
          this.removeAndDeleteSnapshot(offset);
          continue;
        }
        if ((e.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
          this.snapshots.delete(offset); // deleted behind our back: nothing to load from it
          continue;
        }
        throw e; // an I/O failure of the log directory, not a bad snapshot
      }
      for (const s of entries) {
        const entry = entryFromSnapshot(s);
        if (!this.isProducerExpired(now, entry)) this.loadProducerEntry(entry);
      }
      this.lastSnapOffset = offset;
      this.lastMapOffset = offset;
      this.updateOldestTxnTimestamp();
      return;
    }
  }

  private isProducerExpired(now: number, entry: ProducerStateEntry): boolean {
    return entry.currentTxnFirstOffset === undefined && BigInt(now) - entry.lastTimestamp >= BigInt(this.producerIdExpirationMs);
  }

  private removeUnreplicatedTransactions(offset: bigint): void {
    for (const [key, txn] of this.unreplicatedTxns) {
      if (txn.lastOffset !== undefined && txn.lastOffset < offset) this.unreplicatedTxns.delete(key);
    }
  }

  private updateOldestTxnTimestamp(): void {
    const oldest = minByFirstOffset(this.ongoingTxns.values());
    if (oldest === undefined) {
      this.oldestTxnLastTimestamp = -1n;
    } else {
      this.oldestTxnLastTimestamp = this.producers.get(oldest.producerId)?.lastTimestamp ?? -1n;
    }
  }

  private removeAndDeleteSnapshot(offset: bigint): void {
    const path = this.snapshots.get(offset);
    if (path === undefined) return;
    this.snapshots.delete(offset);
    deleteFile(path);
  }

  /** `listSnapshotFiles`: regular files named `<offset>.snapshot` in the directory. */
  private loadSnapshots(): Map<bigint, string> {
    const out = new Map<bigint, string>();
    for (const { offset, path } of listSnapshotFiles(this.dir)) out.set(offset, path);
    return out;
  }
}

/** `listSnapshotFiles` from a listing already made: the `<offset>.snapshot` names. */
function snapshotsFromNames(dir: string, names: readonly string[]): Map<bigint, string> {
  const found: [bigint, string][] = [];
  for (const name of names) {
    if (!name.endsWith(SNAPSHOT_SUFFIX)) continue;
    try {
      found.push([offsetFromFileName(name), join(dir, name)]);
    } catch {
      // not `<digits>.snapshot`: not ours, as listSnapshotFiles skips it
    }
  }
  return new Map(found.sort((a, b) => compareBigint(a[0], b[0])));
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function deleteFile(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (e) {
    throw new StorageError(`failed to delete ${path}: ${(e as Error).message}`, { cause: e });
  }
}
