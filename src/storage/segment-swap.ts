/**
 * The segment swap: a cleaned segment takes the place of the segments it was written from, and a
 * swap a crash interrupted is finished or undone when the log is next loaded (Kafka
 * `LocalLog.replaceSegments`, `LogLoader.removeTempFilesAndCollectSwapFiles` and the swap
 * completion in `LogLoader.load`).
 *
 * A replacement segment's files go through three names: `.cleaned` while the cleaner writes it,
 * `.swap` once it is complete and flushed, then the live name. Each rename is followed by a
 * directory fsync, so a crash at any point reopens to the old segments or to the new one:
 * - `.cleaned` files at load are an unfinished cleaning and are deleted, along with the `.swap`
 *   files at or past the lowest of them (the remains of an interrupted split);
 * - `.swap` files at load are a finished cleaning whose old segments may still be there: the old
 *   files in the swap's offset range are deleted and the `.swap` files renamed into place.
 *
 * The swap end hint. Kafka deletes the old files whose offsets lie in [swap base, swap
 * readNextOffset). When the cleaner dropped every record of a group's trailing segments, the
 * cleaned segment ends before those segments start, and a crash between the `.cleaned -> .swap`
 * rename and the `.deleted` renames would leave them beside the new segment: stale records that the
 * cleaned log had removed would come back (a mix of old and new). The hint, `<base>.swapend`
 * holding the group's end offset as decimal text, widens the range to the whole group. It is
 * written and fsynced before the first `.swap` exists and removed after the last rename; a hint
 * without `.swap` files means nothing and is deleted at load.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CLEANED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  logFilePath,
  offsetFromFileName,
  offsetIndexPath,
  SWAP_END_SUFFIX,
  SWAP_SUFFIX,
  swapEndHintPath,
  TIME_INDEX_SUFFIX,
  timeIndexPath,
  txnIndexPath,
} from './file-names.js';
import { atomicWriteFileSync, fsyncDirSync } from './fs-util.js';
import type { LogResources } from './log-resources.js';
import { LogSegment, type SegmentConfig } from './log-segment.js';

/**
 * A new, empty `.cleaned` segment at `baseOffset` for the cleaner to write into (Kafka
 * `LogCleaner.createNewCleanedSegment`): the `.cleaned` files of an earlier attempt are removed first.
 */
export function createCleanedSegment(
  dir: string,
  baseOffset: bigint,
  config: SegmentConfig,
  options: { time: () => number; resources?: LogResources; initFileSize?: number },
): LogSegment {
  for (const path of [logFilePath, offsetIndexPath, timeIndexPath, txnIndexPath]) rmSync(path(dir, baseOffset, CLEANED_SUFFIX), { force: true });
  return LogSegment.open(dir, baseOffset, config, { create: true, suffix: CLEANED_SUFFIX, ...options });
}

/**
 * Swaps `cleaned` (files suffixed `.cleaned`, flushed) in for segments whose offsets end before
 * `groupEnd`. `retireOld` takes the old segments out of the log and renames them for deletion; it
 * runs while the new files are `.swap`, between two directory fsyncs.
 */
export function swapInCleanedSegment(dir: string, cleaned: LogSegment, groupEnd: bigint, retireOld: () => void): void {
  writeSwapEndHint(dir, cleaned.baseOffset, groupEnd);
  cleaned.changeFileSuffixes(CLEANED_SUFFIX, SWAP_SUFFIX);
  fsyncDirSync(dir);
  retireOld();
  fsyncDirSync(dir);
  cleaned.changeFileSuffixes(SWAP_SUFFIX, '');
  fsyncDirSync(dir);
  removeSwapEndHints(dir);
}

/**
 * At load, before the segments are opened: deletes `.cleaned` files and finishes the swaps whose
 * `.swap` files are complete (see the header). `config` opens a `.swap` segment to find its end.
 */
export function completeInterruptedSwaps(dir: string, config: SegmentConfig, resources: LogResources): void {
  const cleaned: string[] = [];
  const swaps: string[] = [];
  let minCleanedOffset: bigint | undefined;
  for (const name of readdirSync(dir)) {
    if (!statSync(join(dir, name)).isFile()) continue;
    if (name.endsWith(CLEANED_SUFFIX)) {
      cleaned.push(name);
      const o = offsetFromFileName(name);
      if (minCleanedOffset === undefined || o < minCleanedOffset) minCleanedOffset = o;
    } else if (name.endsWith(SWAP_SUFFIX)) {
      swaps.push(name);
    }
  }
  const keptSwaps: string[] = [];
  for (const name of swaps) {
    // a swap at or beyond a .cleaned file belongs to an interrupted split: not complete
    if (minCleanedOffset !== undefined && offsetFromFileName(name) >= minCleanedOffset) rmSync(join(dir, name), { force: true });
    else keptSwaps.push(name);
  }
  for (const name of cleaned) rmSync(join(dir, name), { force: true });
  const swapLogs = keptSwaps.filter((n) => n.endsWith(LOG_SUFFIX + SWAP_SUFFIX));
  const swapEnds = readSwapEndHints(dir);
  if (swapLogs.length > 0) {
    let lo: bigint | undefined;
    let hi: bigint | undefined;
    for (const name of swapLogs) {
      const base = offsetFromFileName(name);
      const seg = LogSegment.open(dir, base, config, { create: false, suffix: SWAP_SUFFIX, resources });
      const next = seg.readNextOffset();
      seg.close();
      // opening the segment created empty .index.swap/.timeindex.swap files the swap did not
      // have: drop them, or they would outlive this load (Kafka rebuilds missing indexes anyway)
      for (const suffix of [INDEX_SUFFIX, TIME_INDEX_SUFFIX]) {
        const indexSwap = name.slice(0, -(LOG_SUFFIX + SWAP_SUFFIX).length) + suffix + SWAP_SUFFIX;
        if (!swaps.includes(indexSwap)) rmSync(join(dir, indexSwap), { force: true });
      }
      if (lo === undefined || base < lo) lo = base;
      if (hi === undefined || next > hi) hi = next;
      // the replaced segments may reach past the cleaned one's last batch (the swap end hint)
      const end = swapEnds.get(base);
      if (end !== undefined && end > hi) hi = end;
    }
    for (const name of readdirSync(dir)) {
      if (name.endsWith(SWAP_SUFFIX) || !/^\d/.test(name)) continue;
      const o = offsetFromFileName(name);
      if (o >= lo! && o < hi!) rmSync(join(dir, name), { force: true });
    }
  }
  for (const name of keptSwaps) {
    renameSync(join(dir, name), join(dir, name.slice(0, -SWAP_SUFFIX.length)));
  }
  removeSwapEndHints(dir);
}

export function writeSwapEndHint(dir: string, baseOffset: bigint, endOffset: bigint): void {
  atomicWriteFileSync(swapEndHintPath(dir, baseOffset), endOffset.toString());
}

/** Hints by swap base offset; unreadable ones are ignored (they only ever widen a range). */
function readSwapEndHints(dir: string): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(SWAP_END_SUFFIX)) continue;
    try {
      const text = readFileSync(join(dir, name), 'utf8').trim();
      if (/^[0-9]{1,19}$/.test(text)) out.set(offsetFromFileName(name), BigInt(text));
    } catch {
      // a torn or foreign file: no hint
    }
  }
  return out;
}

function removeSwapEndHints(dir: string): void {
  for (const name of readdirSync(dir)) if (name.endsWith(SWAP_END_SUFFIX)) rmSync(join(dir, name), { force: true });
}
