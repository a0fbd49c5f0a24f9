/**
 * Batches of a segment file, read positionally (storage spec §2.9, Kafka `FileRecords` /
 * `FileLogInputStream`). A `.log` file is just concatenated batches.
 *
 * The file rules differ from the in-memory ones: iteration stops when 17 bytes or fewer remain or
 * when a batch would extend past the end (a torn tail, reported by the caller as invalid bytes); a
 * size field below 14 is corrupt; the magic byte is not range-checked (0 and 1 are legacy entries,
 * anything else is read as v2).
 *
 * One buffer is reused for every batch (fresh large Buffers cost page faults), so a yielded batch is
 * valid only until the iteration moves on.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CorruptRecordError } from '../errors.js';
import { RecordBatch } from '../record/batch.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { LegacyRecordBatch } from '../record/legacy.js';
import {
  HEADER_SIZE_UP_TO_MAGIC,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_ENTRY_SIZE,
  RECORD_BATCH_OVERHEAD,
} from '../record/constants.js';

export interface FileBatch {
  /** Byte position of the batch in the file. */
  position: number;
  /** Size field + 12. */
  sizeInBytes: number;
  magic: number;
  /** The batch view, v2 or legacy (valid until the next batch is read). */
  batch: AnyRecordBatch;
}

export class FileRecords {
  private scratch = Buffer.allocUnsafe(64 * 1024);
  readonly sizeInBytes: number;

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {
    this.sizeInBytes = fstatSync(fd).size;
  }

  static open(path: string): FileRecords {
    return new FileRecords(path, openSync(path, 'r'));
  }

  close(): void {
    closeSync(this.fd);
  }

  private read(position: number, length: number): Buffer {
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, this.scratch, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return this.scratch.subarray(0, done);
  }

  /** Iterate the batches in `[0, min(size, maxBytes))`. */
  *batches(maxBytes = 0x7fffffff): Generator<FileBatch> {
    const end = Math.min(this.sizeInBytes, maxBytes);
    let position = 0;
    while (position + HEADER_SIZE_UP_TO_MAGIC < end) {
      const head = this.read(position, HEADER_SIZE_UP_TO_MAGIC);
      const size = head.readInt32BE(LENGTH_OFFSET);
      if (size < MIN_ENTRY_SIZE) {
        throw new CorruptRecordError(
          `Found record size ${size} smaller than minimum record overhead (${MIN_ENTRY_SIZE}) in file ${this.path}.`,
          { position },
        );
      }
      if (position > end - LOG_OVERHEAD - size) return;
      const magic = head.readInt8(MAGIC_OFFSET);
      const sizeInBytes = size + LOG_OVERHEAD;
      if (magic === 0 || magic === 1) {
        yield { position, sizeInBytes, magic, batch: new LegacyRecordBatch(this.read(position, sizeInBytes), 0) };
        position += sizeInBytes;
        continue;
      }
      if (sizeInBytes < RECORD_BATCH_OVERHEAD) {
        throw new CorruptRecordError(
          `Record batch is corrupt (the size ${sizeInBytes} is smaller than the minimum allowed overhead ${RECORD_BATCH_OVERHEAD})`,
          { position },
        );
      }
      const bytes = this.read(position, sizeInBytes);
      yield { position, sizeInBytes, magic, batch: new RecordBatch(bytes, 0) };
      position += sizeInBytes;
    }
  }
}
