/**
 * The end offset of the segments a cleaner swap replaces, kept beside the `.swap` files while the
 * swap is under way.
 *
 * Kafka's swap recovery (spec §10.1 step 3) deletes the old files whose offsets lie in
 * [swap base, swap readNextOffset). When the cleaner dropped every record of a group's trailing
 * segments, the cleaned segment ends before those segments start, and a crash between the
 * `.cleaned -> .swap` rename and the `.deleted` renames would leave them beside the new segment:
 * stale records that the cleaned log had removed would come back (a mix of old and new). This file,
 * `<base>.swapend` holding the group's end offset as decimal text, widens the range to the whole
 * group. It is written and fsynced before the first `.swap` exists and removed after the last
 * rename; a hint without `.swap` files means nothing and is deleted at load. Kafka ignores the file
 * (it ends in none of the suffixes it knows).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../fs-util.js';
import { formatOffset, offsetFromFileName } from '../file-names.js';

export const SWAP_END_SUFFIX = '.swapend';

export function writeSwapEndHint(dir: string, baseOffset: bigint, endOffset: bigint): void {
  atomicWriteFileSync(join(dir, formatOffset(baseOffset) + SWAP_END_SUFFIX), endOffset.toString());
}

/** Hints by swap base offset; unreadable ones are ignored (they only ever widen a range). */
export function readSwapEndHints(dir: string): Map<bigint, bigint> {
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

export function removeSwapEndHints(dir: string): void {
  for (const name of readdirSync(dir)) if (name.endsWith(SWAP_END_SUFFIX)) rmSync(join(dir, name), { force: true });
}
