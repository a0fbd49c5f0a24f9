/**
 * Splitting a byte stream (a Fetch response's records, a produce request's records, a segment
 * file) into batches, by Kafka's `ByteBufferLogInputStream` rules:
 * fewer than 12 bytes left, fewer than 17, or less than a whole batch left ends the stream (a
 * trailing partial batch is *incomplete*, not corrupt: Fetch responses end that way); a size field
 * below 14 or above the caller's maximum, or a magic outside 0..2, is corrupt.
 *
 * It dispatches on the magic byte at offset 16, so mixed v0/v1/v2 streams (a topic upgraded from
 * 0.10 holds magic-1 messages followed by v2 batches) read as one sequence of batches.
 */

/** A batch of any magic: v2 (`kind: 'v2'`) or a legacy magic 0/1 entry (`kind: 'legacy'`). */
export type AnyRecordBatch = RecordBatch | LegacyRecordBatch;
import { anchorHiddenClass } from '../v8/map-anchors.js';
import { CorruptRecordError } from '../errors.js';
import { readInt8, readInt32BE } from '../bytes/big-endian.js';
import { RecordBatch } from './batch.js';
import { LegacyRecordBatch } from './legacy.js';
import {
  HEADER_SIZE_UP_TO_MAGIC,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_ENTRY_SIZE,
  RECORD_BATCH_OVERHEAD,
} from './constants.js';

export interface BatchReaderOptions {
  /** Verify each batch's CRC as it is yielded (default true). */
  verifyCrc?: boolean;
  /** Largest acceptable batch size field (default Int32 max, as `MemoryRecords`). */
  maxBatchSize?: number;
  /** Where to start in the buffer (default 0). */
  position?: number;
  /** Stop before this byte (default the buffer's end). */
  end?: number;
}

/** Iterates the complete batches of a buffer; afterwards `incompleteBytes` tells what was left. */
export class BatchReader implements IterableIterator<AnyRecordBatch> {
  /** Position of the next unread batch. */
  position: number;
  private end: number;
  private verifyCrc: boolean;
  private maxBatchSize: number;

  constructor(
    public buf: Buffer,
    options: BatchReaderOptions = {},
  ) {
    this.position = options.position ?? 0;
    this.end = options.end ?? buf.length;
    this.verifyCrc = options.verifyCrc ?? true;
    this.maxBatchSize = options.maxBatchSize ?? 0x7fffffff;
  }

  /** This reader over another buffer, as if new (the log validator reuses one: an object per append otherwise). */
  reset(buf: Buffer, options: BatchReaderOptions = {}): this {
    this.buf = buf;
    this.position = options.position ?? 0;
    this.end = options.end ?? buf.length;
    this.verifyCrc = options.verifyCrc ?? true;
    this.maxBatchSize = options.maxBatchSize ?? 0x7fffffff;
    return this;
  }

  [Symbol.iterator](): this {
    return this;
  }

  /** Bytes after the last complete batch: a partial trailing batch (0 when the input ended cleanly). */
  get incompleteBytes(): number {
    return this.end - this.position;
  }

  next(): IteratorResult<AnyRecordBatch> {
    const batch = this.nextBatch();
    return batch === null ? { done: true, value: undefined } : { done: false, value: batch };
  }

  nextBatch(): AnyRecordBatch | null {
    const buf = this.buf;
    const pos = this.position;
    const remaining = this.end - pos;
    if (remaining < LOG_OVERHEAD) return null;
    const size = readInt32BE(buf, pos + LENGTH_OFFSET);
    if (size < MIN_ENTRY_SIZE) {
      throw new CorruptRecordError(`Record size ${size} is less than the minimum record overhead (${MIN_ENTRY_SIZE})`, {
        position: pos,
      });
    }
    if (size > this.maxBatchSize) {
      throw new CorruptRecordError(`Record size ${size} exceeds the largest allowable message size (${this.maxBatchSize})`, {
        position: pos,
      });
    }
    if (remaining < HEADER_SIZE_UP_TO_MAGIC) return null;
    const magic = readInt8(buf, pos + MAGIC_OFFSET);
    if (magic < 0 || magic > 2) {
      throw new CorruptRecordError(`Invalid magic found in record: ${magic}`, { position: pos + MAGIC_OFFSET });
    }
    if (remaining < size + LOG_OVERHEAD) return null;
    // The whole batch is present (checked above), so the views can share the caller's buffer.
    if (magic < 2) {
      const legacy = new LegacyRecordBatch(buf, pos);
      if (this.verifyCrc) legacy.ensureValid();
      this.position = pos + size + LOG_OVERHEAD;
      return legacy;
    }
    if (size + LOG_OVERHEAD < RECORD_BATCH_OVERHEAD) {
      throw new CorruptRecordError(
        `Record batch is corrupt (the size ${size + LOG_OVERHEAD} is smaller than the minimum allowed overhead ${RECORD_BATCH_OVERHEAD})`,
        { position: pos },
      );
    }
    const batch = new RecordBatch(buf, pos);
    if (this.verifyCrc) batch.ensureValid();
    this.position = pos + size + LOG_OVERHEAD;
    return batch;
  }
}

anchorHiddenClass(new BatchReader(Buffer.alloc(0), { verifyCrc: false }));

/** Iterate the complete batches (any magic) in `buf`. */
export function readRecordBatches(buf: Buffer, options?: BatchReaderOptions): BatchReader {
  return new BatchReader(buf, options);
}
