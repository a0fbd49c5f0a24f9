/**
 * One producer's state in a partition (Kafka `ProducerStateEntry`,
 * `BatchMetadata`).
 *
 * An entry holds the producer's epoch, the epoch of the last transaction coordinator that wrote a
 * marker for it, the timestamp of its last write, the first offset of its open transaction (if
 * any) and the metadata of its newest batches (at most {@link NUM_BATCHES_TO_RETAIN}, oldest
 * first), which duplicate detection and sequence validation use. A change of epoch empties the
 * batch list: sequences restart with each epoch.
 */
import type { RecordBatch } from '../record/batch.js';
import { decrementSequence } from '../record/sequence.js';

/** `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`: how many batches per producer duplicate detection covers. */
export const NUM_BATCHES_TO_RETAIN = 5;

/** `RecordBatch.NO_PRODUCER_EPOCH`, `NO_SEQUENCE`, `NO_TIMESTAMP`. */
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_TIMESTAMP = -1n;

/** One appended batch as the producer state remembers it (`BatchMetadata`). */
export interface BatchMetadata {
  lastSeq: number;
  lastOffset: bigint;
  /** lastOffset − firstOffset, as a Java int. */
  offsetDelta: number;
  /** The batch's max timestamp (the marker record's timestamp for markers). */
  timestamp: bigint;
}

/** `BatchMetadata.firstSeq`: the last sequence stepped back by offsetDelta, with wrap-around. */
export function batchFirstSeq(batch: BatchMetadata): number {
  return decrementSequence(batch.lastSeq, batch.offsetDelta);
}

/** `BatchMetadata.firstOffset`. */
export function batchFirstOffset(batch: BatchMetadata): bigint {
  return batch.lastOffset - BigInt(batch.offsetDelta);
}

/** The state of one producer id (`ProducerStateEntry`). */
export interface ProducerStateEntry {
  producerId: bigint;
  /** -1 when unknown. */
  producerEpoch: number;
  /** -1 until a marker has been seen. */
  coordinatorEpoch: number;
  /** -1 when unknown. */
  lastTimestamp: bigint;
  /** First offset of the producer's open transaction; undefined when none is open. */
  currentTxnFirstOffset: bigint | undefined;
  /** Newest last, at most {@link NUM_BATCHES_TO_RETAIN}. */
  batchMetadata: BatchMetadata[];
}

/** `ProducerStateEntry.firstSeq`: first sequence of the oldest cached batch, -1 without batches. */
export function entryFirstSeq(entry: ProducerStateEntry): number {
  const first = entry.batchMetadata[0];
  return first === undefined ? NO_SEQUENCE : batchFirstSeq(first);
}

/** `ProducerStateEntry.lastSeq`: last sequence of the newest cached batch, -1 without batches. */
export function entryLastSeq(entry: ProducerStateEntry): number {
  return entry.batchMetadata.at(-1)?.lastSeq ?? NO_SEQUENCE;
}

/** `ProducerStateEntry.firstDataOffset`: first offset of the oldest cached batch, -1 without batches. */
export function entryFirstDataOffset(entry: ProducerStateEntry): bigint {
  const first = entry.batchMetadata[0];
  return first === undefined ? -1n : batchFirstOffset(first);
}

/** `ProducerStateEntry.lastDataOffset`: last offset of the newest cached batch, -1 without batches. */
export function entryLastDataOffset(entry: ProducerStateEntry): bigint {
  return entry.batchMetadata.at(-1)?.lastOffset ?? -1n;
}

/** `ProducerStateEntry.lastOffsetDelta`: offsetDelta of the newest cached batch, 0 without batches. */
export function entryLastOffsetDelta(entry: ProducerStateEntry): number {
  return entry.batchMetadata.at(-1)?.offsetDelta ?? 0;
}

/**
 * `ProducerStateEntry.findDuplicateBatch`: the cached batch with the batch's epoch and exactly its
 * (baseSequence, lastSequence), if any.
 */
export function findDuplicateBatch(entry: ProducerStateEntry, batch: RecordBatch): BatchMetadata | undefined {
  if (batch.producerEpoch !== entry.producerEpoch) return undefined;
  return batchWithSequenceRange(entry, batch.baseSequence, batch.lastSequence);
}

/** `ProducerStateEntry.batchWithSequenceRange`. */
export function batchWithSequenceRange(entry: ProducerStateEntry, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
  return entry.batchMetadata.find((b) => b.lastSeq === lastSeq && batchFirstSeq(b) === firstSeq);
}

/** `ProducerStateEntry.empty(producerId)`. */
export function emptyProducerStateEntry(producerId: bigint): ProducerStateEntry {
  return {
    producerId,
    producerEpoch: NO_PRODUCER_EPOCH,
    coordinatorEpoch: -1,
    lastTimestamp: NO_TIMESTAMP,
    currentTxnFirstOffset: undefined,
    batchMetadata: [],
  };
}

/** A copy of the entry's scalar state with an empty batch list (`withProducerIdAndBatchMetadata(id, empty)`). */
export function entryWithoutBatches(entry: ProducerStateEntry, producerId: bigint): ProducerStateEntry {
  return {
    producerId,
    producerEpoch: entry.producerEpoch,
    coordinatorEpoch: entry.coordinatorEpoch,
    lastTimestamp: entry.lastTimestamp,
    currentTxnFirstOffset: entry.currentTxnFirstOffset,
    batchMetadata: [],
  };
}

/** `maybeUpdateProducerEpoch`: a different epoch empties the batch list. Returns whether it changed. */
export function maybeUpdateProducerEpoch(entry: ProducerStateEntry, producerEpoch: number): boolean {
  if (entry.producerEpoch === producerEpoch) return false;
  entry.batchMetadata.length = 0;
  entry.producerEpoch = producerEpoch;
  return true;
}

function addBatchMetadata(entry: ProducerStateEntry, batch: BatchMetadata): void {
  if (entry.batchMetadata.length >= NUM_BATCHES_TO_RETAIN) entry.batchMetadata.shift();
  entry.batchMetadata.push(batch);
}

/** `ProducerStateEntry.addBatch`. */
export function addBatch(
  entry: ProducerStateEntry,
  producerEpoch: number,
  lastSeq: number,
  lastOffset: bigint,
  offsetDelta: number,
  timestamp: bigint,
): void {
  maybeUpdateProducerEpoch(entry, producerEpoch);
  addBatchMetadata(entry, { lastSeq, lastOffset, offsetDelta, timestamp });
  entry.lastTimestamp = timestamp;
}

/**
 * `ProducerStateEntry.update(nextEntry)`: merge a staged entry into the stored one. The epoch
 * first (clearing the batches if it changed), then the staged batches appended after the stored
 * ones, then coordinator epoch, open transaction and last timestamp taken from the staged entry.
 */
export function mergeEntry(entry: ProducerStateEntry, next: ProducerStateEntry): void {
  maybeUpdateProducerEpoch(entry, next.producerEpoch);
  for (const b of next.batchMetadata) addBatchMetadata(entry, { ...b });
  entry.coordinatorEpoch = next.coordinatorEpoch;
  entry.currentTxnFirstOffset = next.currentTxnFirstOffset;
  entry.lastTimestamp = next.lastTimestamp;
}

/** `ProducerStateEntry.update(epoch, coordinatorEpoch, lastTimestamp)`: what an end marker does. */
export function applyEndMarker(entry: ProducerStateEntry, producerEpoch: number, coordinatorEpoch: number, timestamp: bigint): void {
  maybeUpdateProducerEpoch(entry, producerEpoch);
  entry.coordinatorEpoch = coordinatorEpoch;
  entry.currentTxnFirstOffset = undefined;
  entry.lastTimestamp = timestamp;
}
