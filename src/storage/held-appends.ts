/**
 * Held appends: Produce appends whose write to the segment file waits until the broker is about to
 * answer. One broker component (`Broker.heldAppends`); the connection calls {@link HeldAppends.writeAll}
 * before any answer leaves, and that is its only hook.
 *
 * Why: a system call costs more than copying a small append, and a 16 KiB Produce stream made one
 * `pwrite` per request. The broker handles every request that arrived in one turn of its event
 * loop before it answers any, so their appends to one segment can go out as one `pwritev`; the
 * gain against the build that wrote each append at once is in bench/README.md.
 *
 * The rule that keeps this safe, Kafka's for acks=1 and acks=all alike: a request is answered only
 * after its records were handed to the OS. The broker writes the held appends before any answer
 * leaves (connection.ts), and everything that reads or changes a segment file writes its held
 * appends first (file-records.ts), so a reader never sees a segment without them. A request's frame
 * goes back to the frame pool only after that write too (the Produce handler's `afterAnswer`).
 *
 * When a held write fails, the records were already given offsets: the log's in-memory state is
 * ahead of its file. Kafka takes a log directory offline on such an I/O error and halts a broker
 * whose only log directory failed (`LogDirFailureChannel`, `ReplicaManager.handleLogDirFailure`).
 * The failure goes to the data directory's channel (log-dir-failure.ts), the same one every other
 * I/O error of its logs goes to: from then on `writeAll` throws, so nothing held is acknowledged,
 * and the broker answers what is in flight with KAFKA_STORAGE_ERROR and halts; the restart's
 * recovery cuts the log back to what its files hold.
 */
import { StorageError } from '../errors.js';
import type { LogDirFailureChannel } from './log-dir-failure.js';

/** A file holding appends not yet written (FileRecords). */
export interface HeldAppendsFile {
  readonly path: string;
  /** Writes its held appends; throws when the write fails. */
  writeHeld(): void;
}

/**
 * Held bytes past which `hold` writes them all at once. Batching pays for small appends, whose
 * system call costs as much as their copy; holding 1 MiB batches from 8 connections for a whole
 * event-loop turn only delayed their answers (several times the p50 latency, bench/README.md) and
 * kept their frames from being reused.
 */
export const MAX_HELD_BYTES = 256 * 1024;

export class HeldAppends {
  private readonly files = new Set<HeldAppendsFile>();
  private heldBytes = 0;
  private failure: StorageError | undefined;

  constructor(
    private readonly maxHeldBytes = MAX_HELD_BYTES,
    /** The data directory's failure channel, told of a failed write. */
    private readonly logDirFailure?: LogDirFailureChannel,
  ) {
    // changes other than appends write what is held first (LogDirFailureChannel.checkBeforeChange)
    if (logDirFailure !== undefined) logDirFailure.writesPending = () => this.writeAll();
  }

  /** `file` holds `bytes` more for the next `writeAll`, which runs now once they reach the bound. */
  hold(file: HeldAppendsFile, bytes: number): void {
    this.files.add(file);
    this.heldBytes += bytes;
    if (this.heldBytes >= this.maxHeldBytes) this.writeAll();
  }

  /** Whether appends wait for `writeAll`. */
  get holding(): boolean {
    return this.files.size > 0;
  }

  /** The first failed write, once there was one. */
  get failed(): StorageError | undefined {
    return this.failure;
  }

  /**
   * Writes every held append. Throws when one of the writes fails, and at every later call, so
   * that nothing written after the failure is acknowledged either.
   */
  writeAll(): void {
    // another log of the directory failed: nothing more is written or acknowledged
    this.failure ??= this.logDirFailure?.failed?.error;
    if (this.failure !== undefined) throw this.failure;
    if (this.files.size === 0) return;
    for (const file of this.files) {
      try {
        file.writeHeld();
      } catch (cause) {
        const failure = new StorageError(
          `Writing the appends held for ${file.path} failed; this broker acknowledges nothing more until it is restarted (as Kafka halts a broker whose log directory failed)`,
          { cause },
        );
        this.failure = failure;
        this.logDirFailure?.fail(file.path, failure);
        throw failure;
      }
    }
    this.files.clear();
    this.heldBytes = 0;
  }
}
