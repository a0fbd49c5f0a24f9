/**
 * The active segment's tail, mapped: a small Produce append is copied into a shared mapping of
 * the segment file instead of written with `pwrite` (native/src/mapped.c).
 *
 * Why: a Produce of one small batch spent about 5-6 µs of the broker's main thread in its file
 * write (the system call, run cold between requests, and the held-append bookkeeping around it),
 * a tenth of the request. A copy into the mapping is a `memcpy` into the same page-cache pages a
 * `pwrite` fills, with a page fault once per 4 KiB (bench/README.md, session 15). So it keeps the
 * write's guarantees: a killed process loses nothing it copied (the pages are the kernel's),
 * `fdatasync` writes them, and reads through the descriptor see them at once.
 *
 * The rules:
 * - Only appends of at most MAX_MAPPED_APPEND bytes that lie inside one window, and only while
 *   nothing is held for the file (held appends are written as one contiguous run from the first
 *   one's position: held-appends.ts). Larger appends are written: a page first touched through a
 *   mapping is zeroed before the copy overwrites it, where a `pwrite` of whole pages is not, and at
 *   16 KiB a request the mapping gained nothing.
 * - A window is WINDOW_BYTES, aligned, and its blocks are allocated before it is mapped
 *   (`fallocate`, not a hole: a store into a hole needs a block at the page fault, and on a full
 *   disk that fault raises SIGBUS where a failed `fallocate` is an error code). The file grows to
 *   the window's end, as a preallocated segment does in Kafka (`preallocate=true`): it is trimmed
 *   to its size when the segment rolls or closes (`FileRecords.trimToSize`, Kafka's
 *   `FileRecords.trim`), and after a crash recovery cuts the zeros, where its first batch of size
 *   0 ends the valid bytes (Kafka's `LogSegment.recover` does the same for preallocated files).
 * - At most MAX_MAPPED_WINDOWS windows per data directory are mapped at once; mapping one more
 *   unmaps the oldest and trims its file to its records, giving back the blocks allocated past
 *   them. That bounds the address space, the page cache they pin (a mapped page is not dropped by
 *   `fadvise`) and the blocks allocated ahead (64 MiB, not a window per partition: on a tmpfs
 *   those blocks are memory), and keeps a broker with 100,000 partitions far below the kernel's
 *   65,530 mappings per process (`vm.max_map_count`). A file whose window was taken that way
 *   writes its next REMAP_AFTER_WRITES small appends before it maps again, so that more partitions
 *   taking small appends in turn than there are windows do not map and unmap at every append. A
 *   file also writes its first MAP_AFTER_WRITES small appends: a topic a test creates and sends a
 *   few records to costs no allocation, mapping or trim.
 * - The copy is the addon's, behind a SIGBUS guard: a page fault the kernel refuses (the file made
 *   immutable, the file system remounted read-only after an error) fails the copy instead of
 *   killing the broker. That file then writes this append and every later one, and `pwrite`
 *   returns the real error to the log-dir failure path (log-dir-failure.ts), as it would have
 *   without the mapping.
 * - A window is unmapped before its file is trimmed, truncated or closed, so nothing ever stores
 *   past the file's end. A file whose allocation, mapping or copy fails writes every later append.
 * - Linux only, with the native addon built (KAFKALITE_NATIVE): elsewhere every append is written.
 *   Like Kafka's memory-mapped index files, a mapping cannot survive the file being cut from
 *   outside the broker while it runs.
 */
import { nativeAddon } from '../native/addon.js';

/** Appends up to this size are copied through the mapping; larger ones are written. */
export const MAX_MAPPED_APPEND = 4096;
/** The size (and alignment) of a mapped window of the file. */
export const WINDOW_BYTES = 1024 * 1024;
/** Windows mapped at once per data directory (LogResources). */
export const MAX_MAPPED_WINDOWS = 64;
/** Small appends a file writes before it maps its first window: a partition that takes a few records never allocates one. */
export const MAP_AFTER_WRITES = 16;
/** Small appends a file writes, after its window was taken for another file's, before it maps again. */
export const REMAP_AFTER_WRITES = 64;

/** A mapping made by the addon: opaque to JavaScript, which reaches its memory through `copy` only. */
export type Mapping = object;

/** The addon's calls (native/src/mapped.c). */
export interface MappingCalls {
  /** fallocate mode 0 of [offset, offset + length): 0 or an errno. */
  allocate(fd: number, offset: number, length: number): number;
  /** A shared read-write mapping of the file's [offset, offset + length); throws on failure. */
  map(fd: number, offset: number, length: number): Mapping;
  /** `bytes` copied to the mapping's `offset`: 0, or an errno (EFAULT: a page fault was refused). */
  copy(mapping: Mapping, offset: number, bytes: Uint8Array): number;
  /** Unmaps now: 0 or an errno; later copies return EBADF. */
  unmap(mapping: Mapping): number;
}

/** The addon's mapping calls on Linux when it was built, else undefined. */
export function nativeMappingCalls(): MappingCalls | undefined {
  const addon = nativeAddon as Partial<MappingCalls> | undefined;
  if (process.platform !== 'linux') return undefined;
  if (typeof addon?.map !== 'function' || typeof addon.copy !== 'function' || typeof addon.unmap !== 'function' || typeof addon.allocate !== 'function') return undefined;
  return addon as MappingCalls;
}

/** The file a tail belongs to (FileRecords). */
export interface MappedFile {
  /** Its open descriptor, reopened if need be. */
  mappingHandle(): number;
  /** Its window was unmapped to map another file's: the blocks allocated past its records go back. */
  mappedWindowTaken(): void;
}

/** The mapped windows of one data directory: at most `maxWindows`, the oldest unmapped first. */
export class MappedTails {
  /** Tails with a window mapped, oldest first (a Set keeps insertion order). */
  private readonly mapped = new Set<MappedTail>();

  constructor(
    readonly calls: MappingCalls,
    readonly windowBytes = WINDOW_BYTES,
    private readonly maxWindows = MAX_MAPPED_WINDOWS,
    /** MAP_AFTER_WRITES; a test maps at the first append with 0. */
    readonly mapAfterWrites = MAP_AFTER_WRITES,
  ) {}

  /** Windows mapped now (tests, diagnostics). */
  get windows(): number {
    return this.mapped.size;
  }

  /** A tail for one writable file. */
  tail(file: MappedFile): MappedTail {
    return new MappedTail(this, file);
  }

  /** `tail` mapped a window: the oldest others lose theirs past the bound. */
  mappedWindow(tail: MappedTail): void {
    this.mapped.delete(tail);
    this.mapped.add(tail);
    for (const oldest of this.mapped) {
      if (this.mapped.size <= this.maxWindows) break;
      oldest.take();
    }
  }

  /** `tail` unmapped its window. */
  unmappedWindow(tail: MappedTail): void {
    this.mapped.delete(tail);
  }
}

/** One file's mapped window (see the module comment). */
export class MappedTail {
  private mapping: Mapping | undefined;
  /** The file range [from, to) the window maps. */
  private from = 0;
  private to = 0;
  /** Allocation, mapping or a copy failed once: this file writes from now on. */
  private failed = false;
  /** Small appends still to be written before this file maps (at first, and after its window was taken). */
  private writesBeforeMap: number;

  constructor(
    private readonly tails: MappedTails,
    private readonly file: MappedFile,
  ) {
    this.writesBeforeMap = tails.mapAfterWrites;
  }

  /**
   * Copies `bytes` to file position `position` through the window, mapping the window that holds
   * them first when needed. False when the caller must write them instead: too large, across a
   * window's end, a file new to small appends or whose window was taken lately, or the
   * allocation, mapping or copy failed.
   */
  copy(bytes: Uint8Array, position: number): boolean {
    if (bytes.length > MAX_MAPPED_APPEND) return false;
    const end = position + bytes.length;
    if ((position < this.from || end > this.to) && !this.mapWindowFor(position, end)) return false;
    if (this.tails.calls.copy(this.mapping!, position - this.from, bytes) === 0) return true;
    // a refused page fault (EFAULT), caught by the addon's guard: the caller's pwrite meets the
    // same refusal as an error. What the copy stored before the fault lies past the file's
    // records, where that write or a trim replaces it
    this.failed = true;
    this.release();
    return false;
  }

  /** Maps the window holding [position, end) in place of the one mapped; false when it must not or cannot. */
  private mapWindowFor(position: number, end: number): boolean {
    if (this.failed) return false;
    if (this.writesBeforeMap > 0) {
      this.writesBeforeMap--;
      return false;
    }
    const windowBytes = this.tails.windowBytes;
    const start = position - (position % windowBytes);
    if (end > start + windowBytes) return false;
    this.release();
    const calls = this.tails.calls;
    const handle = this.file.mappingHandle();
    if (calls.allocate(handle, start, windowBytes) !== 0) {
      this.failed = true;
      return false;
    }
    try {
      this.mapping = calls.map(handle, start, windowBytes);
    } catch {
      this.failed = true;
      return false;
    }
    this.from = start;
    this.to = start + windowBytes;
    this.tails.mappedWindow(this);
    return true;
  }

  /** Unmaps the window, if any (before the file is trimmed, truncated or closed). */
  release(): void {
    const mapping = this.mapping;
    if (mapping === undefined) return;
    this.mapping = undefined;
    this.from = 0;
    this.to = 0;
    this.tails.unmappedWindow(this);
    // munmap fails only for a range that is not a mapping
    this.tails.calls.unmap(mapping);
  }

  /** The bound takes this window for another file's: unmapped, its blocks past the records given back, and a pause before mapping again. */
  take(): void {
    this.release();
    this.writesBeforeMap = REMAP_AFTER_WRITES;
    this.file.mappedWindowTaken();
  }
}
