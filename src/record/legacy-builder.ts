/**
 * Writing legacy message sets, magic 0 and 1 (Kafka `MemoryRecordsBuilder`
 * legacy paths and `LegacyRecord.write*`), for old clients and for topics pinned to an old
 * message format.
 *
 * Uncompressed: one entry per record. Compressed: one wrapper entry whose value is the compressed
 * inner set; inner offsets are absolute under magic 0 and relative to the first record under magic
 * 1 (`MemoryRecordsBuilder.toInnerOffset`); the wrapper's offset is the last inner offset, its key
 * null, its timestamp (magic 1) the log-append time under LogAppendTime, otherwise the largest inner
 * timestamp. Inner messages carry the builder's timestamp-type bit. lz4 under magic 0 gets Kafka's
 * historical wrong frame checksum (see compression/lz4.ts). zstd does not exist below magic 2.
 */
import { InvalidArgumentError, UnsupportedCompressionError, UnsupportedForMessageFormatError } from '../errors.js';
import type { Bytes, RecordInput } from './builder.js';
import { compress, compressionId, CompressionType, type CompressionId, type CompressionName } from './compression/index.js';
import { LOG_OVERHEAD, TIMESTAMP_TYPE_MASK, type TimestampType } from './constants.js';
import { crc32 } from './crc.js';
import { checkInt64, type Int64Input, toBigInt64, writeInt64BE } from '../bytes/int64.js';
import { RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V1 } from './legacy.js';
import { bufferView } from '../bytes/buffer-view.js';

export interface LegacyMessageSetOptions {
  magic: 0 | 1;
  baseOffset?: Int64Input;
  compression?: CompressionName | CompressionId;
  compressionLevel?: number;
  /** Magic 1 only. */
  timestampType?: TimestampType;
  /** With LogAppendTime: the broker's append time. Defaults to now. */
  logAppendTime?: Int64Input;
}

function toBuffer(v: Bytes | null | undefined): Buffer | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : bufferView(v);
}

/** Writes offset + size + message at `pos`; returns the new position. */
function writeEntry(
  buf: Buffer,
  pos: number,
  offset: Int64Input,
  magic: 0 | 1,
  attributes: number,
  timestamp: Int64Input,
  key: Buffer | null,
  value: Buffer | null,
): number {
  const size = (magic === 0 ? RECORD_OVERHEAD_V0 : RECORD_OVERHEAD_V1) + (key?.length ?? 0) + (value?.length ?? 0);
  writeInt64BE(buf, pos, offset);
  buf.writeInt32BE(size, pos + 8);
  const start = pos + LOG_OVERHEAD;
  let p = start + 4;
  buf[p++] = magic;
  buf[p++] = attributes;
  if (magic === 1) {
    writeInt64BE(buf, p, timestamp);
    p += 8;
  }
  buf.writeInt32BE(key === null ? -1 : key.length, p);
  p += 4;
  if (key !== null) p += key.copy(buf, p);
  buf.writeInt32BE(value === null ? -1 : value.length, p);
  p += 4;
  if (value !== null) p += value.copy(buf, p);
  buf.writeUInt32BE(crc32(buf, start + 4, p), start);
  return p;
}

function entrySize(magic: 0 | 1, key: Buffer | null, value: Buffer | null): number {
  return LOG_OVERHEAD + (magic === 0 ? RECORD_OVERHEAD_V0 : RECORD_OVERHEAD_V1) + (key?.length ?? 0) + (value?.length ?? 0);
}

/** Encodes records as a magic 0 or 1 message set (one entry each, or one compressed wrapper). */
export function encodeLegacyMessageSet(records: readonly RecordInput[], options: LegacyMessageSetOptions): Buffer {
  const magic = options.magic;
  if (magic !== 0 && magic !== 1) throw new InvalidArgumentError(`Legacy magic must be 0 or 1, not ${String(magic)}`);
  if (records.length === 0) throw new InvalidArgumentError('A message set needs at least one record');
  const codec = compressionId(options.compression ?? 'none');
  if (codec === CompressionType.zstd) {
    throw new UnsupportedCompressionError(`zstd compression is not supported for magic ${magic}`);
  }
  if (codec < 0 || codec > 4) throw new InvalidArgumentError(`Unknown compression type id: ${codec}`);
  const baseOffset = toBigInt64(options.baseOffset ?? 0n);
  checkInt64('baseOffset', baseOffset);
  const logAppend = (options.timestampType ?? 'CreateTime') === 'LogAppendTime';
  if (logAppend && magic === 0) throw new UnsupportedForMessageFormatError('Magic v0 has no timestamps');
  const logAppendTime = toBigInt64(options.logAppendTime ?? Date.now());
  const typeBit = magic === 1 && logAppend ? TIMESTAMP_TYPE_MASK : 0;
  const now = Date.now();

  const entries = records.map((r, i) => {
    if (r.headers && r.headers.length > 0) {
      throw new UnsupportedForMessageFormatError(`Magic v${magic} does not support record headers`);
    }
    const offsetDelta = r.offsetDelta ?? i;
    let timestamp = toBigInt64(r.timestamp ?? now);
    if (magic === 0) timestamp = -1n;
    else if (logAppend && codec === CompressionType.none) timestamp = logAppendTime;
    if (timestamp < -1n) throw new InvalidArgumentError(`Invalid negative timestamp ${timestamp}`);
    return { offsetDelta, timestamp, key: toBuffer(r.key), value: toBuffer(r.value) };
  });
  for (let i = 1; i < entries.length; i++) {
    if (entries[i]!.offsetDelta <= entries[i - 1]!.offsetDelta) {
      throw new InvalidArgumentError(`Illegal offset delta ${entries[i]!.offsetDelta} following ${entries[i - 1]!.offsetDelta}`);
    }
  }

  const innerTotal = entries.reduce((n, e) => n + entrySize(magic, e.key, e.value), 0);
  const inner = Buffer.allocUnsafe(innerTotal);
  let pos = 0;
  for (const e of entries) {
    const absolute = baseOffset + BigInt(e.offsetDelta);
    // inside a wrapper, magic 1 writes offsets relative to the first record
    const offset = codec !== CompressionType.none && magic === 1 ? BigInt(e.offsetDelta) : absolute;
    pos = writeEntry(inner, pos, offset, magic, typeBit, e.timestamp, e.key, e.value);
  }
  if (codec === CompressionType.none) return inner;

  const compressed = compress(codec, inner, { magic, level: options.compressionLevel });
  const maxTimestamp = entries.reduce((m, e) => (e.timestamp > m ? e.timestamp : m), -1n);
  const wrapper = Buffer.allocUnsafe(entrySize(magic, null, compressed));
  const lastOffset = baseOffset + BigInt(entries[entries.length - 1]!.offsetDelta);
  writeEntry(wrapper, 0, lastOffset, magic, codec | typeBit, logAppend ? logAppendTime : maxTimestamp, null, compressed);
  return wrapper;
}
