/**
 * The batches `dump-log` prints from a `.log` (or `.checkpoint`) file, with FileRecords' rules
 * (storage spec §2.9: torn tail, corrupt size field, `--max-bytes` limit) and FileRecords' batch
 * views (each batch at position 0 of its own bytes, so record errors name a byte of the batch).
 *
 * Reading batch by batch costs two reads per batch; a whole-file dump reads in 1 MiB windows
 * instead (segment-reader.ts). That scan frames batches more strictly than FileRecords (it also
 * rejects magic values above 2), so whatever it does not yield, from the first batch it stopped
 * at, is left to FileRecords itself: the batches, the end and the errors are FileRecords' own.
 */
import { KafkaliteError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { RecordBatch } from '../record/batch.js';
import { LegacyRecordBatch } from '../record/legacy.js';
import type { FileRecords } from '../storage/file-records.js';
import { scanSegment, type ScannedBatch } from './segment-reader.js';

export function* dumpedBatches(file: string, records: FileRecords, maxBytes: number): Generator<AnyRecordBatch> {
  const limit = Math.min(maxBytes, records.sizeInBytes);
  let position = 0;
  const scan = scanSegment(file).batches;
  try {
    for (;;) {
      let next: IteratorResult<ScannedBatch>;
      try {
        next = scan.next();
      } catch (e) {
        if (e instanceof KafkaliteError) break; // FileRecords reports it below, in its own words
        throw e;
      }
      if (next.done === true || position + next.value.sizeInBytes > limit) break;
      const { batch, sizeInBytes } = next.value;
      const bytes = batch.buf.subarray(batch.position, batch.position + sizeInBytes);
      yield batch.kind === 'legacy' ? new LegacyRecordBatch(bytes, 0) : new RecordBatch(bytes, 0);
      position += sizeInBytes;
    }
  } finally {
    scan.return(undefined);
  }
  for (const { batch } of records.batches(position, maxBytes)) yield batch;
}
