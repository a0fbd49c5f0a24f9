/**
 * Reading an internal topic's partition offline, as the broker's loaders read it: its `.log`
 * segments by base offset, each batch's CRC checked (a damaged batch is reported and skipped, not
 * trusted), and a file that cannot be read further reported rather than thrown. Shared by
 * `kafkalite groups` (`__consumer_offsets`) and `kafkalite transactions` (`__transaction_state`).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaliteError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { FileRecords } from '../storage/file-records.js';
import { LOG_SUFFIX, offsetFromFileName } from '../storage/file-names.js';

/** The `.log` segment files of a partition directory, by base offset (names that are not segments left out). */
export function segmentFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(LOG_SUFFIX))
    .flatMap((n) => {
      try {
        return [{ n, o: offsetFromFileName(n) }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => (a.o < b.o ? -1 : a.o > b.o ? 1 : 0))
    .map(({ n }) => join(dir, n));
}

/** The CRC-valid batches of one segment file, with `warn` told of each skipped batch and of a file cut short. */
export function* checkedBatches(path: string, warn: (what: string) => void): Generator<AnyRecordBatch> {
  const file = FileRecords.open(path);
  try {
    for (const { batch, position } of file.batches()) {
      if (batch.kind === 'v2' && !batch.isValid()) {
        warn(`${path}: batch at position ${position} fails its CRC check, skipped`);
        continue;
      }
      yield batch;
    }
  } catch (e) {
    if (!(e instanceof KafkaliteError)) throw e;
    warn(`${path}: ${e.message}; the rest of the file is not read`);
  } finally {
    file.close();
  }
}
