/**
 * Whole-file batch scans for the CLI (verify, stats): the file is read in 1 MiB windows into one
 * reused buffer and framed by the record codec's BatchReader, instead of one read per batch
 * (FileRecords, which serves random access). Same file rules: a size field below 14 or an unknown
 * magic is corrupt (CorruptRecordError, position in file terms); a batch running past the end of
 * the file is a torn tail that ends the scan quietly (storage spec §2.9). The buffer grows only to
 * hold one real batch, never past what the file holds (no allocation sized by an untrusted length).
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { CorruptRecordError, KafkaliteError } from '../errors.js';
import { BatchReader, type AnyRecordBatch } from '../record/batches.js';
import { HEADER_SIZE_UP_TO_MAGIC, LENGTH_OFFSET, LOG_OVERHEAD, MIN_ENTRY_SIZE } from '../record/constants.js';

const WINDOW = 1024 * 1024;
let shared = Buffer.allocUnsafe(2 * WINDOW);

export interface ScannedBatch {
  position: number;
  sizeInBytes: number;
  /** Valid until the next batch is read. */
  batch: AnyRecordBatch;
}

export interface SegmentScan {
  /** Bytes of the file. */
  size: number;
  batches: Generator<ScannedBatch>;
}

/**
 * Scans the batches of `path` in file order. The file is opened when iteration starts and closed
 * when it ends (also on break), so an unstarted scan holds no descriptor.
 */
export function scanSegment(path: string): SegmentScan {
  const size = statSync(path).size;
  return { size, batches: scan(path, size) };
}

function* scan(path: string, size: number): Generator<ScannedBatch> {
  const fd = openSync(path, 'r');
  try {
    let bufStart = 0; // file position of shared[0]
    let used = 0;
    let read = 0;
    while (read < size) {
      const n = readSync(fd, shared, used, Math.min(WINDOW, shared.length - used), read);
      if (n === 0) return;
      read += n;
      used += n;
      const reader = new BatchReader(shared, { end: used, verifyCrc: false });
      for (;;) {
        let batch: AnyRecordBatch | null;
        try {
          batch = reader.nextBatch();
        } catch (e) {
          if (!(e instanceof KafkaliteError)) throw e;
          const start = reader.position;
          // Kafka reads no size field when 17 bytes or fewer remain in the file, and a batch that
          // runs past the end is a torn tail before its magic is looked at (FileLogInputStream)
          if (bufStart + start + HEADER_SIZE_UP_TO_MAGIC >= size) return;
          const declared = shared.readInt32BE(start + LENGTH_OFFSET);
          if (declared >= MIN_ENTRY_SIZE && declared + LOG_OVERHEAD > size - (bufStart + start)) return;
          // reported at the batch start: where recovery would truncate
          throw new CorruptRecordError(e.detail, { position: bufStart + start, cause: e });
        }
        if (batch === null) break;
        yield { position: bufStart + batch.position, sizeInBytes: batch.sizeInBytes, batch };
      }
      const consumed = reader.position;
      if (consumed === 0 && used >= LOG_OVERHEAD && used === shared.length) {
        // one batch larger than the buffer: grow to it if the file really holds it
        const need = shared.readInt32BE(LENGTH_OFFSET) + LOG_OVERHEAD;
        if (need > size - bufStart) return; // torn tail
        const grown = Buffer.allocUnsafe(need + WINDOW);
        shared.copy(grown, 0, 0, used);
        shared = grown;
        continue;
      }
      shared.copy(shared, 0, consumed, used);
      bufStart += consumed;
      used -= consumed;
    }
    // whatever is left in the buffer is an incomplete batch (a torn tail)
  } finally {
    closeSync(fd);
  }
}
