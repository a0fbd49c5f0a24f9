/**
 * The cleaner's record and batch retention rules (storage spec §12.4-§12.6, Kafka
 * `Cleaner.cleanInto`'s RecordFilter, `shouldDiscardBatch`, `shouldRetainRecord`).
 *
 * Batches: the last batch of an active producer and the round's last batch are kept even when
 * empty (producers' last sequences and the round's last offset survive); an aborted transaction's
 * data is dropped whole; a marker is dropped only once its delete horizon has passed. Records: past
 * the offset map's end everything stays; keyless records go; a record stays only if it is the
 * latest for its key, and a tombstone only until its batch's delete horizon (legacy batches: while
 * the segment is younger than the legacy horizon).
 */
import type { AnyRecordBatch } from '../../record/batches.js';
import type { RecordBatch } from '../../record/batch.js';
import type { BatchRetentionResult, RecordFilter } from './batch-filter.js';
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

  constructor(private readonly ctx: RetentionContext) {
    this.currentTime = ctx.currentTime;
    this.deleteRetentionMs = ctx.deleteRetentionMs;
    this.latestOffset = ctx.map.latestOffset;
    this.latestOffsetNumber = Number(this.latestOffset);
  }

  checkBatchRetention(batch: AnyRecordBatch): BatchRetentionResult {
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
    if (small ? offset < map.getAt(data, keyStart, keySize) : offset < map.get(data.subarray(keyStart, keyStart + keySize))) return false;
    if (hasValue) return true;
    if (batch.kind !== 'v2') return this.ctx.retainLegacyDeletesAndTxnMarkers;
    const horizon = batch.deleteHorizonMs;
    return horizon === undefined || this.currentTime < horizon;
  }
}
