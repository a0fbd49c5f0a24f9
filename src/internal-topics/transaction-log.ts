/**
 * The records of `__transaction_state` (Kafka `TransactionLog`): the key is the transactional
 * id (TransactionLogKey), the value the transaction's metadata (TransactionLogValue), both
 * version-prefixed; a null value is a tombstone (an expired transactional id). kafkalite's broker
 * keeps no transaction coordinator log of its own; these are read from Kafka's data directories.
 */
import { TransactionLogKey, TransactionLogValue } from '../protocol/schemas/internal/transaction-coordinator.js';
import { decodeVersionPrefixed, undecodable } from './version-prefixed.js';

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
  };
}
