/**
 * The mechanics every segment index shares (Kafka `AbstractIndex`): a file of
 * fixed-size entries, its entry count and capacity, binary search, resize/trim, and the cache that
 * stands in for Kafka's memory map.
 *
 * Node has no mmap, so entries are read and written positionally on a file descriptor, and kept in
 * memory only where it pays:
 *  - the active index ("pinned"): once appended to, the entries live in a Buffer that grows with the
 *    appends; each append is written through to the file at its slot, so the file always holds what
 *    Kafka's mapped buffer would;
 *  - any other index ("budget"): its entries are loaded on first lookup and counted against the
 *    LRU budget of its data directory (`index-cache-budget.ts`, `LogResources.indexCache`); evicted or too-large indexes answer with
 *    positional reads of single entries.
 * File-level facts follow Kafka exactly: a new file is preallocated to roundDown(maxIndexSize,
 * entrySize); an existing file is trusted, every whole slot counting as an entry (`AbstractIndex`);
 * trimToValidSize/close cut the file to entries × entrySize.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { CorruptIndexError, InvalidArgumentError, StorageError } from '../errors.js';
import { syncInBackground } from './background-sync.js';
import type { DescriptorHolder } from './descriptor-budget.js';
import type { CacheHolder } from './index-cache-budget.js';
import { createLogResources, type LogResources } from './log-resources.js';

/** `segment.index.bytes` default (broker `log.index.size.max.bytes`, `ServerLogConfigs`). */
export const DEFAULT_MAX_INDEX_SIZE = 10 * 1024 * 1024;

const INT32_MAX = 0x7fffffff;
const INT32_MAX_N = BigInt(INT32_MAX);

export interface IndexOpenOptions {
  /** Capacity of a newly created file, `segment.index.bytes` (default 10485760). */
  maxIndexSize?: number;
  /** Open for appends (default true). A read-only index never modifies its file. */
  writable?: boolean;
  /** The data directory's index-cache budget and flush mode (log-resources.ts); its own when not given. */
  resources?: LogResources;
  /**
   * The file is known not to exist (a new log's first segment, Kafka `getOrCreateLog(isNew)`): it is
   * created empty and closed at once, with the preallocation to `maxIndexSize` made at the first
   * append, the state a loaded empty index is in (`growOnFirstAppend`). Kafka's loader sets the
   * length of a new index at once (`resizeIndexes`); the file is the same to any reader, and a
   * partition created and never written costs no ftruncate, no descriptor and no trim at close
   * (issue 21). Falls back to the general open when the file exists after all.
   */
  isNew?: boolean;
}

/**
 * Which search Kafka's `indexSlotRangeFor` answers: 'largestLowerBound' = slot of the greatest entry
 * ≤ target, or -1; 'smallestUpperBound' = slot of the smallest entry ≥ target, or -1 when the target
 * is past the last entry.
 */
export type SearchResult = 'largestLowerBound' | 'smallestUpperBound';

/** Where an index's entries live right now (exposed for tests and diagnostics). */
export type IndexCacheState = 'none' | 'budget' | 'pinned';

export function roundDownToExactMultiple(n: number, factor: number): number {
  return n - (n % factor);
}

/**
 * Clamp `value − base` into a number that compares against every int32 exactly as the bigint would:
 * stored relative offsets are int32 (possibly negative in a corrupt file), so anything outside
 * [INT32_MIN − 1, INT32_MAX + 1] can be pinned to those bounds without changing a comparison.
 */
export function relativeForSearch(value: bigint, base: bigint): number {
  const rel = value - base;
  if (rel > INT32_MAX_N) return INT32_MAX + 1;
  if (rel < -INT32_MAX_N - 1n) return -INT32_MAX - 2;
  return Number(rel);
}

/** `view` before any slot was read. */
const NO_VIEW = Buffer.alloc(0);

function storageError(what: string, path: string, cause: unknown): StorageError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StorageError(`${what} index file ${path}: ${reason}`, { cause });
}

export abstract class AbstractIndex implements CacheHolder, DescriptorHolder {
  /** Path of the index file (changes with `renameTo`). */
  path: string;
  readonly baseOffset: bigint;
  readonly entrySize: number;
  readonly writable: boolean;
  /** Size `reset()` resizes back to (Kafka's `maxIndexSize`). */
  readonly maxIndexSize: number;

  /** Undefined once closed, or while the descriptor budget has it closed (then `closed` is false). */
  private fd: number | undefined;
  private closed = false;
  /** File length in bytes: trusted as-is on open (Kafka's `length`), so it may be ragged. */
  private _length: number;
  private _entries: number;
  private _maxEntries: number;
  /** A growth `growOnFirstAppend` put off: the length Kafka's file would have; the file has `_length`. */
  private pendingLength: number | undefined;

  private cache: Buffer | undefined;
  private cacheState: IndexCacheState = 'none';
  /**
   * First appended entry not yet written to the file (-1: none). Appends land in the pinned cache
   * and reach the file on flush, trim, close or unpin, as mmap'd pages reach disk in Kafka: an
   * entry per append as a syscall would cost more than the append's own write. The entries of a
   * segment that was not flushed are rebuilt by recovery anyway (`LogSegment.recover`).
   */
  private unwrittenFrom = -1;
  /** Changed since the last flush: an unchanged index needs no sync (a segment flush syncs three files). */
  private dirty = false;
  /** Bumped by every change that makes the file dirty: a background flush clears `dirty` only if none came after it began. */
  private changes = 0;
  /** One entry read positionally, allocated at the first such read (issue 21: no per-partition buffers up front). */
  private scratch: Buffer | undefined;
  /** The buffer the last `slot()` call positioned in: the cache, or the scratch entry. */
  protected view: Buffer;
  private readonly resources: LogResources;

  protected constructor(path: string, baseOffset: bigint, entrySize: number, options: IndexOpenOptions = {}) {
    this.path = path;
    this.baseOffset = baseOffset;
    this.entrySize = entrySize;
    this.writable = options.writable ?? true;
    this.maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
    if (!Number.isSafeInteger(this.maxIndexSize) || this.maxIndexSize < 0) {
      throw new InvalidArgumentError(`Invalid max index size: ${this.maxIndexSize}`);
    }
    this.view = NO_VIEW;
    this.resources = options.resources ?? createLogResources();

    const grownAtFirstAppend = options.isNew === true && this.writable ? this.createEmpty() : undefined;
    if (grownAtFirstAppend !== undefined) {
      this._length = 0;
      if (grownAtFirstAppend > 0) this.pendingLength = grownAtFirstAppend;
      this._maxEntries = grownAtFirstAppend / entrySize;
      this._entries = 0;
      return;
    }
    // an existing file is opened at its first use, as Kafka's LazyIndex does (issue 21: loading a
    // data directory then opens no index at all); only its length is needed now
    const existing = this.existingLength();
    let created = false;
    if (existing !== undefined) {
      this._length = existing;
    } else {
      const opened = this.resources.descriptors.open(() => this.openFile());
      const fd = opened.fd;
      created = opened.created;
      this.fd = fd;
      this.resources.descriptors.opened(this);
      try {
        if (created) ftruncateSync(fd, roundDownToExactMultiple(this.maxIndexSize, entrySize));
        this._length = fstatSync(fd).size;
      } catch (cause) {
        this.fd = undefined;
        this.closed = true;
        this.resources.descriptors.closed(this);
        closeSync(fd);
        throw storageError('Cannot size', path, cause);
      }
    }
    this._maxEntries = Math.floor(this._length / entrySize);
    // Kafka positions a new index at 0 and trusts an existing one: every whole slot is an entry,
    // zero-filled tails included (AbstractIndex.createMappedBuffer).
    this._entries = created ? 0 : this._maxEntries;
  }

  /**
   * `isNew`: creates the file empty (O_EXCL) and closes it; returns the length it grows to at the
   * first append, or undefined when the file exists (then opened as any other).
   */
  private createEmpty(): number | undefined {
    // Kafka refuses a capacity below one entry when it creates the file (AbstractIndex).
    if (this.maxIndexSize < this.entrySize) throw new InvalidArgumentError(`Invalid max index size: ${this.maxIndexSize}`);
    let fd: number;
    try {
      fd = this.resources.descriptors.open(() => openSync(this.path, 'wx'));
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw storageError('Cannot create', this.path, cause);
    }
    try {
      closeSync(fd);
    } catch (cause) {
      throw storageError('Cannot create', this.path, cause);
    }
    return roundDownToExactMultiple(this.maxIndexSize, this.entrySize);
  }

  /** The length of an existing regular file at `path`; undefined when there is none (or it is no regular file: `openFile` reports that). */
  private existingLength(): number | undefined {
    try {
      const st = statSync(this.path);
      return st.isFile() ? st.size : undefined;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storageError('Cannot open', this.path, cause);
    }
  }

  private openFile(): { fd: number; created: boolean } {
    if (!this.writable) {
      try {
        return { fd: openSync(this.path, 'r'), created: false };
      } catch (cause) {
        throw storageError('Cannot open', this.path, cause);
      }
    }
    for (;;) {
      try {
        return { fd: openSync(this.path, 'r+'), created: false };
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw storageError('Cannot open', this.path, cause);
      }
      // Kafka refuses a capacity below one entry when it creates the file (AbstractIndex).
      if (this.maxIndexSize < this.entrySize) {
        throw new InvalidArgumentError(`Invalid max index size: ${this.maxIndexSize}`);
      }
      try {
        // 'wx+' = O_CREAT|O_EXCL|O_RDWR: never 'a', whose O_APPEND would ignore write positions.
        return { fd: openSync(this.path, 'wx+'), created: true };
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw storageError('Cannot create', this.path, cause);
      }
    }
  }

  // ---- the data directory's cache budget --------------------------------------------------------

  /** Called by the budget when it evicts this index's cache. */
  evictCache(): void {
    this.cache = undefined;
    this.cacheState = 'none';
  }

  get cacheMode(): IndexCacheState {
    return this.cacheState;
  }

  // ---- sizes -----------------------------------------------------------------------------------

  get entries(): number {
    return this._entries;
  }

  get maxEntries(): number {
    return this._maxEntries;
  }

  /** File length in bytes as Kafka tracks it (not necessarily a multiple of the entry size). */
  get length(): number {
    return this.pendingLength ?? this._length;
  }

  /** Bytes of valid entries. */
  get sizeInBytes(): number {
    return this._entries * this.entrySize;
  }

  isFull(): boolean {
    return this._entries >= this._maxEntries;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether the descriptor is open now (tests, diagnostics). */
  get descriptorOpen(): boolean {
    return this.fd !== undefined;
  }

  /**
   * The budget closes this index (Kafka's `LazyIndex` closes idle indexes the same way): the
   * appended entries only in the cache are written first; false, and it stays open, when that fails.
   */
  releaseDescriptor(): boolean {
    const fd = this.fd;
    if (fd === undefined) return true;
    try {
      this.writeUnwritten();
    } catch {
      return false;
    }
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // the descriptor is gone either way; the next use reopens the file
    }
    return true;
  }

  // ---- relative offsets ------------------------------------------------------------------------

  /** Kafka's `canAppendOffset`: offset − baseOffset within [0, Int.MAX]. */
  canAppendOffset(offset: bigint): boolean {
    const rel = offset - this.baseOffset;
    return rel >= 0n && rel <= INT32_MAX_N;
  }

  /** Kafka's `relativeOffset`, throwing where it throws IndexOffsetOverflowException. */
  protected relativeOffset(offset: bigint): number {
    if (!this.canAppendOffset(offset)) {
      throw new InvalidArgumentError(`Integer overflow for offset: ${offset} (${this.path})`);
    }
    return Number(offset - this.baseOffset);
  }

  // ---- reading slots ---------------------------------------------------------------------------

  /** Kafka's `entry(n)` bounds check. */
  protected checkSlot(n: number, what: string): void {
    if (!Number.isInteger(n) || n < 0 || n >= this._entries) {
      throw new InvalidArgumentError(
        `Attempt to fetch the ${n}th entry from ${what} ${this.path}, which has size ${this._entries}.`,
      );
    }
  }

  /**
   * Make a batch of slot reads cheap: load the entries into the budgeted cache if there is none
   * (and the budget can hold them), or mark the cache recently used.
   */
  protected prepareRead(): void {
    this.checkOpen();
    if (this.cacheState === 'budget') this.resources.indexCache.touch(this);
    else if (this.cacheState === 'none' && this._entries > 0) this.loadBudgetCache();
  }

  /** Position `view` at slot `n` (< entries) and return its byte offset in `view`. */
  protected slot(n: number): number {
    const cache = this.cache;
    if (cache !== undefined) {
      this.view = cache;
      return n * this.entrySize;
    }
    const scratch = (this.scratch ??= Buffer.alloc(this.entrySize));
    this.readFully(scratch, this.entrySize, n * this.entrySize);
    this.view = scratch;
    return 0;
  }

  /**
   * Kafka's `indexSlotRangeFor` as a plain binary search (the warm-section split only changes which
   * pages are touched, never the answer). `cmp(slot)` is the sign of entry(slot) − target.
   */
  protected searchSlot(cmp: (slot: number) => number, result: SearchResult): number {
    const n = this._entries;
    if (n === 0) return -1;
    this.prepareRead();
    if (cmp(0) > 0) return result === 'largestLowerBound' ? -1 : 0;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const c = cmp(mid);
      if (c > 0) hi = mid - 1;
      else if (c < 0) lo = mid;
      else return mid;
    }
    if (result === 'largestLowerBound') return lo;
    return lo === n - 1 ? -1 : lo + 1;
  }

  // ---- writing ---------------------------------------------------------------------------------

  /**
   * Write the next entry: `fill` encodes it into the (pinned) cache at `at`; the same bytes go to
   * the file at that slot. The caller has already applied Kafka's full/order checks.
   */
  protected appendSlot(fill: (buf: Buffer, at: number) => void): void {
    this.checkOpen();
    if (!this.writable) throw new InvalidArgumentError(`Attempt to append to read-only index ${this.path}`);
    if (this._entries >= this._maxEntries) {
      // Kafka's mmap.put would overflow here (only reachable with skipFullCheck on a time index).
      throw new InvalidArgumentError(`Attempt to append to a full index (size = ${this._entries}) ${this.path}`);
    }
    this.growNow();
    const at = this._entries * this.entrySize;
    const cache = this.pinnedCache(at + this.entrySize);
    fill(cache, at);
    if (this.unwrittenFrom < 0) this.unwrittenFrom = this._entries;
    this._entries++;
    this.dirty = true;
    this.changes++;
  }

  /** Kafka's `truncateToEntries`: forget entries past `entries`; the file keeps its length. */
  protected truncateToEntries(entries: number): void {
    this.checkOpen();
    this._entries = Math.min(entries, this._entries);
    if (this.unwrittenFrom >= this._entries) this.unwrittenFrom = -1;
    this.dirty = true;
    this.changes++;
    this.refreshLastEntry();
  }

  /** Re-read the subclass's cached last entry after the entry count changed. */
  protected abstract refreshLastEntry(): void;

  /** Kafka's `reset()`: no entries, capacity back to maxIndexSize. */
  reset(): void {
    this.truncateToEntries(0);
    this.resize(this.maxIndexSize);
  }

  /**
   * Kafka's `resize(newSize)`: set the file length to roundDown(newSize, entrySize), keeping the
   * entries; false if the length is already that. Shrinking below the entries is refused (Kafka's
   * buffer reposition throws IllegalArgumentException there).
   */
  resize(newSize: number): boolean {
    this.checkOpen();
    if (!Number.isSafeInteger(newSize) || newSize < 0) {
      throw new InvalidArgumentError(`Invalid index size ${newSize} for ${this.path}`);
    }
    const rounded = roundDownToExactMultiple(newSize, this.entrySize);
    if (this.pendingLength !== undefined) {
      // a growth not made yet is dropped: the file still has its length, and this resize starts from it
      const pending = this.pendingLength;
      this.pendingLength = undefined;
      this._maxEntries = Math.floor(this._length / this.entrySize);
      if (rounded === pending) return false;
    }
    if (this._length === rounded) return false;
    if (!this.writable) throw new InvalidArgumentError(`Attempt to resize read-only index ${this.path}`);
    if (rounded < this._entries * this.entrySize) {
      throw new InvalidArgumentError(
        `Cannot resize index ${this.path} to ${rounded} bytes: it holds ${this._entries} entries of ${this.entrySize} bytes`,
      );
    }
    try {
      ftruncateSync(this.handle(), rounded);
    } catch (cause) {
      throw storageError('Cannot resize', this.path, cause);
    }
    this._length = rounded;
    this._maxEntries = rounded / this.entrySize;
    this.dirty = true;
    this.changes++;
    return true;
  }

  /**
   * Kafka's `resize(newSize)` as the loader calls it on the active segment's indexes, with a growth
   * made only at the first append (the spirit of Kafka's `LazyIndex`): a log loaded and closed
   * without appends leaves its files as found, with no preallocation to trim and sync at close
   * (issue 21: that trim and fdatasync per partition was most of a clean stop). Until then the
   * index reports the grown length and capacity, as Kafka's would.
   */
  growOnFirstAppend(newSize: number): void {
    this.checkOpen();
    const rounded = roundDownToExactMultiple(newSize, this.entrySize);
    if (!this.writable || !Number.isSafeInteger(newSize) || rounded <= this._length) {
      this.resize(newSize);
      return;
    }
    this.pendingLength = rounded;
    this._maxEntries = rounded / this.entrySize;
  }

  /** The growth `growOnFirstAppend` put off, made now. */
  private growNow(): void {
    const length = this.pendingLength;
    if (length === undefined) return;
    try {
      ftruncateSync(this.handle(), length);
    } catch (cause) {
      throw storageError('Cannot resize', this.path, cause);
    }
    this.pendingLength = undefined;
    this._length = length;
    this.dirty = true;
    this.changes++;
  }

  /**
   * Kafka's `trimToValidSize()`: cut the file to the entries. Called when a segment stops being
   * active (`LogSegment.onBecomeInactiveSegment`), so the index also leaves the pinned state for the budget.
   */
  trimToValidSize(): void {
    this.writeUnwritten();
    this.resize(this._entries * this.entrySize);
    this.unpin();
  }

  /** Writes the appended entries still only in the cache to the file. */
  private writeUnwritten(): void {
    if (this.unwrittenFrom < 0 || this.cacheState !== 'pinned' || this.closed) return;
    const from = this.unwrittenFrom * this.entrySize;
    this.writeFully(this.handle(), this.cache!, from, this._entries * this.entrySize - from);
    this.unwrittenFrom = -1;
  }

  /** Kafka's `flush()` (mmap.force): write the cached appends, then fsync. */
  flush(): void {
    this.checkOpen();
    if (!this.writable || !this.dirty) return;
    this.writeUnwritten();
    this.dirty = false;
    try {
      // fdatasync: the entries and the file length, not timestamps (as Kafka's log flush); on any
      // descriptor of the file, so one the budget closed and reopened syncs what the old one wrote
      fdatasyncSync(this.handle());
    } catch (cause) {
      throw storageError('Cannot flush', this.path, cause);
    }
  }

  /**
   * `flush()` with the fdatasync on the thread pool (background-sync.ts): the cached appends are
   * written first, here. Undefined when only the inline flush is available.
   */
  flushInBackground(): Promise<void> | undefined {
    if (!this.resources.backgroundFlush) return undefined;
    this.checkOpen();
    if (!this.writable || !this.dirty) return Promise.resolve();
    this.writeUnwritten();
    const changes = this.changes;
    return syncInBackground(this.handle(), this.path)?.then(() => {
      if (this.changes === changes) this.dirty = false;
    });
  }

  /**
   * Kafka's `close()`: trim, then release. A read-only index never touches its file (Kafka would
   * trim a ragged one even then); closing twice is a no-op.
   */
  close(): void {
    if (this.closed) return;
    // trimToValidSize without handing the cache to the budget: it is dropped right after.
    if (this.writable) {
      this.writeUnwritten();
      this.resize(this._entries * this.entrySize);
    }
    this.closeHandler();
  }

  /** Kafka's `renameTo`: move the file if it exists; the index follows the new path either way. */
  renameTo(newPath: string): void {
    try {
      if (existsSync(this.path)) renameSync(this.path, newPath);
    } catch (cause) {
      throw storageError('Cannot rename', this.path, cause);
    } finally {
      this.path = newPath;
    }
  }

  /** Kafka's `deleteIfExists`: release the handle (no trim) and delete the file. */
  deleteIfExists(): boolean {
    this.closeHandler();
    try {
      unlinkSync(this.path);
      return true;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw storageError('Cannot delete', this.path, cause);
    }
  }

  /** Kafka's `sanityCheck` length rule (CorruptIndexException → CorruptIndexError). */
  protected checkLengthMultiple(label: string): void {
    if (this._length % this.entrySize !== 0) {
      throw new CorruptIndexError(
        `${label} ${this.path} is corrupt, found ${this._length} bytes which is neither positive nor a multiple of ${this.entrySize}`,
      );
    }
  }

  // ---- internals -------------------------------------------------------------------------------

  /**
   * The open descriptor, reopened if the budget closed it. Fetched anew before every system call,
   * never kept across one that may open another file (which can close this one).
   */
  /** Refuses a closed index without reopening one the budget closed. */
  private checkOpen(): void {
    if (this.closed) throw new StorageError(`Index file ${this.path} is closed`);
  }

  private handle(): number {
    if (this.closed) throw new StorageError(`Index file ${this.path} is closed`);
    const fd = this.fd;
    if (fd !== undefined) {
      this.resources.descriptors.touch(this);
      return fd;
    }
    let reopened: number;
    try {
      reopened = this.resources.descriptors.open(() => openSync(this.path, this.writable ? 'r+' : 'r'));
    } catch (cause) {
      throw cause instanceof StorageError ? cause : storageError('Cannot reopen', this.path, cause);
    }
    this.fd = reopened;
    this.resources.descriptors.opened(this);
    return reopened;
  }

  private closeHandler(): void {
    this.dropCache();
    if (this.closed) return;
    this.closed = true;
    this.resources.descriptors.closed(this);
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch (cause) {
      throw storageError('Cannot close', this.path, cause);
    }
  }

  private dropCache(): void {
    if (this.cacheState === 'budget') this.resources.indexCache.release(this);
    this.cache = undefined;
    this.cacheState = 'none';
  }

  private loadBudgetCache(): void {
    const bytes = this._entries * this.entrySize;
    if (!this.resources.indexCache.admit(this, bytes)) return; // larger than the whole budget: read positionally
    const buf = Buffer.allocUnsafe(bytes);
    try {
      this.readFully(buf, bytes, 0);
    } catch (err) {
      this.resources.indexCache.release(this);
      throw err;
    }
    this.cache = buf;
    this.cacheState = 'budget';
  }

  /** The growable cache of the active index, holding at least `needed` bytes. */
  private pinnedCache(needed: number): Buffer {
    let cache = this.cache;
    const used = this._entries * this.entrySize;
    if (this.cacheState !== 'pinned') {
      // Becoming the active index: take the entries out of the budget (or off the disk).
      const existing = this.cacheState === 'budget' ? cache : undefined;
      this.dropCache();
      cache = Buffer.allocUnsafe(this.growCapacity(used, needed));
      if (existing !== undefined) existing.copy(cache, 0, 0, used);
      else if (used > 0) this.readFully(cache, used, 0);
      this.cache = cache;
      this.cacheState = 'pinned';
    } else if (cache!.length < needed) {
      const grown = Buffer.allocUnsafe(this.growCapacity(cache!.length, needed));
      cache!.copy(grown, 0, 0, used);
      this.cache = cache = grown;
    }
    return cache!;
  }

  /** Double, but never beyond the file's capacity: the file bounds the index, as the mmap does. */
  private growCapacity(current: number, needed: number): number {
    const cap = this._maxEntries * this.entrySize;
    return Math.max(needed, Math.min(cap, Math.max(current * 2, 256 * this.entrySize)));
  }

  /** The active index stops growing: hand its exact entries to the budget. */
  private unpin(): void {
    if (this.cacheState !== 'pinned') return;
    this.writeUnwritten();
    const used = this._entries * this.entrySize;
    const cache = this.cache!;
    this.cache = undefined;
    this.cacheState = 'none';
    if (used === 0 || !this.resources.indexCache.admit(this, used)) return;
    this.cache = cache.length === used ? cache : Buffer.from(cache.subarray(0, used));
    this.cacheState = 'budget';
  }

  private readFully(buf: Buffer, length: number, position: number): void {
    const fd = this.handle();
    let done = 0;
    try {
      while (done < length) {
        const n = readSync(fd, buf, done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
    } catch (cause) {
      throw storageError('Cannot read', this.path, cause);
    }
    if (done < length) {
      throw new StorageError(`Index file ${this.path} ended at byte ${position + done}, expected ${position + length}`, {
        position: position + done,
      });
    }
  }

  private writeFully(fd: number, buf: Buffer, at: number, length: number): void {
    let done = 0;
    try {
      while (done < length) done += writeSync(fd, buf, at + done, length - done, at + done);
    } catch (cause) {
      throw storageError('Cannot write', this.path, cause);
    }
  }
}
