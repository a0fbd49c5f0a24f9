/**
 * The offset index `.index` (Kafka `OffsetIndex`): sparse 8-byte entries
 * (int32 relative offset, int32 physical position) mapping an offset to the start of the append
 * chunk in the `.log` that holds offsets up to and including it. Entries are written by
 * `LogSegment.append` every `index.interval.bytes` and by `LogSegment.recover`.
 */
import { readInt32BE, writeInt32BE } from '../bytes/big-endian.js';
import { CorruptIndexError, InvalidArgumentError, StorageError } from '../errors.js';
import { AbstractIndex, type IndexOpenOptions, relativeForSearch } from './index-file.js';

export const OFFSET_INDEX_ENTRY_SIZE = 8;

/** Kafka's `OffsetPosition`: an offset and the byte position of its batch in the `.log`. */
export interface OffsetPosition {
  offset: bigint;
  position: number;
}

export class OffsetIndex extends AbstractIndex {
  /** Offset of the last entry, or baseOffset when empty (Kafka's `lastOffset`). */
  private _lastOffset: bigint;

  private constructor(path: string, baseOffset: bigint, options?: IndexOpenOptions) {
    super(path, baseOffset, OFFSET_INDEX_ENTRY_SIZE, options);
    this._lastOffset = this.lastEntry().offset;
  }

  /**
   * Open `path`, creating and preallocating it if missing (writable only), or trusting an existing
   * file's length for the entry count (`AbstractIndex`).
   */
  static open(path: string, baseOffset: bigint, options?: IndexOpenOptions): OffsetIndex {
    return new OffsetIndex(path, baseOffset, options);
  }

  get lastOffset(): bigint {
    return this._lastOffset;
  }

  /** The last entry, or (baseOffset, 0) when empty. */
  private lastEntry(): OffsetPosition {
    const n = this.entries;
    return n === 0 ? { offset: this.baseOffset, position: 0 } : this.parseEntry(n - 1);
  }

  protected override refreshLastEntry(): void {
    this._lastOffset = this.lastEntry().offset;
  }

  private relativeOffsetAt(slot: number): number {
    const at = this.slot(slot);
    return readInt32BE(this.view, at);
  }

  private physicalAt(slot: number): number {
    const at = this.slot(slot);
    return readInt32BE(this.view, at + 4);
  }

  private parseEntry(slot: number): OffsetPosition {
    const at = this.slot(slot);
    return {
      offset: this.baseOffset + BigInt(readInt32BE(this.view, at)),
      position: readInt32BE(this.view, at + 4),
    };
  }

  /** Kafka's `entry(n)`: the n-th entry (0-based). */
  entry(n: number): OffsetPosition {
    this.checkSlot(n, 'index');
    this.prepareRead();
    return this.parseEntry(n);
  }

  /** Slot of the greatest (or, for 'smallestUpperBound', least) entry by offset around `target`. */
  private slotForOffset(target: bigint, result: 'largestLowerBound' | 'smallestUpperBound'): number {
    const rel = relativeForSearch(target, this.baseOffset);
    return this.searchSlot((slot) => this.relativeOffsetAt(slot) - rel, result);
  }

  /**
   * Kafka's `lookup`: the entry with the largest offset ≤ `targetOffset`, or (baseOffset, 0) when
   * none is — the position to start scanning the `.log` for that offset.
   */
  lookup(targetOffset: bigint): OffsetPosition {
    const slot = this.slotForOffset(targetOffset, 'largestLowerBound');
    return slot === -1 ? { offset: this.baseOffset, position: 0 } : this.parseEntry(slot);
  }

  /**
   * Kafka's `fetchUpperBoundOffset`: the first entry whose position is ≥ startPosition + fetchSize
   * (a search by value), i.e. an offset at which a fetch of `fetchSize` bytes certainly stops.
   */
  fetchUpperBoundOffset(startPosition: number, fetchSize: number): OffsetPosition | undefined {
    const target = startPosition + fetchSize;
    const slot = this.searchSlot((s) => this.physicalAt(s) - target, 'smallestUpperBound');
    return slot === -1 ? undefined : this.parseEntry(slot);
  }

  /**
   * Kafka's `append`: the full check first, then offsets must strictly increase (InvalidOffsetException),
   * then the relative offset must fit an int32 (IndexOffsetOverflowException).
   */
  append(offset: bigint, position: number): void {
    if (this.isFull()) {
      throw new InvalidArgumentError(`Attempt to append to a full index (size = ${this.entries}).`);
    }
    if (this.entries !== 0 && offset <= this._lastOffset) {
      throw new InvalidArgumentError(
        `Attempt to append an offset ${offset} to position ${this.entries} no larger than the last offset appended (${this._lastOffset}) to ${this.path}.`,
      );
    }
    const rel = this.relativeOffset(offset);
    if (!Number.isInteger(position) || position < 0 || position > 0x7fffffff) {
      throw new InvalidArgumentError(`Invalid physical position ${position} for offset ${offset} in ${this.path}`);
    }
    this.appendSlot((buf, at) => {
      writeInt32BE(buf, at, rel);
      writeInt32BE(buf, at + 4, position);
    });
    this._lastOffset = offset;
  }

  /**
   * Kafka's `truncateTo`: remove entries with offset ≥ `offset` — the largest entry ≤ offset stays
   * unless it is exactly `offset`.
   */
  truncateTo(offset: bigint): void {
    const slot = this.slotForOffset(offset, 'largestLowerBound');
    let keep: number;
    if (slot < 0) keep = 0;
    else if (BigInt(this.relativeOffsetAt(slot)) === offset - this.baseOffset) keep = slot;
    else keep = slot + 1;
    this.truncateToEntries(keep);
  }

  /**
   * Kafka's `sanityCheck` (CorruptIndexException → CorruptIndexError): a non-empty index whose last offset
   * is below the base, or a length that is not a whole number of entries. A zero-filled tail reads
   * as last offset == baseOffset and passes (recovery rebuilds unflushed indexes instead).
   */
  sanityCheck(): void {
    if (this.entries !== 0 && this._lastOffset < this.baseOffset) {
      throw new CorruptIndexError(
        `Corrupt index found, index file (${this.path}) has non-zero size but the last offset is ${this._lastOffset} which is less than the base offset ${this.baseOffset}`,
      );
    }
    this.checkLengthMultiple('Index file');
  }
}
