/**
 * Which segments the cleaner merges into one cleaned segment (Kafka
 * `Cleaner.groupSegmentsBySize`).
 *
 * Consecutive segments join a group while the summed `.log` sizes stay within `segment.bytes`, the
 * summed offset-index and time-index sizes within `segment.index.bytes`, and (unless the next
 * segment is empty: an empty segment left every 2^31 offsets must not stay forever) the next
 * segment's estimated last offset stays within Int.MAX of the group's base offset, so every offset
 * of the merged segment fits its indexes' relative offsets.
 */
const INT32_MAX = 0x7fffffffn;

/** What grouping needs to know about a segment. */
export interface GroupableSegment {
  readonly baseOffset: bigint;
  readonly size: number;
  readonly offsetIndex: { readonly sizeInBytes: number };
  readonly timeIndex: { readonly sizeInBytes: number };
}

export function groupSegmentsBySize<S extends GroupableSegment>(
  segments: readonly S[],
  maxSize: number,
  maxIndexSize: number,
  firstUncleanableOffset: bigint,
): S[][] {
  const groups: S[][] = [];
  let i = 0;
  while (i < segments.length) {
    const first = segments[i]!;
    const group = [first];
    let logSize = first.size;
    let indexSize = first.offsetIndex.sizeInBytes;
    let timeIndexSize = first.timeIndex.sizeInBytes;
    i++;
    while (i < segments.length) {
      const next = segments[i]!;
      // the next segment's last offset, estimated by the base of the one after it
      const lastOffset = i + 1 < segments.length ? segments[i + 1]!.baseOffset - 1n : firstUncleanableOffset - 1n;
      if (
        logSize + next.size > maxSize ||
        indexSize + next.offsetIndex.sizeInBytes > maxIndexSize ||
        timeIndexSize + next.timeIndex.sizeInBytes > maxIndexSize ||
        (next.size !== 0 && lastOffset - first.baseOffset > INT32_MAX)
      ) {
        break;
      }
      group.push(next);
      logSize += next.size;
      indexSize += next.offsetIndex.sizeInBytes;
      timeIndexSize += next.timeIndex.sizeInBytes;
      i++;
    }
    groups.push(group);
  }
  return groups;
}
