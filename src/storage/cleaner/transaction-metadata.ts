/**
 * What the cleaner knows about transactions while it walks a log (Kafka
 * `CleanedTransactionMetadata` in LogCleaner.scala).
 *
 * Aborted transactions come from the txn indexes of the segments being cleaned and are taken in
 * first-offset order as batches are visited. A data batch of an aborted transaction is
 * discardable; a transactional batch of any other transaction marks its producer's transaction as
 * seen. A marker is discardable once no batch of its transaction was seen in this pass: the ABORT
 * of a transaction whose data was just removed is kept one more round (and its index entry carried
 * into the cleaned segment), so consumers that already fetched the data still see the abort.
 */
import type { RecordBatch } from '../../record/batch.js';
import { parseControlRecordKey } from '../../record/control.js';
import type { AbortedTxn, TransactionIndex } from '../transaction-index.js';

interface AbortedTxnMetadata {
  txn: AbortedTxn;
  /** Last offset of a batch of this transaction seen in this pass. */
  lastObservedBatchOffset: bigint | undefined;
}

export class CleanedTransactionMetadata {
  private readonly ongoingCommittedTxns = new Set<bigint>();
  private readonly ongoingAbortedTxns = new Map<bigint, AbortedTxnMetadata>();
  /** Pending aborted transactions, sorted by firstOffset (consumed from `next`). */
  private pending: AbortedTxn[] = [];
  private next = 0;
  /** Where retained ABORT markers' entries go (the cleaned segment's txn index). */
  cleanedIndex: TransactionIndex | undefined;

  addAbortedTransactions(txns: readonly AbortedTxn[]): void {
    if (txns.length === 0) return;
    const rest = this.pending.slice(this.next).concat(txns);
    rest.sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
    this.pending = rest;
    this.next = 0;
  }

  private consumeAbortedTxnsUpTo(offset: bigint): void {
    while (this.next < this.pending.length && this.pending[this.next]!.firstOffset <= offset) {
      const txn = this.pending[this.next++]!;
      if (!this.ongoingAbortedTxns.has(txn.producerId)) {
        this.ongoingAbortedTxns.set(txn.producerId, { txn, lastObservedBatchOffset: undefined });
      }
    }
  }

  /** A control batch: returns true when the marker may be discarded. */
  onControlBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    const first = batch.recordsCount > 0 ? batch.recordIterator({ verifyCrc: false }).readNext() : null;
    // an empty control batch was already cleaned: nothing left to protect
    if (first === null) return true;
    const producerId = batch.producerId;
    const type = parseControlRecordKey(first.key).type;
    if (type === 'ABORT') {
      const aborted = this.ongoingAbortedTxns.get(producerId);
      this.ongoingAbortedTxns.delete(producerId);
      if (aborted !== undefined && aborted.lastObservedBatchOffset !== undefined) {
        this.cleanedIndex?.append(aborted.txn);
        return false;
      }
      return true;
    }
    if (type === 'COMMIT') return !this.ongoingCommittedTxns.delete(producerId);
    return false;
  }

  /** A data batch: returns true when it belongs to an aborted transaction. */
  onBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    if (!batch.isTransactional) return false;
    const aborted = this.ongoingAbortedTxns.get(batch.producerId);
    if (aborted !== undefined) {
      aborted.lastObservedBatchOffset = batch.lastOffset;
      return true;
    }
    this.ongoingCommittedTxns.add(batch.producerId);
    return false;
  }
}
