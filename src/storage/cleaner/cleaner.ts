/**
 * One cleaning round of one log (Kafka `Cleaner.doClean`,
 * `buildOffsetMap`, `cleanSegments`, `cleanInto`).
 *
 * 1. Build the offset map over the dirty section [firstDirty, firstUncleanable); when the map's
 *    fill limit is reached the round ends at the last key put (the rest waits for the next round).
 * 2. Group the segments below the round's end by size and rewrite each group into a `.cleaned`
 *    segment, reading the sources in chunks of the I/O buffer size as Kafka does (each chunk's
 *    output is one append, which places the cleaned segment's index entries where Kafka's are).
 * 3. Swap each cleaned segment in (PartitionLog.replaceSegments, segment-swap.ts).
 * The caller records the returned end offset in cleaner-offset-checkpoint.
 *
 * The map, read buffer and output buffer are allocated once per Cleaner and reused for every
 * round (fresh large Buffers cost page faults), so memory is bounded by the dedupe budget plus the
 * I/O buffers and the largest batch.
 */
import { statSync, utimesSync } from 'node:fs';
import { KafkaliteError, StorageError } from '../../errors.js';
import type { RecordBatch } from '../../record/batch.js';
import { readRecordBatches } from '../../record/batches.js';
import { RecordLayout } from '../../record/record-layout.js';
import type { LogSegment } from '../log-segment.js';
import type { PartitionLog } from '../partition-log.js';
import { createCleanedSegment } from '../segment-swap.js';
import { BatchFilter, isSmallBase } from './batch-filter.js';
import { segmentsInRange, type LogToClean } from './cleanable-log.js';
import { OFFSET_MAP_GROUP, OffsetMap } from './offset-map.js';
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
  /** A stepwise round found its log changed under it and stopped: its end must not be checkpointed. */
  abandoned: boolean;
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
  /** Where the record being mapped lies (reused for every record). */
  private readonly layout = new RecordLayout();
  /** Offsets of the keys grouped in the map (OFFSET_MAP_GROUP), and the records read before each. */
  private readonly groupOffsets = new Float64Array(OFFSET_MAP_GROUP);
  private readonly groupMarks = new Float64Array(OFFSET_MAP_GROUP);
  private readBuffer: Buffer;

  constructor(private readonly options: CleanerOptions) {
    this.map = new OffsetMap(options.dedupeBufferSize);
    this.readBuffer = Buffer.allocUnsafe(options.ioBufferSize);
  }

  /** Cleans `toClean.log` once (Kafka `doClean`). */
  clean(toClean: LogToClean, onProgress?: CleanProgress): CleanResult {
    const steps = this.cleanStepwise(toClean, onProgress);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `clean` in steps: the offset map is built in the first step, then each segment group is
   * rewritten and swapped in its own step, so a caller sharing the event loop (the broker's
   * background cleaner) can let requests run between groups. Each group's swap is crash-safe on
   * its own (segment-swap.ts) and the caller records the returned end offset only when the last step
   * is done: a round abandoned or killed between groups leaves whole cleaned groups and the old
   * checkpoint, so the next round simply cleans again from there (as after a crash mid-round in
   * Kafka). The log may change between steps: a group whose segments are no longer all in the log
   * (retention, truncation, deletion) ends the round with `abandoned` set, and appends only ever
   * reach segments past the round's end (the round stops below the active segment).
   */
  *cleanStepwise(toClean: LogToClean, onProgress?: CleanProgress): Generator<void, CleanResult> {
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
      abandoned: false,
    };
    const now = this.options.time();
    const deleteRetentionMs = BigInt(log.config.deleteRetentionMs);
    // legacy tombstones: kept while their segment is younger than the last clean segment minus delete.retention.ms
    const clean = segmentsInRange(log, 0n, toClean.firstDirtyOffset);
    const lastClean = clean[clean.length - 1];
    const legacyDeleteHorizonMs = lastClean === undefined ? 0 : mtimeMs(lastClean) - log.config.deleteRetentionMs;

    stats.mapFull = this.buildOffsetMap(log, toClean.firstDirtyOffset, toClean.firstUncleanableOffset, stats);
    const endOffset = this.map.latestOffset + 1n;
    const groups = groupSegmentsBySize(segmentsInRange(log, 0n, endOffset), log.config.segmentBytes, log.config.segmentIndexBytes, toClean.firstUncleanableOffset);
    const total = groups.reduce((n, g) => n + g.reduce((m, s) => m + s.size, 0), 0);
    let done = 0;
    const transactions = new CleanedTransactionMetadata();
    for (const group of groups) {
      yield;
      const current = log.segmentList();
      if (group.some((segment) => !current.includes(segment))) {
        stats.abandoned = true;
        return { endOffset, stats };
      }
      const last = group[group.length - 1]!;
      const next = current[current.indexOf(last) + 1];
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
    map.beginRound(start);
    const dirty = segmentsInRange(log, start, end);
    const transactions = new CleanedTransactionMetadata();
    transactions.addAbortedTransactions(log.collectAbortedTxns(start, end));
    const maxDesiredMapSize = Math.floor(map.slots * this.options.loadFactor);
    for (let i = 0; i < dirty.length; i++) {
      const segment = dirty[i]!;
      const nextSegmentStart = dirty[i + 1]?.baseOffset ?? end;
      let full = false;
      // whole chunks of the I/O buffer, not a read per batch (FileRecords.batches reads each
      // batch's header and then the batch: two syscalls per batch)
      this.readChunks(segment, segment.offsetIndex.lookup(start).position, log.config.maxMessageBytes, (chunk) => {
        const reader = readRecordBatches(chunk, { verifyCrc: true });
        for (let batch = reader.nextBatch(); batch !== null; batch = reader.nextBatch()) {
          if (batch.kind === 'v2' && batch.isControl) {
            transactions.onControlBatchRead(batch);
            stats.mapMessagesRead++;
          } else if (batch.kind === 'v2' && transactions.onBatchRead(batch)) {
            stats.mapMessagesRead += batch.recordsCount; // aborted: not worth mapping
          } else if (batch.kind === 'v2' && isSmallBase(batch.baseOffset)) {
            if (!this.mapSmallBatch(batch, Number(start), maxDesiredMapSize, stats)) {
              full = true;
              return -1;
            }
          } else if (batch.kind === 'v2') {
            // offsets past 2^53 - 2^31: a BigInt per record (never in practice, see isSmallBase)
            const it = batch.recordIterator({ verifyCrc: false });
            const r = this.layout;
            while (it.scanNext(r)) {
              if (r.keySize >= 0) {
                const offset = BigInt.asIntN(64, batch.baseOffset + BigInt(r.offsetDelta));
                if (offset >= start) {
                  if (map.size >= maxDesiredMapSize) {
                    full = true;
                    return -1;
                  }
                  map.put(r.data.subarray(r.keyStart, r.keyStart + r.keySize), offset);
                }
              }
              stats.mapMessagesRead++;
            }
          } else {
            for (const r of batch.records({ verifyCrc: false })) {
              const key = r.key;
              if (key !== null && r.offset >= start) {
                if (map.size >= maxDesiredMapSize) {
                  full = true;
                  return -1;
                }
                map.put(key, r.offset);
              }
              stats.mapMessagesRead++;
            }
          }
          if (batch.lastOffset >= start) map.updateLatestOffset(batch.lastOffset);
        }
        return reader.position;
      });
      if (full) return true;
      // offsets may have gaps: the segment covers everything up to the next one
      map.updateLatestOffset(nextSegmentStart - 1n);
    }
    return false;
  }

  /**
   * Puts the keyed records of `batch` (offsets below 2^53, see isSmallBase) at or past `start`,
   * in groups of OFFSET_MAP_GROUP keys (offset-map.ts: their memory waits overlap). Returns false
   * when the map reached `maxEntries` first: then the puts before that record are in the map and
   * `stats.mapMessagesRead` counts the records before it, as when putting one by one.
   */
  private mapSmallBatch(batch: RecordBatch, start: number, maxEntries: number, stats: CleanerStats): boolean {
    const map = this.map;
    const offsets = this.groupOffsets;
    const marks = this.groupMarks;
    const baseOffset = Number(batch.baseOffset);
    // records scanned, not materialised: the key is hashed where it lies (record-layout.ts)
    const it = batch.recordIterator({ verifyCrc: false });
    const r = this.layout;
    let n = 0;
    try {
      while (it.scanNext(r)) {
        const offset = baseOffset + r.offsetDelta;
        if (r.keySize >= 0 && offset >= start) {
          map.hashGroupKey(n, r.data, r.keyStart, r.keySize);
          offsets[n] = offset;
          marks[n] = stats.mapMessagesRead;
          if (++n === OFFSET_MAP_GROUP) {
            if (!this.putGroup(n, maxEntries, stats)) return false;
            n = 0;
          }
        }
        stats.mapMessagesRead++;
      }
    } catch (err) {
      // a bad record past the point where the map filled up ends the round as full, as one by one
      if (!this.putGroup(n, maxEntries, stats)) return false;
      throw err;
    }
    return this.putGroup(n, maxEntries, stats);
  }

  /** Applies the group's `n` puts in order (Kafka's fill limit checked before each, as `buildOffsetMap`). */
  private putGroup(n: number, maxEntries: number, stats: CleanerStats): boolean {
    const map = this.map;
    map.touchGroup(n);
    for (let i = 0; i < n; i++) {
      if (map.size >= maxEntries) {
        stats.mapMessagesRead = this.groupMarks[i]!;
        return false;
      }
      map.putGroupKey(i, this.groupOffsets[i]!);
    }
    return true;
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
    const cleaned = createCleanedSegment(
      log.dir,
      base,
      { indexIntervalBytes: log.config.indexIntervalBytes, segmentIndexBytes: log.config.segmentIndexBytes },
      { time: this.options.time, resources: log.resources, ...(log.config.preallocate ? { initFileSize: log.config.segmentBytes } : {}) },
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
    this.readChunks(source, 0, maxMessageBytes, (chunk) => {
      const result = this.batchFilter.filter(chunk, filter);
      stats.bytesRead += result.bytesRead;
      stats.messagesRead += result.messagesRead;
      stats.messagesRetained += result.messagesRetained;
      if (result.output.length > 0) {
        dest.append(result.maxOffset, result.maxTimestamp, result.shallowOffsetOfMaxTimestamp, result.output);
        stats.bytesWritten += result.output.length;
      }
      return result.bytesRead;
    });
  }

  /**
   * Reads `source` from `position` in chunks of the I/O buffer (reused) and hands each to `visit`,
   * which returns how many bytes of whole batches it used (-1: stop). A chunk holding no whole
   * batch grows the buffer (Kafka `growBuffersOrFail`), up to max.message.bytes.
   */
  private readChunks(source: LogSegment, position: number, maxMessageBytes: number, visit: (chunk: Buffer) => number): void {
    let readSize = this.options.ioBufferSize;
    const size = source.size;
    while (position < size) {
      if (this.readBuffer.length < readSize) this.readBuffer = Buffer.allocUnsafe(readSize);
      const chunk = source.log.readBytes(position, readSize, this.readBuffer);
      let used: number;
      try {
        used = visit(chunk);
      } catch (err) {
        // positions in the chunk are positions in the segment file shifted by the chunk's start
        throw err instanceof KafkaliteError ? err.shifted(position) : err;
      }
      if (used < 0) return;
      if (used === 0) {
        if (readSize >= maxMessageBytes || chunk.length < readSize) {
          throw new StorageError(
            `Log segment ${source.log.path} may be corrupt or hold a batch larger than max.message.bytes (${maxMessageBytes}) at byte ${position}`,
            { position },
          );
        }
        readSize = Math.min(readSize * 2, Math.max(maxMessageBytes, this.options.ioBufferSize));
        continue;
      }
      position += used;
    }
  }
}

function mtimeMs(segment: LogSegment): number {
  return Math.floor(statSync(segment.log.path).mtimeMs);
}
