/**
 * Crash-safe file replacement, after Kafka's `Utils.atomicMoveWithFallback` and `Utils.flushDir`
 * (used by Kafka's CheckpointFile, PartitionMetadataFile and PropertiesUtils.writePropertiesFile).
 *
 * A reader must see either the old file or the complete new one, never a torn write: the data goes
 * to `<path>.tmp`, is fsynced, then renamed over the target (rename is atomic on POSIX), and the
 * parent directory is fsynced so the rename itself survives a power loss. Kafka falls back to a
 * non-atomic replace when the atomic move is unsupported; Node's rename is already a replace, so
 * there is nothing to fall back to.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StorageError } from '../errors.js';

/** Suffix of the temporary file Kafka writes before the atomic move (`CheckpointFile.tempPath`). */
export const TMP_SUFFIX = '.tmp';

/**
 * Write `data` to `path` atomically and durably (see the module comment). `durable: false` keeps
 * the atomic rename but skips both fsyncs: for files another durable record can restore (a new
 * partition's `partition.metadata`, whose topic id the fsynced KRaft metadata log holds).
 */
export function atomicWriteFileSync(path: string, data: string | Buffer, durable = true): void {
  const tmp = path + TMP_SUFFIX;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    const fd = openSync(tmp, 'w');
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    // PropertiesUtils.writePropertiesFile deletes the temp file when the move fails; a leftover
    // .tmp would otherwise be mistaken for nothing and sit there forever.
    rmSync(tmp, { force: true });
    throw new StorageError(`failed to write ${path}: ${(e as Error).message}`, { cause: e });
  }
  if (durable) fsyncDirSync(dirname(path));
}

/**
 * fsync a directory so that creations, renames and deletions inside it are durable
 * (`Utils.flushDir`: open the directory for reading and force it).
 */
export function fsyncDirSync(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (e) {
    throw new StorageError(`failed to open directory ${dir} for fsync: ${(e as Error).message}`, { cause: e });
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    // Some platforms (Windows, some network file systems) refuse fsync on a directory handle with
    // EINVAL/EISDIR/EPERM: the rename has still happened, so that means "not supported here", not a
    // failed write. Any other error is a real I/O failure of the log directory.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') {
      throw new StorageError(`failed to fsync directory ${dir}: ${(e as Error).message}`, { cause: e });
    }
  } finally {
    closeSync(fd);
  }
}

/** Suffix of the temporary files written off the event loop: never the synchronous writer's `.tmp`, which it may be truncating meanwhile. */
export const BACKGROUND_TMP_SUFFIX = '.background.tmp';

/** A file written and fsynced under its temporary name (`stageFile`), not yet in place. */
export interface StagedFile {
  /**
   * Renames it over the target, synchronously: that rename is ordered on the event loop with every
   * synchronous writer of the path, so a caller can check, in the same turn, that nothing newer was
   * written since it took the data. Then fsyncs the directory on the thread pool.
   */
  commit(): Promise<void>;
  /** Removes the temporary file (the data was superseded). */
  discard(): Promise<void>;
}

/**
 * The slow half of `atomicWriteFileSync` (write and fsync) on libuv's thread pool, for periodic
 * writes that must not stop the event loop (the broker's checkpoints: two fsyncs per file, tens of
 * ms on a busy disk). Two stagings of one path must not overlap (they share the temporary file):
 * the caller serialises them; a synchronous write of the path may run meanwhile (another name).
 */
export async function stageFile(path: string, data: string | Buffer, tmpSuffix = BACKGROUND_TMP_SUFFIX): Promise<StagedFile> {
  const tmp = path + tmpSuffix;
  try {
    const file = await open(tmp, 'w');
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
  } catch (e) {
    await rm(tmp, { force: true });
    throw new StorageError(`failed to write ${path}: ${(e as Error).message}`, { cause: e });
  }
  return {
    commit: async () => {
      try {
        renameSync(tmp, path);
      } catch (e) {
        await rm(tmp, { force: true });
        throw new StorageError(`failed to write ${path}: ${(e as Error).message}`, { cause: e });
      }
      await fsyncDirAsync(dirname(path));
    },
    discard: () => rm(tmp, { force: true }),
  };
}

/** `atomicWriteFileSync` with its write and fsyncs on libuv's thread pool (see stageFile). */
export async function atomicWriteFile(path: string, data: string | Buffer): Promise<void> {
  await (await stageFile(path, data)).commit();
}

async function fsyncDirAsync(path: string): Promise<void> {
  let dir;
  try {
    dir = await open(path, 'r');
  } catch (e) {
    throw new StorageError(`failed to open directory ${path} for fsync: ${(e as Error).message}`, { cause: e });
  }
  try {
    await dir.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') {
      throw new StorageError(`failed to fsync directory ${path}: ${(e as Error).message}`, { cause: e });
    }
  } finally {
    await dir.close();
  }
}

/**
 * Makes the directory `path` (and missing parents); true when this call made it, false when it
 * was there already. One mkdir in the common case: its EEXIST is what tells a new partition
 * directory from one left behind (LogManager's creation of a log, issue 21).
 */
export function makeDirectory(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOENT') throw e;
    // EEXIST: fails unless a directory is there; ENOENT: a parent is missing
    mkdirSync(path, { recursive: true });
    return code === 'ENOENT';
  }
}
