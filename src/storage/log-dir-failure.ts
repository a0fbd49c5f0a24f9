/**
 * A failed log directory (Kafka `LogDirFailureChannel` and `UnifiedLog.maybeHandleIOException`).
 *
 * Kafka wraps every operation of a log that touches its files: an `IOException` there (a full disk,
 * EIO, EPERM from an immutable file or directory) takes the whole log directory offline, every later
 * operation on its logs fails with KafkaStorageException (KAFKA_STORAGE_ERROR), and a broker whose
 * only log directory is offline halts (`ReplicaManager.handleLogDirFailure`). One channel belongs to
 * each data directory (`LogResources.logDirFailure`): its logs report to it, and whoever runs them
 * (the broker) listens.
 *
 * Why the whole directory: after a failed write the in-memory log may be ahead of its files, and a
 * later success on the same files (another append, a retried roll) could write the same offsets
 * again. Nothing more is done with the directory until a restart, whose recovery cuts every log
 * back to what its files hold.
 */
import { StorageError } from '../errors.js';

/** The first I/O failure of a log directory: what failed, on which file, with which errno. */
export interface LogDirFailure {
  readonly error: StorageError;
  /** The file (or directory) the failing operation was on. */
  readonly path: string;
  /** The system error code (ENOSPC, EPERM, EIO, ...), or 'unknown'. */
  readonly errno: string;
}

/** The system error (errno) in `e` or its chain of causes: Node's fs errors carry `code` and `syscall`. */
export function systemErrorOf(e: unknown): NodeJS.ErrnoException | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 8; c = c.cause, depth++) {
    const sys = c as NodeJS.ErrnoException;
    if (typeof sys.code === 'string' && (typeof sys.syscall === 'string' || typeof sys.errno === 'number' || /^E[A-Z0-9]+$/.test(sys.code))) return sys;
  }
  return undefined;
}

export class LogDirFailureChannel {
  private failure: LogDirFailure | undefined;
  private readonly listeners: ((failure: LogDirFailure) => void)[] = [];

  constructor(readonly dir: string) {}

  /** The first failure, once there was one. */
  get failed(): LogDirFailure | undefined {
    return this.failure;
  }

  /** `listener` hears of the failure once (at once when it already happened). */
  onFailure(listener: (failure: LogDirFailure) => void): void {
    if (this.failure !== undefined) listener(this.failure);
    else this.listeners.push(listener);
  }

  /**
   * Takes the directory offline (Kafka `maybeAddOfflineLogDir`): the first failure is kept and
   * reported to the listeners; later ones return it. `path` names the file, `cause` the error.
   */
  fail(path: string, cause: unknown): StorageError {
    if (this.failure !== undefined) return this.failure.error;
    const sys = systemErrorOf(cause);
    const errno = sys?.code ?? 'unknown';
    const file = sys?.path ?? path;
    const error =
      cause instanceof StorageError && cause.message.includes(file)
        ? cause
        : new StorageError(`I/O error on ${file} (${errno}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.failure = { error, path: file, errno };
    for (const l of this.listeners.splice(0)) l(this.failure);
    return error;
  }

  /** Set by the broker's HeldAppends: writes the appends waiting for the next answer. */
  writesPending: (() => void) | undefined;

  /**
   * Before a change that is not an append (a topic created or deleted, DeleteRecords, truncation):
   * the held appends are written first, so that a write failing there stops this change instead of
   * letting it take effect unanswered (its answer would be held behind the failed write). Throws
   * when the directory is, or so becomes, offline.
   */
  checkBeforeChange(): void {
    this.check();
    try {
      this.writesPending?.();
    } catch (e) {
      // HeldAppends reported its failure to this channel; anything else is one too
      this.fail(this.dir, e);
    }
    this.check();
  }

  /** Throws the offline directory's error (Kafka: "Log dir ... is offline"), once it failed. */
  check(): void {
    if (this.failure !== undefined) {
      throw new StorageError(`The log directory ${this.dir} is offline after an I/O error on ${this.failure.path} (${this.failure.errno})`, { cause: this.failure.error });
    }
  }

  /**
   * Runs `fn`, an operation on files of the directory (`path` names what it works on), as Kafka's
   * `maybeHandleIOException`: refused once the directory is offline; a system error (or a
   * StorageError caused by one) takes the directory offline and is rethrown as its StorageError.
   * Other errors (validation, offsets out of range) pass through unchanged.
   */
  guard<T>(path: string, fn: () => T): T {
    this.check();
    try {
      return fn();
    } catch (e) {
      throw this.caught(path, e);
    }
  }

  /** What `guard` throws for `e`, caught from an operation on `path` (for hot paths that inline it). */
  caught(path: string, e: unknown): unknown {
    if (this.failure !== undefined) return this.failure.error;
    if (systemErrorOf(e) === undefined) return e;
    return this.fail(path, e);
  }
}
