/**
 * A least-recently-used budget of open file descriptors for the segment files and indexes of one
 * data directory (`LogResources.descriptors`, log-resources.ts), never one per process.
 *
 * Kafka keeps a descriptor per segment file and asks for a limit of 100,000 or more; only its
 * indexes are opened lazily (`LazyIndex`, KIP-263). kafkalite is one process that knows which logs
 * are in use, so it extends the lazy open to `.log` files and closes the least recently used
 * descriptor once the budget is reached: a partition written or read now keeps its files open, an
 * idle one costs no descriptor, and loading a data directory holds a bounded number at once
 * however many partitions it has. A closed file reopens on its next use (file-records.ts,
 * index-file.ts).
 *
 * A holder may refuse to let its descriptor go (its held appends could not be written,
 * held-appends.ts): it then stays open and the budget skips it, so the only way past the limit
 * is a failing directory, which halts the broker anyway (log-dir-failure.ts).
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, StorageError } from '../errors.js';
import { RecencyList } from './recency-list.js';

/** Something holding one descriptor under the budget. */
export interface DescriptorHolder {
  /**
   * Close the descriptor for the budget (it reopens on next use); false when it cannot right now.
   * Must not open another file.
   */
  releaseDescriptor(): boolean;
}

/** The smallest budget: a segment's three files and a cleaner's source and destination segments. */
export const MIN_DESCRIPTOR_BUDGET = 8;
/**
 * The default's cap: 4,096 hot partitions' three files each is plenty, and the issue's target is a
 * broker within 20,000 descriptors at 100,000 partitions.
 */
export const MAX_DEFAULT_DESCRIPTOR_BUDGET = 12_288;

/** The process's soft RLIMIT_NOFILE from /proc/self/limits; undefined when unknown or unlimited. */
export function processOpenFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'latin1');
    } catch {
      return undefined; // not Linux: no /proc
    }
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (m === null || m[1] === 'unlimited') return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Half of the soft limit (sockets, checkpoints, the runtime's own descriptors and a second data
 * directory need the rest), between MIN_DESCRIPTOR_BUDGET and MAX_DEFAULT_DESCRIPTOR_BUDGET; 1,024
 * when the limit is unknown.
 */
export function budgetForLimit(limit: number | undefined): number {
  if (limit === undefined) return 1024;
  return Math.max(MIN_DESCRIPTOR_BUDGET, Math.min(MAX_DEFAULT_DESCRIPTOR_BUDGET, Math.floor(limit / 2)));
}

/** The budget for this process's soft limit (`budgetForLimit`). */
export function defaultDescriptorBudget(): number {
  return budgetForLimit(cachedProcessLimit());
}

let processLimit: { value: number | undefined } | undefined;
/** Read once: a file opened on its own gets resources of its own, and must not read /proc each time. */
function cachedProcessLimit(): number | undefined {
  processLimit ??= { value: processOpenFileLimit() };
  return processLimit.value;
}

export class DescriptorBudget {
  private readonly limit: number;
  /** The open descriptors' holders, least recently used first (O(1) steps: recency-list.ts). */
  private readonly lru = new RecencyList<DescriptorHolder, true>();
  private closes = 0;

  constructor(limit = defaultDescriptorBudget()) {
    if (!Number.isSafeInteger(limit) || limit < MIN_DESCRIPTOR_BUDGET) {
      throw new InvalidArgumentError(`The open file budget must be an integer >= ${MIN_DESCRIPTOR_BUDGET}, not ${limit}`);
    }
    this.limit = limit;
  }

  get limitCount(): number {
    return this.limit;
  }

  /** Descriptors open under the budget now. */
  get openCount(): number {
    return this.lru.size;
  }

  /** Descriptors the budget closed so far (diagnostics, tests). */
  get evictions(): number {
    return this.closes;
  }

  /** The holders from the least to the most recently used (diagnostics, tests). */
  *leastRecentlyUsed(): Generator<DescriptorHolder> {
    for (const [holder] of this.lru.entries()) yield holder;
  }

  /** Make room for one more descriptor: call before opening a file. */
  reserve(): void {
    if (this.lru.size >= this.limit) this.shed(this.lru.size - this.limit + 1);
  }

  /**
   * Runs `open` (which opens one file) after making room for it. Should the process run out of
   * descriptors anyway (a budget set above the limit, sockets, another data directory), the least
   * recently used quarter of this budget's files is closed and the open tried once more, so a
   * directory stays loadable and writable; when that does not help either, the error names the
   * limit instead of a bare EMFILE.
   */
  open<T>(opener: () => T): T {
    this.reserve();
    try {
      return opener();
    } catch (e) {
      if (!isOutOfDescriptors(e) || this.shed(Math.max(1, Math.ceil(this.lru.size / 4))) === 0) throw outOfDescriptors(e);
      try {
        return opener();
      } catch (again) {
        throw isOutOfDescriptors(again) ? outOfDescriptors(again) : again;
      }
    }
  }

  /**
   * Closes up to `n` least recently used descriptors; returns how many it closed. A holder that
   * cannot let go now is moved to the newest end, as if used (it is: its held appends are
   * pending), so the next eviction does not step over it again; each holder is asked once.
   */
  private shed(n: number): number {
    let closed = 0;
    for (let asked = this.lru.size; closed < n && asked > 0; asked--) {
      const victim = this.lru.oldest()!;
      if (victim.releaseDescriptor()) {
        this.lru.delete(victim);
        this.closes++;
        closed++;
      } else {
        this.lru.touch(victim);
      }
    }
    return closed;
  }

  /** `holder` opened its descriptor (after `reserve()`). */
  opened(holder: DescriptorHolder): void {
    this.lru.set(holder, true);
  }

  /** `holder` used its descriptor: it becomes the most recently used. */
  touch(holder: DescriptorHolder): void {
    this.lru.touch(holder);
  }

  /** `holder` closed its descriptor itself. */
  closed(holder: DescriptorHolder): void {
    this.lru.delete(holder);
  }
}

/**
 * Refuses a budget above the process's soft limit, with the error of running out: the budget would
 * close no file before the limit is hit. With logs opened at their first use (issue 21) the limit
 * would otherwise be hit at some later request, taking the directory offline, rather than at start.
 */
export function checkBudgetWithinLimit(budget: number, limit: number | undefined): void {
  if (limit === undefined || budget <= limit) return;
  throw new StorageError(
    `Out of file descriptors (the process may open ${limit} files, ulimit -n): kafkalite.open.files.budget ${budget} is above the limit. ` +
      'Raise the limit or lower kafkalite.open.files.budget.',
  );
}

function isOutOfDescriptors(e: unknown): boolean {
  let cause: unknown = e;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EMFILE' || code === 'ENFILE') return true;
    cause = cause.cause;
  }
  return false;
}

/**
 * `e` as one StorageError naming the process's descriptor limit and the budget when it (or its
 * cause) is EMFILE/ENFILE; otherwise `e` itself.
 */
export function outOfDescriptors(e: unknown): unknown {
  if (!isOutOfDescriptors(e)) return e;
  const limit = processOpenFileLimit();
  return new StorageError(
    `Out of file descriptors (the process may open ${limit ?? 'an unknown number of'} files, ulimit -n): ${(e as Error).message}. ` +
      'Raise the limit or lower kafkalite.open.files.budget.',
    { cause: e },
  );
}
