/**
 * Record batch v2 (Kafka `DefaultRecordBatch`): a zero-copy view over one batch.
 *
 * Three depths of decoding:
 * (a) header fields are getters over the bytes (nothing is parsed until asked for);
 * (b) `recordIterator()` parses records one at a time;
 * (c) `records()` decodes them all.
 * The CRC is verified before records are read unless `verifyCrc: false` is passed.
 */
import { readInt8, readInt16BE, readInt32BE, readUInt32BE } from '../bytes/big-endian.js';
import { anchorHiddenClass } from '../v8/map-anchors.js';
import { CorruptRecordError, InvalidRecordError, KafkaliteError } from '../errors.js';
import { crc32c } from './crc.js';
import { compressionName, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression/index.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
  type TimestampType,
} from './constants.js';
import type { Record } from './record.js';
import { RecordLayout } from './record-layout.js';
import { incrementSequence } from './sequence.js';
import { ByteReader, VarintError } from '../bytes/varint.js';
import { readInt64BE } from '../bytes/int64.js';

export interface RecordReadOptions {
  /** Verify the batch CRC before reading records (default true). */
  verifyCrc?: boolean;
  /** Cap on one batch's decompressed records (default 256 MiB). */
  maxDecompressedBytes?: number;
}

export class RecordBatch {
  /** Discriminates v2 batches from legacy (magic 0/1) ones in a mixed stream. */
  readonly kind = 'v2' as const;
  private crcChecked = false;

  /**
   * @param buf bytes holding the batch
   * @param position where the batch starts in `buf`; error positions are reported in `buf`'s terms
   */
  constructor(
    readonly buf: Buffer,
    readonly position: number = 0,
  ) {
    if (buf.length - position < RECORD_BATCH_OVERHEAD) {
      throw new CorruptRecordError(
        `Record batch is corrupt (the size ${buf.length - position} is smaller than the minimum allowed overhead ${RECORD_BATCH_OVERHEAD})`,
        { position },
      );
    }
  }

  get magic(): number {
    return readInt8(this.buf, this.position + MAGIC_OFFSET);
  }
  get baseOffset(): bigint {
    return readInt64BE(this.buf, this.position);
  }
  /** The length field: bytes after it. */
  get length(): number {
    return readInt32BE(this.buf, this.position + LENGTH_OFFSET);
  }
  /** Size of the whole batch on disk: length + 12. */
  get sizeInBytes(): number {
    return this.length + LOG_OVERHEAD;
  }
  get partitionLeaderEpoch(): number {
    return readInt32BE(this.buf, this.position + PARTITION_LEADER_EPOCH_OFFSET);
  }
  get crc(): number {
    return readUInt32BE(this.buf, this.position + CRC_OFFSET);
  }
  /** The attributes int16 as stored; Kafka interprets only its low byte. */
  get attributes(): number {
    return readInt16BE(this.buf, this.position + ATTRIBUTES_OFFSET);
  }
  /** The int16's low (second, big-endian) byte. */
  private get attributeByte(): number {
    return this.buf[this.position + ATTRIBUTES_OFFSET + 1]!;
  }
  get compressionType(): number {
    return this.attributeByte & COMPRESSION_CODEC_MASK;
  }
  get compression(): string {
    return compressionName(this.compressionType);
  }
  get timestampType(): TimestampType {
    return (this.attributeByte & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime';
  }
  get isTransactional(): boolean {
    return (this.attributeByte & TRANSACTIONAL_FLAG_MASK) !== 0;
  }
  get isControl(): boolean {
    return (this.attributeByte & CONTROL_FLAG_MASK) !== 0;
  }
  get hasDeleteHorizon(): boolean {
    return (this.attributeByte & DELETE_HORIZON_FLAG_MASK) !== 0;
  }
  /** KIP-534: the delete horizon, held in baseTimestamp when attribute bit 6 is set. */
  get deleteHorizonMs(): bigint | undefined {
    return this.hasDeleteHorizon ? this.baseTimestamp : undefined;
  }
  get lastOffsetDelta(): number {
    return readInt32BE(this.buf, this.position + LAST_OFFSET_DELTA_OFFSET);
  }
  /** baseOffset + lastOffsetDelta with Java long (wrapping) arithmetic, as Kafka computes it. */
  get lastOffset(): bigint {
    return BigInt.asIntN(64, this.baseOffset + BigInt(this.lastOffsetDelta));
  }
  get nextOffset(): bigint {
    return BigInt.asIntN(64, this.lastOffset + 1n);
  }
  get baseTimestamp(): bigint {
    return readInt64BE(this.buf, this.position + BASE_TIMESTAMP_OFFSET);
  }
  get maxTimestamp(): bigint {
    return readInt64BE(this.buf, this.position + MAX_TIMESTAMP_OFFSET);
  }
  get producerId(): bigint {
    return readInt64BE(this.buf, this.position + PRODUCER_ID_OFFSET);
  }
  get producerEpoch(): number {
    return readInt16BE(this.buf, this.position + PRODUCER_EPOCH_OFFSET);
  }
  get baseSequence(): number {
    return readInt32BE(this.buf, this.position + BASE_SEQUENCE_OFFSET);
  }
  /** -1 without a sequence, else `incrementSequence(baseSequence, lastOffsetDelta)`. */
  get lastSequence(): number {
    const base = this.baseSequence;
    return base < 0 ? -1 : incrementSequence(base, this.lastOffsetDelta);
  }
  /** producerId > -1, read from its high word: no BigInt per append (a negative id has a negative high word). */
  get hasProducerId(): boolean {
    return readInt32BE(this.buf, this.position + PRODUCER_ID_OFFSET) >= 0;
  }
  get recordsCount(): number {
    return readInt32BE(this.buf, this.position + RECORDS_COUNT_OFFSET);
  }

  /** The batch's own bytes (a view). */
  get bytes(): Buffer {
    return this.buf.subarray(this.position, this.position + this.sizeInBytes);
  }

  /** CRC-32C over attributes..end, as Kafka computes it. */
  computeChecksum(): number {
    return crc32c(this.buf, this.position + ATTRIBUTES_OFFSET, this.position + this.sizeInBytes);
  }

  /** Kafka's `isValid()`: size at least 61 and the stored CRC matches. */
  isValid(): boolean {
    return this.sizeInBytes >= RECORD_BATCH_OVERHEAD && this.computeChecksum() === this.crc;
  }

  /** Kafka's `ensureValid()`: throws CorruptRecordError on a size or CRC failure. */
  ensureValid(): void {
    if (this.crcChecked) return;
    const size = this.sizeInBytes;
    if (size < RECORD_BATCH_OVERHEAD) {
      throw new CorruptRecordError(
        `Record batch is corrupt (the size ${size} is smaller than the minimum allowed overhead ${RECORD_BATCH_OVERHEAD})`,
        { position: this.position },
      );
    }
    const computed = this.computeChecksum();
    const stored = this.crc;
    if (computed !== stored) {
      throw new CorruptRecordError(`Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`, {
        position: this.position,
      });
    }
    this.crcChecked = true;
  }

  /** Full decode (depth c). */
  records(options?: RecordReadOptions): Record[] {
    const it = this.recordIterator(options);
    const out: Record[] = [];
    for (let r = it.readNext(); r !== null; r = it.readNext()) out.push(r);
    return out;
  }

  /** Lazy decode (depth b). */
  recordIterator(options?: RecordReadOptions): RecordIterator {
    if (options?.verifyCrc !== false) this.ensureValid();
    const count = this.recordsCount;
    if (count < 0) {
      throw new InvalidRecordError(`Found invalid record count ${count} in magic v2 batch`, {
        position: this.position + RECORDS_COUNT_OFFSET,
      });
    }
    const start = this.position + RECORD_BATCH_OVERHEAD;
    const end = this.position + this.sizeInBytes;
    if (end > this.buf.length) {
      throw new CorruptRecordError(`Record batch declares ${this.sizeInBytes} bytes but only ${this.buf.length - this.position} are present`, {
        position: this.position,
      });
    }
    if (count === 0) return new RecordIterator(this, this.buf, start, start, 0, -1);
    const codec = this.compressionType;
    if (codec === 0) return new RecordIterator(this, this.buf, start, end, count, -1);
    let data: Buffer;
    try {
      data = decompress(codec, this.buf.subarray(start, end), {
        magic: 2,
        maxBytes: options?.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
      });
    } catch (err) {
      // codec positions count from the start of the compressed records
      throw err instanceof KafkaliteError ? err.shifted(start) : err;
    }
    return new RecordIterator(this, data, 0, data.length, count, this.position);
  }

  [Symbol.iterator](): RecordIterator {
    return this.recordIterator();
  }
}

/**
 * Parses records back to back from `buf[pos, end)`. For a compressed batch `buf` holds the
 * decompressed records and `batchPosition` is the batch's position in the caller's input, which is
 * what errors report (positions inside decompressed data mean nothing to the caller).
 */
export class RecordIterator implements IterableIterator<Record> {
  private readonly reader: ByteReader;
  private readIndex = 0;
  /** Reused by `readNext` (created on first use: `scanNext` callers bring their own). */
  private layout: RecordLayout | undefined = undefined;

  constructor(
    private readonly batch: RecordBatch,
    private readonly data: Buffer,
    start: number,
    end: number,
    private readonly count: number,
    private readonly batchPosition: number,
  ) {
    this.reader = new ByteReader(data, start, end);
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<Record> {
    const record = this.readNext();
    return record === null ? { done: true, value: undefined } : { done: false, value: record };
  }

  /** The next record, or null after the last one (then the batch must have been fully consumed). */
  readNext(): Record | null {
    const layout = (this.layout ??= new RecordLayout());
    return this.scanNext(layout) ? layout.toRecord(this.batch) : null;
  }

  /**
   * `readNext` without creating a `Record`: parses and validates the next record exactly as
   * `readNext` does (same errors) and writes where its parts lie into `out` (reusable, see
   * record-layout.ts). Returns false after the last record.
   */
  scanNext(out: RecordLayout): boolean {
    const reader = this.reader;
    if (this.readIndex >= this.count) {
      if (this.readIndex === this.count && reader.pos < reader.end) {
        this.readIndex++;
        throw this.error('Incorrect declared batch size, records still remaining in file', reader.pos);
      }
      return false;
    }
    this.readIndex++;
    if (reader.pos >= reader.end) {
      throw this.error('Incorrect declared batch size, premature EOF reached', reader.pos);
    }
    const recordStart = reader.pos;
    const outerEnd = reader.end;
    try {
      this.readRecord(reader, outerEnd, out);
      return true;
    } catch (err) {
      if (err instanceof KafkaliteError) throw err;
      if (err instanceof VarintError) {
        throw this.error(`Found invalid record structure: ${err.message}`, err.position, err);
      }
      throw this.error('Found invalid record structure', recordStart, err);
    } finally {
      reader.end = outerEnd;
    }
  }

  private error(message: string, at: number, cause?: unknown): InvalidRecordError {
    // Inside a compressed batch, report the batch start: the caller never saw these bytes.
    const position = this.batchPosition >= 0 ? this.batchPosition : at;
    return new InvalidRecordError(message, { position, cause });
  }

  /** Reads and validates one record (Kafka `DefaultRecord.readFrom`) into `out`, materialising nothing. */
  private readRecord(reader: ByteReader, outerEnd: number, out: RecordLayout): void {
    const recordStart = reader.pos;
    const bodySize = reader.readVarint();
    const bodyStart = reader.pos;
    if (bodySize < 0 || bodySize > outerEnd - bodyStart) {
      throw this.error(
        `Invalid record size: expected ${bodySize} bytes in record payload, but instead the buffer has only ${outerEnd - bodyStart} remaining bytes.`,
        recordStart,
      );
    }
    const bodyEnd = bodyStart + bodySize;
    reader.end = bodyEnd; // nothing in a record may read past its declared body
    out.data = this.data;
    out.recordStart = recordStart;
    out.recordEnd = bodyEnd;
    out.attributes = reader.readInt8();
    out.timestampDelta = reader.readVarlong();
    out.offsetDeltaStart = reader.pos;
    out.offsetDelta = reader.readVarint();

    let keySize = reader.readVarint();
    const keyStart = reader.pos;
    if (keySize >= 0) {
      if (keySize > bodyEnd - keyStart) throw this.error('Found invalid record structure: key exceeds record', keyStart);
      reader.pos += keySize;
    } else {
      keySize = -1;
    }
    let valueSize = reader.readVarint();
    const valueStart = reader.pos;
    if (valueSize >= 0) {
      if (valueSize > bodyEnd - valueStart) throw this.error('Found invalid record structure: value exceeds record', valueStart);
      reader.pos += valueSize;
    } else {
      valueSize = -1;
    }

    const headerCount = reader.readVarint();
    const headersStart = reader.pos;
    if (headerCount < 0) throw this.error(`Found invalid number of record headers ${headerCount}`, headersStart);
    if (headerCount > bodyEnd - headersStart) {
      throw this.error(
        `Found invalid number of record headers. ${headerCount} is larger than the remaining size of the buffer`,
        headersStart,
      );
    }
    for (let i = 0; i < headerCount; i++) {
      const hkSize = reader.readVarint();
      if (hkSize < 0) throw this.error(`Invalid negative header key size ${hkSize}`, reader.pos);
      if (hkSize > bodyEnd - reader.pos) throw this.error('Found invalid record structure: header key exceeds record', reader.pos);
      reader.pos += hkSize;
      const hvSize = reader.readVarint();
      if (hvSize >= 0) {
        if (hvSize > bodyEnd - reader.pos) throw this.error('Found invalid record structure: header value exceeds record', reader.pos);
        reader.pos += hvSize;
      }
    }
    if (reader.pos !== bodyEnd) {
      throw this.error(
        `Invalid record size: expected to read ${bodySize} bytes in record payload, but instead read ${reader.pos - bodyStart}`,
        recordStart,
      );
    }
    out.keyStart = keyStart;
    out.keySize = keySize;
    out.valueStart = valueStart;
    out.valueSize = valueSize;
    out.headersStart = headersStart;
    out.headerCount = headerCount;
  }
}

anchorHiddenClass(new RecordBatch(Buffer.alloc(RECORD_BATCH_OVERHEAD)));
