/**
 * Reading `__transaction_state` back (Kafka `TransactionStateManager.loadTransactionMetadata`):
 * each batch's records decoded, then replayed as compaction will leave them, the last record per
 * transactional id winning and a tombstone (null value: an expired id) removing it.
 */
import { KafkaliteError } from '../errors.js';
import { TransactionLogValue } from '../protocol/schemas/internal/transaction-coordinator.js';
import { decodeTransactionLogKey, decodeTransactionLogValue, type TransactionMetadataValue } from './transaction-log.js';
import { decodeVersionPrefixed } from './version-prefixed.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** A transactional id's metadata as its last record leaves it. */
export interface StoredTransactionMetadata extends TransactionMetadataValue {
  transactionalId: string;
  /** When the current transaction started (`txnStartTimestamp`); -1 when none has. */
  startTimestampMs: bigint;
  /** The offset of the record this was read from. */
  offset: bigint;
}

export interface TransactionLogRecord {
  transactionalId: string;
  /** null: a tombstone. */
  value: StoredTransactionMetadata | null;
}

/** The part of a stored batch the reader uses (v2 or legacy). */
export interface TransactionLogBatch {
  readonly isControl: boolean;
  records(): Iterable<{ offset: bigint; key: Uint8Array | null; value: Uint8Array | null }>;
}

/** TransactionLogValue's transactionStartTimestampMs (v0+), which `decodeTransactionLogValue` does not return. */
function startTimestampOf(value: Buffer): bigint {
  return decodeVersionPrefixed<{ transactionStartTimestampMs: bigint }>(TransactionLogValue, value, '__transaction_state value').value.transactionStartTimestampMs;
}

/**
 * The decoded records of one `__transaction_state` batch (`TransactionLog.readTxnRecordKey` /
 * `readTxnRecordValue`): control batches and keyless records are skipped; an unreadable record is
 * reported and skipped, so it cannot keep the others from loading.
 */
export function* transactionLogRecords(batch: TransactionLogBatch, onUnreadable: (offset: bigint, e: KafkaliteError) => void): Generator<TransactionLogRecord> {
  if (batch.isControl) return;
  for (const rec of batch.records()) {
    if (rec.key === null) continue;
    let decoded: TransactionLogRecord;
    try {
      const transactionalId = decodeTransactionLogKey(Buffer.from(rec.key));
      if (rec.value === null) {
        decoded = { transactionalId, value: null };
      } else {
        const bytes = Buffer.from(rec.value);
        decoded = { transactionalId, value: { transactionalId, ...decodeTransactionLogValue(bytes), startTimestampMs: startTimestampOf(bytes), offset: rec.offset } };
      }
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      onUnreadable(rec.offset, e);
      continue;
    }
    yield decoded;
  }
}

/** Replays records in log order: the last record per transactional id wins, tombstones remove. */
export function replayTransactionLog(records: Iterable<TransactionLogRecord>): Map<string, StoredTransactionMetadata> {
  const out = new Map<string, StoredTransactionMetadata>();
  for (const r of records) {
    if (r.value === null) out.delete(r.transactionalId);
    else out.set(r.transactionalId, r.value);
  }
  return out;
}
