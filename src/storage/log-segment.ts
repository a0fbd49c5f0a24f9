/**
 * One segment of a partition log: a `.log` file plus its `.index` and `.timeindex`, named by base
 * offset (Kafka `LogSegment`).
 *
 * Index entries are written as Kafka writes them: at most one per append, only once more than
 * `index.interval.bytes` were appended since the last entry (strictly greater, checked before this
 * append counts), pointing at the start of the appended chunk; the time index gets the segment's
 * max timestamp so far with the last offset of the batch that holds it.
 */
import { rmSync, statSync } from 'node:fs';
import { readInt8, readInt32BE } from '../bytes/big-endian.js';
import { CorruptRecordError, InvalidArgumentError, InvalidRecordError, KafkaliteError, StorageError } from '../errors.js';
import type { RecordBatch } from '../record/batch.js';
import { RecordLayout } from '../record/record-layout.js';
import {
  HEADER_SIZE_UP_TO_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_ENTRY_SIZE,
  RECORD_BATCH_OVERHEAD,
} from '../record/constants.js';
import { FileRecords, type BatchHeader, type ReadTarget } from './file-records.js';
import { logFilePath, offsetIndexPath, timeIndexPath, txnIndexPath } from './file-names.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { TransactionIndex } from './transaction-index.js';
import type { HeldAppends } from './held-appends.js';
import { createLogResources, type LogResources } from './log-resources.js';

const INT32_MAX = 0x7fffffffn;
/** Timestamps within ±(2^53 - 1) convert to numbers exactly. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export interface SegmentConfig {
  indexIntervalBytes: number;
  segmentIndexBytes: number;
}

export interface TimestampAndOffset {
  timestamp: bigint;
  offset: bigint;
  /** The leader epoch of the batch that holds it, when known (v2). */
  leaderEpoch?: number;
}

/** A read's start: the batch holding the fetch offset, and the bytes from there. */
export interface SegmentRead {
  /** Position of the first returned batch in this segment. */
  position: number;
  records: Buffer;
  /** The first batch was larger than maxSize and is only partly returned. */
  firstEntryIncomplete: boolean;
}

export class LogSegment {
  private bytesSinceLastIndexEntry = 0;
  /**
   * Where the batch after the last read's last whole batch starts, and its offset (see
   * `readAtHint`); valid while the file has not been truncated since.
   */
  private nextRead: { offset: bigint; position: number; truncations: number } | undefined;
  private maxTimestampSoFar: TimestampAndOffset | undefined;
  /** maxTimestamp of the first batch, the base for time-based rolls (loaded lazily). */
  private rollingBasedTimestamp: bigint | undefined;
  /** Creation time by the log's clock: the roll base when records carry no timestamps. */
  private created: number;
  private readonly clock: () => number;

  private constructor(
    readonly dir: string,
    readonly baseOffset: bigint,
    readonly log: FileRecords,
    readonly offsetIndex: OffsetIndex,
    readonly timeIndex: TimeIndex,
    /** Aborted transactions completed in this segment (file created on first entry). */
    readonly txnIndex: TransactionIndex,
    private readonly config: SegmentConfig,
    readonly rollJitterMs: number,
    clock: () => number,
  ) {
    this.clock = clock;
    this.created = clock();
  }

  get createdMs(): number {
    return this.created;
  }

  /**
   * Opens an existing segment (`create: false`) or creates an empty one. A missing `.timeindex` of an
   * existing segment is created empty (Kafka `LogLoader`); the offset index is required unless
   * `create` (its absence forces recovery, checked by the loader).
   */
  static open(
    dir: string,
    baseOffset: bigint,
    config: SegmentConfig,
    options: { create: boolean; initFileSize?: number; rollJitterMs?: number; suffix?: string; time?: () => number; resources?: LogResources; isNew?: boolean },
  ): LogSegment {
    const suffix = options.suffix ?? '';
    // its log's (the data directory's), or its own when opened alone
    const resources = options.resources ?? createLogResources();
    // the first segment of a log whose directory was just made (Kafka `getOrCreateLog(isNew)`):
    // its files are created and closed, none looked for (issue 21: creation cost per partition)
    const isNew = options.create && options.isNew === true;
    const log = FileRecords.openWritable(logFilePath(dir, baseOffset, suffix), {
      create: options.create,
      ...(options.initFileSize !== undefined ? { initFileSize: options.initFileSize } : {}),
      resources,
      isNew,
    });
    const indexOptions = { maxIndexSize: config.segmentIndexBytes, writable: true, resources, isNew };
    let offsetIndex: OffsetIndex | undefined;
    let timeIndex: TimeIndex | undefined;
    try {
      offsetIndex = OffsetIndex.open(offsetIndexPath(dir, baseOffset, suffix), baseOffset, indexOptions);
      timeIndex = TimeIndex.open(timeIndexPath(dir, baseOffset, suffix), baseOffset, indexOptions);
      const txnIndex = TransactionIndex.open(txnIndexPath(dir, baseOffset, suffix), baseOffset, resources, isNew);
      return new LogSegment(dir, baseOffset, log, offsetIndex, timeIndex, txnIndex, config, options.rollJitterMs ?? 0, options.time ?? Date.now);
    } catch (e) {
      // a segment whose files could not all be opened (a failing directory): nothing stays open,
      // and a new one leaves no file behind that a later roll or the loader would take for a segment
      for (const f of [timeIndex, offsetIndex]) {
        try {
          if (f === undefined) continue;
          if (options.create) f.deleteIfExists();
          else f.close();
        } catch {
          // best effort: `e` is the error that matters
        }
      }
      try {
        log.close();
        if (options.create) rmSync(log.path, { force: true });
      } catch {
        // best effort, as above
      }
      throw e;
    }
  }

  get size(): number {
    return this.log.sizeInBytes;
  }

  /** Offset that fits this segment's indexes (relative offset in [0, Int.MAX]). */
  canConvertToRelativeOffset(offset: bigint): boolean {
    // offset - baseOffset in [0, INT32_MAX], compared without a BigInt per append
    return offset >= this.baseOffset && offset <= (this.lastRelativeOffset ??= this.baseOffset + INT32_MAX);
  }
  /** The largest offset this segment's indexes can hold (baseOffset + INT32_MAX), once asked. */
  private lastRelativeOffset: bigint | undefined;

  /**
   * Appends one chunk of validated batches (Kafka `LogSegment.append`).
   * @param largestOffset last offset in `records`
   * @param largestTimestamp max timestamp in `records`
   * @param shallowOffsetOfMaxTimestamp last offset of the batch holding `largestTimestamp`
   * @param heldAppends hold the file write for these (FileRecords.append)
   */
  append(largestOffset: bigint, largestTimestamp: bigint, shallowOffsetOfMaxTimestamp: bigint, records: Buffer, heldAppends?: HeldAppends): void {
    if (records.length === 0) return;
    if (this.log.sizeInBytes === 0) this.rollingBasedTimestamp = largestTimestamp;
    if (!this.canConvertToRelativeOffset(largestOffset)) {
      throw new StorageError(
        `Detected offset overflow at offset ${largestOffset} in segment with base offset ${this.baseOffset}`,
      );
    }
    // known before the append (a first call scans the file, which would write a held append at once)
    const max = this.maxTimestampAndOffset();
    // the index entries this append adds must fit before its bytes are written: an index that
    // refused them after the write would leave batches on disk with no log end offset past them,
    // and the next append would write the same offsets again
    const indexEntryDue = this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes;
    if (indexEntryDue && (this.offsetIndex.isFull() || this.timeIndex.isFull())) {
      throw new StorageError(`The indexes of segment ${this.log.path} are full: appending at offset ${largestOffset} needs a roll first`);
    }
    const physicalPosition = this.log.append(records, heldAppends);
    if (largestTimestamp > max.timestamp) {
      this.maxTimestampSoFar = { timestamp: largestTimestamp, offset: shallowOffsetOfMaxTimestamp };
    }
    if (indexEntryDue) {
      this.offsetIndex.append(largestOffset, physicalPosition);
      const m = this.maxTimestampAndOffset();
      this.timeIndex.maybeAppend(m.timestamp, m.offset);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += records.length;
  }

  /** The max timestamp seen and the shallow offset holding it: last time-index entry plus a scan after it. */
  maxTimestampAndOffset(): TimestampAndOffset {
    if (this.maxTimestampSoFar === undefined) {
      const last = this.timeIndex.lastEntry();
      let best: TimestampAndOffset = { timestamp: last.timestamp, offset: last.offset };
      const start = this.offsetIndex.lookup(last.offset).position;
      for (const h of this.log.headers(start)) {
        if (h.maxTimestamp > best.timestamp) best = { timestamp: h.maxTimestamp, offset: h.lastOffset };
      }
      this.maxTimestampSoFar = best;
    }
    return this.maxTimestampSoFar;
  }

  /** Largest record timestamp, or the file's mtime when none is known (retention: `UnifiedLog.deleteRetentionMsBreachedSegments`). */
  largestTimestamp(): bigint {
    const ts = this.maxTimestampAndOffset().timestamp;
    if (ts >= 0n) return ts;
    return BigInt(Math.floor(statSync(this.log.path).mtimeMs));
  }

  /** maxTimestamp of the first batch, or undefined for an empty segment. */
  firstBatchTimestamp(): bigint | undefined {
    if (this.rollingBasedTimestamp === undefined && this.log.sizeInBytes > 0) {
      for (const h of this.log.headers()) {
        this.rollingBasedTimestamp = h.maxTimestamp;
        break;
      }
    }
    return this.rollingBasedTimestamp;
  }

  /** Kafka `LogSegment.shouldRoll` (`RollParams`, `UnifiedLog.maybeRoll`). */
  shouldRoll(p: { maxSegmentMs: number; segmentBytes: number; messagesSize: number; maxTimestampInMessages: bigint; maxOffsetInMessages: bigint; now: number }): boolean {
    return this.shouldRollFor(p.maxSegmentMs, p.segmentBytes, p.messagesSize, p.maxTimestampInMessages, p.maxOffsetInMessages, p.now);
  }

  /** shouldRoll in arguments: the append path's, with no options object per append. */
  shouldRollFor(maxSegmentMs: number, segmentBytes: number, messagesSize: number, maxTimestampInMessages: bigint, maxOffsetInMessages: bigint, now: number): boolean {
    const size = this.log.sizeInBytes;
    if (size > segmentBytes - messagesSize) return true;
    if (size > 0) {
      const first = this.firstBatchTimestamp();
      let waited: number;
      if (first === undefined || first < 0n) waited = now - this.created;
      else if (maxTimestampInMessages <= MAX_SAFE && maxTimestampInMessages >= -MAX_SAFE && first <= MAX_SAFE) waited = Number(maxTimestampInMessages) - Number(first); // exact: both within 2^53
      else waited = Number(maxTimestampInMessages - first);
      if (waited > maxSegmentMs - this.rollJitterMs) return true;
    }
    if (this.offsetIndex.isFull() || this.timeIndex.isFull()) return true;
    return !this.canConvertToRelativeOffset(maxOffsetInMessages);
  }

  /**
   * The first batch whose lastOffset >= offset, starting the scan at the offset index's floor entry
   * (Kafka `translateOffset`).
   */
  translateOffset(offset: bigint, startingFilePosition = 0): BatchHeader | undefined {
    const floor = this.offsetIndex.lookup(offset);
    const start = Math.max(floor.position, startingFilePosition);
    for (const h of this.log.headers(start)) if (h.lastOffset >= offset) return h;
    return undefined;
  }

  /**
   * Kafka `LogSegment.read`: from the batch holding `startOffset`, up to `maxSize` bytes (at least
   * that whole first batch when `minOneMessage`), never past `maxPosition`.
   */
  read(startOffset: bigint, maxSize: number, maxPosition = this.size, minOneMessage = false, into?: ReadTarget): SegmentRead | undefined {
    if (maxSize < 0) throw new InvalidArgumentError(`Invalid max size ${maxSize} for log read from segment ${this.log.path}`);
    const hinted = this.readAtHint(startOffset, maxSize, maxPosition, minOneMessage, into);
    if (hinted !== undefined) return hinted;
    const start = this.translateOffset(startOffset);
    if (start === undefined) return undefined;
    const adjustedMaxSize = minOneMessage ? Math.max(maxSize, start.sizeInBytes) : maxSize;
    if (adjustedMaxSize === 0) return { position: start.position, records: Buffer.alloc(0), firstEntryIncomplete: false };
    const length = Math.min(maxPosition - start.position, adjustedMaxSize);
    const records = this.log.readBytes(start.position, Math.max(0, length), into);
    this.rememberNextRead(start.position, records);
    return { position: start.position, records, firstEntryIncomplete: adjustedMaxSize < start.sizeInBytes };
  }

  /**
   * A consumer's next fetch starts right after the last whole batch of its previous one. When
   * `startOffset` is that offset, the batch holding it starts at the remembered position: read
   * from there directly, without the index lookup and the header reads of `translateOffset`, and
   * take the first batch's size from the bytes read. Returns undefined (the caller takes the
   * general path, which also reports corruption) whenever anything is not plain.
   */
  private readAtHint(startOffset: bigint, maxSize: number, maxPosition: number, minOneMessage: boolean, into?: ReadTarget): SegmentRead | undefined {
    const hint = this.nextRead;
    if (hint === undefined || hint.offset !== startOffset || hint.truncations !== this.log.truncations) return undefined;
    const position = hint.position;
    const length = Math.min(maxPosition - position, maxSize);
    if (length < RECORD_BATCH_OVERHEAD) return undefined;
    const records = this.log.readBytes(position, length, into);
    if (records.length < RECORD_BATCH_OVERHEAD) return undefined;
    const size = readInt32BE(records, LENGTH_OFFSET);
    if (size < MIN_ENTRY_SIZE) return undefined;
    const sizeInBytes = size + LOG_OVERHEAD;
    // the slow path's header scan: a batch running past the logical end is not there yet
    if (sizeInBytes > this.log.sizeInBytes - position) return undefined;
    const magic = readInt8(records, MAGIC_OFFSET);
    if (magic !== 0 && magic !== 1 && sizeInBytes < RECORD_BATCH_OVERHEAD) return undefined;
    if (entryLastOffset(records, 0, magic) < startOffset) return undefined;
    // minOneMessage with a first batch larger than maxSize needs a longer read: the general path
    if (minOneMessage && sizeInBytes > maxSize) return undefined;
    this.rememberNextRead(position, records);
    return { position, records, firstEntryIncomplete: maxSize < sizeInBytes };
  }

  /** Walks the whole batches in `records` (read at `position`) and remembers where the next one starts. */
  private rememberNextRead(position: number, records: Buffer): void {
    const length = records.length;
    let p = 0;
    let last = -1;
    while (p + HEADER_SIZE_UP_TO_MAGIC <= length) {
      // by index (bytes/big-endian.ts), not Buffer's method: this runs once per batch of every fetch
      const size = readInt32BE(records, p + LENGTH_OFFSET) + LOG_OVERHEAD;
      const magic = records[p + MAGIC_OFFSET]!;
      if (size < MIN_ENTRY_SIZE + LOG_OVERHEAD || size > length - p) break;
      if (magic !== 0 && magic !== 1 && size < RECORD_BATCH_OVERHEAD) break;
      last = p;
      p += size;
    }
    this.nextRead =
      last < 0
        ? undefined
        : {
            offset: BigInt.asIntN(64, entryLastOffset(records, last, readInt8(records, last + MAGIC_OFFSET)) + 1n),
            position: position + p,
            truncations: this.log.truncations,
          };
  }

  /** Next offset after the last batch (Kafka `readNextOffset`): baseOffset when empty. */
  readNextOffset(): bigint {
    let next = this.baseOffset;
    const start = this.offsetIndex.lookup(this.offsetIndex.lastOffset).position;
    for (const h of this.log.headers(start)) next = h.lastOffset + 1n;
    return next;
  }

  /**
   * First record with timestamp >= `timestamp` and offset >= `startingOffset` (Kafka
   * `LogSegment.findOffsetByTimestamp`).
   */
  findOffsetByTimestamp(timestamp: bigint, startingOffset: bigint): TimestampAndOffset | undefined {
    const ts = this.timeIndex.lookup(timestamp);
    const target = ts.offset > startingOffset ? ts.offset : startingOffset;
    const position = this.offsetIndex.lookup(target).position;
    // headers first: only the batch whose maxTimestamp reaches the target is read and decoded
    for (const h of this.log.headers(position)) {
      if (h.maxTimestamp < timestamp) continue;
      for (const { batch } of this.log.batches(h.position, h.position + h.sizeInBytes)) {
        const found = batch.kind === 'v2' ? firstAtOrAfterV2(batch, timestamp, startingOffset) : undefined;
        if (found === null) continue; // nothing here: the next batch may still qualify
        if (found !== undefined) return found;
        for (const r of batch.records({ verifyCrc: false })) {
          if (r.timestamp >= timestamp && r.offset >= startingOffset) {
            return { timestamp: r.timestamp, offset: r.offset, ...(batch.kind === 'v2' ? { leaderEpoch: batch.partitionLeaderEpoch } : {}) };
          }
        }
      }
    }
    return undefined;
  }

  /**
   * Rebuilds the indexes from the log and truncates at the first invalid or torn batch (Kafka
   * `LogSegment.recover`). Returns the bytes truncated. `onBatch` sees every valid batch (leader
   * epochs, producer state).
   *
   * A batch whose offsets do not follow the previous batch's is invalid too, and cut with what
   * follows it: such a file was written twice at the same offsets. Kafka finds this only when an
   * index entry falls on it (the offset index refuses the offset, InvalidOffsetException) and then
   * empties the whole segment (`LogLoader.recoverLog`); cutting at the batch keeps what is sound.
   * The segment's maximum timestamp and the index entries come only from the batches kept: when a
   * cut is made, both indexes are built again over what remains, so no entry names an offset, a
   * position or a timestamp that is gone.
   */
  recover(onBatch?: (batch: import('../record/batches.js').AnyRecordBatch, position: number) => void): number {
    this.offsetIndex.reset();
    this.timeIndex.reset();
    this.txnIndex.reset();
    let validBytes = 0;
    let lastIndexEntry = 0;
    let max: TimestampAndOffset = { timestamp: -1n, offset: this.baseOffset };
    let lastOffset = this.baseOffset - 1n;
    try {
      for (const { batch, position, sizeInBytes } of this.log.batches()) {
        batch.ensureValid();
        if (!this.canConvertToRelativeOffset(batch.lastOffset)) {
          // Kafka's InvalidOffsetException from the index append, which LogLoader.recoverLog treats as damage
          throw new CorruptRecordError(`Offset ${batch.lastOffset} does not fit segment ${this.baseOffset}`, { position });
        }
        // a legacy wrapper names its last offset only, which must still move forward
        const first = batch.kind === 'v2' ? batch.baseOffset : batch.lastOffset;
        if (first <= lastOffset || batch.lastOffset < first) {
          throw new CorruptRecordError(`The batch at byte ${position} of ${this.log.path} holds offsets ${first}-${batch.lastOffset}, not after offset ${lastOffset} of the batch before it`, { position });
        }
        const batchMax = batch.maxTimestamp > max.timestamp ? { timestamp: batch.maxTimestamp, offset: batch.lastOffset } : max;
        if (validBytes - lastIndexEntry > this.config.indexIntervalBytes) {
          this.offsetIndex.append(batch.lastOffset, validBytes);
          this.timeIndex.maybeAppend(batchMax.timestamp, batchMax.offset);
          lastIndexEntry = validBytes;
        }
        onBatch?.(batch, position);
        max = batchMax;
        lastOffset = batch.lastOffset;
        validBytes += sizeInBytes;
      }
    } catch (err) {
      // a corrupt or malformed batch: everything from here on is dropped (LogSegment.recover
      // catches CorruptRecordException and InvalidRecordException only). Any other failure, a
      // read error or `onBatch` failing to write the leader-epoch checkpoint or the producer
      // state, says nothing about the bytes and goes to the caller: cutting here would drop
      // acknowledged records for a disk that was full for a moment
      if (!(err instanceof CorruptRecordError || err instanceof InvalidRecordError)) throw err;
    }
    const truncated = this.log.sizeInBytes - validBytes;
    if (truncated > 0) {
      this.log.truncateTo(validBytes);
      // entries may have been added for the batch that was cut (its index entry came before
      // `onBatch` refused it): build both indexes again over the batches kept
      lastIndexEntry = this.rebuildIndexes(validBytes);
      this.txnIndex.truncateTo(lastOffset + 1n);
    }
    this.maxTimestampSoFar = max;
    this.offsetIndex.trimToValidSize();
    this.timeIndex.maybeAppend(max.timestamp, max.offset, true);
    this.timeIndex.trimToValidSize();
    this.bytesSinceLastIndexEntry = validBytes - lastIndexEntry;
    return truncated;
  }

  /** Both indexes from scratch over the (already checked) batches below `end`; returns the last entry's position. */
  private rebuildIndexes(end: number): number {
    this.offsetIndex.reset();
    this.timeIndex.reset();
    let position = 0;
    let lastIndexEntry = 0;
    let max: TimestampAndOffset = { timestamp: -1n, offset: this.baseOffset };
    for (const { batch, sizeInBytes } of this.log.batches(0, end)) {
      if (batch.maxTimestamp > max.timestamp) max = { timestamp: batch.maxTimestamp, offset: batch.lastOffset };
      if (position - lastIndexEntry > this.config.indexIntervalBytes) {
        this.offsetIndex.append(batch.lastOffset, position);
        this.timeIndex.maybeAppend(max.timestamp, max.offset);
        lastIndexEntry = position;
      }
      position += sizeInBytes;
    }
    return lastIndexEntry;
  }

  /**
   * Drops every batch from the one holding `offset` on (Kafka `LogSegment.truncateTo`); returns
   * the bytes removed.
   */
  truncateTo(offset: bigint): number {
    const at = this.translateOffset(offset);
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.txnIndex.truncateTo(offset);
    this.offsetIndex.resize(this.config.segmentIndexBytes);
    this.timeIndex.resize(this.config.segmentIndexBytes);
    const removed = at === undefined ? 0 : this.log.truncateTo(at.position);
    if (this.log.sizeInBytes === 0) {
      // an emptied segment starts its time-based roll clock again (Kafka resetCreateTime)
      this.rollingBasedTimestamp = undefined;
      this.created = this.clock();
    }
    this.bytesSinceLastIndexEntry = 0;
    this.maxTimestampSoFar = undefined;
    return removed;
  }

  /** Kafka `onBecomeInactiveSegment`: final time-index entry, trim indexes and the log file. */
  onBecomeInactiveSegment(): void {
    const m = this.maxTimestampAndOffset();
    this.timeIndex.maybeAppend(m.timestamp, m.offset, true);
    this.offsetIndex.trimToValidSize();
    this.timeIndex.trimToValidSize();
    this.log.trimToSize();
  }

  /**
   * Renames the segment's files from one state suffix to another (Kafka `changeFileSuffixes`), e.g.
   * '' -> '.deleted' before asynchronous deletion, '.cleaned' -> '.swap' during compaction.
   */
  changeFileSuffixes(oldSuffix: string, newSuffix: string): void {
    const rename = (path: string) => (path.endsWith(oldSuffix) ? path.slice(0, path.length - oldSuffix.length) : path) + newSuffix;
    this.log.renameTo(rename(this.log.path));
    this.offsetIndex.renameTo(rename(this.offsetIndex.path));
    this.timeIndex.renameTo(rename(this.timeIndex.path));
    this.txnIndex.renameTo(rename(this.txnIndex.path));
  }

  /**
   * Closes the segment's files and returns their paths, for a removal off the event loop
   * (background-delete.ts): the transaction index's too, which may not exist.
   */
  closeForRemoval(): string[] {
    const paths = [this.log.path, this.offsetIndex.path, this.timeIndex.path, this.txnIndex.path];
    this.txnIndex.close();
    this.offsetIndex.close();
    this.timeIndex.close();
    this.log.close();
    return paths;
  }

  /** Closes and removes the segment's files. */
  deleteFiles(): void {
    this.txnIndex.deleteIfExists();
    const paths = [this.log.path, this.offsetIndex.path, this.timeIndex.path];
    this.offsetIndex.close();
    this.timeIndex.close();
    this.log.close();
    for (const p of paths) rmSync(p, { force: true });
  }

  /**
   * fsyncs the log and, unless `indexes` is false, the indexes. The active segment's indexes may
   * be left to the OS: after an unclean shutdown the segment holding the recovery point is always
   * recovered, which rebuilds them (Kafka `LogLoader.recoverLog`, `LogSegment.recover`).
   */
  flush(indexes = true): void {
    this.log.flush();
    if (!indexes) return;
    this.offsetIndex.flush();
    this.timeIndex.flush();
    this.txnIndex.flush();
  }

  /**
   * `flush()` (log and indexes) with the fdatasyncs on the thread pool: for a rolled segment, which
   * Kafka flushes in the background (background-sync.ts). Undefined when only the inline flush is
   * available. Until it resolves the files stay dirty, so a `flush()` or `close()` meanwhile still
   * syncs them inline.
   */
  flushInBackground(): Promise<void> | undefined {
    const parts = [this.log.flushInBackground(), this.offsetIndex.flushInBackground(), this.timeIndex.flushInBackground(), this.txnIndex.flushInBackground()];
    if (parts.some((p) => p === undefined)) return undefined;
    return Promise.all(parts).then(() => undefined);
  }

  close(): void {
    if (this.log.sizeInBytes > 0 || this.timeIndex.entries > 0) {
      const m = this.maxTimestampAndOffset();
      try {
        this.timeIndex.maybeAppend(m.timestamp, m.offset, true);
      } catch (err) {
        // Kafka swallows this on close (Utils.swallow): the index is only an accelerator
        if (!(err instanceof KafkaliteError)) throw err;
      }
    }
    // trim, then make the trimmed state durable before closing (a clean shutdown skips recovery)
    this.offsetIndex.trimToValidSize();
    this.timeIndex.trimToValidSize();
    this.log.trimToSize();
    this.flush();
    this.offsetIndex.close();
    this.timeIndex.close();
    this.txnIndex.close();
    this.log.close();
  }
}

/** v2: baseOffset + lastOffsetDelta (Java long arithmetic); legacy: the entry's offset. */
function entryLastOffset(buf: Buffer, at: number, magic: number): bigint {
  const offset = buf.readBigInt64BE(at);
  return magic === 0 || magic === 1 ? offset : BigInt.asIntN(64, offset + BigInt(readInt32BE(buf, at + LAST_OFFSET_DELTA_OFFSET)));
}

/**
 * The first record of a CreateTime v2 batch with timestamp >= `timestamp` and offset >=
 * `startingOffset`, scanned in plain numbers (no BigInt per record). Returns undefined when the
 * numbers are not safe (the caller then takes the exact path), null when no record qualifies.
 */
/** The record layout `firstAtOrAfterV2` reuses (it never runs nested). */
const searchLayout = new RecordLayout();

function firstAtOrAfterV2(batch: RecordBatch, timestamp: bigint, startingOffset: bigint): TimestampAndOffset | null | undefined {
  if (batch.timestampType !== 'CreateTime') return undefined;
  const base = Number(batch.baseTimestamp);
  const target = Number(timestamp);
  const baseOffset = batch.baseOffset;
  const minDelta = startingOffset - baseOffset;
  if (!Number.isSafeInteger(base) || !Number.isSafeInteger(target) || minDelta > 0x7fffffffn) return undefined;
  const minOffsetDelta = Number(minDelta);
  const it = batch.recordIterator({ verifyCrc: false });
  // one reused layout, no Record per record: a lookup walks half a batch on average
  const r = searchLayout;
  while (it.scanNext(r)) {
    const delta = r.timestampDelta;
    if (typeof delta !== 'number') return undefined;
    if (base + delta >= target && r.offsetDelta >= minOffsetDelta) {
      return { timestamp: BigInt(base + delta), offset: baseOffset + BigInt(r.offsetDelta), leaderEpoch: batch.partitionLeaderEpoch };
    }
  }
  return null;
}
