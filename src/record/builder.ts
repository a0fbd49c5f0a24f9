/**
 * Encoding record batches v2 (Kafka `DefaultRecordBatch`, `MemoryRecordsBuilder`, `DefaultRecord.writeTo`).
 *
 * `RecordBatchEncoder` writes into one buffer it keeps and reuses (fresh large Buffers cost page
 * faults on this kind of machine), and returns a view that is valid until its next `encode`.
 * `encodeRecordBatch` returns a Buffer of its own. Offsets, timestamps and producer ids take a
 * bigint or a safe-integer number.
 */
import { InvalidArgumentError } from '../errors.js';
import { compress, compressionId, CompressionType, type CompressionId, type CompressionName } from './compression/index.js';
import {
  ATTRIBUTES_OFFSET,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  type TimestampType,
} from './constants.js';
import { ControlRecordType, END_TXN_MARKER_CURRENT_VERSION } from './control.js';
import { crc32c } from './crc.js';
import { checkInt, checkInt64, type Int64Input, writeInt64BE } from '../bytes/int64.js';
import { sizeOfVarint, sizeOfVarlong, writeUnsignedVarint, writeVarint, writeVarlong } from '../bytes/varint.js';

export type Bytes = Uint8Array | string;

export interface HeaderInput {
  key: string;
  value?: Bytes | null;
}

export interface RecordInput {
  key?: Bytes | null;
  value?: Bytes | null;
  headers?: readonly HeaderInput[] | null;
  /** Record timestamp in ms; defaults to the time of encoding. */
  timestamp?: Int64Input;
  /** Offset relative to the batch's baseOffset; defaults to the record's index. Must increase. */
  offsetDelta?: number;
}

export interface RecordBatchOptions {
  baseOffset?: Int64Input;
  partitionLeaderEpoch?: number;
  compression?: CompressionName | CompressionId;
  /** Codec level; Kafka's defaults when absent (gzip 6, lz4 9, zstd 3). */
  compressionLevel?: number;
  timestampType?: TimestampType;
  /** With LogAppendTime: the broker's append time, written as maxTimestamp. Defaults to now. */
  logAppendTime?: Int64Input;
  isTransactional?: boolean;
  isControl?: boolean;
  producerId?: Int64Input;
  producerEpoch?: number;
  baseSequence?: number;
  /** KIP-534: sets attribute bit 6 and writes this as baseTimestamp; record deltas are relative to it. */
  deleteHorizonMs?: Int64Input;
}

const INITIAL_CAPACITY = 256 * 1024;

function byteLengthOf(v: Bytes | null | undefined): number {
  if (v === null || v === undefined) return -1;
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  return v.length;
}

function isAsciiKey(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

function checkTimestamp(ts: Int64Input, what: string): void {
  checkInt64(`${what} timestamp`, ts);
  if (ts < 0 && ts != -1) throw new InvalidArgumentError(`Invalid negative timestamp ${ts} for ${what}`);
}

/** Range checks of the header fields, so bad options fail typed instead of writing other values. */
function checkHeaderFields(o: {
  baseOffset: Int64Input;
  partitionLeaderEpoch: number;
  producerId: Int64Input;
  producerEpoch: number;
  baseSequence: number;
}): void {
  checkInt64('baseOffset', o.baseOffset);
  checkInt('partitionLeaderEpoch', o.partitionLeaderEpoch, 32);
  checkInt64('producerId', o.producerId);
  checkInt('producerEpoch', o.producerEpoch, 16);
  checkInt('baseSequence', o.baseSequence, 32);
}

export class RecordBatchEncoder {
  private buf: Buffer;
  /** Reused per record: each header's key and value byte lengths. */
  private headerLens = new Int32Array(16);

  constructor(initialCapacity = INITIAL_CAPACITY) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  private ensure(needed: number, used: number): Buffer {
    if (needed <= this.buf.length) return this.buf;
    const bigger = Buffer.allocUnsafe(Math.max(needed, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, used);
    this.buf = bigger;
    return bigger;
  }

  private headerLengths(count: number): Int32Array {
    if (this.headerLens.length < 2 * count) this.headerLens = new Int32Array(2 * count);
    return this.headerLens;
  }

  /** Encode a batch; the result is a view into this encoder's buffer, valid until the next call. */
  encode(records: readonly RecordInput[], options: RecordBatchOptions = {}): Buffer {
    const producerId = options.producerId ?? -1n;
    const producerEpoch = options.producerEpoch ?? -1;
    const baseSequence = options.baseSequence ?? -1;
    const isTransactional = options.isTransactional ?? false;
    const isControl = options.isControl ?? false;
    const baseOffset = options.baseOffset ?? 0;
    const partitionLeaderEpoch = options.partitionLeaderEpoch ?? -1;
    checkHeaderFields({ baseOffset, partitionLeaderEpoch, producerId, producerEpoch, baseSequence });
    // MemoryRecordsBuilder.validateProducerState
    if (isTransactional && producerId < 0) {
      throw new InvalidArgumentError('Cannot write transactional messages without a valid producer ID');
    }
    if (producerId >= 0) {
      if (producerEpoch < 0) throw new InvalidArgumentError(`Invalid negative producer epoch ${producerEpoch}`);
      if (baseSequence < 0 && !isControl) throw new InvalidArgumentError('Invalid negative sequence number used');
    }
    if (records.length === 0) {
      throw new InvalidArgumentError('A record batch needs at least one record (use encodeEmptyBatch for an empty header)');
    }
    const codec = compressionId(options.compression ?? 'none');
    if (codec < 0 || codec > 4) throw new InvalidArgumentError(`Unknown compression type id: ${codec}`);
    const timestampType = options.timestampType ?? 'CreateTime';

    const now = Date.now();
    const first = records[0]!;
    const firstTs = first.timestamp ?? now;
    checkTimestamp(firstTs, 'record');
    const hasHorizon = options.deleteHorizonMs !== undefined;
    const baseTimestamp: Int64Input = hasHorizon ? options.deleteHorizonMs! : firstTs;
    if (hasHorizon) checkTimestamp(baseTimestamp, 'delete horizon');
    let maxTimestamp: Int64Input = -1;
    let lastOffsetDelta = -1;

    let buf = this.ensure(INITIAL_CAPACITY, 0);
    let pos = RECORD_BATCH_OVERHEAD;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const offsetDelta = r.offsetDelta ?? i;
      if (!Number.isInteger(offsetDelta) || offsetDelta <= lastOffsetDelta || offsetDelta > 0x7fffffff) {
        throw new InvalidArgumentError(`Illegal offset delta ${offsetDelta} following ${lastOffsetDelta}`);
      }
      lastOffsetDelta = offsetDelta;
      const ts = i === 0 ? firstTs : (r.timestamp ?? now);
      // the common timestamp (a safe non-negative number) skips the full check
      if (i !== 0 && !(typeof ts === 'number' && ts >= 0 && Number.isSafeInteger(ts))) checkTimestamp(ts, 'record');
      if (ts > maxTimestamp) maxTimestamp = ts;
      const tsDelta =
        typeof ts === 'number' && typeof baseTimestamp === 'number'
          ? ts - baseTimestamp
          : BigInt.asIntN(64, BigInt(ts) - BigInt(baseTimestamp));

      const key = r.key;
      const value = r.value;
      const keyLen = byteLengthOf(key);
      const valueLen = byteLengthOf(value);
      const headers = r.headers;
      const headerCount = headers ? headers.length : 0;

      let bodySize =
        1 +
        sizeOfVarlong(tsDelta) +
        sizeOfVarint(offsetDelta) +
        sizeOfVarint(keyLen) +
        (keyLen > 0 ? keyLen : 0) +
        sizeOfVarint(valueLen) +
        (valueLen > 0 ? valueLen : 0) +
        sizeOfVarint(headerCount);
      // header key/value byte lengths, measured once: [key length (negative: not ASCII), value length]
      const lens = headerCount > 0 ? this.headerLengths(headerCount) : this.headerLens;
      for (let h = 0; h < headerCount; h++) {
        const header = headers![h]!;
        if (header === null || header === undefined || typeof header.key !== 'string') {
          throw new InvalidArgumentError('Invalid null header key found in headers');
        }
        const hk = header.key;
        const ascii = isAsciiKey(hk);
        const hkLen = ascii ? hk.length : Buffer.byteLength(hk, 'utf8');
        const hvLen = byteLengthOf(header.value);
        lens[2 * h] = ascii ? hkLen : -1 - hkLen;
        lens[2 * h + 1] = hvLen;
        bodySize += sizeOfVarint(hkLen) + hkLen + sizeOfVarint(hvLen) + (hvLen > 0 ? hvLen : 0);
      }

      buf = this.ensure(pos + 5 + bodySize, pos);
      pos = writeVarint(buf, pos, bodySize);
      buf[pos++] = 0; // record attributes: unused, written 0
      pos = writeVarlong(buf, pos, tsDelta);
      pos = writeVarint(buf, pos, offsetDelta);
      pos = writeVarint(buf, pos, keyLen);
      if (keyLen > 0) pos = writeBytes(buf, pos, key!, keyLen);
      pos = writeVarint(buf, pos, valueLen);
      if (valueLen > 0) pos = writeBytes(buf, pos, value!, valueLen);
      pos = writeUnsignedVarint(buf, pos, headerCount << 1); // zigzag of a non-negative count
      for (let h = 0; h < headerCount; h++) {
        const header = headers![h]!;
        const hk = header.key;
        const keyLenCode = lens[2 * h]!;
        if (keyLenCode >= 0) {
          pos = writeVarint(buf, pos, keyLenCode);
          for (let c = 0; c < keyLenCode; c++) buf[pos++] = hk.charCodeAt(c);
        } else {
          pos = writeVarint(buf, pos, -1 - keyLenCode);
          pos += buf.write(hk, pos, 'utf8');
        }
        const hvLen = lens[2 * h + 1]!;
        pos = writeVarint(buf, pos, hvLen);
        if (hvLen > 0) pos = writeBytes(buf, pos, header.value!, hvLen);
      }
    }

    if (codec !== CompressionType.none) {
      const compressed = compress(codec, buf.subarray(RECORD_BATCH_OVERHEAD, pos), {
        magic: 2,
        level: options.compressionLevel,
      });
      buf = this.ensure(RECORD_BATCH_OVERHEAD + compressed.length, RECORD_BATCH_OVERHEAD);
      buf.set(compressed, RECORD_BATCH_OVERHEAD);
      pos = RECORD_BATCH_OVERHEAD + compressed.length;
    }

    if (timestampType === 'LogAppendTime') maxTimestamp = options.logAppendTime ?? now;
    let attributes = codec;
    if (timestampType === 'LogAppendTime') attributes |= TIMESTAMP_TYPE_MASK;
    if (isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
    if (isControl) attributes |= CONTROL_FLAG_MASK;
    if (hasHorizon) attributes |= DELETE_HORIZON_FLAG_MASK;

    if (timestampType === 'LogAppendTime') checkTimestamp(maxTimestamp, 'log append');
    writeHeader(buf, {
      baseOffset,
      size: pos,
      partitionLeaderEpoch,
      attributes,
      lastOffsetDelta,
      baseTimestamp,
      maxTimestamp,
      producerId,
      producerEpoch,
      baseSequence,
      count: records.length,
    });
    return buf.subarray(0, pos);
  }
}

function writeBytes(buf: Buffer, pos: number, v: Bytes, len: number): number {
  if (typeof v === 'string') {
    buf.write(v, pos, 'utf8');
  } else if (len <= 24) {
    // below ~24 bytes a plain loop beats TypedArray.set's call overhead
    for (let i = 0; i < len; i++) buf[pos + i] = v[i]!;
  } else {
    buf.set(v, pos);
  }
  return pos + len;
}

export interface HeaderFields {
  baseOffset: Int64Input;
  size: number;
  partitionLeaderEpoch: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: Int64Input;
  maxTimestamp: Int64Input;
  producerId: Int64Input;
  producerEpoch: number;
  baseSequence: number;
  count: number;
}

/** Writes the 61-byte header over `buf[0, 61)` and the CRC over `buf[21, size)`. */
export function writeHeader(buf: Buffer, h: HeaderFields): void {
  writeInt64BE(buf, 0, h.baseOffset);
  buf.writeInt32BE(h.size - LOG_OVERHEAD, 8);
  buf.writeInt32BE(h.partitionLeaderEpoch, 12);
  buf[16] = 2;
  buf.writeInt16BE(h.attributes, ATTRIBUTES_OFFSET);
  buf.writeInt32BE(h.lastOffsetDelta, 23);
  writeInt64BE(buf, 27, h.baseTimestamp);
  writeInt64BE(buf, 35, h.maxTimestamp);
  writeInt64BE(buf, 43, h.producerId);
  buf.writeInt16BE(h.producerEpoch, 51);
  buf.writeInt32BE(h.baseSequence, 53);
  buf.writeInt32BE(h.count, 57);
  buf.writeUInt32BE(crc32c(buf, ATTRIBUTES_OFFSET, h.size), CRC_OFFSET);
}

/** The producer fields of a {@link encodeKeyValueBatch} batch (none: -1, as a non-idempotent producer's). */
export interface KeyValueBatchProducer {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
}

/**
 * One uncompressed batch of key/value records sharing one timestamp, without headers, in a buffer
 * of its own: the bytes `encodeRecordBatch(records, producer)` gives for them (test/record/batch.test.ts
 * compares them) without the general encoder's walk, its shared buffer and the copy out of it. The
 * group coordinator writes one per offset commit, transactional or not. What the direct form does not
 * cover (a timestamp that is not a safe non-negative number, producer fields out of range) goes to
 * `encodeRecordBatch`, which writes or refuses it as before.
 */
export function encodeKeyValueBatch(records: readonly { key: Buffer | null; value: Buffer | null }[], timestamp: number, producer?: KeyValueBatchProducer): Buffer {
  const n = records.length;
  const direct =
    n > 0 &&
    Number.isSafeInteger(timestamp) &&
    timestamp >= 0 &&
    (producer === undefined ||
      (producer.producerId >= 0n &&
        producer.producerId <= 0x7fffffffffffffffn &&
        Number.isInteger(producer.producerEpoch) &&
        producer.producerEpoch >= 0 &&
        producer.producerEpoch <= 0x7fff &&
        Number.isInteger(producer.baseSequence) &&
        producer.baseSequence >= 0 &&
        producer.baseSequence <= 0x7fffffff));
  if (!direct) return encodeRecordBatch(records.map((r) => ({ key: r.key, value: r.value, timestamp })), producer);
  let size = RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const keyLen = r.key === null ? -1 : r.key.length;
    const valueLen = r.value === null ? -1 : r.value.length;
    // attributes, timestamp delta 0, offset delta, key, value, no headers (DefaultRecord.writeTo)
    const body = 2 + sizeOfVarint(i) + sizeOfVarint(keyLen) + (keyLen > 0 ? keyLen : 0) + sizeOfVarint(valueLen) + (valueLen > 0 ? valueLen : 0) + 1;
    size += sizeOfVarint(body) + body;
  }
  const b = Buffer.allocUnsafe(size);
  let pos = RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < n; i++) {
    const { key, value } = records[i]!;
    const keyLen = key === null ? -1 : key.length;
    const valueLen = value === null ? -1 : value.length;
    const body = 2 + sizeOfVarint(i) + sizeOfVarint(keyLen) + (keyLen > 0 ? keyLen : 0) + sizeOfVarint(valueLen) + (valueLen > 0 ? valueLen : 0) + 1;
    pos = writeVarint(b, pos, body);
    b[pos++] = 0;
    b[pos++] = 0;
    pos = writeVarint(b, pos, i);
    pos = writeVarint(b, pos, keyLen);
    if (keyLen > 0) pos += key!.copy(b, pos);
    pos = writeVarint(b, pos, valueLen);
    if (valueLen > 0) pos += value!.copy(b, pos);
    b[pos++] = 0;
  }
  writeHeader(b, {
    baseOffset: 0,
    size,
    partitionLeaderEpoch: -1,
    attributes: producer?.isTransactional === true ? TRANSACTIONAL_FLAG_MASK : 0,
    lastOffsetDelta: n - 1,
    baseTimestamp: timestamp,
    maxTimestamp: timestamp,
    producerId: producer?.producerId ?? -1n,
    producerEpoch: producer?.producerEpoch ?? -1,
    baseSequence: producer?.baseSequence ?? -1,
    count: n,
  });
  return b;
}

let sharedEncoder: RecordBatchEncoder | undefined;

/** Encode one batch into a Buffer of its own. */
export function encodeRecordBatch(records: readonly RecordInput[], options?: RecordBatchOptions): Buffer {
  sharedEncoder ??= new RecordBatchEncoder();
  return Buffer.from(sharedEncoder.encode(records, options));
}

export interface EmptyBatchOptions {
  baseOffset: Int64Input;
  lastOffsetDelta: number;
  maxTimestamp: Int64Input;
  partitionLeaderEpoch?: number;
  timestampType?: TimestampType;
  isTransactional?: boolean;
  isControl?: boolean;
  producerId?: Int64Input;
  producerEpoch?: number;
  baseSequence?: number;
}

/**
 * The 61-byte record-less header Kafka's cleaner keeps so producers' last sequences survive
 * compaction (`DefaultRecordBatch.writeEmptyHeader`, called by `MemoryRecords.filterTo`): count 0, no compression,
 * baseTimestamp -1, maxTimestamp from the original batch.
 */
export function encodeEmptyBatch(options: EmptyBatchOptions): Buffer {
  checkHeaderFields({
    baseOffset: options.baseOffset,
    partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
    producerId: options.producerId ?? -1,
    producerEpoch: options.producerEpoch ?? -1,
    baseSequence: options.baseSequence ?? -1,
  });
  checkInt('lastOffsetDelta', options.lastOffsetDelta, 32);
  checkTimestamp(options.maxTimestamp, 'max');
  const buf = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD);
  let attributes = 0;
  if (options.timestampType === 'LogAppendTime') attributes |= TIMESTAMP_TYPE_MASK;
  if (options.isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
  if (options.isControl) attributes |= CONTROL_FLAG_MASK;
  writeHeader(buf, {
    baseOffset: options.baseOffset,
    size: RECORD_BATCH_OVERHEAD,
    partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
    attributes,
    lastOffsetDelta: options.lastOffsetDelta,
    baseTimestamp: -1,
    maxTimestamp: options.maxTimestamp,
    producerId: options.producerId ?? -1,
    producerEpoch: options.producerEpoch ?? -1,
    baseSequence: options.baseSequence ?? -1,
    count: 0,
  });
  return buf;
}

export interface EndTransactionMarkerOptions {
  type: 'COMMIT' | 'ABORT';
  producerId: Int64Input;
  producerEpoch: number;
  coordinatorEpoch: number;
  baseOffset?: Int64Input;
  partitionLeaderEpoch?: number;
  timestamp?: Int64Input;
}

/** A marker batch's size: the header and one 17-byte record (its 6-byte value at version 0). */
const END_TXN_MARKER_BATCH_SIZE = RECORD_BATCH_OVERHEAD + 17;

/**
 * A transaction marker batch as `MemoryRecords.withEndTransactionMarker` writes it (`MemoryRecordsBuilder.appendEndTxnMarker`):
 * control + transactional, baseSequence -1, CreateTime, no compression, one 17-byte record: 78 bytes.
 * Its one record is written in place, the bytes `encodeRecordBatch` would give for it
 * (test/record/control.test.ts compares them) without the encoder's key, value and copy: the
 * coordinator writes one per partition of every transaction.
 */
export function encodeEndTransactionMarker(options: EndTransactionMarkerOptions): Buffer {
  const type = options.type === 'COMMIT' ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
  const baseOffset = options.baseOffset ?? 0;
  const partitionLeaderEpoch = options.partitionLeaderEpoch ?? -1;
  const timestamp = options.timestamp ?? Date.now();
  checkHeaderFields({ baseOffset, partitionLeaderEpoch, producerId: options.producerId, producerEpoch: options.producerEpoch, baseSequence: -1 });
  // compared in its own type: a bigint against the number 0 is a runtime call in V8
  const pid = options.producerId;
  if (typeof pid === 'bigint' ? pid < 0n : pid < 0) throw new InvalidArgumentError('Cannot write transactional messages without a valid producer ID');
  checkTimestamp(timestamp, 'record');
  checkInt('coordinatorEpoch', options.coordinatorEpoch, 32);
  const b = Buffer.allocUnsafe(END_TXN_MARKER_BATCH_SIZE);
  let pos = RECORD_BATCH_OVERHEAD;
  // DefaultRecord.writeTo: length 16 (zigzag 32), attributes, timestamp and offset deltas 0
  b[pos++] = 32;
  b[pos++] = 0;
  b[pos++] = 0;
  b[pos++] = 0;
  // key: ControlRecordType version 0 and the type (4 bytes, zigzag 8)
  b[pos++] = 8;
  b.writeInt16BE(0, pos);
  b.writeInt16BE(type, pos + 2);
  pos += 4;
  // value: EndTransactionMarker version and coordinator epoch (6 bytes, zigzag 12); no headers
  b[pos++] = 12;
  b.writeInt16BE(END_TXN_MARKER_CURRENT_VERSION, pos);
  b.writeInt32BE(options.coordinatorEpoch, pos + 2);
  pos += 6;
  b[pos] = 0;
  writeHeader(b, {
    baseOffset,
    size: END_TXN_MARKER_BATCH_SIZE,
    partitionLeaderEpoch,
    attributes: TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK,
    lastOffsetDelta: 0,
    baseTimestamp: timestamp,
    maxTimestamp: timestamp,
    producerId: options.producerId,
    producerEpoch: options.producerEpoch,
    baseSequence: -1,
    count: 1,
  });
  return b;
}
