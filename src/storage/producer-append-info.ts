/**
 * Validation and staging of one producer's batches within one append (Kafka `ProducerAppendInfo`,
 * `TxnMetadata`, `CompletedTxn`, `AppendOrigin`).
 *
 * `ProducerStateManager.prepareUpdate` stages a copy of the producer's state, `append` validates
 * each batch against it (epoch fencing, sequence continuity, transaction state, coordinator
 * fencing) and stages the result, and `ProducerStateManager.update` commits the staged state once
 * the batches are on disk. Nothing is changed until then, so a rejected append leaves the state as
 * it was.
 */
import { InvalidProducerEpochError, InvalidTxnStateError, OutOfOrderSequenceError, TransactionCoordinatorFencedError } from '../errors.js';
import { RecordBatch } from '../record/batch.js';
import { encodeEndTransactionMarker } from '../record/builder.js';
import { parseEndTransactionMarker } from '../record/control.js';
import { anchorHiddenClass } from '../v8/map-anchors.js';
import {
  addBatch,
  applyEndMarker,
  entryLastSeq,
  entryWithoutBatches,
  NO_PRODUCER_EPOCH,
  NO_SEQUENCE,
  type ProducerStateEntry,
} from './producer-state-entry.js';

const INT32_MAX = 0x7fffffff;

/**
 * Who is appending (Kafka `AppendOrigin`): clients get full validation; the coordinator (offset
 * commits, markers) no sequence checks; replication (and recovery replay) only warnings; the KRaft
 * leader's own batches (RAFT_LEADER) no validation pass at all (raft-leader-append.ts).
 */
export type AppendOrigin = 'client' | 'replication' | 'coordinator' | 'raftLeader';

/** A finished transaction (`CompletedTxn`): firstOffset..lastOffset, lastOffset being the marker. */
export interface CompletedTxn {
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  isAborted: boolean;
}

/** A transaction of one producer (`TxnMetadata`); lastOffset is set once its marker is written. */
export interface TxnMetadata {
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint | undefined;
}

export type ProducerStateLogger = (level: 'info' | 'warn', message: string) => void;

/**
 * Validation and staging of one producer's batches within one append (`ProducerAppendInfo`).
 * Obtain it from {@link ProducerStateManager.prepareUpdate}.
 */
/**
 * A marker's record reader and record, the only records the transactional path reads (one marker
 * per transaction and partition): anchored (map-anchors.ts) as built from a marker batch of their
 * own, so that no live one (a recovery read's shared buffer among them) is kept.
 */
function anchorMarkerRecordClasses(): void {
  const marker = new RecordBatch(encodeEndTransactionMarker({ type: 'COMMIT', producerId: 0n, producerEpoch: 0, coordinatorEpoch: 0, timestamp: 0n }));
  const iterator = marker.recordIterator();
  const record = iterator.readNext();
  anchorHiddenClass(iterator);
  if (record !== null) anchorHiddenClass(record);
}
anchorMarkerRecordClasses();

export class ProducerAppendInfo {
  private readonly updatedEntry: ProducerStateEntry;
  private readonly transactions: TxnMetadata[] = [];

  constructor(
    readonly producerId: bigint,
    /** The stored state before this append (never mutated here). */
    private readonly currentEntry: ProducerStateEntry,
    readonly origin: AppendOrigin,
    private readonly logger?: ProducerStateLogger,
  ) {
    this.updatedEntry = entryWithoutBatches(currentEntry, producerId);
  }

  /**
   * Validate and stage one batch. A control batch's first record is read as an end-transaction
   * marker (an empty control batch, left by the cleaner, is ignored); a data batch is checked and
   * may open a transaction at `firstOffsetMetadata` (default: its base offset). Returns the
   * transaction a marker completes, if one was open.
   */
  append(batch: RecordBatch, firstOffsetMetadata?: bigint): CompletedTxn | undefined {
    if (batch.isControl) {
      const first = batch.recordIterator().readNext();
      if (first === null) return undefined;
      const marker = parseEndTransactionMarker(first.key, first.value);
      return this.appendEndTxnMarker(
        marker.type,
        marker.coordinatorEpoch,
        batch.producerEpoch,
        batch.baseOffset,
        first.timestamp,
      );
    }
    this.appendDataBatch(
      batch.producerEpoch,
      batch.baseSequence,
      batch.lastSequence,
      batch.maxTimestamp,
      firstOffsetMetadata ?? batch.baseOffset,
      batch.lastOffset,
      batch.isTransactional,
    );
    return undefined;
  }

  /** `ProducerAppendInfo.appendDataBatch`: the data-batch half of {@link append}, by fields. */
  appendDataBatch(
    epoch: number,
    firstSeq: number,
    lastSeq: number,
    lastTimestamp: bigint,
    firstOffset: bigint,
    lastOffset: bigint,
    isTransactional: boolean,
  ): void {
    this.checkProducerEpoch(epoch, firstOffset);
    if (this.origin === 'client') this.checkSequence(epoch, firstSeq, firstOffset);
    addBatch(this.updatedEntry, epoch, lastSeq, lastOffset, Number(BigInt.asIntN(32, lastOffset - firstOffset)), lastTimestamp);

    const open = this.updatedEntry.currentTxnFirstOffset;
    if (open !== undefined && !isTransactional) {
      throw new InvalidTxnStateError(
        `Expected transactional write from producer ${this.producerId} at offset ${firstOffset}: transaction open since offset ${open}`,
      );
    } else if (open === undefined && isTransactional) {
      this.updatedEntry.currentTxnFirstOffset = firstOffset;
      this.transactions.push({ producerId: this.producerId, firstOffset, lastOffset: undefined });
    }
  }

  /** `ProducerAppendInfo.appendEndTxnMarker`: the marker half of {@link append}, by fields. */
  appendEndTxnMarker(
    type: 'COMMIT' | 'ABORT',
    coordinatorEpoch: number,
    producerEpoch: number,
    offset: bigint,
    timestamp: bigint,
  ): CompletedTxn | undefined {
    this.checkProducerEpoch(producerEpoch, offset);
    this.checkCoordinatorEpoch(coordinatorEpoch, offset);
    // Only a transaction with data completes: an empty one moves neither the LSO nor the txn index.
    const open = this.updatedEntry.currentTxnFirstOffset;
    const completed: CompletedTxn | undefined =
      open === undefined ? undefined : { producerId: this.producerId, firstOffset: open, lastOffset: offset, isAborted: type === 'ABORT' };
    applyEndMarker(this.updatedEntry, producerEpoch, coordinatorEpoch, timestamp);
    return completed;
  }

  /** The staged state (`toEntry`). */
  toEntry(): ProducerStateEntry {
    return this.updatedEntry;
  }

  /** Transactions opened by this append (`startedTransactions`), oldest first. */
  startedTransactions(): readonly TxnMetadata[] {
    return this.transactions;
  }

  private checkProducerEpoch(producerEpoch: number, offset: bigint): void {
    const current = this.updatedEntry.producerEpoch;
    if (producerEpoch >= current) return;
    const message = `Epoch of producer ${this.producerId} at offset ${offset} is ${producerEpoch}, which is smaller than the last seen epoch ${current}`;
    if (this.origin === 'replication') this.logger?.('warn', message);
    else throw new InvalidProducerEpochError(message);
  }

  private checkSequence(producerEpoch: number, firstSeq: number, offset: bigint): void {
    const updated = this.updatedEntry;
    if (producerEpoch !== updated.producerEpoch) {
      if (firstSeq !== 0 && updated.producerEpoch !== NO_PRODUCER_EPOCH) {
        throw new OutOfOrderSequenceError(
          `Invalid sequence number for new epoch of producer ${this.producerId} at offset ${offset}: ${producerEpoch} (request epoch), ${firstSeq} (seq. number), ${updated.producerEpoch} (current producer epoch)`,
        );
      }
      return;
    }
    let currentLastSeq: number;
    if (updated.batchMetadata.length > 0) currentLastSeq = entryLastSeq(updated);
    else if (producerEpoch === this.currentEntry.producerEpoch) currentLastSeq = entryLastSeq(this.currentEntry);
    else currentLastSeq = NO_SEQUENCE;
    // Without a known epoch (all of the producer's records gone to retention or DeleteRecords)
    // any sequence is accepted.
    if (this.currentEntry.producerEpoch === NO_PRODUCER_EPOCH || inSequence(currentLastSeq, firstSeq)) return;
    throw new OutOfOrderSequenceError(
      `Out of order sequence number for producer ${this.producerId} at offset ${offset}: ${firstSeq} (incoming seq. number), ${currentLastSeq} (current end sequence number)`,
    );
  }

  private checkCoordinatorEpoch(coordinatorEpoch: number, offset: bigint): void {
    const current = this.updatedEntry.coordinatorEpoch;
    if (current <= coordinatorEpoch) return;
    const message = `Invalid coordinator epoch for producerId ${this.producerId} at offset ${offset}: ${coordinatorEpoch} (zombie), ${current} (current)`;
    if (this.origin === 'replication') this.logger?.('info', message);
    else throw new TransactionCoordinatorFencedError(message);
  }
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}
