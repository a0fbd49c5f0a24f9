/**
 * Legacy message sets, magic 0 and 1 (Kafka `LegacyRecord`,
 * `AbstractLegacyRecordBatch`). One log entry is offset (int64) + size (int32) + message:
 *
 *   crc uint32 (CRC-32 IEEE over magic..end) | magic int8 | attributes int8 |
 *   timestamp int64 (v1 only) | key length int32 + key | value length int32 + value
 *
 * An uncompressed entry is a batch holding one record: itself. A compressed entry is a *wrapper*
 * whose value is a compressed message set of inner entries; its offset is the last inner offset.
 * Inner offsets are absolute under magic 0 and relative (0, 1, ...) under magic 1, where
 * absolute = wrapperOffset - lastInnerOffset + innerOffset (a wrapper offset of 0, which some
 * librdkafka versions send, means base 0). Inner v1 messages report the wrapper's timestamp type,
 * and the wrapper's timestamp when that type is LogAppendTime.
 */
import { CorruptRecordError, InvalidRecordError, KafkaliteError } from '../errors.js';
import { compressionName, decompress, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression/index.js';
import { LOG_OVERHEAD, MIN_ENTRY_SIZE, TIMESTAMP_TYPE_MASK } from './constants.js';
import { crc32 } from './crc.js';
import type { RecordReadOptions } from './batch.js';
import { NO_HEADERS, type RecordHeader } from './record.js';

export type LegacyTimestampType = 'NoTimestampType' | 'CreateTime' | 'LogAppendTime';

/*
 * A legacy message's header (Kafka `LegacyRecord`), after the 12-byte log prefix; offsets chain
 * from the field sizes:
 *
 *   field        offset v0  offset v1  size
 *   crc                  0          0     4  CRC-32 (IEEE) over magic..end
 *   magic                4          4     1
 *   attributes           5          5     1
 *   timestamp            -          6     8  v1 only
 *   key length           6         14     4  then the key
 *   value length     6+4+k     14+4+k     4  then the value
 */
const CRC_OFFSET = 0;
const CRC_LENGTH = 4;
const MAGIC_OFFSET = CRC_OFFSET + CRC_LENGTH;
const MAGIC_LENGTH = 1;
const ATTRIBUTES_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
const ATTRIBUTES_LENGTH = 1;
const TIMESTAMP_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
const TIMESTAMP_LENGTH = 8;
const KEY_SIZE_OFFSET_V0 = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
const KEY_SIZE_OFFSET_V1 = TIMESTAMP_OFFSET + TIMESTAMP_LENGTH;
const KEY_SIZE_LENGTH = 4;
const VALUE_SIZE_LENGTH = 4;
/** A v0 message with a null key and value. */
export const RECORD_OVERHEAD_V0 = KEY_SIZE_OFFSET_V0 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH;
/** A v1 message with a null key and value. */
export const RECORD_OVERHEAD_V1 = KEY_SIZE_OFFSET_V1 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH;
const COMPRESSION_CODEC_MASK = 0x07;
const ZSTD = 4;

/**
 * One legacy message as stored: the fields every legacy record and batch is read from. `start` is
 * where the message (its crc) begins and `size` its length, both in `buf`.
 */
class LegacyMessage {
  readonly magic: number;
  readonly attributes: number;
  private keySizeField = -1;
  private keyStart = 0;
  private valueSizeField = -1;
  private valueStart = 0;
  /** Set when the key/value lengths do not fit the message: thrown when they are read, as Kafka does. */
  private layoutError: KafkaliteError | undefined;

  constructor(
    readonly buf: Buffer,
    readonly start: number,
    readonly size: number,
    /** Position reported in errors (the entry's position in the caller's input). */
    readonly errorPosition: number,
  ) {
    if (size < RECORD_OVERHEAD_V0) {
      throw new CorruptRecordError(`Record is corrupt (crc could not be retrieved as the record is too small, size = ${size})`, {
        position: errorPosition,
      });
    }
    this.magic = buf.readInt8(start + MAGIC_OFFSET);
    if (this.magic !== 0 && this.magic !== 1) {
      throw new CorruptRecordError(`Invalid magic found in record: ${this.magic}`, { position: errorPosition });
    }
    if (this.magic === 1 && size < RECORD_OVERHEAD_V1) {
      throw new CorruptRecordError(`Record is corrupt (size ${size} is below the magic v1 overhead ${RECORD_OVERHEAD_V1})`, {
        position: errorPosition,
      });
    }
    this.attributes = buf[start + ATTRIBUTES_OFFSET]!;
    this.readLayout();
  }

  private readLayout(): void {
    const { buf, start, size } = this;
    const end = start + size;
    const keySizeAt = start + (this.magic === 0 ? KEY_SIZE_OFFSET_V0 : KEY_SIZE_OFFSET_V1);
    const keySize = buf.readInt32BE(keySizeAt);
    this.keyStart = keySizeAt + KEY_SIZE_LENGTH;
    const keyBytes = keySize < 0 ? 0 : keySize;
    if (keyBytes > end - this.keyStart - VALUE_SIZE_LENGTH) {
      this.layoutError = new InvalidRecordError(`Record is corrupt (key size ${keySize} exceeds the message size ${size})`, {
        position: this.errorPosition,
      });
      return;
    }
    this.keySizeField = keySize < 0 ? -1 : keySize;
    const valueSizeAt = this.keyStart + keyBytes;
    const valueSize = buf.readInt32BE(valueSizeAt);
    this.valueStart = valueSizeAt + VALUE_SIZE_LENGTH;
    if (valueSize > end - this.valueStart) {
      this.layoutError = new InvalidRecordError(`Record is corrupt (value size ${valueSize} exceeds the message size ${size})`, {
        position: this.errorPosition,
      });
      return;
    }
    this.valueSizeField = valueSize < 0 ? -1 : valueSize;
  }

  private checkLayout(): void {
    if (this.layoutError) throw this.layoutError;
  }
  get keySize(): number {
    this.checkLayout();
    return this.keySizeField;
  }
  get valueSize(): number {
    this.checkLayout();
    return this.valueSizeField;
  }
  /** Where the value starts in `buf` (for error positions inside a wrapper's compressed value). */
  get valueOffset(): number {
    this.checkLayout();
    return this.valueStart;
  }

  get crc(): number {
    return this.buf.readUInt32BE(this.start + CRC_OFFSET);
  }
  computeChecksum(): number {
    return crc32(this.buf, this.start + MAGIC_OFFSET, this.start + this.size);
  }
  isValid(): boolean {
    return this.computeChecksum() === this.crc;
  }
  get compressionType(): number {
    return this.attributes & COMPRESSION_CODEC_MASK;
  }
  /** The message's own timestamp: -1 for magic 0. */
  get ownTimestamp(): bigint {
    return this.magic === 0 ? -1n : this.buf.readBigInt64BE(this.start + TIMESTAMP_OFFSET);
  }
  get ownTimestampType(): LegacyTimestampType {
    if (this.magic === 0) return 'NoTimestampType';
    return (this.attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime';
  }
  key(): Buffer | null {
    const n = this.keySize;
    return n < 0 ? null : this.buf.subarray(this.keyStart, this.keyStart + n);
  }
  value(): Buffer | null {
    const n = this.valueSize;
    return n < 0 ? null : this.buf.subarray(this.valueStart, this.valueStart + n);
  }
}

/**
 * A record of a legacy batch: the uncompressed entry itself, or one inner message of a wrapper.
 * Same shape as a v2 `Record` (offset, timestamp, key, value, headers, sequence), plus the legacy
 * message's own `crc` and validity that kafka-dump-log.sh prints.
 */
export class LegacyRecord {
  readonly headers: readonly RecordHeader[] = NO_HEADERS;
  readonly headerCount = 0;
  readonly sequence = -1;
  readonly isControl = false;

  /**
   * `offset` and `timestamp` are given for inner messages of a wrapper (computed from the
   * wrapper); for an uncompressed entry they are undefined and read from the entry on access, so
   * decoding allocates no BigInt per record.
   */
  constructor(
    private readonly message: LegacyMessage,
    private readonly givenOffset: bigint | undefined,
    /** Type after wrapper inheritance (inner v1 messages report the wrapper's type). */
    readonly timestampType: LegacyTimestampType,
    private readonly givenTimestamp: bigint | undefined,
  ) {}

  get offset(): bigint {
    return this.givenOffset ?? this.message.buf.readBigInt64BE(this.message.start - LOG_OVERHEAD);
  }
  get timestamp(): bigint {
    return this.givenTimestamp ?? this.message.ownTimestamp;
  }
  get magic(): number {
    return this.message.magic;
  }
  get attributes(): number {
    return this.message.attributes;
  }
  get crc(): number {
    return this.message.crc;
  }
  isValid(): boolean {
    return this.message.isValid();
  }
  get keySize(): number {
    return this.message.keySize;
  }
  get valueSize(): number {
    return this.message.valueSize;
  }
  get key(): Buffer | null {
    return this.message.key();
  }
  get value(): Buffer | null {
    return this.message.value();
  }
  get compressionType(): number {
    return this.message.compressionType;
  }
  /** Encoded size of the entry (offset + size + message). */
  get sizeInBytes(): number {
    return this.message.size + LOG_OVERHEAD;
  }
}

/** One legacy log entry seen as a batch (Kafka `AbstractLegacyRecordBatch`). */
export class LegacyRecordBatch {
  readonly kind = 'legacy' as const;
  private readonly message: LegacyMessage;
  private inner: LegacyRecord[] | undefined;
  private crcChecked = false;

  constructor(
    readonly buf: Buffer,
    readonly position: number = 0,
  ) {
    if (buf.length - position < LOG_OVERHEAD + RECORD_OVERHEAD_V0) {
      throw new CorruptRecordError(`Legacy entry is truncated: ${buf.length - position} bytes`, { position });
    }
    const size = buf.readInt32BE(position + 8);
    if (size < MIN_ENTRY_SIZE || size > buf.length - position - LOG_OVERHEAD) {
      throw new CorruptRecordError(`Legacy entry size ${size} is invalid for the ${buf.length - position} bytes present`, { position });
    }
    this.message = new LegacyMessage(buf, position + LOG_OVERHEAD, size, position);
  }

  get magic(): number {
    return this.message.magic;
  }
  /** The entry's offset: for a wrapper, the offset of its last inner message. */
  get offset(): bigint {
    return this.buf.readBigInt64BE(this.position);
  }
  get lastOffset(): bigint {
    return this.offset;
  }
  get nextOffset(): bigint {
    return BigInt.asIntN(64, this.offset + 1n);
  }
  /** First record's offset; a compressed wrapper must be decompressed to know it (as in Kafka). */
  get baseOffset(): bigint {
    return this.isCompressed ? this.records()[0]!.offset : this.offset;
  }
  get sizeInBytes(): number {
    return this.message.size + LOG_OVERHEAD;
  }
  get crc(): number {
    return this.message.crc;
  }
  computeChecksum(): number {
    return this.message.computeChecksum();
  }
  isValid(): boolean {
    return this.message.isValid();
  }
  ensureValid(): void {
    if (this.crcChecked) return;
    const stored = this.crc;
    const computed = this.computeChecksum();
    if (stored !== computed) {
      throw new CorruptRecordError(`Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`, {
        position: this.position,
      });
    }
    this.crcChecked = true;
  }
  get attributes(): number {
    return this.message.attributes;
  }
  get compressionType(): number {
    return this.message.compressionType;
  }
  get compression(): string {
    return compressionName(this.compressionType);
  }
  get isCompressed(): boolean {
    return this.compressionType !== 0;
  }
  get timestampType(): LegacyTimestampType {
    return this.message.ownTimestampType;
  }
  /** The wrapper's (or single message's) timestamp; -1 for magic 0. */
  get maxTimestamp(): bigint {
    return this.message.ownTimestamp;
  }
  get keySize(): number {
    return this.message.keySize;
  }
  get valueSize(): number {
    return this.message.valueSize;
  }

  // Facts a legacy batch does not have, with Kafka's sentinel values.
  readonly producerId = -1n;
  readonly producerEpoch = -1;
  readonly baseSequence = -1;
  readonly lastSequence = -1;
  readonly partitionLeaderEpoch = -1;
  readonly isTransactional = false;
  readonly isControl = false;
  readonly hasDeleteHorizon = false;
  readonly deleteHorizonMs: bigint | undefined = undefined;
  /** Kafka's `countOrNull()`: legacy batches do not know their record count. */
  readonly recordsCount: number | null = null;

  /** The batch's own bytes (a view). */
  get bytes(): Buffer {
    return this.buf.subarray(this.position, this.position + this.sizeInBytes);
  }

  /** The records: the entry itself, or the inner messages of a compressed wrapper. */
  records(options?: RecordReadOptions): LegacyRecord[] {
    if (options?.verifyCrc !== false) this.ensureValid();
    if (this.inner) return this.inner;
    const m = this.message;
    if (!this.isCompressed) {
      this.inner = [new LegacyRecord(m, undefined, m.ownTimestampType, undefined)];
    } else {
      this.inner = this.readInner(options?.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES);
    }
    return this.inner;
  }

  [Symbol.iterator](): Iterator<LegacyRecord> {
    return this.records()[Symbol.iterator]();
  }

  /** Kafka's `DeepRecordsIterator`. */
  private readInner(maxBytes: number): LegacyRecord[] {
    const wrapper = this.message;
    const at = this.position;
    if (wrapper.compressionType === ZSTD) {
      throw new InvalidRecordError(`Invalid wrapper compressionType found in legacy deep record iterator ${wrapper.magic}`, {
        position: at,
      });
    }
    const value = wrapper.value();
    if (value === null) {
      throw new InvalidRecordError(`Found invalid compressed record set with null value (magic = ${wrapper.magic})`, { position: at });
    }
    let data: Buffer;
    try {
      data = decompress(wrapper.compressionType, value, { magic: wrapper.magic, maxBytes });
    } catch (err) {
      throw err instanceof KafkaliteError ? err.shifted(wrapper.valueOffset) : err;
    }
    const messages: { offset: bigint; message: LegacyMessage }[] = [];
    let pos = 0;
    // DataLogInputStream: an incomplete entry at the end of the stream ends it silently
    while (data.length - pos >= LOG_OVERHEAD) {
      const size = data.readInt32BE(pos + 8);
      if (size < MIN_ENTRY_SIZE) {
        throw new CorruptRecordError(`Record size is less than the minimum record overhead (${MIN_ENTRY_SIZE})`, { position: at });
      }
      if (size > data.length - pos - LOG_OVERHEAD) break;
      messages.push({ offset: data.readBigInt64BE(pos), message: new LegacyMessage(data, pos + LOG_OVERHEAD, size, at) });
      pos += LOG_OVERHEAD + size;
    }
    if (messages.length === 0) {
      throw new InvalidRecordError('Found invalid compressed record set with no inner records', { position: at });
    }
    let absoluteBase = -1n;
    if (wrapper.magic === 1) {
      const wrapperOffset = this.offset;
      if (wrapperOffset === 0n) {
        absoluteBase = 0n; // produce data from certain librdkafka versions
      } else {
        const lastInner = messages[messages.length - 1]!.offset;
        if (wrapperOffset < lastInner) {
          throw new InvalidRecordError(
            `Found invalid wrapper offset in compressed v1 message set, wrapper offset '${wrapperOffset}' is less than the last inner message offset '${lastInner}' and it is not zero.`,
            { position: at },
          );
        }
        absoluteBase = wrapperOffset - lastInner;
      }
    }
    const wrapperType = wrapper.ownTimestampType;
    const wrapperTs = wrapper.ownTimestamp;
    return messages.map(({ offset, message }) => {
      if (message.compressionType !== 0) {
        throw new InvalidRecordError('Inner messages must not be compressed', { position: at });
      }
      const abs = wrapper.magic === 1 ? BigInt.asIntN(64, absoluteBase + offset) : offset;
      if (message.magic === 0) return new LegacyRecord(message, abs, 'NoTimestampType', -1n);
      // an inner v1 message takes the wrapper's type (NoTimestampType under a magic-0 wrapper), and
      // the wrapper's timestamp under LogAppendTime (Kafka LegacyRecord with wrapper timestamp/type)
      const type = wrapperType;
      const ts = type === 'LogAppendTime' ? wrapperTs : message.ownTimestamp;
      return new LegacyRecord(message, abs, type, ts);
    });
  }
}
