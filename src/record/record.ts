/**
 * One record of a v2 batch (Kafka `DefaultRecord`), decoded.
 *
 * Decoding validates the whole record structure (every length, the header count, the declared body
 * size) but materialises nothing: key, value and headers are created on first access as zero-copy
 * views into the batch bytes (or the batch's decompressed records), and cached. A Buffer view costs
 * more than parsing the rest of a record (bench/README.md), so a consumer that never looks at keys
 * does not pay for them. The views stay valid while the source buffer is left intact.
 *
 * int64 decision: offsets and timestamps are exact `bigint`s, but records store only their int32
 * `offsetDelta` and their `timestampDelta` (a number unless it exceeds 2^53), and compute the
 * absolute `offset`/`timestamp` on access, so decoding allocates no BigInt per record.
 */
import type { RecordBatch } from './batch.js';
import { incrementSequence } from './sequence.js';
import { ByteReader } from '../bytes/varint.js';

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

export class Record {
  private keyView: Buffer | null | undefined = undefined;
  private valueView: Buffer | null | undefined = undefined;
  private headerList: readonly RecordHeader[] | undefined = undefined;

  constructor(
    /** The batch this record came from: batch-level facts (baseOffset, timestamp type, producer). */
    readonly batch: RecordBatch,
    /** Bytes the record was parsed from (the batch, or its decompressed records). */
    private readonly data: Buffer,
    /** Record attributes byte: unused by Kafka, read and kept. */
    readonly attributes: number,
    readonly timestampDelta: number | bigint,
    readonly offsetDelta: number,
    private readonly keyStart: number,
    /** Key length in bytes, -1 for a null key (any negative stored length reads as null). */
    readonly keySize: number,
    private readonly valueStart: number,
    /** Value length in bytes, -1 for a null value. */
    readonly valueSize: number,
    private readonly headersStart: number,
    readonly headerCount: number,
    /** Encoded size of the record including its length varint. */
    readonly sizeInBytes: number,
  ) {}

  get key(): Buffer | null {
    if (this.keyView === undefined) {
      this.keyView = this.keySize < 0 ? null : this.data.subarray(this.keyStart, this.keyStart + this.keySize);
    }
    return this.keyView;
  }

  get value(): Buffer | null {
    if (this.valueView === undefined) {
      this.valueView = this.valueSize < 0 ? null : this.data.subarray(this.valueStart, this.valueStart + this.valueSize);
    }
    return this.valueView;
  }

  /** Headers in stored order; keys decoded as UTF-8 like Kafka's `Header.key()`. */
  get headers(): readonly RecordHeader[] {
    if (this.headerList === undefined) this.headerList = this.readHeaders();
    return this.headerList;
  }

  /**
   * Just the header keys, in stored order: what kafka-dump-log.sh prints per record. No value views
   * are made (each one is a Buffer object: on a dump of millions of records that is GC time).
   */
  headerKeys(): string[] {
    if (this.headerList !== undefined) return this.headerList.map((h) => h.key);
    if (this.headerCount === 0) return [];
    const data = this.data;
    const reader = new ByteReader(data, this.headersStart, data.length);
    const keys: string[] = [];
    for (let i = 0; i < this.headerCount; i++) {
      const keySize = reader.readVarint();
      keys.push(decodeUtf8(data, reader.pos, reader.pos + keySize));
      reader.pos += keySize;
      const valueSize = reader.readVarint();
      if (valueSize > 0) reader.pos += valueSize;
    }
    return keys;
  }

  private readHeaders(): readonly RecordHeader[] {
    if (this.headerCount === 0) return NO_HEADERS;
    // The structure was validated when the record was decoded, so this cannot fail.
    const data = this.data;
    const reader = new ByteReader(data, this.headersStart, data.length);
    const list: RecordHeader[] = [];
    for (let i = 0; i < this.headerCount; i++) {
      const keySize = reader.readVarint();
      const key = decodeUtf8(data, reader.pos, reader.pos + keySize);
      reader.pos += keySize;
      const valueSize = reader.readVarint();
      let value: Buffer | null = null;
      if (valueSize >= 0) {
        value = data.subarray(reader.pos, reader.pos + valueSize);
        reader.pos += valueSize;
      }
      list.push({ key, value });
    }
    return list;
  }

  /** baseOffset + offsetDelta with Java long (wrapping) arithmetic, as Kafka computes it. */
  get offset(): bigint {
    return BigInt.asIntN(64, this.batch.baseOffset + BigInt(this.offsetDelta));
  }

  /**
   * Kafka's rule: under LogAppendTime every record reports the batch's maxTimestamp, whatever its
   * stored delta (`DefaultRecordBatch.RecordIterator`).
   */
  get timestamp(): bigint {
    const batch = this.batch;
    if (batch.timestampType === 'LogAppendTime') return batch.maxTimestamp;
    return BigInt.asIntN(64, batch.baseTimestamp + BigInt(this.timestampDelta));
  }

  /** `incrementSequence(baseSequence, offsetDelta)`, or -1 when the batch has no sequence. */
  get sequence(): number {
    const base = this.batch.baseSequence;
    return base < 0 ? -1 : incrementSequence(base, this.offsetDelta);
  }

  get isControl(): boolean {
    return this.batch.isControl;
  }
}

/** UTF-8 decode with an ASCII fast path: header keys are short and almost always ASCII. */
function decodeUtf8(buf: Buffer, start: number, end: number): string {
  if (end - start <= 16) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c >= 0x80) return buf.toString('utf8', start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return buf.toString('utf8', start, end);
}
