/**
 * A partition's leader-epoch → start-offset map, backed by its leader-epoch-checkpoint (Kafka
 * `storage/.../epoch/LeaderEpochFileCache.java`, used by `UnifiedLog.append` and `LogSegment.recover`).
 *
 * Invariant: epochs and start offsets both strictly increase from the oldest entry to the newest.
 * `assign` keeps it by dropping newer entries that conflict with the one being added, which is how
 * a replica forgets epochs that were truncated away.
 *
 * Persistence: every change is written to the checkpoint before the method returns. Kafka writes
 * `assign` synchronously but flushes truncations from a background thread (to keep fsync off the
 * fetcher threads) and relies on load-time truncation to repair a stale file; kafkalite has no such
 * thread, so it writes every change at once, which leaves the file at least as fresh as Kafka's.
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError, KafkaliteError, StorageError } from '../errors.js';
import { objectArray } from '../v8/elements-kind.js';
import { readLeaderEpochCheckpoint, writeLeaderEpochCheckpoint, type EpochEntry } from './checkpoint.js';

const INT64_MAX = (1n << 63n) - 1n;

export type { EpochEntry } from './checkpoint.js';

/** OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1n;

export interface EpochEndOffset {
  epoch: number;
  endOffset: bigint;
}

export class LeaderEpochFileCache {
  /**
   * Ascending by epoch (and therefore by start offset). Made empty in the object elements kind
   * (elements-kind.ts): a new partition's `[]` was the small-integer kind, and its first entry,
   * pushed by code optimized on older partitions' arrays, deoptimized the append path once per new
   * topic ('not a Smi' in assignEntry, --trace-deopt; bench/README.md, sixth pass).
   */
  private epochs: EpochEntry[] = objectArray();

  /**
   * Load the checkpoint at `checkpointPath`. Like Kafka's CheckpointFile constructor, an absent
   * file is created empty (a fresh partition has a 0-byte leader-epoch-checkpoint). Entries are
   * replayed through the assign rules without rewriting the file; an unreadable file or an entry
   * with a negative epoch or offset is a StorageError.
   */
  constructor(
    readonly checkpointPath: string,
    /** A new log's directory, just made: the file is only created, never looked for (issue 21). */
    isNew = false,
  ) {
    if (isNew) {
      try {
        closeSync(openSync(checkpointPath, 'a'));
      } catch (e) {
        throw new StorageError(`failed to create ${checkpointPath}: ${(e as Error).message}`, { cause: e });
      }
      return;
    }
    // read first: a missing file reads as empty, and only then is the existence checked (a log's
    // start made a stat and an open per partition before the read, issue 21)
    const entries = readLeaderEpochCheckpoint(checkpointPath);
    if (entries.length === 0 && !existsSync(checkpointPath)) {
      try {
        closeSync(openSync(checkpointPath, 'a'));
      } catch (e) {
        throw new StorageError(`failed to create ${checkpointPath}: ${(e as Error).message}`, { cause: e });
      }
    }
    for (const entry of entries) {
      try {
        this.assignEntry(entry.epoch, entry.startOffset);
      } catch (e) {
        if (!(e instanceof KafkaliteError)) throw e;
        throw new StorageError(`invalid entry in leader epoch checkpoint ${checkpointPath}: ${e.detail}`, { cause: e });
      }
    }
  }

  /**
   * Record that `epoch` starts at `startOffset` (`LeaderEpochFileCache.assign`). Nothing changes
   * when `epoch` is already the latest and `startOffset` is not lower than its start. Otherwise,
   * scanning from the newest entry, every entry with an epoch >= `epoch` or a start offset >=
   * `startOffset` is removed, the new entry is added, and the checkpoint is rewritten.
   */
  assign(epoch: number, startOffset: bigint): void {
    if (this.assignEntry(epoch, startOffset)) this.flush(true);
  }

  private assignEntry(epoch: number, startOffset: bigint): boolean {
    if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0x7fffffff || startOffset < 0n || startOffset > INT64_MAX) {
      throw new InvalidArgumentError(
        `Received invalid partition leader epoch entry EpochEntry(epoch=${epoch}, startOffset=${startOffset})`,
      );
    }
    // every append of a v2 batch lands here: read the newest entry in place, no copy
    const latest = this.epochs[this.epochs.length - 1];
    if (latest !== undefined && latest.epoch === epoch && startOffset >= latest.startOffset) return false;
    // maybeTruncateNonMonotonicEntries: stop at the first (newest-first) entry that is compatible.
    let keep = this.epochs.length;
    while (keep > 0) {
      const e = this.epochs[keep - 1]!;
      if (e.epoch >= epoch || e.startOffset >= startOffset) keep--;
      else break;
    }
    this.epochs.length = keep;
    this.epochs.push({ epoch, startOffset });
    return true;
  }

  nonEmpty(): boolean {
    return this.epochs.length > 0;
  }

  /** The current leader epoch: the newest epoch that has messages. */
  latestEpoch(): number | undefined {
    return this.latestEntry()?.epoch;
  }

  latestEntry(): EpochEntry | undefined {
    const e = this.epochs[this.epochs.length - 1];
    return e === undefined ? undefined : { ...e };
  }

  earliestEntry(): EpochEntry | undefined {
    const e = this.epochs[0];
    return e === undefined ? undefined : { ...e };
  }

  /** Copies, oldest first. */
  epochEntries(): readonly EpochEntry[] {
    return this.epochs.map((e) => ({ ...e }));
  }

  /**
   * The epoch `offset` belongs to (`LeaderEpochFileCache.epochForOffset`): the entry starting
   * exactly at it, else the last entry starting before it; undefined before the first entry.
   */
  epochForOffset(offset: bigint): number | undefined {
    let previous: number | undefined;
    for (const e of this.epochs) {
      if (e.startOffset === offset) return e.epoch;
      if (e.startOffset > offset) return previous;
      previous = e.epoch;
    }
    return previous;
  }

  /**
   * Remove every entry starting at or after `endOffset` (`truncateFromEnd`): the log was truncated
   * to `endOffset`, so those epochs have no messages left. A negative `endOffset` (unknown) is a
   * no-op, as in Kafka.
   */
  truncateFromEnd(endOffset: bigint): void {
    const latest = this.latestEntry();
    if (endOffset < 0n || latest === undefined || latest.startOffset < endOffset) return;
    let keep = this.epochs.length;
    while (keep > 0 && this.epochs[keep - 1]!.startOffset >= endOffset) keep--;
    this.epochs.length = keep;
    this.flush();
  }

  /**
   * Forget epochs wholly before the new log start offset (`truncateFromStart`): entries starting at
   * or before `startOffset` are removed and the last of them is put back starting at `startOffset`,
   * so the epoch that contains the new first offset is kept. Exclusive: truncateFromStart(6) keeps
   * an entry at 6 (rewritten as itself).
   */
  truncateFromStart(startOffset: bigint): void {
    let removed = 0;
    while (removed < this.epochs.length && this.epochs[removed]!.startOffset <= startOffset) removed++;
    if (removed === 0) return;
    const firstBeforeStart = this.epochs[removed - 1]!;
    // the first entry already starts at `startOffset`: rewritten as itself, the checkpoint would not
    // change, and every log's load calls this (issue 21: that rewrite, with its two fsyncs, was
    // most of a restart's time)
    if (removed === 1 && firstBeforeStart.startOffset === startOffset) return;
    this.epochs = [{ epoch: firstBeforeStart.epoch, startOffset }, ...this.epochs.slice(removed)];
    this.flush();
  }

  /**
   * Delete all entries and persist (Kafka's `clearAndFlush`, used when a v0/v1 batch is appended
   * or the log is truncated fully). When the partition directory is already gone (the log is being
   * deleted, where Kafka calls the non-flushing `clear`), nothing is written.
   */
  clear(): void {
    this.epochs = objectArray();
    this.flush();
  }

  /**
   * OffsetsForLeaderEpoch (`LeaderEpochFileCache.endOffsetFor`): the largest known epoch <=
   * `requestedEpoch` and the offset where it ends, i.e. the start of the next known epoch, or
   * `logEndOffset` when the latest epoch is requested.
   * - requestedEpoch = -1, or above every known epoch: (-1, -1);
   * - below every known epoch: (requestedEpoch, start of the first epoch), so a follower whose
   *   data was deleted still truncates to the leader's start.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: bigint): EpochEndOffset {
    const undefinedResult = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === UNDEFINED_EPOCH) return undefinedResult;
    if (this.latestEpoch() === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higher = this.epochs.find((e) => e.epoch > requestedEpoch);
    if (higher === undefined) return undefinedResult;
    let floor: EpochEntry | undefined;
    for (const e of this.epochs) {
      if (e.epoch <= requestedEpoch) floor = e;
      else break;
    }
    return floor === undefined
      ? { epoch: requestedEpoch, endOffset: higher.startOffset }
      : { epoch: floor.epoch, endOffset: higher.startOffset };
  }

  /**
   * Rewrite the checkpoint. `assign` always writes (Kafka's `writeToFile`: a failure is a storage
   * error of the append); truncations and `clear` skip the write when the partition directory no
   * longer exists (Kafka's `writeIfDirExists`: it may have been renamed for deletion meanwhile).
   */
  private flush(always = false): void {
    if (!always && !existsSync(dirname(this.checkpointPath))) return;
    writeLeaderEpochCheckpoint(this.checkpointPath, this.epochs);
  }
}
