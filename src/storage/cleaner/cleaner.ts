/**
 * One cleaning round of one log (storage spec §12.3-§12.7, Kafka `Cleaner.doClean`,
 * `buildOffsetMap`, `cleanSegments`, `cleanInto`).
 *
 * 1. Build the offset map over the dirty section [firstDirty, firstUncleanable); when the map's
 *    fill limit is reached the round ends at the last key put (the rest waits for the next round).
 * 2. Group the segments below the round's end by size and rewrite each group into a `.cleaned`
 *    segment, reading the sources in chunks of the I/O buffer size as Kafka does (each chunk's
 *    output is one append, which places the cleaned segment's index entries where Kafka's are).
 * 3. Swap each cleaned segment in (PartitionLog.replaceSegments).
 * The caller records the returned end offset in cleaner-offset-checkpoint.
 *
 * The map, read buffer and output buffer are allocated once per Cleaner and reused for every
 * round (fresh large Buffers cost page faults), so memory is bounded by the dedupe budget plus the
 * I/O buffers and the largest batch.
 */
import { rmSync, statSync, utimesSync } from 'node:fs';
import { StorageError } from '../../errors.js';
import { CLEANED_SUFFIX, logFilePath, offsetIndexPath, timeIndexPath, txnIndexPath } from '../file-names.js';
import { LogSegment } from '../log-segment.js';
import type { PartitionLog } from '../partition-log.js';
import { BatchFilter } from './batch-filter.js';
import { segmentsInRange, type LogToClean } from './cleanable-log.js';
import { OffsetMap } from './offset-map.js';
import { CleanedTransactionMetadata } from './transaction-metadata.js';
import { CleanerRetentionFilter, type LastRecord } from './retention-filter.js';
import { groupSegmentsBySize } from './segment-groups.js';

export interface CleanerOptions {
  /** Offset map memory for this cleaner (Kafka: log.cleaner.dedupe.buffer.size / threads). */
  dedupeBufferSize: number;
  /** Read (and write) buffer size (Kafka: log.cleaner.io.buffer.size / threads / 2). */
  ioBufferSize: number;
  /** log.cleaner.io.buffer.load.factor: fraction of the map's slots a round may fill. */
  loadFactor: number;
  time: () => number;
}

export interface CleanerStats {
  /** Records read while building the map and while cleaning. */
  mapMessagesRead: number;
  messagesRead: number;
  messagesRetained: number;
  bytesRead: number;
  bytesWritten: number;
  invalidMessages: number;
  segmentsCleaned: number;
  groups: number;
  /** The map filled up before the dirty section's end: the round stopped early. */
  mapFull: boolean;
}

export interface CleanResult {
  /** Where the next round starts (the new cleaner-offset-checkpoint value). */
  endOffset: bigint;
  stats: CleanerStats;
}

/** Progress callback: bytes of source segments done so far, of the total to rewrite. */
export type CleanProgress = (done: number, total: number) => void;

export class Cleaner {
  private readonly map: OffsetMap;
  private readonly batchFilter = new BatchFilter();
  private readBuffer: Buffer;

  constructor(private readonly options: CleanerOptions) {
    this.map = new OffsetMap(options.dedupeBufferSize);
    this.readBuffer = Buffer.allocUnsafe(options.ioBufferSize);
  }

  get offsetMap(): OffsetMap {
    return this.map;
  }

  /** Cleans `toClean.log` once (Kafka `doClean`). */
  clean(toClean: LogToClean, onProgress?: CleanProgress): CleanResult {
    const log = toClean.log;
    const stats: CleanerStats = {
      mapMessagesRead: 0,
      messagesRead: 0,
      messagesRetained: 0,
      bytesRead: 0,
      bytesWritten: 0,
      invalidMessages: 0,
      segmentsCleaned: 0,
      groups: 0,
      mapFull: false,
    };
    const now = this.options.time();
    const deleteRetentionMs = BigInt(log.config.deleteRetentionMs);
    // legacy tombstones: kept while their segment is younger than the last clean segment minus delete.retention.ms
    const clean = segmentsInRange(log, 0n, toClean.firstDirtyOffset);
    const lastClean = clean[clean.length - 1];
    const legacyDeleteHorizonMs = lastClean === undefined ? 0 : mtimeMs(lastClean) - log.config.deleteRetentionMs;

    stats.mapFull = this.buildOffsetMap(log, toClean.firstDirtyOffset, toClean.firstUncleanableOffset, stats);
    const endOffset = this.map.latestOffset + 1n;
    const all = log.segmentList();
    const groups = groupSegmentsBySize(segmentsInRange(log, 0n, endOffset), log.config.segmentBytes, log.config.segmentIndexBytes, toClean.firstUncleanableOffset);
    const total = groups.reduce((n, g) => n + g.reduce((m, s) => m + s.size, 0), 0);
    let done = 0;
    const transactions = new CleanedTransactionMetadata();
    for (const group of groups) {
      const last = group[group.length - 1]!;
      const next = all[all.indexOf(last) + 1];
      const groupEnd = next !== undefined ? next.baseOffset : last.readNextOffset();
      this.cleanSegments(log, group, groupEnd, transactions, BigInt(now), deleteRetentionMs, legacyDeleteHorizonMs, endOffset, stats);
      done += group.reduce((m, s) => m + s.size, 0);
      stats.groups++;
      stats.segmentsCleaned += group.length;
      onProgress?.(done, total);
    }
    return { endOffset, stats };
  }

  /** Kafka `buildOffsetMap`: returns true when the map filled before `end`. */
  private buildOffsetMap(log: PartitionLog, start: bigint, end: bigint, stats: CleanerStats): boolean {
    const map = this.map;
    map.clear();
    const dirty = segmentsInRange(log, start, end);
    const transactions = new CleanedTransactionMetadata();
    transactions.addAbortedTransactions(log.collectAbortedTxns(start, end));
    const maxDesiredMapSize = Math.floor(map.slots * this.options.loadFactor);
    for (let i = 0; i < dirty.length; i++) {
      const segment = dirty[i]!;
      const nextSegmentStart = dirty[i + 1]?.baseOffset ?? end;
      const position = segment.offsetIndex.lookup(start).position;
      for (const { batch } of segment.log.batches(position)) {
        batch.ensureValid();
        if (batch.kind === 'v2' && batch.isControl) {
          transactions.onControlBatchRead(batch);
          stats.mapMessagesRead++;
        } else if (batch.kind === 'v2' && transactions.onBatchRead(batch)) {
          stats.mapMessagesRead += batch.recordsCount; // aborted: not worth mapping
        } else if (batch.kind === 'v2') {
          const it = batch.recordIterator({ verifyCrc: false });
          for (let r = it.readNext(); r !== null; r = it.readNext()) {
            if (r.keySize >= 0) {
              const offset = r.offset;
              if (offset >= start) {
                if (map.size >= maxDesiredMapSize) return true;
                map.put(r.key!, offset);
              }
            }
            stats.mapMessagesRead++;
          }
        } else {
          for (const r of batch.records({ verifyCrc: false })) {
            const key = r.key;
            if (key !== null && r.offset >= start) {
              if (map.size >= maxDesiredMapSize) return true;
              map.put(key, r.offset);
            }
            stats.mapMessagesRead++;
          }
        }
        if (batch.lastOffset >= start) map.updateLatestOffset(batch.lastOffset);
      }
      // offsets may have gaps: the segment covers everything up to the next one
      map.updateLatestOffset(nextSegmentStart - 1n);
    }
    return false;
  }

  /** Kafka `cleanSegments`: rewrites one group into a `.cleaned` segment and swaps it in. */
  private cleanSegments(
    log: PartitionLog,
    group: readonly LogSegment[],
    groupEnd: bigint,
    transactions: CleanedTransactionMetadata,
    now: bigint,
    deleteRetentionMs: bigint,
    legacyDeleteHorizonMs: number,
    upperBoundOffsetOfCleaningRound: bigint,
    stats: CleanerStats,
  ): void {
    const base = group[0]!.baseOffset;
    for (const path of [logFilePath, offsetIndexPath, timeIndexPath, txnIndexPath]) rmSync(path(log.dir, base, CLEANED_SUFFIX), { force: true });
    const cleaned = LogSegment.open(
      log.dir,
      base,
      { indexIntervalBytes: log.config.indexIntervalBytes, segmentIndexBytes: log.config.segmentIndexBytes },
      { create: true, suffix: CLEANED_SUFFIX, time: this.options.time, ...(log.config.preallocate ? { initFileSize: log.config.segmentBytes } : {}) },
    );
    transactions.cleanedIndex = cleaned.txnIndex;
    try {
      const lastRecords = new Map<bigint, LastRecord>();
      for (const [pid, entry] of log.producerStateManager.activeProducers()) {
        const lastDataOffset = entry.batchMetadata.at(-1)?.lastOffset;
        lastRecords.set(pid, { lastDataOffset: lastDataOffset !== undefined && lastDataOffset >= 0n ? lastDataOffset : undefined, producerEpoch: entry.producerEpoch });
      }
      for (let i = 0; i < group.length; i++) {
        const segment = group[i]!;
        const upper = group[i + 1]?.baseOffset ?? segment.readNextOffset();
        transactions.addAbortedTransactions(log.collectAbortedTxns(segment.baseOffset, upper));
        const filter = new CleanerRetentionFilter({
          map: this.map,
          transactions,
          lastRecordsOfActiveProducers: lastRecords,
          upperBoundOffsetOfCleaningRound,
          retainLegacyDeletesAndTxnMarkers: mtimeMs(segment) > legacyDeleteHorizonMs,
          currentTime: now,
          deleteRetentionMs,
          onInvalidMessage: () => stats.invalidMessages++,
        });
        this.cleanInto(segment, cleaned, filter, log.config.maxMessageBytes, stats);
      }
      cleaned.onBecomeInactiveSegment();
      cleaned.flush();
      // the cleaned segment keeps the age of the data it holds (retention and the legacy horizon use it)
      const mtime = new Date(mtimeMs(group[group.length - 1]!));
      for (const path of [cleaned.log.path, cleaned.offsetIndex.path, cleaned.timeIndex.path]) utimesSync(path, mtime, mtime);
      log.replaceSegments(cleaned, group, groupEnd);
    } catch (err) {
      cleaned.deleteFiles();
      throw err;
    } finally {
      transactions.cleanedIndex = undefined;
    }
  }

  /** Kafka `cleanInto`: filters one source segment chunk by chunk into `dest`. */
  private cleanInto(source: LogSegment, dest: LogSegment, filter: CleanerRetentionFilter, maxMessageBytes: number, stats: CleanerStats): void {
    let readSize = this.options.ioBufferSize;
    let position = 0;
    const size = source.size;
    while (position < size) {
      if (this.readBuffer.length < readSize) this.readBuffer = Buffer.allocUnsafe(readSize);
      const chunk = source.log.readBytes(position, readSize, this.readBuffer);
      const result = this.batchFilter.filter(chunk, filter);
      if (result.bytesRead === 0) {
        // a batch larger than the buffer: grow it (Kafka growBuffersOrFail), up to max.message.bytes
        if (readSize >= maxMessageBytes || chunk.length < readSize) {
          throw new StorageError(
            `Log segment ${source.log.path} may be corrupt or hold a batch larger than max.message.bytes (${maxMessageBytes}) at byte ${position}`,
            { position },
          );
        }
        readSize = Math.min(readSize * 2, Math.max(maxMessageBytes, this.options.ioBufferSize));
        continue;
      }
      position += result.bytesRead;
      stats.bytesRead += result.bytesRead;
      stats.messagesRead += result.messagesRead;
      stats.messagesRetained += result.messagesRetained;
      if (result.output.length > 0) {
        dest.append(result.maxOffset, result.maxTimestamp, result.shallowOffsetOfMaxTimestamp, result.output);
        stats.bytesWritten += result.output.length;
      }
    }
  }
}

function mtimeMs(segment: LogSegment): number {
  return Math.floor(statSync(segment.log.path).mtimeMs);
}
