/**
 * A `.log` segment file: concatenated batches read and written positionally (Kafka
 * `FileRecords` / `FileLogInputStream`).
 *
 * The file rules differ from the in-memory ones: iteration stops when 17 bytes or fewer remain or
 * when a batch would extend past the end (a torn tail, which recovery truncates); a size field below
 * 14 is corrupt; the magic byte is not range-checked (0 and 1 are legacy entries, anything else is
 * read as v2).
 *
 * The logical size can be smaller than the file (a preallocated segment); reads stop at it, and it
 * only advances once an append's bytes are written, so a reader never sees a torn batch. Held
 * appends (the broker's Produce) are the exception: the size covers them before their write, and
 * every read or change of the file writes them first (held-appends.ts).
 *
 * One scratch buffer is shared by every file of a data directory (`LogResources.batchScratch`:
 * fresh large Buffers cost page faults, and a buffer per segment would make memory grow with the
 * number of segments), so a batch view yielded by `batches()` is valid only until the next batch is
 * read from any of its files. Every caller consumes a batch before reading the next one.
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, renameSync, truncateSync, writeSync, writevSync } from 'node:fs';
import { CorruptRecordError, StorageError } from '../errors.js';
import { RecordBatch } from '../record/batch.js';
import type { AnyRecordBatch } from '../record/batches.js';
import {
  BASE_OFFSET_OFFSET,
  HEADER_SIZE_UP_TO_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  MIN_ENTRY_SIZE,
  PARTITION_LEADER_EPOCH_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from '../record/constants.js';
import { LegacyRecordBatch } from '../record/legacy.js';
import { syncInBackground } from './background-sync.js';
import type { DescriptorHolder } from './descriptor-budget.js';
import type { HeldAppends, HeldAppendsFile } from './held-appends.js';
import { createLogResources, type LogResources } from './log-resources.js';
import type { MappedTail } from './mapped-tail.js';
import { KeptList } from '../v8/kept-list.js';
import { objectArray } from '../v8/elements-kind.js';
import { PAGE_BYTES, WRITEBACK_CHUNK_BYTES, type PageCacheFile } from './page-cache-budget.js';

export interface FileBatch {
  /** Byte position of the batch in the file. */
  position: number;
  /** Size field + 12. */
  sizeInBytes: number;
  magic: number;
  /** The batch view, v2 or legacy (valid until the next batch is read). */
  batch: AnyRecordBatch;
}

/** What a header scan learns without reading a batch's records. */
export interface BatchHeader {
  position: number;
  sizeInBytes: number;
  magic: number;
  /** v2: baseOffset + lastOffsetDelta; legacy: the entry's offset. */
  lastOffset: bigint;
  /** v2: the header's maxTimestamp; magic 1: the message timestamp; magic 0: -1. */
  maxTimestamp: bigint;
  /** v2 only: the header's baseOffset (legacy: undefined, needs decompression). */
  baseOffset: bigint | undefined;
  partitionLeaderEpoch: number;
}

/** Largest segment Kafka accepts: positions are int32 (Kafka's `FileRecords` refuses a larger file). */
export const MAX_SEGMENT_SIZE = 0x7fffffff;
const HEADER_READ = RECORD_BATCH_OVERHEAD;

/** `scan()`'s read window (LogResources.scanWindow), grown only for a larger batch. */
const SCAN_WINDOW_BYTES = 1024 * 1024;
/** A magic-1 message's timestamp: after the 12-byte entry prefix, crc (4), magic (1) and attributes (1). */
const LEGACY_TIMESTAMP_OFFSET = LOG_OVERHEAD + 4 + 1 + 1;
const LEGACY_TIMESTAMP_END = LEGACY_TIMESTAMP_OFFSET + 8;

/**
 * Where a read puts its bytes: a reused buffer (used when large enough, else a fresh one), or a
 * function giving a buffer of exactly the n bytes to read (the broker's Fetch takes them from a
 * pool and gives them back once the answer is written).
 */
export type ReadTarget = Buffer | ((n: number) => Buffer);

export class FileRecords implements PageCacheFile, HeldAppendsFile, DescriptorHolder {
  /** A batch header being read, allocated at the first read (issue 21: no per-partition buffers up front). */
  private header: Buffer | undefined;
  private closed = false;
  /** Written, truncated or trimmed since the last flush. */
  private dirty = false;
  /** Bumped by every change that makes the file dirty: a background flush clears `dirty` only if none came after it began. */
  private changes = 0;
  /**
   * Bumped by every truncation: positions learned before it may no longer be batch boundaries
   * (bytes after the cut are rewritten by later appends), so cached positions compare it.
   */
  private truncationCount = 0;
  /** Appended bytes from here on are not yet handed to the page-cache budget (page-cache-budget.ts). */
  private writebackFrom: number;
  /** See PageCacheFile: what the file held when opened counts as cold. */
  pageCacheColdBefore: number;
  pageCacheReadDroppedTo = 0;
  /**
   * Held appends, in order: they fill [heldFrom, size). A list kept when emptied (v8/kept-list.ts):
   * a new array per written turn, grown by a push, was about 180 B per 100 B Produce.
   */
  private readonly held = new KeptList<Uint8Array>(objectArray(), NO_BYTES);
  private heldFrom = 0;
  /** A held write failed: the size is ahead of the file, so every later use of it fails too. */
  private writeFailure: StorageError | undefined;
  /** Created empty, not preallocated: until a change (`changes`) its length is its size, 0. */
  private createdEmpty = false;
  /** Small held appends are copied through this mapped window of the file (mapped-tail.ts); made at the first one (issue 21: nothing per partition up front). */
  private tail: MappedTail | undefined;

  private constructor(
    public path: string,
    /** Undefined while the descriptor budget has it closed (descriptor-budget.ts): the next use reopens it. */
    private fd: number | undefined,
    /** Logical size: bytes of batches written (or found at open). */
    private size: number,
    readonly writable: boolean,
    private readonly resources: LogResources,
  ) {
    this.writebackFrom = size;
    this.pageCacheColdBefore = size;
    if (fd !== undefined) resources.descriptors.opened(this);
  }

  /** -1 while closed by the descriptor budget, when `pageCacheClosed` is true. */
  get pageCacheFd(): number {
    return this.fd ?? -1;
  }

  /** Also while the budget has the descriptor closed: page-cache hints are only hints. */
  get pageCacheClosed(): boolean {
    return this.closed || this.fd === undefined;
  }

  /** Whether the descriptor is open now (tests, diagnostics). */
  get descriptorOpen(): boolean {
    return this.fd !== undefined;
  }

  /**
   * The open descriptor, reopened if the budget closed it. Fetched anew before every system call,
   * never kept across one that may open another file (which can close this one).
   */
  private handle(): number {
    if (this.closed) throw new StorageError(`${this.path} is closed`);
    const fd = this.fd;
    if (fd !== undefined) {
      this.resources.descriptors.touch(this);
      return fd;
    }
    const reopened = this.resources.descriptors.open(() => openSync(this.path, this.writable ? 'r+' : 'r'));
    this.fd = reopened;
    this.resources.descriptors.opened(this);
    return reopened;
  }

  /** The descriptor the mapped tail allocates and maps through (mapped-tail.ts `MappedFile`). */
  mappingHandle(): number {
    return this.handle();
  }

  /**
   * The mapped tail's window went to another file's (mapped-tail.ts `MappedFile`): the blocks it
   * allocated past the records are given back now, not at the next roll, so that the bound on
   * windows bounds what is allocated ahead too. Through the path when the descriptor is closed:
   * this runs inside another file's append, which must not have its own descriptor closed by a
   * reopen here. A failure leaves the blocks to the trim at roll or close.
   */
  mappedWindowTaken(): void {
    if (this.closed || !this.writable) return;
    try {
      if (this.fd !== undefined) ftruncateSync(this.fd, this.size);
      else truncateSync(this.path, this.size);
      this.dirty = true;
    } catch {
      // the allocation stays until trimToSize; nothing of the log depends on it
    }
  }

  /**
   * The budget closes this file: what is held is written first (a held append must reach the file
   * before its descriptor goes, held-appends.ts); when that write fails the file stays open and the
   * failure reaches the broker through `HeldAppends.writeAll` as before.
   */
  releaseDescriptor(): boolean {
    if (this.fd === undefined) return true;
    try {
      this.writeHeld();
    } catch {
      return false;
    }
    const fd = this.fd;
    this.fd = undefined;
    // background flushes and page-cache hints run on duplicates (background-sync.ts), so closing
    // here cuts none short; fdatasync on a reopened descriptor syncs the same file (`dirty` stays)
    closeSync(fd);
    return true;
  }

  /** Opens an existing file read-only; its logical size is its length. */
  static open(path: string, resources: LogResources = createLogResources()): FileRecords {
    const fd = resources.descriptors.open(() => openSync(path, 'r'));
    let size: number;
    try {
      size = checkedSize(path, fstatSync(fd).size);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new FileRecords(path, fd, size, false, resources);
  }

  /**
   * Opens (or creates) a segment file for appends. A new file is preallocated to `initFileSize`
   * when asked (`preallocate=true`) with logical size 0; an existing one exposes its whole length
   * until recovery truncates it, as Kafka does. `isNew` (a new log's first segment): the created
   * file is closed at once and reopened by its first use, so a partition created and never
   * written holds no descriptor (issue 21).
   */
  static openWritable(path: string, options: { create: boolean; initFileSize?: number; resources?: LogResources; isNew?: boolean }): FileRecords {
    const resources = options.resources ?? createLogResources();
    const fd = resources.descriptors.open(() => openSync(path, options.create ? 'w+' : 'r+'));
    let size = 0;
    try {
      if (options.create) {
        if (options.initFileSize) ftruncateSync(fd, options.initFileSize);
      } else {
        size = checkedSize(path, fstatSync(fd).size);
      }
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    if (options.create && options.isNew === true) {
      try {
        closeSync(fd);
      } catch (e) {
        throw new StorageError(`Cannot close ${path}: ${(e as Error).message}`, { cause: e });
      }
    }
    const records = new FileRecords(path, options.create && options.isNew === true ? undefined : fd, size, true, resources);
    records.createdEmpty = options.create && !options.initFileSize;
    return records;
  }

  get sizeInBytes(): number {
    return this.size;
  }

  /** How many times the file was truncated (see `truncationCount`). */
  get truncations(): number {
    return this.truncationCount;
  }

  close(): void {
    if (this.closed) return;
    // after a failed held write, here or anywhere in the log directory (log-dir-failure.ts), nothing
    // more is written: those appends were never acknowledged, and recovery cuts the log to the file
    if (this.writeFailure === undefined) this.writeHeld();
    this.tail?.release();
    this.closed = true;
    this.resources.descriptors.closed(this);
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }

  /**
   * Appends bytes at the logical end; returns the position they take. Written now, or, given
   * `heldAppends`, held until `heldAppends.writeAll()` or the next read or change of this file: the
   * caller then must not change `bytes` before that.
   */
  append(bytes: Uint8Array, heldAppends?: HeldAppends): number {
    if (!this.writable) throw new StorageError(`${this.path} is read-only`);
    if (bytes.length > MAX_SEGMENT_SIZE - this.size) {
      throw new StorageError(`Appending ${bytes.length} bytes would make ${this.path} larger than ${MAX_SEGMENT_SIZE} bytes`);
    }
    const position = this.size;
    if (heldAppends !== undefined) {
      if (this.writeFailure !== undefined) throw this.writeFailure;
      // copied into the mapped tail when nothing is held (held bytes go out as one run from
      // heldFrom) and the directory has not failed (then nothing more reaches its files)
      const tails = this.resources.mappedTails;
      if (this.held.length === 0 && tails !== undefined && this.resources.logDirFailure.failed === undefined && (this.tail ??= tails.tail(this)).copy(bytes, position)) {
        this.size = position + bytes.length;
        this.dirty = true;
        this.changes++;
        this.startWriteback();
        return position;
      }
      if (this.held.length === 0) this.heldFrom = position;
      this.held.push(bytes);
    } else {
      this.writeHeld();
      let done = 0;
      const fd = this.handle();
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
    }
    this.size = position + bytes.length;
    this.dirty = true;
    this.changes++;
    if (heldAppends === undefined) {
      this.startWriteback();
      return position;
    }
    try {
      heldAppends.hold(this, bytes.length);
    } catch (e) {
      // the write of everything held (past the bound) failed, on another file or this one: an
      // append still held here is taken back, so the file ends where the log does
      if (this.held.get(this.held.length - 1) === bytes) {
        this.held.dropLast();
        this.size = position;
      }
      throw e;
    }
    return position;
  }

  /** Writes the held appends, in one `pwritev` when the kernel takes it whole. */
  writeHeld(): void {
    if (this.writeFailure !== undefined) throw this.writeFailure;
    if (this.held.length === 0) return;
    if (this.resources.logDirFailure.failed !== undefined) {
      // the log directory is offline (log-dir-failure.ts): what is held was never acknowledged and
      // is never written; the file ends where its writes did
      this.held.clear();
      this.size = this.heldFrom;
      return;
    }
    const held = this.held;
    try {
      const fd = this.handle();
      let at = this.heldFrom;
      let done = held.length === 1 ? 0 : writevSync(fd, heldArray(held), at);
      // a short pwritev (a signal, a full disk): the rest buffer by buffer, as append writes
      for (let i = 0; i < held.length; i++) {
        const b = held.get(i);
        if (done >= b.length) {
          done -= b.length;
          at += b.length;
          continue;
        }
        while (done < b.length) done += writeSync(fd, b, done, b.length - done, at + done);
        at += b.length;
        done = 0;
      }
    } catch (cause) {
      this.writeFailure = new StorageError(`Cannot write the appends held for ${this.path} from byte ${this.heldFrom}`, { cause });
      throw this.writeFailure;
    } finally {
      held.clear();
    }
    this.startWriteback();
  }

  /**
   * Hands each WRITEBACK_CHUNK_BYTES written to the page-cache budget (page-cache-budget.ts), up to
   * the last whole page: the partly written page at the end goes with the next range. Queuing a
   * page for writeback locks it, and with the device queue full (a roll's fdatasync in flight) the
   * lock was held for hundreds of milliseconds, during which the next append, writing into that
   * same page, waited in the kernel (`__filemap_get_folio`; bench/README.md, session 14).
   */
  private startWriteback(): void {
    if (this.size - this.writebackFrom >= WRITEBACK_CHUNK_BYTES) {
      const to = this.size - (this.size % PAGE_BYTES);
      this.resources.pageCache.written(this, this.writebackFrom, to);
      this.writebackFrom = to;
    }
  }

  flush(): void {
    this.writeHeld();
    if (!this.writable || !this.dirty) return;
    fdatasyncSync(this.handle());
    this.dirty = false;
  }

  /** `flush()` on the thread pool (background-sync.ts); undefined when only the inline flush is available. */
  flushInBackground(): Promise<void> | undefined {
    this.writeHeld();
    if (!this.resources.backgroundFlush) return undefined;
    if (!this.writable || !this.dirty) return Promise.resolve();
    const changes = this.changes;
    return syncInBackground(this.handle(), this.path)?.then(() => {
      if (this.changes === changes) this.dirty = false;
    });
  }

  /** Renames the file; the open descriptor stays valid (POSIX). */
  renameTo(newPath: string): void {
    renameSync(this.path, newPath);
    this.path = newPath;
  }

  /** Cuts the file (and the logical size) to `size` bytes; returns the bytes removed. */
  truncateTo(size: number): number {
    this.writeHeld();
    const before = this.size;
    if (size > before) throw new StorageError(`Cannot truncate ${this.path} to ${size} bytes: it holds ${before}`);
    // nothing stores through a window past the new end: the next small append maps again
    this.tail?.release();
    ftruncateSync(this.handle(), size);
    this.size = size;
    this.writebackFrom = Math.min(this.writebackFrom, size);
    this.pageCacheColdBefore = Math.min(this.pageCacheColdBefore, size);
    this.pageCacheReadDroppedTo = Math.min(this.pageCacheReadDroppedTo, size);
    this.dirty = true;
    this.changes++;
    this.truncationCount++;
    return before - size;
  }

  /** Trims a preallocated file to its logical size (roll and close). */
  trimToSize(): void {
    this.writeHeld();
    // a file created empty and never changed needs no look (issue 21: closing a partition never
    // written reopened its .log for an fstat)
    if (this.createdEmpty && this.changes === 0) return;
    // the mapped window's allocation is what the trim cuts: unmapped first
    this.tail?.release();
    if (this.writable && fstatSync(this.handle()).size !== this.size) {
      ftruncateSync(this.handle(), this.size);
      this.dirty = true;
      this.changes++;
    }
  }

  /**
   * `[position, position + length)` clipped to the logical size (fetch responses): read into
   * `into` when it is large enough (a caller's reused buffer: fresh large Buffers cost page faults),
   * else into a fresh Buffer.
   */
  readBytes(position: number, length: number, into?: ReadTarget): Buffer {
    const n = Math.max(0, Math.min(length, this.size - position));
    const out =
      typeof into === 'function' ? into(n) : into !== undefined && into.length >= n ? into.subarray(0, n) : Buffer.allocUnsafe(n);
    this.readInto(out, 0, n, position);
    this.resources.pageCache.readCold(this, position, position + n);
    return out;
  }

  private readInto(buf: Buffer, offset: number, length: number, position: number): number {
    this.writeHeld();
    const fd = this.handle();
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buf, offset + done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  private readScratch(position: number, length: number): Buffer {
    const scratch = this.resources.batchScratch.take(length);
    const n = this.readInto(scratch, 0, length, position);
    return scratch.subarray(0, n);
  }

  /**
   * Batch headers in `[start, min(end, size))`, reading only the first 61 bytes of each batch
   * (`FileLogInputStream` reads just the header for header fields).
   */
  *headers(start = 0, end = this.size): Generator<BatchHeader> {
    const limit = Math.min(end, this.size);
    let position = start;
    const head = (this.header ??= Buffer.allocUnsafe(HEADER_READ));
    while (position + HEADER_SIZE_UP_TO_MAGIC < limit) {
      const got = this.readInto(head, 0, Math.min(HEADER_READ, limit - position), position);
      const sizeInBytes = entrySize(head, 0, position, limit, this.path);
      if (sizeInBytes === 0) return;
      const magic = head.readInt8(MAGIC_OFFSET);
      let lastOffset: bigint;
      let maxTimestamp: bigint;
      let baseOffset: bigint | undefined;
      let partitionLeaderEpoch = -1;
      if (magic === 0 || magic === 1) {
        lastOffset = head.readBigInt64BE(BASE_OFFSET_OFFSET);
        // magic 1: the message's timestamp, when the entry is large enough to hold one
        maxTimestamp = magic === 1 && got >= LEGACY_TIMESTAMP_END ? head.readBigInt64BE(LEGACY_TIMESTAMP_OFFSET) : -1n;
      } else {
        baseOffset = head.readBigInt64BE(BASE_OFFSET_OFFSET);
        lastOffset = BigInt.asIntN(64, baseOffset + BigInt(head.readInt32BE(LAST_OFFSET_DELTA_OFFSET)));
        maxTimestamp = head.readBigInt64BE(MAX_TIMESTAMP_OFFSET);
        partitionLeaderEpoch = head.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET);
      }
      yield { position, sizeInBytes, magic, lastOffset, maxTimestamp, baseOffset, partitionLeaderEpoch };
      position += sizeInBytes;
    }
  }

  /** Whole batches in `[start, min(end, size))`, each read into the reused scratch buffer. */
  *batches(start = 0, end = this.size): Generator<FileBatch> {
    for (const h of this.headers(start, end)) {
      const bytes = this.readScratch(h.position, h.sizeInBytes);
      yield { position: h.position, sizeInBytes: h.sizeInBytes, magic: h.magic, batch: batchView(bytes, h.magic) };
    }
  }

  /**
   * The batches of `batches(start, end)`, ending where it ends and failing where it fails, but read
   * in windows of SCAN_WINDOW_BYTES into one reused buffer rather than with two reads per batch:
   * for whole-file scans (the CLI's verify and dump-log). The window grows only to hold one batch
   * the file really holds (entrySize checked it against the end first). A batch view is valid until
   * the next batch is read by any scan sharing these resources.
   */
  *scan(start = 0, end = this.size): Generator<FileBatch> {
    const limit = Math.min(end, this.size);
    let position = start;
    let scanWindow = this.resources.scanWindow.take(SCAN_WINDOW_BYTES);
    let windowStart = start; // file position of scanWindow[0]
    let filled = 0; // bytes of scanWindow holding the file from windowStart
    const fill = (need: number) => {
      if (scanWindow.length < need) scanWindow = this.resources.scanWindow.take(need + SCAN_WINDOW_BYTES);
      windowStart = position;
      filled = this.readInto(scanWindow, 0, Math.min(scanWindow.length, limit - position), position);
    };
    while (position + HEADER_SIZE_UP_TO_MAGIC < limit) {
      if (windowStart + filled - position < HEADER_READ) fill(HEADER_READ);
      const sizeInBytes = entrySize(scanWindow, position - windowStart, position, limit, this.path);
      if (sizeInBytes === 0) return;
      if (windowStart + filled - position < sizeInBytes) fill(sizeInBytes);
      const at = position - windowStart;
      const magic = scanWindow.readInt8(at + MAGIC_OFFSET);
      // a file cut shorter since it was opened gives a short view, as `batches()` does
      yield { position, sizeInBytes, magic, batch: batchView(scanWindow.subarray(at, Math.min(at + sizeInBytes, filled)), magic) };
      position += sizeInBytes;
    }
  }
}

/**
 * `FileLogInputStream`'s framing of the entry at file `position`, whose first 17 bytes are at `at`
 * in `buf`, in a file read up to `limit`: its size in bytes, or 0 when it runs past `limit` (a torn
 * tail, which ends the file). A size field below 14, or a v2 batch smaller than its header, is
 * corrupt. The magic byte is not range-checked: 0 and 1 are legacy entries, anything else is v2.
 */
function entrySize(buf: Buffer, at: number, position: number, limit: number, path: string): number {
  const size = buf.readInt32BE(at + LENGTH_OFFSET);
  if (size < MIN_ENTRY_SIZE) {
    throw new CorruptRecordError(`Found record size ${size} smaller than minimum record overhead (${MIN_ENTRY_SIZE}) in file ${path}.`, {
      position,
    });
  }
  if (position > limit - LOG_OVERHEAD - size) return 0;
  const magic = buf.readInt8(at + MAGIC_OFFSET);
  const sizeInBytes = size + LOG_OVERHEAD;
  if (magic !== 0 && magic !== 1 && sizeInBytes < RECORD_BATCH_OVERHEAD) {
    throw new CorruptRecordError(
      `Record batch is corrupt (the size ${sizeInBytes} is smaller than the minimum allowed overhead ${RECORD_BATCH_OVERHEAD})`,
      { position },
    );
  }
  return sizeInBytes;
}

/** A batch view at position 0 of `bytes` (so record errors name a byte of the batch). */
function batchView(bytes: Buffer, magic: number): AnyRecordBatch {
  return magic === 0 || magic === 1 ? new LegacyRecordBatch(bytes, 0) : new RecordBatch(bytes, 0);
}

function checkedSize(path: string, size: number): number {
  if (size > MAX_SEGMENT_SIZE) {
    throw new StorageError(`The size of segment ${path} (${size}) is larger than the maximum allowed segment size of ${MAX_SEGMENT_SIZE}`);
  }
  return size;
}

/** What emptied slots of the held list hold. */
const NO_BYTES = new Uint8Array(0);

/** The held appends as the array `writevSync` takes (several appends to one file in one turn). */
function heldArray(held: KeptList<Uint8Array>): Uint8Array[] {
  const out = new Array<Uint8Array>(held.length);
  for (let i = 0; i < held.length; i++) out[i] = held.get(i);
  return out;
}
