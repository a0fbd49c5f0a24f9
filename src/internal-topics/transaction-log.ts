/**
 * The records of `__transaction_state` (Kafka `TransactionLog`): the key is the transactional
 * id (TransactionLogKey), the value the transaction's metadata (TransactionLogValue), both
 * version-prefixed; a null value is a tombstone (an expired transactional id). The broker's
 * transaction coordinator (src/broker/txn/) writes them; the offline tools read them.
 */
import { TransactionLogKey, TransactionLogValue } from '../protocol/schemas/internal/transaction-coordinator.js';
import { decodeVersionPrefixed, encodeVersionPrefixed, undecodable } from './version-prefixed.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** TransactionState names by id (`TransactionState.java`), as TransactionMetadata prints them. */
const TRANSACTION_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

export interface TransactionMetadataValue {
  producerId: bigint;
  producerEpoch: number;
  /** The TransactionState name of the stored status id. */
  state: string;
  partitions: { topic: string; partitionIds: number[] }[];
  lastUpdateTimestampMs: bigint;
  timeoutMs: number;
  /** -1 when no transaction has started (Empty). */
  startTimestampMs: bigint;
  /** The TransactionState id as stored. */
  stateId: number;
  /** v1 tagged fields (their defaults when absent or v0). */
  previousProducerId: bigint;
  nextProducerId: bigint;
  clientTransactionVersion: number;
}

/** The key Kafka writes (TransactionLogKey v0, `TransactionLog.keyToBytes`). */
export function transactionLogKey(transactionalId: string): Buffer {
  return encodeVersionPrefixed(TransactionLogKey, 0, { transactionalId });
}

export interface TransactionLogValueInput {
  producerId: bigint;
  producerEpoch: number;
  timeoutMs: number;
  stateId: number;
  /** null for Empty (Kafka writes null there), else the partitions grouped by topic. */
  partitions: { topic: string; partitionIds: number[] }[] | null;
  lastUpdateTimestampMs: number;
  startTimestampMs: number;
  /** Tagged fields of v1, written only when not their default (-1, -1, 0). */
  previousProducerId?: bigint;
  nextProducerId?: bigint;
  clientTransactionVersion?: number;
}

/**
 * The value Kafka 4 writes (TransactionLogValue v1, flexible: `TransactionLog.valueToBytes` at
 * transaction.version 1+); a tagged field is written only when it is not its default.
 */
export function transactionLogValue(v: TransactionLogValueInput): Buffer {
  return encodeVersionPrefixed(TransactionLogValue, 1, {
    producerId: v.producerId,
    producerEpoch: v.producerEpoch,
    transactionTimeoutMs: v.timeoutMs,
    transactionStatus: v.stateId,
    transactionPartitions: v.partitions,
    transactionLastUpdateTimestampMs: BigInt(v.lastUpdateTimestampMs),
    transactionStartTimestampMs: BigInt(v.startTimestampMs),
    previousProducerId: v.previousProducerId ?? -1n,
    nextProducerId: v.nextProducerId ?? -1n,
    clientTransactionVersion: v.clientTransactionVersion ?? 0,
  });
}

/** The transactional id a `__transaction_state` key names. */
export function decodeTransactionLogKey(key: Buffer): string {
  return decodeVersionPrefixed<{ transactionalId: string }>(TransactionLogKey, key, '__transaction_state key').value.transactionalId;
}

/** A `__transaction_state` value; an InvalidRecordError for an undecodable one or an unknown status. */
export function decodeTransactionLogValue(value: Buffer): TransactionMetadataValue {
  const { value: v } = decodeVersionPrefixed<{
    producerId: bigint;
    producerEpoch: number;
    transactionStatus: number;
    transactionPartitions: { topic: string; partitionIds: number[] }[] | null;
    transactionLastUpdateTimestampMs: bigint;
    transactionTimeoutMs: number;
    transactionStartTimestampMs: bigint;
    nextProducerId?: bigint;
    previousProducerId?: bigint;
    clientTransactionVersion?: number;
  }>(TransactionLogValue, value, '__transaction_state value');
  const state = TRANSACTION_STATES[v.transactionStatus];
  if (state === undefined) undecodable('__transaction_state value', new Error(`unknown transaction status ${v.transactionStatus}`));
  return {
    producerId: v.producerId,
    producerEpoch: v.producerEpoch,
    state,
    partitions: v.transactionPartitions ?? [],
    lastUpdateTimestampMs: v.transactionLastUpdateTimestampMs,
    timeoutMs: v.transactionTimeoutMs,
    startTimestampMs: v.transactionStartTimestampMs,
    stateId: v.transactionStatus,
    previousProducerId: v.previousProducerId ?? -1n,
    nextProducerId: v.nextProducerId ?? -1n,
    clientTransactionVersion: v.clientTransactionVersion ?? 0,
  };
}
