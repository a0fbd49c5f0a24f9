/**
 * Rebuilding an uncompressed v2 batch from its kept records by copying their bytes (Kafka
 * `MemoryRecords.buildRetainedRecordsInto` + `MemoryRecordsBuilder.appendWithOffset`).
 *
 * Kafka rebuilds a batch that loses records with the original baseOffset, each record at its
 * original offset and timestamp. So a kept record's offsetDelta is unchanged (same base offset),
 * while its timestampDelta is taken against the new baseTimestamp: the delete horizon when one is
 * set or carried, else the first kept record's timestamp (the batch's maxTimestamp for every record
 * under LogAppendTime). `DefaultRecord.writeTo` writes the length, attributes 0, that delta, then
 * offsetDelta, key, value and headers, each varint at its shortest.
 *
 * The record tail from offsetDelta to the last header is therefore Kafka's bytes whenever the
 * original tail is already written that way: shortest varints, null lengths as -1, header keys
 * that survive a UTF-8 decode and re-encode (ASCII here). Such a record is written as a new length,
 * attributes 0 and the new timestampDelta, then its tail copied. Anything else (a compressed batch,
 * a non-canonical tail, timestamps beyond 2^53, or input the encoder refuses) returns -1 and the
 * caller rebuilds the batch with `RecordBatchEncoder`, which is the reference for these bytes.
 */
import { CONTROL_FLAG_MASK, DELETE_HORIZON_FLAG_MASK, RECORD_BATCH_OVERHEAD, TIMESTAMP_TYPE_MASK, TRANSACTIONAL_FLAG_MASK } from '../../record/constants.js';
import type { RecordBatch } from '../../record/batch.js';
import { writeHeader } from '../../record/builder.js';
import type { RecordLayout } from '../../record/record-layout.js';
import { ByteReader, sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from '../../bytes/varint.js';

/** Bytes a copied record can take beyond its tail: length varint (5), attributes (1), timestampDelta (10). */
const RECORD_PREFIX_MAX = 16;

/** Upper bound of `rebuildByCopy`'s output for `kept[0, count)`. */
export function copyBound(kept: readonly RecordLayout[], count: number): number {
  let size = RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < count; i++) size += kept[i]!.recordEnd - kept[i]!.offsetDeltaStart + RECORD_PREFIX_MAX;
  return size;
}

/** A timestamp `RecordBatchEncoder` accepts as a safe number: >= 0 or -1 (NO_TIMESTAMP). */
function validTimestamp(ts: number): boolean {
  return Number.isSafeInteger(ts) && (ts >= 0 || ts === -1);
}

const headerReader = new ByteReader(new Uint8Array(0), 0, 0);

/** Whether the record's bytes from offsetDelta on are exactly what `DefaultRecord.writeTo` writes. */
function isCanonicalTail(r: RecordLayout): boolean {
  const data = r.data;
  const keySize = r.keySize;
  const valueSize = r.valueSize;
  // a null length reads from any negative varint: only -1 (one byte, 0x01) is written back
  if (keySize < 0 && data[r.keyStart - 1] !== 1) return false;
  if (valueSize < 0 && data[r.valueStart - 1] !== 1) return false;
  // every varint at its shortest iff the parts add up to the shortest sizes (none can be shorter)
  const shortest =
    sizeOfVarint(r.offsetDelta) +
    sizeOfVarint(keySize) +
    (keySize > 0 ? keySize : 0) +
    sizeOfVarint(valueSize) +
    (valueSize > 0 ? valueSize : 0) +
    sizeOfVarint(r.headerCount);
  if (r.headersStart - r.offsetDeltaStart !== shortest) return false;
  return r.headerCount === 0 ? r.headersStart === r.recordEnd : isCanonicalHeaders(r);
}

/** Headers: shortest varints, null values as -1, ASCII keys (a UTF-8 round trip keeps them). */
function isCanonicalHeaders(r: RecordLayout): boolean {
  const reader = headerReader;
  reader.buf = r.data;
  reader.pos = r.headersStart;
  reader.end = r.recordEnd;
  const data = r.data;
  for (let h = 0; h < r.headerCount; h++) {
    let at = reader.pos;
    const keySize = reader.readVarint(); // the iterator validated the structure: no throw here
    if (reader.pos - at !== sizeOfVarint(keySize)) return false;
    for (let i = reader.pos; i < reader.pos + keySize; i++) if (data[i]! >= 0x80) return false;
    reader.pos += keySize;
    at = reader.pos;
    const valueSize = reader.readVarint();
    if (valueSize < 0 ? data[at] !== 1 || reader.pos - at !== 1 : reader.pos - at !== sizeOfVarint(valueSize)) return false;
    if (valueSize > 0) reader.pos += valueSize;
  }
  return reader.pos === r.recordEnd;
}

function copyBytes(src: Buffer, start: number, end: number, dst: Buffer, at: number): number {
  // below ~32 bytes a plain loop beats Buffer.copy's call and view
  if (end - start <= 32) {
    for (let i = start; i < end; i++) dst[at++] = src[i]!;
    return at;
  }
  return at + src.copy(dst, at, start, end);
}

/**
 * Writes `batch` rebuilt from `kept[0, count)` (count > 0) into `out` at `at` (room for
 * `copyBound` bytes), with `deleteHorizonMs` as its horizon when defined, and returns the end
 * position; or -1 when the bytes could differ from `RecordBatchEncoder`'s (nothing usable written).
 */
export function rebuildByCopy(batch: RecordBatch, kept: readonly RecordLayout[], count: number, deleteHorizonMs: bigint | undefined, out: Buffer, at: number): number {
  if (batch.compressionType !== 0) return -1;
  // what MemoryRecordsBuilder.validateProducerState refuses, the encoder refuses too: let it throw
  const producerId = batch.producerId;
  if (batch.isTransactional && producerId < 0n) return -1;
  if (producerId >= 0n && (batch.producerEpoch < 0 || (batch.baseSequence < 0 && !batch.isControl))) return -1;
  const logAppendTime = batch.timestampType === 'LogAppendTime' ? Number(batch.maxTimestamp) : undefined;
  if (logAppendTime !== undefined && !validTimestamp(logAppendTime)) return -1;
  const baseTimestamp = Number(batch.baseTimestamp);
  if (!Number.isSafeInteger(baseTimestamp)) return -1;
  const horizon = deleteHorizonMs === undefined ? undefined : Number(deleteHorizonMs);
  if (horizon !== undefined && !validTimestamp(horizon)) return -1;

  // a record's timestamp: baseTimestamp + its delta (exact: both safe and the sum checked below)
  const first = kept[0]!;
  if (typeof first.timestampDelta !== 'number') return -1;
  const firstTimestamp = logAppendTime ?? baseTimestamp + first.timestampDelta;
  const newBase = horizon ?? firstTimestamp;
  let maxTimestamp = -1;
  let lastOffsetDelta = -1;
  let pos = at + RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < count; i++) {
    const r = kept[i]!;
    const delta = r.timestampDelta;
    if (typeof delta !== 'number' || r.offsetDelta <= lastOffsetDelta || !isCanonicalTail(r)) return -1;
    lastOffsetDelta = r.offsetDelta;
    const timestamp = logAppendTime ?? baseTimestamp + delta;
    if (!validTimestamp(timestamp)) return -1;
    if (timestamp > maxTimestamp) maxTimestamp = timestamp;
    const newDelta = timestamp - newBase; // both within [-1, 2^53): exact
    const tailSize = r.recordEnd - r.offsetDeltaStart;
    pos = writeVarint(out, pos, 1 + sizeOfVarlong(newDelta) + tailSize);
    out[pos++] = 0; // record attributes: unused, written 0
    pos = writeVarlong(out, pos, newDelta);
    pos = copyBytes(r.data, r.offsetDeltaStart, r.recordEnd, out, pos);
  }
  let attributes = 0;
  if (logAppendTime !== undefined) attributes |= TIMESTAMP_TYPE_MASK;
  if (batch.isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
  if (batch.isControl) attributes |= CONTROL_FLAG_MASK;
  if (horizon !== undefined) attributes |= DELETE_HORIZON_FLAG_MASK;
  writeHeader(out.subarray(at, pos), {
    baseOffset: batch.baseOffset,
    size: pos - at,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    attributes,
    // the original lastOffsetDelta keeps the batch's last offset and last sequence (`MemoryRecords.buildRetainedRecordsInto`)
    lastOffsetDelta: batch.lastOffsetDelta,
    baseTimestamp: newBase,
    maxTimestamp: logAppendTime ?? maxTimestamp,
    producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    count,
  });
  return pos;
}
