/**
 * File removal off the event loop, for the files of deleted segments and partitions.
 *
 * Kafka removes a deleted segment's files from its scheduler thread once file.delete.delay.ms has
 * passed (the "delete-file" task of `LocalLog.deleteSegmentFiles`), and a deleted partition's
 * renamed directory from `LogManager.deleteLogs`; no request waits for either. Done inline in a
 * Node broker, each `unlink` stops every connection for as long as the file system takes to free
 * the blocks: on ext4 mounted with `discard` the blocks are trimmed inside the call, 0.11 s for a
 * 256 MiB segment and 0.43 s for 1 GiB on this machine (`strace -T`, bench/README.md).
 *
 * The removals run on libuv's thread pool (`fs.rm`). Nothing reads the files once they are renamed
 * (`.deleted`, `-delete`) and closed, and a removal a crash cuts short is finished by the next
 * start, as Kafka's loader does. A removal that fails for another reason than a missing file is an
 * I/O error of the directory: `onError` takes it offline (log-dir-failure.ts), as Kafka's
 * `maybeHandleIOException` around `deleteSegmentFiles` does.
 */
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

export class BackgroundRemovals {
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly onError: (path: string, cause: unknown) => void) {}

  /** Starts removing `path` (a directory with `recursive`); a missing one is not an error. */
  remove(path: string, recursive = false): void {
    const removal: Promise<void> = rm(path, { force: true, recursive })
      .catch((cause: unknown) => {
        if (!this.closed) this.onError(path, cause);
      })
      .finally(() => this.inFlight.delete(removal));
    this.inFlight.add(removal);
  }

  /**
   * The directory is no longer served (its LogManager closed): removals in flight finish, and a
   * failure among them is not reported, since there is nothing left to take offline.
   */
  close(): void {
    this.closed = true;
  }

  /** Removals started and not finished. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Resolves once every removal started so far has finished (or failed, and was reported). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }
}

/**
 * Removes `path` (a directory with `recursive`; a missing one is not an error): through `removals`
 * when the directory has them, off the event loop, else before this returns (a log opened on its
 * own, a close).
 */
export function removePath(removals: BackgroundRemovals | undefined, path: string, recursive = false): void {
  if (removals !== undefined) removals.remove(path, recursive);
  else rmSync(path, { force: true, recursive });
}
