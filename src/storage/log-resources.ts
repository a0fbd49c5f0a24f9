/**
 * What the files of one data directory share: the page-cache budget, the index-cache budget, the
 * descriptor budget, the
 * buffer whole batches are read into, and whether rolled segments are flushed in the background.
 *
 * Kafka's `LogManager` hands such things (its scheduler, `LogDirFailureChannel`: here `logDirFailure`) to every
 * `UnifiedLog` it opens. Here they belong to a `LogManager` (and so to one broker), never to
 * the process: two brokers, or two data directories, in one process keep separate budgets. A log,
 * segment or file opened on its own (tests, the CLI) gets resources of its own.
 */
import { InvalidArgumentError } from '../errors.js';
import { backgroundSyncSupported } from './background-sync.js';
import { defaultDescriptorBudget, DescriptorBudget } from './descriptor-budget.js';
import { DEFAULT_INDEX_CACHE_BUDGET, IndexCacheBudget } from './index-cache-budget.js';
import { DEFAULT_PAGE_CACHE_BUDGET, PageCacheBudget } from './page-cache-budget.js';
import { LogDirFailureChannel } from './log-dir-failure.js';
import { BackgroundRemovals } from './background-delete.js';
import { MappedTails, nativeMappingCalls } from './mapped-tail.js';

export interface LogResourceOptions {
  /** Recently appended bytes kept in the page cache (page-cache-budget.ts); 0 leaves it to the OS. Default 64 MiB. */
  pageCacheBudgetBytes?: number;
  /** Bytes of read-only index entries kept in memory (index-cache-budget.ts). Default 64 MiB. */
  indexCacheBudgetBytes?: number;
  /** Flush rolled segments on libuv's thread pool (background-sync.ts); false flushes inline. Default true. */
  backgroundFlush?: boolean;
  /**
   * Remove deleted segments' and partitions' files on libuv's thread pool (background-delete.ts);
   * false removes them inline. Default false here (a log opened on its own: tests, the CLI);
   * LogManager's default is true.
   */
  backgroundDelete?: boolean;
  /**
   * Copy small Produce appends into a mapped window of the active segment instead of writing them
   * (mapped-tail.ts; Linux with the native addon). Default false here (a log opened on its own);
   * LogManager's default is true.
   */
  mappedTail?: boolean;
  /** The data directory, named by its failure channel (log-dir-failure.ts). */
  logDir?: string;
  /** Segment and index descriptors kept open at once (descriptor-budget.ts). Default: half the process's open-file limit, at most 12,288. */
  openFileBudget?: number;
}

export interface LogResources {
  readonly pageCache: PageCacheBudget;
  readonly indexCache: IndexCacheBudget;
  /** Asked for and possible (the native addon is built): flushes nothing waits for run off the event loop. */
  readonly backgroundFlush: boolean;
  /** Where FileRecords reads whole batches (file-records.ts `batches()`). */
  readonly batchScratch: ScratchBuffer;
  /** Where FileRecords `scan()` reads its windows (whole-file reads: verify, dump-log). */
  readonly scanWindow: ScratchBuffer;
  /** Takes the directory offline at the first I/O error of any of its logs (Kafka's LogDirFailureChannel). */
  readonly logDirFailure: LogDirFailureChannel;
  /** Where deleted files are removed off the event loop; undefined: inline (`backgroundDelete`). */
  readonly removals: BackgroundRemovals | undefined;
  /** The LRU of open segment and index descriptors (descriptor-budget.ts). */
  readonly descriptors: DescriptorBudget;
  /** The mapped windows small appends are copied into (mapped-tail.ts); undefined: every append is written. */
  readonly mappedTails: MappedTails | undefined;
}

/**
 * One growing buffer reused for reads whose result is consumed before the next read: fresh large
 * Buffers cost page faults, and a buffer per segment would make memory grow with the segment count.
 */
export class ScratchBuffer {
  private buffer = Buffer.alloc(0);

  /** A buffer of at least `n` bytes, valid until the next call. */
  take(n: number): Buffer {
    if (this.buffer.length < n) this.buffer = Buffer.allocUnsafe(Math.max(n, this.buffer.length * 2, 64 * 1024));
    return this.buffer;
  }
}

/** Resources for one data directory; a value that is not a byte count >= 0 is refused with the option's name. */
export function createLogResources(options: LogResourceOptions = {}): LogResources {
  const backgroundFlush = options.backgroundFlush ?? true;
  if (typeof backgroundFlush !== 'boolean') throw new InvalidArgumentError(`backgroundFlush must be true or false, not ${String(backgroundFlush)}`);
  const backgroundDelete = options.backgroundDelete ?? false;
  if (typeof backgroundDelete !== 'boolean') throw new InvalidArgumentError(`backgroundDelete must be true or false, not ${String(backgroundDelete)}`);
  const mappedTail = options.mappedTail ?? false;
  if (typeof mappedTail !== 'boolean') throw new InvalidArgumentError(`mappedTail must be true or false, not ${String(mappedTail)}`);
  const mappingCalls = mappedTail ? nativeMappingCalls() : undefined;
  const logDirFailure = new LogDirFailureChannel(options.logDir ?? '(a log opened on its own)');
  return {
    pageCache: new PageCacheBudget(byteCount('pageCacheBudgetBytes', options.pageCacheBudgetBytes ?? DEFAULT_PAGE_CACHE_BUDGET)),
    indexCache: new IndexCacheBudget(byteCount('indexCacheBudgetBytes', options.indexCacheBudgetBytes ?? DEFAULT_INDEX_CACHE_BUDGET)),
    backgroundFlush: backgroundFlush && backgroundSyncSupported(),
    batchScratch: new ScratchBuffer(),
    scanWindow: new ScratchBuffer(),
    logDirFailure,
    removals: backgroundDelete ? new BackgroundRemovals((path, cause) => logDirFailure.fail(path, cause)) : undefined,
    descriptors: new DescriptorBudget(options.openFileBudget ?? defaultDescriptorBudget()),
    mappedTails: mappingCalls !== undefined ? new MappedTails(mappingCalls) : undefined,
  };
}

function byteCount(name: string, bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new InvalidArgumentError(`${name} must be a byte count >= 0, not ${bytes}`);
  return bytes;
}
