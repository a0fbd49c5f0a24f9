/**
 * A least-recently-used budget for the in-memory copies of read-only index entries, one per data
 * directory (`LogResources.indexCache`, log-resources.ts), not one per process.
 *
 * Kafka memory-maps every index and lets the OS page cache decide what stays resident, so a broker
 * with thousands of segments does not hold thousands of indexes in its heap. Node has no mmap: a
 * read-only index copies its entries into a Buffer on first lookup, and this budget bounds the
 * total of those copies so heap use does not grow with the size of the log. When admitting a new
 * cache would exceed the limit, the least recently used caches are dropped; their indexes fall back
 * to positional reads or load again on their next lookup.
 *
 * The active (writable) index's entries are not counted here: there is one per partition and it is
 * bounded by `segment.index.bytes`, just as Kafka keeps the active index's mmap resident.
 */
import { InvalidArgumentError } from '../errors.js';
import { RecencyList } from './recency-list.js';

/** Something that owns a budgeted cache and can let it go. */
export interface CacheHolder {
  /** Drop the cached entries (called by the budget; must not call back into it). */
  evictCache(): void;
}

export const DEFAULT_INDEX_CACHE_BUDGET = 64 * 1024 * 1024;

export class IndexCacheBudget {
  private limit: number;
  private used = 0;
  /** The admitted caches' holders and bytes, least recently used first (O(1) steps: recency-list.ts). */
  private readonly lru = new RecencyList<CacheHolder, number>();

  constructor(limit = DEFAULT_INDEX_CACHE_BUDGET) {
    this.limit = checkLimit(limit);
  }

  get limitBytes(): number {
    return this.limit;
  }

  /** Change the limit; caches beyond a lowered limit are evicted at once. */
  set limitBytes(bytes: number) {
    this.limit = checkLimit(bytes);
    this.evictUntilFits(0);
  }

  /** Bytes currently held by admitted caches (always ≤ the limit). */
  get usedBytes(): number {
    return this.used;
  }

  /** Number of caches currently admitted. */
  get count(): number {
    return this.lru.size;
  }

  /**
   * Reserve `bytes` for `holder`, evicting least recently used caches as needed. Returns false
   * (and reserves nothing) when `bytes` alone exceeds the limit: that index must read positionally.
   */
  admit(holder: CacheHolder, bytes: number): boolean {
    this.release(holder);
    if (bytes > this.limit) return false;
    this.evictUntilFits(bytes);
    this.lru.set(holder, bytes);
    this.used += bytes;
    return true;
  }

  /** Mark `holder` as most recently used. */
  touch(holder: CacheHolder): void {
    this.lru.touch(holder);
  }

  /** Return `holder`'s reservation (it dropped or took over its cache). No-op if not admitted. */
  release(holder: CacheHolder): void {
    const bytes = this.lru.delete(holder);
    if (bytes !== undefined) this.used -= bytes;
  }

  private evictUntilFits(incoming: number): void {
    while (this.used + incoming > this.limit) {
      const victim = this.lru.oldest();
      if (victim === undefined) return;
      this.used -= this.lru.delete(victim)!;
      victim.evictCache();
    }
  }
}

function checkLimit(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new InvalidArgumentError(`Index cache budget must be a non-negative integer, got ${bytes}`);
  }
  return bytes;
}
