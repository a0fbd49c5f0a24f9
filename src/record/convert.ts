/**
 * Converting between message formats (Kafka `LogValidator` up/down-conversion, `RecordsUtil`):
 * offsets are preserved, timestamps carried where the target format has them.
 *
 * Up (magic 0/1 -> 2): one v2 batch per legacy entry or wrapper, no producer state; magic 0 has no
 * timestamps, so its records get -1 (NO_TIMESTAMP) under CreateTime.
 *
 * Down (2 -> 0/1): what cannot be written below magic 2 is refused with
 * UNSUPPORTED_FOR_MESSAGE_FORMAT (`checkLegacy*`) and the records are written by
 * `writeLegacyMessageSet`; the log validator converts a produce to a topic pinned below 0.11 with
 * the same functions. `convertToLegacy` applies them to one batch, with two policies:
 * - `reject` (a produce): transactional, idempotent, control and header-carrying batches are
 *   refused, as `LogValidator` does;
 * - `drop` (a fetch by an old client): control batches are skipped (null) and headers dropped.
 * zstd has no legacy form: UNSUPPORTED_COMPRESSION either way.
 */
import { InvalidRecordError, UnsupportedCompressionError, UnsupportedForMessageFormatError } from '../errors.js';
import type { RecordBatch } from './batch.js';
import { encodeRecordBatch, type RecordInput } from './builder.js';
import { compressionId, CompressionType, type CompressionId, type CompressionName } from './compression/index.js';
import type { TimestampType } from './constants.js';
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
    if (reject) checkLegacyControl(batch, toMagic, at);
    return null;
  }
  if (reject) checkLegacyProducerState(batch, toMagic, at);
  const compression = options.compression ?? (batch.compressionType as CompressionId);
  checkLegacyCompression(compression, toMagic, at);
  const records = batch.records({ verifyCrc: options.verifyCrc ?? true });
  if (records.length === 0) return null; // an empty batch left by the cleaner has nothing to convert
  const inputs: RecordInput[] = records.map((r) => {
    if (reject) checkLegacyHeaders(r.headerCount, toMagic, at);
    return { key: r.key, value: r.value, timestamp: r.timestamp, offsetDelta: r.offsetDelta };
  });
  return writeLegacyMessageSet(inputs, {
    magic: toMagic,
    baseOffset: batch.baseOffset,
    compression,
    timestampType: batch.timestampType,
    logAppendTime: batch.maxTimestamp,
  });
}

/** Where a down-conversion's errors point: the source batch. */
interface ErrorAt {
  position: number;
}

/** Control records have no legacy form (`LogValidator`). */
export function checkLegacyControl(batch: { isControl: boolean }, toMagic: 0 | 1, at: ErrorAt): void {
  if (batch.isControl) throw new UnsupportedForMessageFormatError(`Control records cannot be used with magic version ${toMagic}`, at);
}

/** Transactional and idempotent batches have no legacy form (`LogValidator.validateBatch`). */
export function checkLegacyProducerState(batch: { isTransactional: boolean; producerId: bigint }, toMagic: 0 | 1, at: ErrorAt): void {
  if (batch.isTransactional) {
    throw new UnsupportedForMessageFormatError(`Transactional records cannot be used with magic version ${toMagic}`, at);
  }
  if (batch.producerId > -1n) {
    throw new UnsupportedForMessageFormatError(`Idempotent records cannot be used with magic version ${toMagic}`, at);
  }
}

/** Record headers have no legacy form (`LogValidator`). */
export function checkLegacyHeaders(headerCount: number, toMagic: 0 | 1, at: ErrorAt): void {
  if (headerCount > 0) throw new UnsupportedForMessageFormatError(`Magic v${toMagic} does not support record headers`, at);
}

/** zstd has no legacy form (Kafka `MemoryRecordsBuilder` refuses it below magic 2). */
export function checkLegacyCompression(compression: CompressionName | CompressionId, toMagic: 0 | 1, at: ErrorAt): void {
  if (compressionId(compression) === CompressionType.zstd) {
    throw new UnsupportedCompressionError(`ZStandard compression is not supported for magic ${toMagic}`, at);
  }
}

export interface LegacyTarget {
  magic: 0 | 1;
  /** The offset the records' offsetDeltas are relative to. */
  baseOffset: bigint;
  compression: CompressionName | CompressionId;
  compressionLevel?: number;
  /** The timestamp type of the records; magic 0 has none and is written without one. */
  timestampType: TimestampType;
  /** Under LogAppendTime (magic 1): the append time. */
  logAppendTime: bigint;
}

/**
 * Records written as a magic 0/1 message set (Kafka `MemoryRecordsBuilder` at an old magic): the
 * down-conversion's output, once `checkLegacyCompression` and the other checks passed.
 */
export function writeLegacyMessageSet(inputs: readonly RecordInput[], target: LegacyTarget): Buffer {
  const logAppend = target.magic === 1 && target.timestampType === 'LogAppendTime';
  return encodeLegacyMessageSet(inputs, {
    magic: target.magic,
    baseOffset: target.baseOffset,
    compression: target.compression,
    ...(target.compressionLevel !== undefined ? { compressionLevel: target.compressionLevel } : {}),
    timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
    logAppendTime: target.logAppendTime,
  });
}
