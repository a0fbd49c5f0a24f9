/**
 * One record of a v2 batch (storage spec §2.7, Kafka `DefaultRecord`), decoded.
 *
 * Key, value and header values are zero-copy views into the batch bytes (or into the batch's
 * decompressed records), so they stay valid as long as the caller keeps the source buffer intact.
 *
 * int64 decision: offsets and timestamps are exact `bigint`s, but records store only their int32
 * `offsetDelta` and their `timestampDelta` (a number unless it exceeds 2^53), and compute the
 * absolute `offset`/`timestamp` on access, so decoding allocates no BigInt per record.
 */
import type { RecordBatch } from './batch.js';
import { incrementSequence } from './sequence.js';

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

export class Record {
  constructor(
    /** The batch this record came from: batch-level facts (baseOffset, timestamp type, producer). */
    readonly batch: RecordBatch,
    /** Record attributes byte: unused by Kafka, read and kept. */
    readonly attributes: number,
    readonly timestampDelta: number | bigint,
    readonly offsetDelta: number,
    readonly key: Buffer | null,
    readonly value: Buffer | null,
    readonly headers: readonly RecordHeader[],
    /** Encoded size of the record including its length varint. */
    readonly sizeInBytes: number,
  ) {}

  get offset(): bigint {
    return this.batch.baseOffset + BigInt(this.offsetDelta);
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

  get keySize(): number {
    return this.key === null ? -1 : this.key.length;
  }

  get valueSize(): number {
    return this.value === null ? -1 : this.value.length;
  }

  get isControl(): boolean {
    return this.batch.isControl;
  }
}
