/**
 * The cleaner's record and batch retention rules (Kafka
 * `Cleaner.cleanInto`'s RecordFilter, `shouldDiscardBatch`, `shouldRetainRecord`).
 *
 * Batches: the last batch of an active producer and the round's last batch are kept even when
 * empty (producers' last sequences and the round's last offset survive); an aborted transaction's
 * data is dropped whole; a marker is dropped only once its delete horizon has passed. Records: past
 * the offset map's end everything stays; keyless records go; a record stays only if it is the
 * latest for its key, and a tombstone only until its batch's delete horizon (legacy batches: while
 * the segment is younger than the legacy horizon). "Latest for its key" comes from the map's
 * latest-offset marks inside the round's dirty section, from a key lookup below it.
 */
import type { AnyRecordBatch } from '../../record/batches.js';
import type { RecordBatch } from '../../record/batch.js';
import type { RecordLayout } from '../../record/record-layout.js';
import { isSmallBase, RECORD_GROUP, type BatchRetentionResult, type RecordFilter } from './batch-filter.js';
import type { OffsetMap } from './offset-map.js';
import type { CleanedTransactionMetadata } from './transaction-metadata.js';

/** Kafka `LastRecord`: an active producer's last data offset (if any) and epoch. */
export interface LastRecord {
  lastDataOffset: bigint | undefined;
  producerEpoch: number;
}

export interface RetentionContext {
  map: OffsetMap;
  transactions: CleanedTransactionMetadata;
  lastRecordsOfActiveProducers: ReadonlyMap<bigint, LastRecord>;
  /** The round's end (map.latestOffset + 1): its last batch is kept even if emptied. */
  upperBoundOffsetOfCleaningRound: bigint;
  /** Legacy (v0/v1) tombstones of this segment are still kept (segment mtime > legacy horizon). */
  retainLegacyDeletesAndTxnMarkers: boolean;
  currentTime: bigint;
  deleteRetentionMs: bigint;
  /** Counts keyless records (Kafka `CleanerStats.invalidMessage`). */
  onInvalidMessage?: () => void;
}

export class CleanerRetentionFilter implements RecordFilter {
  readonly currentTime: bigint;
  readonly deleteRetentionMs: bigint;
  /** The current batch's records are all dropped (aborted data, or a marker past its horizon). */
  private discardBatchRecords = false;
  /** The map's end, fixed while segments are cleaned (a number compares right below 2^53). */
  private readonly latestOffset: bigint;
  private readonly latestOffsetNumber: number;
  /** The prepared group (prepareRecords): its size, next unused key, key positions and their bytes. */
  private grouped = 0;
  private groupNext = 0;
  private readonly groupKeyStarts = new Int32Array(RECORD_GROUP);
  private groupData: Uint8Array | undefined = undefined;

  constructor(private readonly ctx: RetentionContext) {
    this.currentTime = ctx.currentTime;
    this.deleteRetentionMs = ctx.deleteRetentionMs;
    this.latestOffset = ctx.map.latestOffset;
    this.latestOffsetNumber = Number(this.latestOffset);
  }

  checkBatchRetention(batch: AnyRecordBatch): BatchRetentionResult {
    this.grouped = 0;
    const v2 = batch.kind === 'v2' ? batch : undefined;
    const canDiscardBatch = v2 !== undefined && this.shouldDiscardBatch(v2);
    if (v2 !== undefined && v2.isControl) {
      const horizon = v2.deleteHorizonMs;
      this.discardBatchRecords = canDiscardBatch && horizon !== undefined && horizon <= this.currentTime;
    } else {
      this.discardBatchRecords = canDiscardBatch;
    }
    const containsMarkerForEmptyTxn = canDiscardBatch && v2 !== undefined && v2.isControl;
    if (v2 !== undefined && v2.hasProducerId && this.isLastBatchOfProducer(v2)) return { retention: 'RETAIN_EMPTY', containsMarkerForEmptyTxn };
    if (batch.nextOffset === this.ctx.upperBoundOffsetOfCleaningRound) return { retention: 'RETAIN_EMPTY', containsMarkerForEmptyTxn };
    if (this.discardBatchRecords) return { retention: 'DELETE', containsMarkerForEmptyTxn };
    return { retention: 'DELETE_EMPTY', containsMarkerForEmptyTxn };
  }

  private shouldDiscardBatch(batch: RecordBatch): boolean {
    return batch.isControl ? this.ctx.transactions.onControlBatchRead(batch) : this.ctx.transactions.onBatchRead(batch);
  }

  private isLastBatchOfProducer(batch: RecordBatch): boolean {
    const last = this.ctx.lastRecordsOfActiveProducers.get(batch.producerId);
    if (last === undefined) return false;
    if (last.lastDataOffset !== undefined) return batch.lastOffset === last.lastDataOffset;
    return batch.isControl && batch.producerEpoch === last.producerEpoch;
  }

  /**
   * Looks up together (offset-map.ts groups) the keys of `records[from, to)` that
   * `shouldRetainRecord` will look up: keyed records of a v2 data batch within this round, with
   * offsets below 2^53 (isSmallBase). The map is final while segments are cleaned, so a lookup
   * made early gives what it would give when the record's turn comes.
   */
  prepareRecords(batch: RecordBatch, records: readonly RecordLayout[], from: number, to: number): void {
    this.grouped = 0;
    this.groupNext = 0;
    if (this.discardBatchRecords || batch.isControl || !isSmallBase(batch.baseOffset)) return;
    const map = this.ctx.map;
    const marks = map.marks;
    const baseOffset = Number(batch.baseOffset);
    let n = 0;
    for (let i = from; i < to; i++) {
      const r = records[i]!;
      const offset = baseOffset + r.offsetDelta;
      // offsets the marks cover need no key lookup (shouldRetainRecord asks the marks)
      if (r.keySize >= 0 && offset <= this.latestOffsetNumber && !marks.covers(offset)) {
        map.hashGroupKey(n, r.data, r.keyStart, r.keySize);
        this.groupKeyStarts[n++] = r.keyStart;
      }
    }
    map.touchGroup(n);
    this.grouped = n;
    this.groupData = records[from]!.data;
  }

  /** The latest offset of the key `data[keyStart, +keySize)`: from the prepared group when it is the next one there. */
  private latestOf(data: Uint8Array, keyStart: number, keySize: number): number {
    const g = this.groupNext;
    if (g < this.grouped && this.groupKeyStarts[g] === keyStart && this.groupData === data) {
      this.groupNext = g + 1;
      return this.ctx.map.getGroupKey(g);
    }
    return this.ctx.map.getAt(data, keyStart, keySize);
  }

  shouldRetainRecord(batch: AnyRecordBatch, offset: bigint | number, data: Uint8Array, keyStart: number, keySize: number, hasValue: boolean): boolean {
    if (this.discardBatchRecords) return false;
    if (batch.kind === 'v2' && batch.isControl) return true;
    const map = this.ctx.map;
    const small = typeof offset === 'number';
    if (small ? offset > this.latestOffsetNumber : offset > this.latestOffset) return true; // beyond this round
    if (keySize < 0) {
      this.ctx.onInvalidMessage?.();
      return false;
    }
    if (small) {
      // within the round's dirty section the marks answer "offset < map.get(key)" (latest-marks.ts)
      const marks = map.marks;
      if (marks.covers(offset) ? !marks.isLatest(offset) : offset < this.latestOf(data, keyStart, keySize)) return false;
    } else if (offset < map.get(data.subarray(keyStart, keyStart + keySize))) {
      return false;
    }
    if (hasValue) return true;
    if (batch.kind !== 'v2') return this.ctx.retainLegacyDeletesAndTxnMarkers;
    const horizon = batch.deleteHorizonMs;
    return horizon === undefined || this.currentTime < horizon;
  }
}
