/**
 * The time index `.timeindex` (Kafka `TimeIndex`): 12-byte entries (int64
 * timestamp, int32 relative offset). Each entry is the max timestamp seen in the segment so far and
 * the last offset of the batch holding it (a "shallow" offset), so both columns only grow.
 */
import { readInt32BE, readUInt32BE, writeInt32BE } from '../bytes/big-endian.js';
import { CorruptIndexError, InvalidArgumentError, StorageError } from '../errors.js';
import { AbstractIndex, type IndexOpenOptions, relativeForSearch } from './index-file.js';

export const TIME_INDEX_ENTRY_SIZE = 12;

/** Kafka's RecordBatch.NO_TIMESTAMP, the timestamp of an empty index's "last entry". */
const NO_TIMESTAMP = -1n;
const INT64_MAX = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

/** Kafka's `TimestampOffset`. */
export interface TimestampOffset {
  timestamp: bigint;
  offset: bigint;
}

export class TimeIndex extends AbstractIndex {
  /**
   * Read from the file at first use, not at open: loading a log must not open every segment's
   * time index (Kafka's `LazyIndex`; issue 21: it was a fifth of a clean start's time).
   */
  private cachedLastEntry: TimestampOffset | undefined;

  private constructor(path: string, baseOffset: bigint, options?: IndexOpenOptions) {
    super(path, baseOffset, TIME_INDEX_ENTRY_SIZE, options);
  }

  private get _lastEntry(): TimestampOffset {
    return (this.cachedLastEntry ??= this.lastEntryFromIndexFile());
  }

  private set _lastEntry(entry: TimestampOffset) {
    this.cachedLastEntry = entry;
  }

  /**
   * Open `path`, creating and preallocating it if missing (writable only), or trusting an existing
   * file's length for the entry count (`AbstractIndex`).
   */
  static open(path: string, baseOffset: bigint, options?: IndexOpenOptions): TimeIndex {
    return new TimeIndex(path, baseOffset, options);
  }

  /**
   * Kafka's `isFull`: one slot stays free for the entry `LogSegment` writes at roll/close with
   * skipFullCheck (`LogSegment.onBecomeInactiveSegment`).
   */
  override isFull(): boolean {
    return this.entries >= this.maxEntries - 1;
  }

  /** The last entry, or (-1, baseOffset) when empty. */
  lastEntry(): TimestampOffset {
    return { ...this._lastEntry };
  }

  private lastEntryFromIndexFile(): TimestampOffset {
    const n = this.entries;
    return n === 0 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.parseEntry(n - 1);
  }

  protected override refreshLastEntry(): void {
    this.cachedLastEntry = undefined;
  }

  private timestampAt(slot: number): bigint {
    const at = this.slot(slot);
    return this.view.readBigInt64BE(at);
  }

  private relativeOffsetAt(slot: number): number {
    const at = this.slot(slot);
    return readInt32BE(this.view, at + 8);
  }

  private parseEntry(slot: number): TimestampOffset {
    const at = this.slot(slot);
    return {
      timestamp: this.view.readBigInt64BE(at),
      offset: this.baseOffset + BigInt(readInt32BE(this.view, at + 8)),
    };
  }

  /** Kafka's `entry(n)`: the n-th entry (0-based). */
  entry(n: number): TimestampOffset {
    this.checkSlot(n, 'time index');
    this.prepareRead();
    return this.parseEntry(n);
  }

  /**
   * Kafka's `lookup`: the entry with the largest timestamp ≤ `targetTimestamp`, or (-1, baseOffset)
   * when none is.
   */
  lookup(targetTimestamp: bigint): TimestampOffset {
    const none = { timestamp: NO_TIMESTAMP, offset: this.baseOffset };
    if (targetTimestamp < INT64_MIN) return none;
    // Compare as (int32 high, uint32 low) halves: no BigInt allocated per probe.
    const target = targetTimestamp > INT64_MAX ? INT64_MAX : targetTimestamp;
    const hi = Number(BigInt.asIntN(32, target >> 32n));
    const lo = Number(BigInt.asUintN(32, target));
    const slot = this.searchSlot((s) => {
      const at = this.slot(s);
      const h = readInt32BE(this.view, at);
      if (h !== hi) return h > hi ? 1 : -1;
      const l = readUInt32BE(this.view, at + 4);
      return l > lo ? 1 : l < lo ? -1 : 0;
    }, 'largestLowerBound');
    return slot === -1 ? none : this.parseEntry(slot);
  }

  /**
   * Kafka's `TimeIndex.maybeAppend`: refuse when full unless `skipFullCheck` (IllegalArgumentException),
   * refuse an offset below the last entry's (InvalidOffsetException) or a timestamp below it
   * (IllegalStateException), and write only a strictly larger timestamp — an equal one is the
   * roll/close re-append of the last entry and is ignored, and timestamps ≤ -1 never index.
   */
  maybeAppend(timestamp: bigint, offset: bigint, skipFullCheck = false): void {
    if (!skipFullCheck && this.isFull()) {
      throw new InvalidArgumentError(`Attempt to append to a full time index (size = ${this.entries}).`);
    }
    const last = this._lastEntry;
    if (this.entries !== 0 && offset < last.offset) {
      throw new InvalidArgumentError(
        `Attempt to append an offset (${offset}) to slot ${this.entries} no larger than the last offset appended (${last.offset}) to ${this.path}.`,
      );
    }
    if (this.entries !== 0 && timestamp < last.timestamp) {
      throw new InvalidArgumentError(
        `Attempt to append a timestamp (${timestamp}) to slot ${this.entries} no larger than the last timestamp appended (${last.timestamp}) to ${this.path}.`,
      );
    }
    if (timestamp > last.timestamp) {
      const rel = this.relativeOffset(offset);
      this.appendSlot((buf, at) => {
        buf.writeBigInt64BE(timestamp, at);
        writeInt32BE(buf, at + 8, rel);
      });
      this._lastEntry = { timestamp, offset };
    }
  }

  /**
   * Kafka's `truncateTo`: remove entries whose offset is ≥ `offset` (searching by offset, the
   * value column).
   */
  truncateTo(offset: bigint): void {
    const rel = relativeForSearch(offset, this.baseOffset);
    const slot = this.searchSlot((s) => this.relativeOffsetAt(s) - rel, 'largestLowerBound');
    let keep: number;
    if (slot < 0) keep = 0;
    else if (this.relativeOffsetAt(slot) === rel) keep = slot;
    else keep = slot + 1;
    this.truncateToEntries(keep);
  }

  /**
   * Kafka's `sanityCheck` (CorruptIndexException → CorruptIndexError): a last timestamp below the first,
   * a last offset below the base, or a length that is not a whole number of entries.
   */
  sanityCheck(): void {
    const { timestamp: lastTimestamp, offset: lastOffset } = this._lastEntry;
    if (this.entries !== 0) {
      const first = this.timestampAt(0);
      if (lastTimestamp < first) {
        throw new CorruptIndexError(
          `Corrupt time index found, time index file (${this.path}) has non-zero size but the last timestamp is ${lastTimestamp} which is less than the first timestamp ${first}`,
        );
      }
      if (lastOffset < this.baseOffset) {
        throw new CorruptIndexError(
          `Corrupt time index found, time index file (${this.path}) has non-zero size but the last offset is ${lastOffset} which is less than the first offset ${this.baseOffset}`,
        );
      }
    }
    this.checkLengthMultiple('Time index file');
  }
}
