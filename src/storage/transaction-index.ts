/**
 * The transaction index `.txnindex` (Kafka `TransactionIndex` / `AbortedTxn`):
 * the aborted transactions whose ABORT marker lies in the segment, 34 bytes each:
 *
 * | offset | size | field |
 * | --- | --- | --- |
 * | 0 | 2 | version (int16) = 0 |
 * | 2 | 8 | producerId |
 * | 10 | 8 | firstOffset |
 * | 18 | 8 | lastOffset (the ABORT marker's offset) |
 * | 26 | 8 | lastStableOffset |
 *
 * Kafka's file rules, kept here:
 *  - plain appends, no preallocation; the file is created only by the first append, so most
 *    segments have none (open, reset and flush never create it);
 *  - reads walk whole entries while `end − position ≥ 34`: a partial trailing entry is ignored;
 *  - the version is the file's first byte of the entry only (`AbortedTxn.version` reads
 *    `buffer.get(0)`); a version above 0 makes iteration fail;
 *  - `lastOffset` must strictly increase across appends, checked against the last entry appended or
 *    kept by `truncateTo` through this object (like Kafka, not against a file that was reopened);
 *  - a closed index reopens its file on the next read or append.
 */
import type { DescriptorHolder } from './descriptor-budget.js';
import { closeSync, constants, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { CorruptIndexError, InvalidArgumentError, StorageError } from '../errors.js';
import { syncInBackground } from './background-sync.js';
import { createLogResources, type LogResources } from './log-resources.js';

export const ABORTED_TXN_VERSION_OFFSET = 0;
export const ABORTED_TXN_PRODUCER_ID_OFFSET = 2;
export const ABORTED_TXN_FIRST_OFFSET_OFFSET = 10;
export const ABORTED_TXN_LAST_OFFSET_OFFSET = 18;
export const ABORTED_TXN_LAST_STABLE_OFFSET_OFFSET = 26;
/** `AbortedTxn.TOTAL_SIZE`. */
export const ABORTED_TXN_SIZE = 34;
/** `AbortedTxn.CURRENT_VERSION`. */
export const ABORTED_TXN_CURRENT_VERSION = 0;

/** Kafka's `AbortedTxn`; `version` is absent when built by a caller (written as 0). */
export interface AbortedTxn {
  version?: number;
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  lastStableOffset: bigint;
}

/** Kafka's `TxnIndexSearchResult`. */
export interface TxnIndexSearchResult {
  abortedTransactions: AbortedTxn[];
  /** An entry with lastStableOffset ≥ the upper bound was seen: later segments need not be searched. */
  isComplete: boolean;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** The 34 bytes of one entry. The version goes in the byte Kafka reads it from, the next is 0. */
export function encodeAbortedTxn(txn: AbortedTxn): Buffer {
  const version = txn.version ?? ABORTED_TXN_CURRENT_VERSION;
  if (!Number.isInteger(version) || version < -128 || version > ABORTED_TXN_CURRENT_VERSION) {
    throw new InvalidArgumentError(
      `Aborted transaction version ${version} is not supported, current version is ${ABORTED_TXN_CURRENT_VERSION}`,
    );
  }
  for (const field of ['producerId', 'firstOffset', 'lastOffset', 'lastStableOffset'] as const) {
    const v = txn[field];
    if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) {
      throw new InvalidArgumentError(`Aborted transaction ${field} ${String(v)} is not an int64`);
    }
  }
  const buf = Buffer.alloc(ABORTED_TXN_SIZE);
  buf.writeInt8(version, ABORTED_TXN_VERSION_OFFSET);
  buf.writeBigInt64BE(txn.producerId, ABORTED_TXN_PRODUCER_ID_OFFSET);
  buf.writeBigInt64BE(txn.firstOffset, ABORTED_TXN_FIRST_OFFSET_OFFSET);
  buf.writeBigInt64BE(txn.lastOffset, ABORTED_TXN_LAST_OFFSET_OFFSET);
  buf.writeBigInt64BE(txn.lastStableOffset, ABORTED_TXN_LAST_STABLE_OFFSET_OFFSET);
  return buf;
}

/** One entry at `at`; the version is the signed first byte only (Kafka's `buffer.get(0)`). */
export function decodeAbortedTxn(buf: Buffer, at = 0): AbortedTxn {
  return {
    version: buf.readInt8(at + ABORTED_TXN_VERSION_OFFSET),
    producerId: buf.readBigInt64BE(at + ABORTED_TXN_PRODUCER_ID_OFFSET),
    firstOffset: buf.readBigInt64BE(at + ABORTED_TXN_FIRST_OFFSET_OFFSET),
    lastOffset: buf.readBigInt64BE(at + ABORTED_TXN_LAST_OFFSET_OFFSET),
    lastStableOffset: buf.readBigInt64BE(at + ABORTED_TXN_LAST_STABLE_OFFSET_OFFSET),
  };
}

/** `AbortedTxn.toString`. */
export function formatAbortedTxn(txn: AbortedTxn): string {
  return (
    `AbortedTxn(version=${txn.version ?? ABORTED_TXN_CURRENT_VERSION}, producerId=${txn.producerId}, ` +
    `firstOffset=${txn.firstOffset}, lastOffset=${txn.lastOffset}, lastStableOffset=${txn.lastStableOffset})`
  );
}

function ioError(what: string, path: string, cause: unknown): StorageError {
  return new StorageError(`${what} transaction index ${resolve(path)}: ${(cause as Error).message}`, { cause });
}

export class TransactionIndex implements DescriptorHolder {
  /** Path of the index file (changes with `renameTo`); the file may not exist yet. */
  path: string;
  /** Base offset of the segment the index belongs to. */
  readonly startOffset: bigint;

  /** Undefined until the file is opened, once closed, or while the descriptor budget has it closed. */
  private fd: number | undefined;
  /** Written or truncated since the last fsync (which may then need to reopen the file). */
  private unsynced = false;
  /** Kafka's channel position: the end of the file as this object knows it. */
  private end = 0;
  private writable = false;
  /** Last offset appended (or kept by truncateTo) through this object; undefined after open/reset. */
  private lastOffset: bigint | undefined;
  /** One entry being read, allocated at the first read (issue 21: no per-partition buffers up front). */
  private entry: Buffer | undefined;

  private constructor(
    path: string,
    startOffset: bigint,
    /** Its data directory's flush mode (log-resources.ts). */
    private readonly resources: LogResources,
  ) {
    this.path = path;
    this.startOffset = startOffset;
  }

  /**
   * Open the index at `path`; the file is not created until the first append. `isNew`: the segment
   * is being created in a new log's directory, so there is no file to look for.
   */
  static open(path: string, startOffset: bigint, resources: LogResources = createLogResources(), isNew = false): TransactionIndex {
    const index = new TransactionIndex(path, startOffset, resources);
    if (!isNew && existsSync(path)) index.openChannel();
    return index;
  }

  /**
   * Open the file read-write (creating it), positioned at its end. A file that may only be read
   * (a read-only dump) opens read-only instead; appends to it then fail.
   */
  private openChannel(): number {
    const fd = this.resources.descriptors.open(() => {
      try {
        const rw = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
        this.writable = true;
        return rw;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if ((code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') || !existsSync(this.path)) {
          throw ioError('Cannot open', this.path, e);
        }
        let ro: number;
        try {
          ro = openSync(this.path, 'r');
        } catch (e2) {
          throw ioError('Cannot open', this.path, e2);
        }
        this.writable = false;
        return ro;
      }
    });
    try {
      this.end = fstatSync(fd).size;
    } catch (e) {
      closeSync(fd);
      throw ioError('Cannot size', this.path, e);
    }
    this.fd = fd;
    this.resources.descriptors.opened(this);
    return fd;
  }

  /** The budget closes the file (descriptor-budget.ts): every write went straight to it. */
  releaseDescriptor(): boolean {
    const fd = this.fd;
    if (fd === undefined) return true;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // the descriptor is gone either way; the next use reopens the file
    }
    return true;
  }

  /** The open descriptor, reopening (and creating) the file if it was closed. */
  private channel(): number {
    if (this.fd === undefined) return this.openChannel();
    this.resources.descriptors.touch(this);
    return this.fd;
  }

  /** Descriptor for reading, or undefined when there is no file (nothing to read). */
  private readChannel(): number | undefined {
    if (this.fd !== undefined) {
      this.resources.descriptors.touch(this);
      return this.fd;
    }
    if (!existsSync(this.path)) return undefined;
    return this.openChannel();
  }

  /** Kafka's `append`: lastOffset must be greater than the last one appended. */
  append(txn: AbortedTxn): void {
    if (this.lastOffset !== undefined && this.lastOffset >= txn.lastOffset) {
      throw new InvalidArgumentError(
        `The last offset of appended transactions must increase sequentially, but ${txn.lastOffset} is not greater than current last offset ${this.lastOffset} of index ${resolve(this.path)}`,
      );
    }
    const bytes = encodeAbortedTxn(txn);
    const fd = this.channel();
    if (!this.writable) throw new StorageError(`Cannot append to read-only transaction index ${resolve(this.path)}`);
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, this.end + done);
    } catch (e) {
      throw ioError('Failed to write to the', this.path, e);
    }
    this.end += bytes.length;
    this.unsynced = true;
    this.lastOffset = txn.lastOffset;
  }

  /** Entries with their byte positions, read one at a time (a partial tail is ignored). */
  private *entries(): Generator<{ txn: AbortedTxn; position: number }> {
    if (this.readChannel() === undefined) return;
    for (let position = 0; this.end - position >= ABORTED_TXN_SIZE; position += ABORTED_TXN_SIZE) {
      // anew for each entry: the caller may open other files between them, and the budget may
      // have closed this one meanwhile
      const fd = this.readChannel();
      if (fd === undefined) return;
      const entry = (this.entry ??= Buffer.alloc(ABORTED_TXN_SIZE));
      let got = 0;
      try {
        while (got < ABORTED_TXN_SIZE) {
          const n = readSync(fd, entry, got, ABORTED_TXN_SIZE - got, position + got);
          if (n === 0) break;
          got += n;
        }
      } catch (e) {
        throw ioError('Failed to read from the', this.path, e);
      }
      if (got < ABORTED_TXN_SIZE) {
        throw new StorageError(`Failed to read from the transaction index ${resolve(this.path)}: end of file`, {
          position: position + got,
        });
      }
      const txn = decodeAbortedTxn(entry);
      if (txn.version! > ABORTED_TXN_CURRENT_VERSION) {
        throw new StorageError(
          `Unexpected aborted transaction version ${txn.version} in transaction index ${resolve(this.path)}, current version is ${ABORTED_TXN_CURRENT_VERSION}`,
          { position },
        );
      }
      yield { txn, position };
    }
  }

  /** Every entry, in file order. */
  allAbortedTxns(): AbortedTxn[] {
    return [...this.entries()].map((e) => e.txn);
  }

  /**
   * Kafka's `collectAbortedTxns`: entries overlapping [fetchOffset, upperBoundOffset) — lastOffset ≥
   * fetchOffset and firstOffset < upperBoundOffset — stopping (complete) at the first entry whose
   * lastStableOffset ≥ upperBoundOffset.
   */
  collectAbortedTxns(fetchOffset: bigint, upperBoundOffset: bigint): TxnIndexSearchResult {
    const abortedTransactions: AbortedTxn[] = [];
    for (const { txn } of this.entries()) {
      if (txn.lastOffset >= fetchOffset && txn.firstOffset < upperBoundOffset) abortedTransactions.push(txn);
      if (txn.lastStableOffset >= upperBoundOffset) return { abortedTransactions, isComplete: true };
    }
    return { abortedTransactions, isComplete: false };
  }

  /** Kafka's `truncateTo`: cut the file at the first entry whose lastOffset ≥ `offset`. */
  truncateTo(offset: bigint): void {
    let newLastOffset: bigint | undefined;
    for (const { txn, position } of this.entries()) {
      if (txn.lastOffset >= offset) {
        this.truncateFile(position);
        this.lastOffset = newLastOffset;
        return;
      }
      newLastOffset = txn.lastOffset;
    }
  }

  /** Remove every entry (truncate to 0 bytes); a missing file stays missing. */
  reset(): void {
    if (this.fd !== undefined || existsSync(this.path)) this.truncateFile(0);
    this.lastOffset = undefined;
  }

  private truncateFile(size: number): void {
    const fd = this.channel();
    try {
      ftruncateSync(fd, size);
    } catch (e) {
      throw ioError('Cannot truncate', this.path, e);
    }
    this.unsynced = true;
    this.end = Math.min(this.end, size);
  }

  /** Kafka's `sanityCheck` (CorruptIndexException → CorruptIndexError): every lastOffset ≥ startOffset. */
  sanityCheck(): void {
    for (const { txn, position } of this.entries()) {
      if (txn.lastOffset < this.startOffset) {
        throw new CorruptIndexError(
          `Last offset of aborted transaction ${formatAbortedTxn(txn)} in index ${resolve(this.path)} is less than start offset ${this.startOffset}`,
          { position },
        );
      }
    }
  }

  /** `flush()` on the thread pool (background-sync.ts); undefined when only the inline flush is available. */
  flushInBackground(): Promise<void> | undefined {
    if (!this.resources.backgroundFlush) return undefined;
    if (this.fd === undefined && !this.unsynced) return Promise.resolve();
    this.unsynced = false;
    return syncInBackground(this.channel(), this.path);
  }

  /** fsync the file if it is open (never creates it). */
  flush(): void {
    if (this.fd === undefined && !this.unsynced) return;
    try {
      // any descriptor of the file syncs what one the budget closed wrote
      fsyncSync(this.channel());
      this.unsynced = false;
    } catch (e) {
      throw ioError('Cannot flush', this.path, e);
    }
  }

  /** Close the file; later reads and appends reopen it. */
  close(): void {
    this.resources.descriptors.closed(this);
    this.unsynced = false; // as before the budget: closing ends what a flush would sync
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch (e) {
      throw ioError('Cannot close', this.path, e);
    }
  }

  /** Rename the file if it exists; the index takes the new path either way. */
  renameTo(newPath: string): void {
    try {
      if (existsSync(this.path)) renameSync(this.path, newPath);
    } catch (e) {
      throw ioError('Cannot rename', this.path, e);
    } finally {
      this.path = newPath;
    }
  }

  /** Close and delete the file; true when it existed. */
  deleteIfExists(): boolean {
    this.close();
    try {
      unlinkSync(this.path);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw ioError('Cannot delete', this.path, e);
    }
  }

  /** No whole entry to read (no file, an empty one, or only a partial entry). */
  get isEmpty(): boolean {
    const fd = this.readChannel();
    return fd === undefined || this.end < ABORTED_TXN_SIZE;
  }
}
