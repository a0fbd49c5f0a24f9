/**
 * The records of `__transaction_state` (Kafka `TransactionLog`): the key is the transactional
 * id (TransactionLogKey), the value the transaction's metadata (TransactionLogValue), both
 * version-prefixed; a null value is a tombstone (an expired transactional id). The broker's
 * transaction coordinator (src/broker/txn/) writes them; the offline tools read them.
 */
import { TransactionLogKey, TransactionLogValue } from '../protocol/schemas/internal/transaction-coordinator.js';
import { decodeVersionPrefixed, encodeVersionPrefixed, undecodable } from './version-prefixed.js';
import { writeInt64BE } from '../bytes/int64.js';
import { sizeOfUnsignedVarint, writeUnsignedVarint } from '../bytes/varint.js';

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
 * transaction.version 1+); a tagged field is written only when it is not its default. Written by
 * hand rather than through the schema-driven codec: the coordinator writes three of these per
 * transaction, and the generic encoder was a fifth of its cost (bench/README.md, transactions).
 * `test/internal-topics/transaction-log.test.ts` checks it byte for byte against the codec.
 */
export function transactionLogValue(v: TransactionLogValueInput): Buffer {
  const out = Buffer.allocUnsafe(transactionLogValueSize(v));
  writeTransactionLogValue(out, 0, v);
  return out;
}

/** TransactionLogValue v1's fixed fields: version, producer id, epoch, timeout, status, two timestamps, the tag count. */
const FIXED_BYTES = 2 + 8 + 2 + 4 + 1 + 8 + 8 + 1;

/** The bytes {@link writeTransactionLogValue} writes for `v`. */
export function transactionLogValueSize(v: TransactionLogValueInput): number {
  let n = FIXED_BYTES;
  const parts = v.partitions;
  if (parts === null) n += 1;
  else {
    n += sizeOfUnsignedVarint(parts.length + 1);
    for (const p of parts) {
      const topicBytes = Buffer.byteLength(p.topic, 'utf8');
      // compact string, compact int32 array, the struct's empty tag section
      n += sizeOfUnsignedVarint(topicBytes + 1) + topicBytes + sizeOfUnsignedVarint(p.partitionIds.length + 1) + 4 * p.partitionIds.length + 1;
    }
  }
  // each tag: its number, its size (one byte each here) and the field
  if ((v.previousProducerId ?? -1n) !== -1n) n += 2 + 8;
  if ((v.nextProducerId ?? -1n) !== -1n) n += 2 + 8;
  if ((v.clientTransactionVersion ?? 0) !== 0) n += 2 + 2;
  return n;
}

/** Writes the version-prefixed value at `pos` (the layout the codec gives TransactionLogValue v1); returns the end. */
export function writeTransactionLogValue(buf: Buffer, pos: number, v: TransactionLogValueInput): number {
  buf.writeInt16BE(1, pos);
  writeInt64BE(buf, pos + 2, v.producerId);
  buf.writeInt16BE(v.producerEpoch, pos + 10);
  buf.writeInt32BE(v.timeoutMs, pos + 12);
  buf.writeInt8(v.stateId, pos + 16);
  pos += 17;
  const parts = v.partitions;
  if (parts === null) buf[pos++] = 0;
  else {
    pos = writeUnsignedVarint(buf, pos, parts.length + 1);
    for (const p of parts) {
      const topicBytes = Buffer.byteLength(p.topic, 'utf8');
      pos = writeUnsignedVarint(buf, pos, topicBytes + 1);
      pos += buf.write(p.topic, pos, 'utf8');
      pos = writeUnsignedVarint(buf, pos, p.partitionIds.length + 1);
      for (const id of p.partitionIds) pos = buf.writeInt32BE(id, pos);
      buf[pos++] = 0;
    }
  }
  writeInt64BE(buf, pos, v.lastUpdateTimestampMs);
  writeInt64BE(buf, pos + 8, v.startTimestampMs);
  pos += 16;
  const prev = v.previousProducerId ?? -1n;
  const next = v.nextProducerId ?? -1n;
  const ctv = v.clientTransactionVersion ?? 0;
  buf[pos++] = (prev !== -1n ? 1 : 0) + (next !== -1n ? 1 : 0) + (ctv !== 0 ? 1 : 0);
  // tagged fields in ascending tag order, as the codec writes them
  if (prev !== -1n) {
    buf[pos] = 0;
    buf[pos + 1] = 8;
    writeInt64BE(buf, pos + 2, prev);
    pos += 10;
  }
  if (next !== -1n) {
    buf[pos] = 1;
    buf[pos + 1] = 8;
    writeInt64BE(buf, pos + 2, next);
    pos += 10;
  }
  if (ctv !== 0) {
    buf[pos] = 2;
    buf[pos + 1] = 2;
    buf.writeInt16BE(ctv, pos + 2);
    pos += 4;
  }
  return pos;
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
