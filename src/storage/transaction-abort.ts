/**
 * Ending a transaction left open in a partition log (Kafka `kafka-transactions.sh abort`, KIP-664).
 * The tool finds the producer (DescribeProducers) and sends WriteTxnMarkers with an ABORT marker for
 * its producer id, epoch and coordinator epoch; the partition leader appends the marker as the
 * coordinator would (`appendAsLeader` with origin COORDINATOR). The aborted records land in the
 * `.txnindex` and the last stable offset moves past them. Here the same marker is appended to the
 * log directly: {@link PartitionLog.appendEndTxnMarker} validates it as Kafka's
 * `ProducerAppendInfo.appendEndTxnMarker` does (an older producer epoch is INVALID_PRODUCER_EPOCH,
 * an older coordinator epoch TRANSACTION_COORDINATOR_FENCED).
 *
 * One deliberate difference from the broker path: a producer with no open transaction on the
 * partition is refused here (INVALID_TXN_STATE). A marker then ends nothing, and one with a
 * higher epoch would fence the producer's next batches: for an offline repair that is a typo, not
 * an intent.
 */
import { InvalidTxnStateError } from '../errors.js';
import type { PartitionLog } from './partition-log.js';
import type { ProducerStateManager } from './producer-state.js';
import { entryLastSeq } from './producer-state-entry.js';

/** An open transaction of one producer on one partition (DescribeProducers' `ProducerState`). */
export interface OpenTransaction {
  producerId: bigint;
  producerEpoch: number;
  /** -1 until a marker was written for the producer (DescribeProducers' LatestCoordinatorEpoch). */
  coordinatorEpoch: number;
  /** CurrentTransactionStartOffset. */
  firstOffset: bigint;
  /** The producer's last write (LastTimestamp); -1 when unknown. */
  lastTimestamp: bigint;
  lastSequence: number;
}

/** The open transactions of a partition's producer state, oldest first. */
export function openTransactions(state: ProducerStateManager): OpenTransaction[] {
  const out: OpenTransaction[] = [];
  for (const txn of state.ongoingTransactions()) {
    const entry = state.lastEntry(txn.producerId);
    out.push({
      producerId: txn.producerId,
      producerEpoch: entry?.producerEpoch ?? -1,
      coordinatorEpoch: entry?.coordinatorEpoch ?? -1,
      firstOffset: txn.firstOffset,
      lastTimestamp: entry?.lastTimestamp ?? -1n,
      lastSequence: entry === undefined ? -1 : entryLastSeq(entry),
    });
  }
  return out;
}

/**
 * Which transaction to abort: by the start offset DescribeProducers reports (the form for brokers
 * 3.0+), or by producer id, with the epochs optional here (the log's producer state has them).
 */
export type AbortTarget = { startOffset: bigint } | { producerId: bigint; producerEpoch?: number; coordinatorEpoch?: number };

export interface AbortOutcome {
  transaction: OpenTransaction;
  /** The epochs written in the marker. */
  producerEpoch: number;
  coordinatorEpoch: number;
  markerOffset: bigint;
  lastStableOffsetBefore: bigint;
  lastStableOffsetAfter: bigint;
}

function describeOpen(open: OpenTransaction[]): string {
  if (open.length === 0) return 'it has no open transaction';
  return `its open transactions: ${open.map((t) => `producer ${t.producerId} epoch ${t.producerEpoch} from offset ${t.firstOffset}`).join(', ')}`;
}

/** The open transaction `target` names; an InvalidTxnStateError naming what is open when there is none. */
export function findOpenTransaction(log: PartitionLog, target: AbortTarget): OpenTransaction {
  const open = openTransactions(log.producerStateManager);
  const name = `${log.topic}-${log.partition}`;
  if ('startOffset' in target) {
    const found = open.find((t) => t.firstOffset === target.startOffset);
    if (found === undefined) throw new InvalidTxnStateError(`Could not find any open transactions starting at offset ${target.startOffset} on partition ${name}: ${describeOpen(open)}`);
    return found;
  }
  const found = open.find((t) => t.producerId === target.producerId);
  if (found === undefined) throw new InvalidTxnStateError(`Producer ${target.producerId} has no open transaction on partition ${name}: ${describeOpen(open)}`);
  return found;
}

/**
 * Appends an ABORT marker ending the open transaction `target` names. The epochs default to the
 * producer state's (`AbortTransactionCommand.buildAbortSpec`); a coordinator epoch below 0 is
 * written as 0, as the tool does for a producer that never saw a marker.
 */
export function abortTransaction(log: PartitionLog, target: AbortTarget): AbortOutcome {
  const transaction = findOpenTransaction(log, target);
  const producerEpoch = ('producerEpoch' in target ? target.producerEpoch : undefined) ?? transaction.producerEpoch;
  const coordinatorEpoch = Math.max(0, ('coordinatorEpoch' in target ? target.coordinatorEpoch : undefined) ?? transaction.coordinatorEpoch);
  const lastStableOffsetBefore = log.lastStableOffset;
  // stamped with the log's current leader epoch, as the partition leader stamps the markers it appends
  const leaderEpoch = log.leaderEpochCache.latestEpoch() ?? 0;
  const r = log.appendEndTxnMarker({ type: 'ABORT', producerId: transaction.producerId, producerEpoch, coordinatorEpoch, leaderEpoch });
  return { transaction, producerEpoch, coordinatorEpoch, markerOffset: r.firstOffset, lastStableOffsetBefore, lastStableOffsetAfter: log.lastStableOffset };
}
