/**
 * Converting between message formats (Kafka `LogValidator` up/down-conversion, `RecordsUtil`):
 * offsets are preserved, timestamps carried where the target format has them.
 *
 * Up (magic 0/1 -> 2): one v2 batch per legacy entry or wrapper, no producer state; magic 0 has no
 * timestamps, so its records get -1 (NO_TIMESTAMP) under CreateTime.
 *
 * Down (2 -> 0/1), two policies as Kafka applies them:
 * - `reject` (a produce to a topic pinned below 0.11): transactional, idempotent, control and
 *   header-carrying batches are refused with UNSUPPORTED_FOR_MESSAGE_FORMAT, as `LogValidator` does;
 * - `drop` (a fetch by an old client): control batches are skipped (null) and headers dropped.
 * zstd has no legacy form: UNSUPPORTED_COMPRESSION either way.
 */
import { InvalidRecordError, UnsupportedCompressionError, UnsupportedForMessageFormatError } from '../errors.js';
import type { RecordBatch } from './batch.js';
import { encodeRecordBatch, type RecordInput } from './builder.js';
import { CompressionType, type CompressionId, type CompressionName } from './compression/index.js';
import { encodeLegacyMessageSet } from './legacy-builder.js';
import type { LegacyRecordBatch } from './legacy.js';

export interface UpConvertOptions {
  /** Target codec; defaults to the legacy batch's own. */
  compression?: CompressionName | CompressionId;
  verifyCrc?: boolean;
}

/** A legacy entry (or wrapper) as one v2 batch with the same offsets and timestamps. */
export function convertToV2(batch: LegacyRecordBatch, options: UpConvertOptions = {}): Buffer {
  const records = batch.records({ verifyCrc: options.verifyCrc ?? true });
  const baseOffset = records[0]!.offset;
  const inputs: RecordInput[] = records.map((r) => {
    const delta = r.offset - baseOffset;
    if (delta < 0n || delta > 0x7fffffffn) {
      throw new InvalidRecordError(`Record offset ${r.offset} cannot be expressed relative to ${baseOffset}`, {
        position: batch.position,
      });
    }
    return { key: r.key, value: r.value, timestamp: r.timestamp, offsetDelta: Number(delta) };
  });
  const logAppend = batch.timestampType === 'LogAppendTime';
  return encodeRecordBatch(inputs, {
    baseOffset,
    compression: options.compression ?? (batch.compressionType as CompressionId),
    timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
    ...(logAppend ? { logAppendTime: batch.maxTimestamp } : {}),
  });
}

export interface DownConvertOptions {
  policy: 'reject' | 'drop';
  /** Target codec; defaults to the batch's own. */
  compression?: CompressionName | CompressionId;
  verifyCrc?: boolean;
}

/** A v2 batch as a magic 0/1 message set with the same offsets; null for a skipped control batch. */
export function convertToLegacy(batch: RecordBatch, toMagic: 0 | 1, options: DownConvertOptions): Buffer | null {
  const at = { position: batch.position };
  const reject = options.policy === 'reject';
  if (batch.isControl) {
    if (reject) throw new UnsupportedForMessageFormatError(`Control records cannot be used with magic version ${toMagic}`, at);
    return null;
  }
  if (reject && batch.isTransactional) {
    throw new UnsupportedForMessageFormatError(`Transactional records cannot be used with magic version ${toMagic}`, at);
  }
  if (reject && batch.hasProducerId) {
    throw new UnsupportedForMessageFormatError(`Idempotent records cannot be used with magic version ${toMagic}`, at);
  }
  const compression = options.compression ?? (batch.compressionType as CompressionId);
  if (compression === CompressionType.zstd || compression === 'zstd') {
    throw new UnsupportedCompressionError(`zstd compression is not supported for magic version ${toMagic}`, at);
  }
  const records = batch.records({ verifyCrc: options.verifyCrc ?? true });
  if (records.length === 0) return null; // an empty batch left by the cleaner has nothing to convert
  const inputs: RecordInput[] = records.map((r) => {
    if (reject && r.headerCount > 0) {
      throw new UnsupportedForMessageFormatError(`Magic v${toMagic} does not support record headers`, at);
    }
    return { key: r.key, value: r.value, timestamp: r.timestamp, offsetDelta: r.offsetDelta };
  });
  const logAppend = batch.timestampType === 'LogAppendTime' && toMagic === 1;
  return encodeLegacyMessageSet(inputs, {
    magic: toMagic,
    baseOffset: batch.baseOffset,
    compression,
    timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
    ...(logAppend ? { logAppendTime: batch.maxTimestamp } : {}),
  });
}
