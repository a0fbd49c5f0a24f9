/**
 * The data directory's `.lock` (Kafka's `LogManager.lockLogDirs`, which takes
 * `FileChannel.tryLock()` on `<dir>/.lock` and fails with "Failed to acquire lock on file .lock in
 * <dir>. A Kafka instance in another process or thread is using this directory.").
 *
 * With the native addon the lock is the kernel's (native/src/dirlock.c): released when the holder
 * dies, not carried by a copy of the directory, and seen across PID namespaces. The file also
 * carries the holder's pid, only to name it in the error: the lock, not the pid, decides.
 *
 * Without the addon Node has no file lock, so the pid in the file decides (a live pid refuses a
 * second opener). That check cannot tell a copied directory from a live one, is fooled by an
 * unrelated process that got the stored pid, and sees nothing across PID namespaces: opening warns.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StorageError } from '../errors.js';
import { nativeAddon, type NativeAddon } from '../native/addon.js';
import { LOCK_FILE } from './file-names.js';

/** What takes and queries the lock: the native addon's two calls, or nothing (the pid fallback). */
export type DirLockAddon = Pick<NativeAddon, 'tryLockFile' | 'lockHolder'> | undefined;

export interface DirLockOptions {
  /** Defaults to the native addon when it is built. */
  addon?: DirLockAddon;
  /** Where the pid fallback says what it cannot protect against. */
  warn?: (message: string) => void;
}

export interface DirLock {
  /** 'os': the kernel's exclusive lock; 'pid': the pid-in-file fallback. */
  readonly kind: 'os' | 'pid';
  release(): void;
}

/** Data directories this process holds (Kafka's FileLock also refuses an overlapping lock in-process). */
const heldInProcess = new Set<string>();

const EAGAIN = 11;
const EACCES = 13;

function refusal(dir: string, holder: string): StorageError {
  return new StorageError(
    `Failed to acquire lock on file ${LOCK_FILE} in ${dir}: ${holder}. A broker or tool in another process is using this directory`,
  );
}

/** The pid a holder wrote into `.lock`, if any. */
function recordedPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function describeHolder(holderPid: number, path: string): string {
  if (holderPid > 0) return `held by process ${holderPid}`;
  const pid = recordedPid(path);
  return pid === undefined ? 'held by another process' : `held by another process (pid ${pid} as recorded by the holder, in its PID namespace)`;
}

/** Takes the directory's exclusive lock, or throws a StorageError naming the holder where it can. */
export function lockDataDir(dir: string, options: DirLockOptions = {}): DirLock {
  const addon = 'addon' in options ? options.addon : nativeAddon;
  const path = join(dir, LOCK_FILE);
  const key = resolve(dir);
  if (heldInProcess.has(key)) throw refusal(dir, 'already held by this process');
  const lock = addon === undefined ? lockByPid(dir, path, options.warn) : lockByKernel(dir, path, addon);
  heldInProcess.add(key);
  let released = false;
  return {
    kind: lock.kind,
    release() {
      if (released) return;
      released = true;
      lock.release();
      heldInProcess.delete(key);
    },
  };
}

function lockByKernel(dir: string, path: string, addon: NonNullable<DirLockAddon>): DirLock {
  // O_CREAT without O_TRUNC: the holder's pid must survive a refused opener.
  const fd = openSync(path, 'a+');
  const err = addon.tryLockFile(fd);
  if (err !== 0) {
    const holder = err === EAGAIN || err === EACCES ? describeHolder(addon.lockHolder(fd), path) : `errno ${err}`;
    closeSync(fd);
    throw refusal(dir, holder);
  }
  // Kafka leaves `.lock` empty; the pid only names this holder in another opener's error.
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid), 0);
  return {
    kind: 'os',
    // The file stays, as Kafka leaves it: deleting a lock file lets a waiter lock an unlinked inode.
    release: () => closeSync(fd),
  };
}

function lockByPid(dir: string, path: string, warn: ((message: string) => void) | undefined): DirLock {
  warn?.(
    `${LOCK_FILE} in ${dir} is guarded by the pid in it only (the native addon is not built): a copy of a live directory is refused, ` +
      'a live unrelated process with the stored pid blocks the start, and brokers in other PID namespaces are not seen',
  );
  const pid = recordedPid(path);
  if (pid !== undefined && pid !== process.pid && processAlive(pid)) throw refusal(dir, `held by process ${pid}`);
  const fd = openSync(path, 'w');
  writeSync(fd, String(process.pid));
  return {
    kind: 'pid',
    release: () => {
      closeSync(fd);
      rmSync(path, { force: true });
    },
  };
}

export interface DirLockState {
  /** True when a live broker or tool holds the directory's lock. */
  readonly locked: boolean;
  /** Its pid where the OS or the holder's note tells it. */
  readonly holderPid?: number;
}

/**
 * Whether a directory is locked, for read-only tools (`dump-log`, `verify`, `stats`, `groups`),
 * which take no lock but say that what they read may be changing. Takes nothing, creates nothing.
 */
export function dataDirLockState(dir: string, addon: DirLockAddon = nativeAddon): DirLockState {
  const path = join(dir, LOCK_FILE);
  if (!existsSync(path)) return { locked: false };
  if (addon === undefined) {
    const pid = recordedPid(path);
    return pid !== undefined && pid !== process.pid && processAlive(pid) ? { locked: true, holderPid: pid } : { locked: false };
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { locked: false };
  }
  try {
    const holder = addon.lockHolder(fd);
    if (holder === 0 || holder < -1) return { locked: false };
    const pid = holder > 0 ? holder : recordedPid(path);
    return pid === undefined ? { locked: true } : { locked: true, holderPid: pid };
  } finally {
    closeSync(fd);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
