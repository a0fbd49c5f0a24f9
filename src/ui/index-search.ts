/**
 * Binary searches over a segment's offset and time index files for the offline console, reading
 * only the entries probed (a few preads of 8 or 12 bytes), never the whole file: an index is up to
 * segment.index.bytes (10 MiB) long, and reading it whole on every page of a large partition would
 * make a page's cost grow with the partition. The searches are Kafka's AbstractIndex.largestLowerBoundSlotFor
 * (OffsetIndex.lookup, TimeIndex.lookup).
 *
 * A file read offline may still carry the active segment's preallocated zero tail (Kafka trims an
 * index only when its segment becomes inactive or the log closes): its entries end at the first
 * all-zero slot. No real entry is all zero: an offset index entry is written only after
 * index.interval.bytes of batches, so its position is never 0; a time index entry's timestamp is
 * not 0 either once a batch carries a real time (the console then sees no entry, as Kafka would
 * see an index without it, and scans from the segment's start).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

type IndexKind = 'offset' | 'time';

const ENTRY_SIZE: Record<IndexKind, number> = { offset: 8, time: 12 };

export interface OffsetEntry {
  slot: number;
  offset: bigint;
  position: number;
}

export interface TimeEntry {
  slot: number;
  timestamp: bigint;
  offset: bigint;
}

/** One index file opened read-only; close it after the lookups of one answer. */
export class IndexReader {
  /** The entries before the zero tail. */
  readonly entries: number;
  private readonly entry: Buffer;
  /** Bytes read from the file (the bench counts them). */
  bytesRead = 0;

  private constructor(
    private readonly fd: number,
    readonly kind: IndexKind,
    readonly baseOffset: bigint,
  ) {
    const size = ENTRY_SIZE[kind];
    this.entry = Buffer.alloc(size);
    const slots = Math.floor(fstatSync(fd).size / size);
    // the first empty slot: entries before it are real, the zero tail after it is all empty
    let lo = 0;
    let hi = slots;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.isEmpty(mid)) hi = mid;
      else lo = mid + 1;
    }
    this.entries = lo;
  }

  /** The index at `path`, or undefined when the segment has none. */
  static open(path: string, kind: IndexKind, baseOffset: bigint): IndexReader | undefined {
    if (!existsSync(path)) return undefined;
    return new IndexReader(openSync(path, 'r'), kind, baseOffset);
  }

  close(): void {
    closeSync(this.fd);
  }

  private read(slot: number): Buffer {
    const size = this.entry.length;
    const n = readSync(this.fd, this.entry, 0, size, slot * size);
    this.bytesRead += n;
    if (n < size) this.entry.fill(0, n);
    return this.entry;
  }

  private isEmpty(slot: number): boolean {
    const b = this.read(slot);
    return this.kind === 'offset' ? b.readInt32BE(0) === 0 && b.readInt32BE(4) === 0 : b.readBigInt64BE(0) === 0n && b.readInt32BE(8) === 0;
  }

  offsetEntry(slot: number): OffsetEntry {
    const b = this.read(slot);
    return { slot, offset: this.baseOffset + BigInt(b.readInt32BE(0)), position: b.readInt32BE(4) };
  }

  timeEntry(slot: number): TimeEntry {
    const b = this.read(slot);
    return { slot, timestamp: b.readBigInt64BE(0), offset: this.baseOffset + BigInt(b.readInt32BE(8)) };
  }

  /** The slot of the largest entry whose key is at or below `target`, -1 when none is (largestLowerBoundSlotFor). */
  private floorSlot(target: bigint, key: (slot: number) => bigint): number {
    if (this.entries === 0 || key(0) > target) return -1;
    let lo = 0;
    let hi = this.entries - 1;
    while (lo < hi) {
      const mid = Math.ceil(hi / 2 + lo / 2);
      if (key(mid) <= target) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** OffsetIndex.lookup: the entry at or below `offset`, undefined when the scan starts at the segment's start. */
  offsetFloor(offset: bigint): OffsetEntry | undefined {
    const slot = this.floorSlot(offset, (s) => this.offsetEntry(s).offset);
    return slot < 0 ? undefined : this.offsetEntry(slot);
  }

  /** TimeIndex.lookup: the entry whose timestamp is at or below `timestamp`, undefined when none is. */
  timeFloor(timestamp: bigint): TimeEntry | undefined {
    const slot = this.floorSlot(timestamp, (s) => this.timeEntry(s).timestamp);
    return slot < 0 ? undefined : this.timeEntry(slot);
  }

  lastOffsetEntry(): OffsetEntry | undefined {
    return this.entries === 0 ? undefined : this.offsetEntry(this.entries - 1);
  }

  lastTimeEntry(): TimeEntry | undefined {
    return this.entries === 0 ? undefined : this.timeEntry(this.entries - 1);
  }
}
