/**
 * A bound on how many recently appended log bytes stay in the page cache, one per data directory
 * (`LogResources.pageCache`, log-resources.ts: two brokers in one process keep separate budgets).
 *
 * Kafka leaves the page cache to the OS, and so does kafkalite with a budget of 0. The default
 * exists because of how Linux behaves on a VM. There, a log that keeps growing takes page-cache
 * pages the guest has not used lately, and each one costs the host a fault to back. Appends that
 * drop what was written back ran several times faster than plain appends in a C loop with
 * `sync_file_range` + `posix_fadvise`, and copying into fresh page-cache pages was most of the
 * broker's time on a 1 MiB Produce stream (figures in bench/README.md).
 *
 * How it works:
 * - Every WRITEBACK_CHUNK_BYTES appended to a file, the writeback of that range is started with
 *   `sync_file_range(SYNC_FILE_RANGE_WRITE)`. This queues the pages for I/O and does not wait for
 *   them. It is not durability: flushes still `fdatasync`, as before.
 * - The range joins a FIFO shared by every file of the data directory. Once the FIFO holds more than the budget, the pages
 *   of its oldest ranges are dropped with `POSIX_FADV_DONTNEED`. That call drops clean pages only;
 *   pages still dirty or under writeback stay, and the kernel deals with them later.
 * - The kernel reuses the dropped pages for the next appends.
 * - The newest `budget` bytes written stay cached, so consumers at the tail read from memory.
 *   Consumers further behind read from disk, as they would once the OS had evicted those pages,
 *   and the pages such reads went through are dropped behind them (`readCold`).
 *
 * These calls are hints: no byte of the log depends on them. They run on libuv's thread pool (see
 * `nativeCalls`) and need kafkalite's native addon on Linux; without it the OS decides.
 */
import { nativeAddon } from '../native/addon.js';

/** Writeback is started, and a range recorded, for every this many bytes appended to a file. */
export const WRITEBACK_CHUNK_BYTES = 4 * 1024 * 1024;
export const DEFAULT_PAGE_CACHE_BUDGET = 64 * 1024 * 1024;

/** A file whose appended ranges the budget tracks. */
export interface PageCacheFile {
  /** Its open descriptor; not used once `pageCacheClosed` is true (the number may be reused). */
  readonly pageCacheFd: number;
  readonly pageCacheClosed: boolean;
  /** Bytes before this are cold: dropped by the budget, or in the file before it was opened. */
  pageCacheColdBefore: number;
  /** Cold reads dropped the pages before this (`readCold`). */
  pageCacheReadDroppedTo: number;
}

/** The page size the ranges are cut to (x86-64 and most arm64 kernels). */
export const PAGE_BYTES = 4096;

/** The two system calls (native/src/pagecache.c); a test passes its own to see them. */
export type PageCacheCalls = Pick<NonNullable<typeof nativeAddon>, 'startWriteback' | 'dropPages'>;

interface WrittenRange {
  file: PageCacheFile;
  start: number;
  end: number;
}

export class PageCacheBudget {
  private limit: number;
  private held = 0;
  private readonly ranges: WrittenRange[] = [];
  /** Ranges whose pages were dropped (tests, diagnostics). */
  dropped = 0;

  constructor(
    limit = DEFAULT_PAGE_CACHE_BUDGET,
    /** The system calls; null without the native addon (a test may put its own here). */
    public os: PageCacheCalls | null = nativeCalls(),
  ) {
    this.limit = checkLimit(limit);
  }

  /** Whether appends are tracked: a budget is set and the native calls exist. */
  get active(): boolean {
    return this.limit > 0 && this.os !== null;
  }

  get limitBytes(): number {
    return this.limit;
  }

  /** Changes the budget (0: leave the page cache to the OS); what exceeds a lower one is dropped at once. */
  set limitBytes(bytes: number) {
    this.limit = checkLimit(bytes);
    if (this.limit === 0) {
      this.ranges.length = 0;
      this.held = 0;
    }
    this.dropOverBudget();
  }

  /** Bytes of recorded ranges whose pages are not dropped yet. */
  get heldBytes(): number {
    return this.held;
  }

  /** `file[start, end)` was appended: start its writeback and drop the oldest ranges beyond the budget. */
  written(file: PageCacheFile, start: number, end: number): void {
    if (!this.active || end <= start || file.pageCacheClosed) return;
    this.os!.startWriteback(file.pageCacheFd, start, end - start);
    this.ranges.push({ file, start, end });
    this.held += end - start;
    this.dropOverBudget();
  }

  /**
   * `file[start, end)` is being read for a consumer. When it is cold, the pages that earlier reads
   * of this file went through, up to this read's start, are dropped: a consumer catching up then
   * reads through reused pages, and does not evict the tail other consumers read (in Kafka, that
   * eviction is the known cost of a lagging consumer). The read's own pages stay: the next Fetch
   * usually starts inside them, at the batch this read's size limit cut.
   */
  readCold(file: PageCacheFile, start: number, end: number): void {
    if (!this.active || end <= start || end > file.pageCacheColdBefore || file.pageCacheClosed) return;
    const to = start - (start % PAGE_BYTES);
    const from = file.pageCacheReadDroppedTo;
    if (to <= from) return;
    this.os!.dropPages(file.pageCacheFd, from, to - from);
    file.pageCacheReadDroppedTo = to;
  }

  private dropOverBudget(): void {
    while (this.held > this.limit && this.ranges.length > 0) {
      const r = this.ranges.shift()!;
      this.held -= r.end - r.start;
      // a closed file's descriptor number may belong to another file by now
      if (!r.file.pageCacheClosed) {
        this.os!.dropPages(r.file.pageCacheFd, r.start, r.end - r.start);
        r.file.pageCacheColdBefore = Math.max(r.file.pageCacheColdBefore, r.end);
        this.dropped++;
      }
    }
  }
}

/**
 * The addon's calls, made on libuv's thread pool (`pageHintsAsync`): both can block, for a full
 * device queue or while DONTNEED drains the other CPUs' page lists, and a hint must not stall the
 * broker's one thread (made inline they cost a measurable share of the 1 MiB produce bench,
 * bench/README.md).
 */
function nativeCalls(): PageCacheCalls | null {
  const addon = nativeAddon;
  if (typeof addon?.pageHintsAsync !== 'function') return null;
  return {
    startWriteback: (fd, offset, length) => addon.pageHintsAsync(fd, offset, length, 0, 0),
    dropPages: (fd, offset, length) => addon.pageHintsAsync(fd, 0, 0, offset, length),
  };
}

function checkLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`page cache budget must be a byte count >= 0, not ${bytes}`);
  return bytes;
}
