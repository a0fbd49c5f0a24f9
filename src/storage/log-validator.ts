/**
 * Leader-side validation and offset assignment of an append: Kafka's
 * `UnifiedLog.analyzeAndValidateRecords` (batch-level checks) followed by `LogValidator`
 * (record-level checks, offset assignment, timestamps, format conversion and recompression).
 *
 * The caller's Buffer is not modified unless it hands it over (`mutateInput`): validation works on
 * a copy, which is mutated in place when Kafka would mutate in place (offsets, leader epoch, max
 * timestamp: `DefaultRecordBatch.setLastOffset`, `setPartitionLeaderEpoch`, `setMaxTimestamp`), and replaced by rebuilt bytes when Kafka rebuilds (format conversion, a
 * codec change, non-sequential inner offsets, magic-0 targets). A handed-over Buffer is mutated
 * itself, as Kafka mutates the produce request's buffer (`LogValidator` on the request's
 * `MemoryRecords`), which saves the copy.
 *
 * Three paths, chosen as Kafka chooses them:
 * - source and target uncompressed, every batch already in the topic's magic: in place;
 * - source and target uncompressed, another magic: records rebuilt in the topic's magic;
 * - anything compressed: in place if the codec (not the level) and magic match and inner offsets
 *   are 0, 1, 2, ...; otherwise rebuilt with the target codec and level, then re-checked against
 *   max.message.bytes.
 *
 * Every error carries `position`: the offending batch's byte position in the caller's input (for a
 * malformed record of an uncompressed batch, the record's own position).
 */
import { readInt32BE, readUInt32BE, writeInt16BE, writeInt32BE, writeUInt32BE } from '../bytes/big-endian.js';
import {
  CorruptRecordError,
  InvalidArgumentError,
  InvalidRecordError,
  InvalidTimestampError,
  KafkaliteError,
  RecordTooLargeError,
  UnsupportedCompressionError,
  UnsupportedForMessageFormatError,
} from '../errors.js';
import type { RecordBatch } from '../record/batch.js';
import { BatchReader, type AnyRecordBatch } from '../record/batches.js';
import { encodeRecordBatch, type RecordInput } from '../record/builder.js';
import { CompressionType, type CompressionId } from '../record/compression/index.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LOG_OVERHEAD,
  MAX_TIMESTAMP_OFFSET,
  NO_TIMESTAMP,
  PARTITION_LEADER_EPOCH_OFFSET,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  type TimestampType,
} from '../record/constants.js';
import { crc32, crc32c } from '../record/crc.js';
import { readInt64BE, writeInt64BE } from '../bytes/int64.js';
import { checkLegacyCompression, checkLegacyControl, checkLegacyHeaders, checkLegacyProducerState, writeLegacyMessageSet } from '../record/convert.js';
import type { LegacyRecord, LegacyRecordBatch } from '../record/legacy.js';
import type { Record } from '../record/record.js';
import { RecordLayout } from '../record/record-layout.js';
import { nativeAddon } from '../native/addon.js';
import { DEFAULT_LOG_CONFIG, messageFormatMagic, type LogConfig } from './log-config.js';
import type { AppendOrigin } from './producer-append-info.js';


export interface ValidationContext {
  config: LogConfig;
  /** The log end offset: the first offset to assign. */
  nextOffset: bigint;
  /** The broker's clock (ms): LogAppendTime and the CreateTime window are relative to it. */
  now: bigint;
  /** Written into every v2 batch. */
  partitionLeaderEpoch: number;
  origin: AppendOrigin;
  /** "topic-partition", appended to error messages as Kafka does (" in topic partition t-0"). */
  topicPartition?: string;
  /**
   * A buffer the validator may reuse for its copy of the input; the result's `records` may then be
   * a view into it, valid until the next call with the same scratch.
   */
  scratch?: { buffer: Buffer };
  /**
   * The caller hands `records` over (a request buffer it does not read again): validation writes
   * the in-place changes into it instead of a copy, and the result's `records` may be a view of it.
   * After an error its content is unspecified.
   */
  mutateInput?: boolean;
}

export interface ValidationResult {
  /** The bytes to append: the caller's bytes copied and mutated in place, or rebuilt. */
  records: Buffer;
  firstOffset: bigint;
  lastOffset: bigint;
  /** Largest timestamp (the append time under LogAppendTime), -1 if none. */
  maxTimestamp: bigint;
  /** Offset Kafka records with maxTimestamp in the time index (a batch's last offset for v2). */
  shallowOffsetOfMaxTimestamp: bigint;
  /** `now` under LogAppendTime, else -1. */
  logAppendTime: bigint;
  recordCount: number;
  /** Batches (v2) or log entries (magic 0/1) in `records`. */
  batchCount: number;
  /**
   * Views of the batches in `records` (v2, or legacy entries), in order: the log's producer-state
   * and leader-epoch steps read them without parsing the bytes again.
   */
  batches: readonly AnyRecordBatch[];
  /** Codec id of the input (the last non-none batch codec). */
  sourceCompression: number;
  /** Codec id the topic wants: compression.type, or the source codec under 'producer'. */
  targetCompression: number;
  /** True when `records` was rebuilt (recompressed or format-converted; Kafka's messageSizeMaybeChanged). */
  recompressed: boolean;
  /** Magic of the output's (first) batch. */
  magic: number;
}

/** One rejected record (Kafka `ProduceResponse.RecordError`): its index in its batch. */
export interface RecordError {
  batchIndex: number;
  message: string;
}

/** The per-record errors attached to an InvalidRecordError/InvalidTimestampError thrown by validation, if any. */
export function recordErrorsOf(err: unknown): readonly RecordError[] | undefined {
  if (err instanceof KafkaliteError && 'recordErrors' in err) return (err as KafkaliteError & { recordErrors: RecordError[] }).recordErrors;
  return undefined;
}

type AnyRecord = Record | LegacyRecord;

interface ApiRecordError extends RecordError {
  timestamp: boolean;
}

const TWO_52 = 1n << 52n;

// ---- in-place mutation of a batch's header (DefaultRecordBatch setters) --------------------------
// The record layer has no setters; these write the fields and CRCs as Kafka's
// DefaultRecordBatch / AbstractLegacyRecordBatch setters do.

/** v2: baseOffset = lastOffset - lastOffsetDelta; legacy: the entry (wrapper) offset. Not CRC-covered. */
export function setLastOffset(batch: AnyRecordBatch, lastOffset: bigint): void {
  if (batch.kind === 'v2') {
    // in plain numbers below 2^52 (every offset a log reaches in practice): no BigInt per append
    if (lastOffset < TWO_52 && lastOffset >= 0n) writeInt64BE(batch.buf, batch.position, Number(lastOffset) - batch.lastOffsetDelta);
    else writeInt64BE(batch.buf, batch.position, BigInt.asIntN(64, lastOffset - BigInt(batch.lastOffsetDelta)));
  } else {
    writeInt64BE(batch.buf, batch.position, BigInt.asIntN(64, lastOffset));
  }
}

/** v2 only: bytes 12-15, not CRC-covered. */
export function setPartitionLeaderEpoch(batch: RecordBatch, epoch: number): void {
  writeInt32BE(batch.buf, batch.position + PARTITION_LEADER_EPOCH_OFFSET, epoch);
}

/**
 * v2: if type or value differ, rewrite the attributes (same codec/transactional/control/
 * delete-horizon bits, the new timestamp-type bit, high byte 0 as Kafka's computeAttributes
 * writes) and maxTimestamp, then the CRC-32C. Legacy (magic 1): the message's attributes and
 * timestamp, then its CRC-32. Returns whether anything changed.
 */
export function setMaxTimestamp(batch: AnyRecordBatch, type: TimestampType, timestamp: bigint): boolean {
  const buf = batch.buf;
  const pos = batch.position;
  if (batch.kind === 'v2') {
    if (batch.timestampType === type && int64Equals(buf, pos + MAX_TIMESTAMP_OFFSET, timestamp)) return false;
    const old = buf[pos + ATTRIBUTES_OFFSET + 1]!;
    let attributes = old & (COMPRESSION_CODEC_MASK | TRANSACTIONAL_FLAG_MASK | CONTROL_FLAG_MASK | DELETE_HORIZON_FLAG_MASK);
    if (type === 'LogAppendTime') attributes |= TIMESTAMP_TYPE_MASK;
    writeInt16BE(buf, pos + ATTRIBUTES_OFFSET, attributes);
    writeInt64BE(buf, pos + MAX_TIMESTAMP_OFFSET, timestamp);
    writeUInt32BE(buf, pos + CRC_OFFSET, crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + batch.sizeInBytes));
    return true;
  }
  if (batch.magic === 0) throw new UnsupportedForMessageFormatError('Cannot set timestamp for a record with magic = 0', { position: pos });
  if (batch.timestampType === type && batch.maxTimestamp === timestamp) return false;
  const msg = pos + LOG_OVERHEAD; // crc(4) magic(1) attributes(1) timestamp(8)
  buf[msg + 5] = (batch.compressionType & COMPRESSION_CODEC_MASK) | (type === 'LogAppendTime' ? TIMESTAMP_TYPE_MASK : 0);
  writeInt64BE(buf, msg + 6, timestamp);
  writeUInt32BE(buf, msg, crc32(buf, msg + 4, pos + batch.sizeInBytes));
  return true;
}

// ---- helpers ---------------------------------------------------------------------------------------

interface TargetCompression {
  codec: CompressionId;
  level: number | undefined;
}

/** BatchReader options of the appends' first pass (CRCs are checked batch by batch there): one object for all. */
const NO_CRC_CHECK = Object.freeze({ verifyCrc: false });

/** The targets at a codec's default level, by codec id: shared, not an object per append. */
const AT_DEFAULT_LEVEL: readonly Readonly<TargetCompression>[] = [0, 1, 2, 3, 4].map((codec) => Object.freeze({ codec: codec as CompressionId, level: undefined }));

/** `BrokerCompressionType.targetCompression`: the topic's codec and level, or the producer's codec at its default level. */
function targetCompressionOf(config: LogConfig, source: number): Readonly<TargetCompression> {
  switch (config.compressionType) {
    case 'producer':
      return AT_DEFAULT_LEVEL[source] ?? { codec: source as CompressionId, level: undefined };
    case 'uncompressed':
      return AT_DEFAULT_LEVEL[CompressionType.none]!;
    case 'gzip':
      return { codec: CompressionType.gzip, level: config.compressionGzipLevel };
    case 'snappy':
      return { codec: CompressionType.snappy, level: undefined };
    case 'lz4':
      return { codec: CompressionType.lz4, level: config.compressionLz4Level };
    case 'zstd':
      return { codec: CompressionType.zstd, level: config.compressionZstdLevel };
  }
}

function describe(r: AnyRecord): string {
  const kind = 'magic' in r ? 'LegacyRecordBatch' : 'DefaultRecord';
  return `${kind}(offset=${r.offset}, timestamp=${r.timestamp}, key=${Math.max(r.keySize, 0)} bytes, value=${Math.max(r.valueSize, 0)} bytes)`;
}

function recordInput(r: AnyRecord, offsetDelta: number, timestamp: bigint): RecordInput {
  const input: RecordInput = { key: r.key, value: r.value, timestamp, offsetDelta };
  if (r.headerCount > 0) input.headers = r.headers.map((h) => ({ key: h.key, value: h.value }));
  return input;
}

/** What MemoryRecordsBuilder.info() reports for rebuilt records. */
interface BuiltInfo {
  maxTimestamp: bigint;
  shallowOffsetOfMaxTimestamp: bigint;
}

const TWO_53 = 1n << 53n;

/** An int64 field as a number when it is a safe integer, else NaN: no BigInt on the append path. */
function readSafeInt64(buf: Buffer, pos: number): number {
  const hi = readInt32BE(buf, pos);
  if (hi < -0x200000 || hi >= 0x200000) return NaN;
  return hi * 4294967296 + readUInt32BE(buf, pos + 4);
}

/**
 * -1 offsets and producer ids as constants: `-1n` in an expression is a BigInt negation at every
 * run (V8 11.3 neither folds it nor caches the result: `BigIntUnaryMinus` in the append profile).
 */
const NO_OFFSET = -1n;
const NO_PRODUCER_ID = -1n;

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether the int64 at `pos` is `v`: compared as numbers when both are exact as doubles (no BigInt per append). */
function int64Equals(buf: Buffer, pos: number, v: bigint): boolean {
  const n = readSafeInt64(buf, pos);
  if (!Number.isNaN(n) && v <= MAX_SAFE_BIG && v >= -MAX_SAFE_BIG) return n === Number(v);
  return readInt64BE(buf, pos) === v;
}

/** Whether the int64 at `pos` is 0 (a v2 batch's baseOffset from a client), without a BigInt. */
function isZeroInt64(buf: Buffer, pos: number): boolean {
  return readInt32BE(buf, pos) === 0 && readInt32BE(buf, pos + 4) === 0;
}

/** The record layout `scanV2` reuses for every record (it never runs nested). */
const scanLayout = new RecordLayout();
/** What the native records scan reports: max and min timestampDelta, null keys. */
const scanSummary = new Float64Array(3);

class Validator {
  // not readonly: one Validator is reused for every append (reset), an object per Produce otherwise.
  // Set by reset(), which the constructor calls (`!`: TypeScript does not follow the call). Every
  // field is still declared here, so each Validator is given all of them, in this order, before
  // the constructor runs: one hidden class for all of them.
  private ctx!: ValidationContext;
  private batches!: readonly AnyRecordBatch[];
  private source!: number;
  private target!: Readonly<TargetCompression>;
  private config!: LogConfig;
  private now!: bigint;
  private toMagic!: 0 | 1 | 2;
  private timestampType!: TimestampType;
  private compacted!: boolean;
  /** The next offset to assign (Kafka's offsetCounter). */
  counter!: bigint;
  // Results in fields rather than an object per call (the in-place path runs on every Produce):
  /** scanV2's record count and largest timestamp, when it returned true. */
  private scanned = 0;
  private scannedMaxTimestamp = NO_TIMESTAMP;
  /** assignOffsetsNonCompressed: the last offset it assigned, how many, and its maxTimestamp and shallowOffsetOfMaxTimestamp. */
  lastAssigned = NO_OFFSET;
  assignedCount = 0;
  assignedMaxTimestamp = NO_TIMESTAMP;
  assignedShallow = NO_OFFSET;

  constructor(ctx: ValidationContext, batches: readonly AnyRecordBatch[], source: number, target: Readonly<TargetCompression>) {
    this.reset(ctx, batches, source, target);
  }

  /** This Validator for another validation, as if new. */
  reset(ctx: ValidationContext, batches: readonly AnyRecordBatch[], source: number, target: Readonly<TargetCompression>): this {
    this.ctx = ctx;
    this.batches = batches;
    this.source = source;
    this.target = target;
    this.config = ctx.config;
    this.now = ctx.now;
    this.toMagic = messageFormatMagic(ctx.config);
    this.timestampType = ctx.config.messageTimestampType;
    this.compacted = ctx.config.cleanupPolicy.includes('compact');
    this.counter = ctx.nextOffset;
    this.scanned = 0;
    this.scannedMaxTimestamp = NO_TIMESTAMP;
    this.lastAssigned = NO_OFFSET;
    this.assignedCount = 0;
    this.assignedMaxTimestamp = NO_TIMESTAMP;
    this.assignedShallow = NO_OFFSET;
    return this;
  }

  /**
   * Done: keeps nothing of the validation alive until the next one: not the batches (the caller's
   * bytes), not the context (a log's scratch buffer and config), not the compression target.
   */
  release(): void {
    this.batches = NO_BATCHES;
    this.ctx = RELEASED_CONTEXT;
    this.config = RELEASED_CONTEXT.config;
    this.target = AT_DEFAULT_LEVEL[CompressionType.none]!;
  }

  get magic(): number {
    return this.toMagic;
  }

  /** " in topic partition t-0" for error messages (built only when one is thrown). */
  private get tp(): string {
    return this.ctx.topicPartition === undefined ? '' : ` in topic partition ${this.ctx.topicPartition}`;
  }

  /** Kafka `getFirstBatchAndMaybeValidateNoMoreBatches`. */
  private firstBatch(sourceCompression: number): AnyRecordBatch {
    const first = this.batches[0]!;
    if ((first.magic >= 2 || sourceCompression !== CompressionType.none) && this.batches.length > 1) {
      throw new InvalidRecordError('Compressed outer record has more than one batch', { position: this.batches[1]!.position });
    }
    return first;
  }

  /** Kafka `validateBatch`. */
  private validateBatch(first: AnyRecordBatch, batch: AnyRecordBatch): void {
    const at = { position: batch.position };
    const magic = batch.magic;
    if (first.magic !== magic) {
      throw new InvalidRecordError(
        `Batch magic ${batch.magic} is not the same as the first batch's magic byte ${first.magic}${this.tp}`,
        at,
      );
    }
    if (this.ctx.origin === 'client') {
      if (batch.kind === 'v2') {
        // Kafka's lastOffset - baseOffset + 1 in Java longs: (base + delta) - base wraps back to the
        // int32 delta whatever the base, so the count is delta + 1 exactly, with no BigInt per append
        const countFromOffsets = batch.lastOffsetDelta + 1;
        if (countFromOffsets <= 0) {
          throw new InvalidRecordError(`Batch has an invalid offset range: [${batch.baseOffset}, ${batch.lastOffset}]${this.tp}`, at);
        }
        const count = batch.recordsCount;
        if (count <= 0) throw new InvalidRecordError(`Invalid reported count for record batch: ${count}${this.tp}`, at);
        if (countFromOffsets !== count) {
          throw new InvalidRecordError(
            `Inconsistent batch offset range [${batch.baseOffset}, ${batch.lastOffset}] and count of records ${count}${this.tp}`,
            at,
          );
        }
      }
      if (batch.isControl) throw new InvalidRecordError(`Clients are not allowed to write control records${this.tp}`, at);
      if (batch.baseSequence < 0 && (batch.kind === 'v2' ? batch.hasProducerId : batch.producerId > NO_PRODUCER_ID)) {
        throw new InvalidRecordError(
          `Invalid sequence number ${batch.baseSequence} in record batch with producerId ${batch.producerId}${this.tp}`,
          at,
        );
      }
    }
    if (this.toMagic !== 2) checkLegacyProducerState(batch, this.toMagic, at);
  }

  /** Kafka `validateRecord` (+ `validateKey`, `validateTimestamp`); a CRC failure throws at once. */
  private validateRecord(batch: AnyRecordBatch, record: AnyRecord, index: number): ApiRecordError | undefined {
    if (batch.kind === 'legacy') {
      const legacy = record as LegacyRecord;
      if (legacy.magic !== batch.magic) {
        return {
          batchIndex: index,
          timestamp: false,
          message: `Record ${describe(record)}'s magic does not match outer magic ${batch.magic}${this.tp}`,
        };
      }
      // the inner messages of a compressed wrapper carry their own CRC
      if (batch.isCompressed && !legacy.isValid()) {
        throw new CorruptRecordError(`Record is corrupt (stored crc = ${legacy.crc})${this.tp}`, { position: batch.position });
      }
    }
    if (this.compacted && record.keySize < 0) {
      return { batchIndex: index, timestamp: false, message: `Compacted topic cannot accept message without key${this.tp}` };
    }
    const ts = record.timestamp;
    if (this.timestampType === 'CreateTime' && ts !== NO_TIMESTAMP) {
      // Java long arithmetic, overflow included
      const diff = BigInt.asIntN(64, this.now - ts);
      const before = this.config.messageTimestampBeforeMaxMs;
      const after = this.config.messageTimestampAfterMaxMs;
      if (diff > before || BigInt.asIntN(64, -diff) > after) {
        return {
          batchIndex: index,
          timestamp: true,
          message:
            `Timestamp ${ts} of message with offset ${record.offset} is out of range. The timestamp should be within ` +
            `[${BigInt.asIntN(64, this.now - before)}, ${BigInt.asIntN(64, this.now + after)}]`,
        };
      }
    } else if (batch.timestampType === 'LogAppendTime') {
      return {
        batchIndex: index,
        timestamp: true,
        message: `Invalid timestamp type in message ${describe(record)}. Producer should not set timestamp type to LogAppendTime.`,
      };
    }
    return undefined;
  }

  /** Kafka `processRecordErrors`: one error for the batch, listing its bad records. */
  private processRecordErrors(batch: AnyRecordBatch, errors: ApiRecordError[]): void {
    if (errors.length === 0) return;
    const recordErrors: RecordError[] = errors.map((e) => ({ batchIndex: e.batchIndex, message: e.message }));
    const at = { position: batch.position };
    if (errors.some((e) => e.timestamp)) {
      throw Object.assign(new InvalidTimestampError('One or more records have been rejected due to invalid timestamp', at), {
        recordErrors,
      });
    }
    const shown = recordErrors
      .slice(0, 3)
      .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`)
      .join(', ');
    throw Object.assign(
      new InvalidRecordError(
        `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
        at,
      ),
      { recordErrors },
    );
  }

  /**
   * The common case of {@link validateRecord} over a v2 batch in plain numbers (no BigInt per
   * record): CreateTime records whose timestamps all sit inside the allowed window, each with a key
   * when the topic is compacted. Returns undefined whenever anything needs the general path (which then
   * reports the precise per-record errors).
   */
  private scanV2(batch: RecordBatch): boolean {
    if (this.timestampType !== 'CreateTime' || batch.timestampType === 'LogAppendTime') return false;
    const needsKey = this.compacted;
    const base = readSafeInt64(batch.buf, batch.position + BASE_TIMESTAMP_OFFSET);
    if (!Number.isSafeInteger(base)) return false;
    const now = Number(this.now);
    const before = this.config.messageTimestampBeforeMaxMs;
    const after = this.config.messageTimestampAfterMaxMs;
    // beyond 2^53 ms the window is effectively open
    const lo = before >= TWO_53 ? -Infinity : now - Number(before);
    const hi = after >= TWO_53 ? Infinity : now + Number(after);
    const native = nativeAddon;
    if (native !== undefined) {
      // the records' structure in C (native/src/records.c), much faster than the JavaScript scan below, which
      // still decides (and reports) whatever the native one does not accept
      const start = batch.position + RECORD_BATCH_OVERHEAD;
      const end = batch.position + batch.sizeInBytes;
      const n = batch.recordsCount;
      if (n > 0 && end <= batch.buf.length && native.scanRecords(batch.buf, start, end, n, scanSummary)) {
        if (needsKey && scanSummary[2]! > 0) return false;
        const first = base + scanSummary[1]!;
        const last = base + scanSummary[0]!;
        // a record may carry -1 (no timestamp): the general path decides that case
        if (first <= -1 && -1 <= last) return false;
        if (first < lo || last > hi) return false;
        this.scanned = n;
        this.scannedMaxTimestamp = BigInt(last);
        return true;
      }
    }
    let maxDelta = -Infinity;
    let count = 0;
    const it = batch.recordIterator({ verifyCrc: false });
    // one reused layout: a Record object per record was half of this scan's time (1 MiB appends)
    const r = scanLayout;
    while (it.scanNext(r)) {
      const delta = r.timestampDelta;
      if (typeof delta !== 'number') return false;
      const ts = base + delta;
      if (ts !== -1 && (ts < lo || ts > hi)) return false;
      if (ts === -1 && base !== -1) return false; // keep -1 handling on the general path
      if (needsKey && r.keySize < 0) return false;
      if (delta > maxDelta) maxDelta = delta;
      count++;
    }
    this.scanned = count;
    this.scannedMaxTimestamp = count === 0 ? NO_TIMESTAMP : BigInt(base + maxDelta);
    return true;
  }

  private records(batch: AnyRecordBatch): AnyRecord[] {
    // the CRC was checked by analyze()
    return batch.records({ verifyCrc: false });
  }

  private checkConvertible(batch: AnyRecordBatch, record: AnyRecord): void {
    if (this.toMagic !== 2) {
      checkLegacyControl(batch, this.toMagic, { position: batch.position });
      checkLegacyHeaders(record.headerCount, this.toMagic, { position: batch.position });
    }
  }

  // -- path 1: uncompressed, same magic: in place (assignOffsetsNonCompressed) --

  assignOffsetsNonCompressed(): void {
    const initialOffset = this.counter;
    let maxTimestamp = NO_TIMESTAMP;
    let shallow = NO_OFFSET;
    const first = this.firstBatch(CompressionType.none);
    for (const batch of this.batches) {
      this.validateBatch(first, batch);
      let maxBatchTimestamp = NO_TIMESTAMP;
      if (batch.kind === 'v2' && this.scanV2(batch)) {
        this.counter += BigInt(this.scanned);
        this.assignedCount += this.scanned;
        maxBatchTimestamp = this.scannedMaxTimestamp;
      } else {
        const errors: ApiRecordError[] = [];
        const records = this.records(batch);
        for (let i = 0; i < records.length; i++) {
          const record = records[i]!;
          const err = this.validateRecord(batch, record, i);
          if (err) errors.push(err);
          this.counter++;
          this.assignedCount++;
          if (batch.magic > 0 && record.timestamp > maxBatchTimestamp) maxBatchTimestamp = record.timestamp;
        }
        this.processRecordErrors(batch, errors);
      }
      // the batch's last offset, one BigInt for both uses
      const last = this.counter - 1n;
      if (batch.magic > 0 && maxBatchTimestamp > maxTimestamp) {
        maxTimestamp = maxBatchTimestamp;
        shallow = last;
      }
      setLastOffset(batch, last);
      this.lastAssigned = last;
      if (batch.kind === 'v2') setPartitionLeaderEpoch(batch, this.ctx.partitionLeaderEpoch);
      if (batch.magic > 0) {
        if (this.timestampType === 'LogAppendTime') setMaxTimestamp(batch, 'LogAppendTime', this.now);
        else setMaxTimestamp(batch, this.timestampType, maxBatchTimestamp);
      }
    }
    if (this.timestampType === 'LogAppendTime') {
      maxTimestamp = this.now;
      if (this.toMagic === 0) {
        maxTimestamp = NO_TIMESTAMP;
        shallow = NO_OFFSET;
      } else if (this.toMagic === 1) {
        shallow = initialOffset; // single-record entries all carry the same time
      } else {
        shallow = this.lastAssigned;
      }
    }
    this.assignedMaxTimestamp = maxTimestamp;
    this.assignedShallow = shallow;
  }

  // -- path 2: uncompressed, other magic: rebuilt (convertAndAssignOffsetsNonCompressed) --

  convertAndAssignOffsetsNonCompressed(): { records: Buffer; info: BuiltInfo; batchCount: number } {
    const first = this.firstBatch(CompressionType.none);
    const kept: AnyRecord[] = [];
    for (const batch of this.batches) {
      this.validateBatch(first, batch);
      const errors: ApiRecordError[] = [];
      const records = this.records(batch);
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        const err = this.validateRecord(batch, record, i);
        if (err) errors.push(err);
        if (errors.length === 0) {
          this.checkConvertible(batch, record);
          kept.push(record);
        }
      }
      this.processRecordErrors(batch, errors);
    }
    return this.build(first, kept, { codec: CompressionType.none, level: undefined });
  }

  // -- path 3: compressed source or target (validateMessagesAndAssignOffsetsCompressed) --

  validateCompressed():
    | { inPlace: true; first: AnyRecordBatch; maxTimestamp: bigint; lastOffset: bigint }
    | { inPlace: false; records: Buffer; info: BuiltInfo; batchCount: number } {
    let inPlace = this.source === this.target.codec;
    const first = this.firstBatch(this.source);
    if (first.magic !== this.toMagic || this.toMagic === 0) inPlace = false;
    // control batches written uncompressed stay uncompressed
    if (this.source === CompressionType.none && first.isControl) inPlace = true;

    let maxTimestamp = NO_TIMESTAMP;
    let expectedInnerOffset = 0n;
    const kept: AnyRecord[] = [];
    for (const batch of this.batches) {
      this.validateBatch(first, batch);
      const errors: ApiRecordError[] = [];
      const records = this.records(batch);
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        const expectedOffset = expectedInnerOffset++;
        const err = this.validateRecord(batch, record, i);
        if (!err && batch.magic > 0 && this.toMagic > 0) {
          if (record.timestamp > maxTimestamp) maxTimestamp = record.timestamp;
          // some old clients number v1 inner messages wrongly: Kafka rewrites rather than rejects
          if (record.offset !== expectedOffset) inPlace = false;
        }
        if (err) errors.push(err);
        else kept.push(record);
      }
      this.processRecordErrors(batch, errors);
    }

    if (!inPlace) {
      for (const record of kept) this.checkConvertible(first, record);
      return { inPlace: false, ...this.build(first, kept, this.target) };
    }
    this.counter += BigInt(kept.length);
    const lastOffset = this.counter - 1n;
    setLastOffset(first, lastOffset);
    if (this.timestampType === 'LogAppendTime') maxTimestamp = this.now;
    if (this.toMagic >= 1) setMaxTimestamp(first, this.timestampType, maxTimestamp);
    if (this.toMagic >= 2 && first.kind === 'v2') setPartitionLeaderEpoch(first, this.ctx.partitionLeaderEpoch);
    return { inPlace: true, first, maxTimestamp, lastOffset };
  }

  /**
   * Kafka `MemoryRecords.builder(toMagic, compression, timestampType, baseOffset = counter,
   * logAppendTime = now, first batch's producer state, leader epoch)` + `appendWithOffset` per
   * record + `info()`.
   */
  private build(first: AnyRecordBatch, kept: readonly AnyRecord[], compression: Readonly<TargetCompression>): { records: Buffer; info: BuiltInfo; batchCount: number } {
    const baseOffset = this.counter;
    const n = kept.length;
    const logAppend = this.timestampType === 'LogAppendTime';
    const magic = this.toMagic;
    const at = { position: first.position };
    if (n === 0) {
      // nothing survived (a record-less batch from a non-client origin): nothing to write
      return { records: Buffer.alloc(0), info: { maxTimestamp: NO_TIMESTAMP, shallowOffsetOfMaxTimestamp: NO_OFFSET }, batchCount: 0 };
    }
    if (BigInt(n - 1) > 0x7fffffffn) throw new InvalidRecordError('Maximum offset delta exceeded', at);
    let maxTimestamp = NO_TIMESTAMP;
    let offsetOfMaxTimestamp = NO_OFFSET;
    const inputs: RecordInput[] = kept.map((r, i) => {
      // MemoryRecordsBuilder.appendLegacyRecord writes the append time into every v1 message under LogAppendTime
      const ts = magic < 2 && logAppend ? this.now : r.timestamp;
      if (magic > 0 && ts > maxTimestamp) {
        maxTimestamp = ts;
        offsetOfMaxTimestamp = baseOffset + BigInt(i);
      }
      return recordInput(r, i, ts);
    });
    let out: Buffer;
    try {
      if (magic === 2) {
        out = encodeRecordBatch(inputs, {
          baseOffset,
          partitionLeaderEpoch: this.ctx.partitionLeaderEpoch,
          compression: compression.codec,
          ...(compression.level !== undefined ? { compressionLevel: compression.level } : {}),
          timestampType: this.timestampType,
          logAppendTime: this.now,
          producerId: first.producerId,
          producerEpoch: first.producerEpoch,
          baseSequence: first.baseSequence,
          isTransactional: first.isTransactional,
        });
      } else {
        checkLegacyCompression(compression.codec, magic, at);
        out = writeLegacyMessageSet(inputs, {
          magic,
          baseOffset,
          compression: compression.codec,
          ...(compression.level !== undefined ? { compressionLevel: compression.level } : {}),
          // magic 0 has no timestamp type: written without one whatever the topic says
          timestampType: this.timestampType,
          logAppendTime: this.now,
        });
      }
    } catch (err) {
      // the encoders do not know where the batch came from: report the input batch
      if (err instanceof InvalidArgumentError) throw new InvalidRecordError(err.detail, { ...at, cause: err });
      if (err instanceof UnsupportedForMessageFormatError && err.position === undefined) {
        throw new UnsupportedForMessageFormatError(err.detail, { ...at, cause: err });
      }
      if (err instanceof UnsupportedCompressionError && err.position === undefined) {
        throw new UnsupportedCompressionError(err.detail, { ...at, cause: err });
      }
      throw err;
    }
    this.counter += BigInt(n);
    const lastOffset = this.counter - 1n;
    const batchLike = compression.codec !== CompressionType.none || magic >= 2;
    let info: BuiltInfo;
    if (logAppend) info = { maxTimestamp: this.now, shallowOffsetOfMaxTimestamp: batchLike ? lastOffset : baseOffset };
    else if (maxTimestamp === NO_TIMESTAMP) info = { maxTimestamp: NO_TIMESTAMP, shallowOffsetOfMaxTimestamp: NO_OFFSET };
    else info = { maxTimestamp, shallowOffsetOfMaxTimestamp: batchLike ? lastOffset : offsetOfMaxTimestamp };
    return { records: out, info, batchCount: batchLike ? 1 : n };
  }
}

/**
 * Validate a leader append and assign offsets from `ctx.nextOffset` (Kafka
 * `UnifiedLog.analyzeAndValidateRecords` + `LogValidator.validateMessagesAndAssignOffsets`, and the
 * max.message.bytes re-check after a rebuild). A trailing partial batch is dropped, as Kafka's
 * `trimInvalidBytes` does; input without any complete batch is refused ("Record batch has no
 * batches at all").
 */
export function validateAndAssignOffsets(records: Buffer, ctx: ValidationContext): ValidationResult {
  const config = ctx.config;
  const tp = ctx.topicPartition;
  // unless handed over, never touch the caller's bytes: work on a copy, in the caller's reusable
  // scratch when given (a fresh large Buffer per append costs page faults on this kind of machine)
  const buf = ctx.mutateInput === true ? records : copyInput(records, ctx.scratch);

  // -- analyzeAndValidateRecords --
  // a literal of the first batch, not `[]` + push (which reserves 17 slots): one batch is the usual append
  let batches: AnyRecordBatch[] | undefined;
  let source = 0;
  const reader = spareReader?.reset(buf, NO_CRC_CHECK) ?? new BatchReader(buf, NO_CRC_CHECK);
  spareReader = undefined;
  for (let batch = reader.nextBatch(); batch !== null; batch = reader.nextBatch()) {
    if (batch.kind === 'v2' && ctx.origin === 'client' && !isZeroInt64(batch.buf, batch.position)) {
      throw new InvalidRecordError(
        `The baseOffset of the record batch in the append${tp === undefined ? '' : ` to ${tp}`} should be 0, but it is ${batch.baseOffset}`,
        { position: batch.position },
      );
    }
    const size = batch.sizeInBytes;
    if (size > config.maxMessageBytes) {
      throw new RecordTooLargeError(
        `The record batch size in the append${tp === undefined ? '' : ` to ${tp}`} is ${size} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`,
        { position: batch.position },
      );
    }
    if (!batch.isValid()) {
      throw new CorruptRecordError(`Record is corrupt (stored crc = ${batch.crc})${tp === undefined ? '' : ` in topic partition ${tp}`}.`, {
        position: batch.position,
      });
    }
    if (batch.compressionType !== CompressionType.none) source = batch.compressionType;
    if (batches === undefined) batches = [batch];
    else batches.push(batch);
  }
  if (batches === undefined) throw new InvalidRecordError('Record batch has no batches at all', { position: 0 });
  // (a view only when something trails the batches: a Buffer view has a cost per append)
  const validBytes = reader.position === buf.length ? buf : buf.subarray(0, reader.position);

  // -- LogValidator --
  const target = targetCompressionOf(config, source);
  spareReader = reader.reset(NO_INPUT, NO_CRC_CHECK);
  const spare = spareValidator;
  spareValidator = undefined;
  const v = spare !== undefined ? spare.reset(ctx, batches, source, target) : new Validator(ctx, batches, source, target);
  try {
    return validateBatches(v, ctx, batches, validBytes, source, target);
  } finally {
    v.release();
    spareValidator = v;
  }
}

/** The BatchReader the next validation reuses (none while one reads: a nested one would make its own). */
let spareReader: BatchReader | undefined;
const NO_INPUT = Buffer.alloc(0);

/** What a released Validator holds instead of its last context: nothing of any log. */
const RELEASED_CONTEXT: ValidationContext = { config: DEFAULT_LOG_CONFIG, nextOffset: 0n, now: 0n, partitionLeaderEpoch: 0, origin: 'client' };

/** The Validator the next validation reuses (taken while one runs: a nested one would make its own). */
let spareValidator: Validator | undefined;
const NO_BATCHES: readonly AnyRecordBatch[] = [];

/** validateAndAssignOffsets after the batches were read: LogValidator's paths. */
function validateBatches(v: Validator, ctx: ValidationContext, batches: readonly AnyRecordBatch[], validBytes: Buffer, source: number, target: Readonly<TargetCompression>): ValidationResult {
  const logAppendTime = ctx.config.messageTimestampType === 'LogAppendTime' ? ctx.now : NO_TIMESTAMP;

  if (source === CompressionType.none && target.codec === CompressionType.none) {
    let sameMagic = true;
    for (let i = 0; i < batches.length; i++) if (batches[i]!.magic !== v.magic) sameMagic = false;
    if (sameMagic) {
      v.assignOffsetsNonCompressed();
      return {
        firstOffset: ctx.nextOffset,
        logAppendTime,
        sourceCompression: source,
        targetCompression: target.codec,
        records: validBytes,
        lastOffset: v.lastAssigned,
        maxTimestamp: v.assignedMaxTimestamp,
        shallowOffsetOfMaxTimestamp: v.assignedShallow,
        recordCount: v.assignedCount,
        batchCount: batches.length,
        batches,
        recompressed: false,
        magic: batches[0]!.magic,
      };
    }
  }
  // (made only off the in-place path, which every Produce of uncompressed records takes)
  const common = { firstOffset: ctx.nextOffset, logAppendTime, sourceCompression: source, targetCompression: target.codec };
  if (source === CompressionType.none && target.codec === CompressionType.none) {
    const built = v.convertAndAssignOffsetsNonCompressed();
    return rebuiltResult(ctx, v, built, common, batches[0]!);
  }
  const res = v.validateCompressed();
  if (res.inPlace) {
    return {
      firstOffset: common.firstOffset,
      logAppendTime: common.logAppendTime,
      sourceCompression: common.sourceCompression,
      targetCompression: common.targetCompression,
      records: validBytes,
      lastOffset: res.lastOffset,
      maxTimestamp: res.maxTimestamp,
      shallowOffsetOfMaxTimestamp: res.lastOffset,
      recordCount: Number(v.counter - ctx.nextOffset),
      batchCount: batches.length,
      batches,
      recompressed: false,
      magic: res.first.magic,
    };
  }
  return rebuiltResult(ctx, v, res, common, batches[0]!);
}

/** A copy of the input, in `scratch` when one is given (grown as needed and reused). */
function copyInput(records: Buffer, scratch: { buffer: Buffer } | undefined): Buffer {
  if (!scratch) return Buffer.from(records);
  if (scratch.buffer.length < records.length) scratch.buffer = Buffer.allocUnsafe(Math.max(records.length, scratch.buffer.length * 2));
  records.copy(scratch.buffer, 0);
  return scratch.buffer.subarray(0, records.length);
}

function rebuiltResult(
  ctx: ValidationContext,
  v: Validator,
  built: { records: Buffer; info: BuiltInfo; batchCount: number },
  common: Pick<ValidationResult, 'firstOffset' | 'logAppendTime' | 'sourceCompression' | 'targetCompression'>,
  first: AnyRecordBatch,
): ValidationResult {
  // the size may have changed: every output batch must still fit max.message.bytes
  const max = ctx.config.maxMessageBytes;
  const batches: AnyRecordBatch[] = [];
  for (const batch of new BatchReader(built.records, { verifyCrc: false })) {
    batches.push(batch);
    if (batch.sizeInBytes > max) {
      throw new RecordTooLargeError(
        `Message batch size is ${batch.sizeInBytes} bytes in append` +
          `${ctx.topicPartition === undefined ? '' : ` to partition ${ctx.topicPartition}`} which exceeds the maximum configured size of ${max}.`,
        { position: first.position },
      );
    }
  }
  return {
    firstOffset: common.firstOffset,
    logAppendTime: common.logAppendTime,
    sourceCompression: common.sourceCompression,
    targetCompression: common.targetCompression,
    records: built.records,
    lastOffset: v.counter - 1n,
    maxTimestamp: built.info.maxTimestamp,
    shallowOffsetOfMaxTimestamp: built.info.shallowOffsetOfMaxTimestamp,
    recordCount: Number(v.counter - ctx.nextOffset),
    batchCount: built.batchCount,
    batches,
    recompressed: true,
    magic: v.magic,
  };
}
