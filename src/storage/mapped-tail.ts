/**
 * NOT MERGED (branch mapped-tail, session 15): a store into a mapped page that the file system
 * refuses raises SIGBUS and kills the broker, where `pwrite` returns an error the log-dir failure
 * path handles. test/broker/log-dir-failure.test.ts shows it (`chattr +i` on the active segment:
 * the next copy into a new page dies with SIGBUS). Before this can be the default, the copy must go
 * through the addon with a SIGBUS guard (sigsetjmp around the memcpy, falling back to `pwrite`), or
 * every page must be populated with MADV_POPULATE_WRITE (which returns the error) before the first
 * copy into it and again after writeback cleans it. See bench/README.md, session 15.
 *
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
 *   unmaps the oldest. That bounds the address space and the page cache they pin (a mapped page
 *   is not dropped by `fadvise`), and keeps a broker with 100,000 partitions far below the kernel's
 *   65,530 mappings per process (`vm.max_map_count`).
 * - A window is unmapped before its file is trimmed, truncated or closed, so nothing ever stores
 *   past the file's end. A file whose allocation or mapping fails (a full disk, a runtime without
 *   external ArrayBuffers) writes every later append.
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

/** The addon's three calls (native/src/mapped.c). */
export interface MappingCalls {
  allocate(fd: number, offset: number, length: number): number;
  map(fd: number, offset: number, length: number): ArrayBuffer;
  unmap(buffer: ArrayBuffer): number;
}

/** The addon's mapping calls on Linux when it was built, else undefined. */
export function nativeMappingCalls(): MappingCalls | undefined {
  const addon = nativeAddon as Partial<MappingCalls> | undefined;
  if (process.platform !== 'linux' || typeof addon?.map !== 'function' || typeof addon.unmap !== 'function' || typeof addon.allocate !== 'function') return undefined;
  return addon as MappingCalls;
}

const NOTHING_MAPPED = new Uint8Array(0);

/** The file a tail belongs to: its open descriptor, reopened if need be (FileRecords). */
export interface MappedFile {
  mappingHandle(): number;
}

/** The mapped windows of one data directory: at most `maxWindows`, the oldest unmapped first. */
export class MappedTails {
  /** Tails with a window mapped, oldest first (a Map keeps insertion order). */
  private readonly mapped = new Map<MappedTail, true>();

  constructor(
    readonly calls: MappingCalls,
    readonly windowBytes = WINDOW_BYTES,
    private readonly maxWindows = MAX_MAPPED_WINDOWS,
  ) {}

  /** Windows mapped now (tests, diagnostics). */
  get windows(): number {
    return this.mapped.size;
  }

  /** A tail for one writable file. */
  tail(): MappedTail {
    return new MappedTail(this);
  }

  /** `tail` mapped a window: the oldest others are unmapped past the bound. */
  mappedWindow(tail: MappedTail): void {
    this.mapped.delete(tail);
    this.mapped.set(tail, true);
    for (const oldest of this.mapped.keys()) {
      if (this.mapped.size <= this.maxWindows) break;
      oldest.release();
    }
  }

  /** `tail` unmapped its window. */
  unmappedWindow(tail: MappedTail): void {
    this.mapped.delete(tail);
  }
}

/** One file's mapped window (see the module comment). */
export class MappedTail {
  private buffer: ArrayBuffer | undefined;
  private view = NOTHING_MAPPED;
  /** The file range [from, to) the window maps. */
  private from = 0;
  private to = 0;
  /** Allocation or mapping failed once: this file writes from now on. */
  private failed = false;

  constructor(private readonly tails: MappedTails) {}

  /** Whether a window is mapped now (tests). */
  get mapped(): boolean {
    return this.buffer !== undefined;
  }

  /**
   * Copies `bytes` to file position `position` through the window, mapping the window that holds
   * them first when needed (its blocks allocated through `file`'s descriptor). False when the
   * caller must write them instead: too large, across a window's end, or mapping failed.
   */
  copy(file: MappedFile, bytes: Uint8Array, position: number): boolean {
    if (bytes.length > MAX_MAPPED_APPEND) return false;
    const end = position + bytes.length;
    if (position >= this.from && end <= this.to) {
      this.view.set(bytes, position - this.from);
      return true;
    }
    if (this.failed) return false;
    const windowBytes = this.tails.windowBytes;
    const start = position - (position % windowBytes);
    if (end > start + windowBytes) return false;
    this.release();
    const calls = this.tails.calls;
    const handle = file.mappingHandle();
    if (calls.allocate(handle, start, windowBytes) !== 0) {
      this.failed = true;
      return false;
    }
    let buffer: ArrayBuffer;
    try {
      buffer = calls.map(handle, start, windowBytes);
    } catch {
      this.failed = true;
      return false;
    }
    this.buffer = buffer;
    this.view = new Uint8Array(buffer);
    this.from = start;
    this.to = start + windowBytes;
    this.tails.mappedWindow(this);
    this.view.set(bytes, position - start);
    return true;
  }

  /** Unmaps the window, if any (before the file is trimmed, truncated or closed). */
  release(): void {
    const buffer = this.buffer;
    if (buffer === undefined) return;
    this.buffer = undefined;
    this.view = NOTHING_MAPPED;
    this.from = 0;
    this.to = 0;
    this.tails.unmappedWindow(this);
    // munmap fails only for a range that is not a mapping: the buffer is detached either way
    this.tails.calls.unmap(buffer);
  }
}
