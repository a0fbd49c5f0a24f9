/**
 * fdatasync off the event loop, for flushes nothing waits for.
 *
 * Kafka flushes a rolled segment in the background and moves the recovery point once that is done
 * (`UnifiedLog.roll` schedules the "flush-log" task, storage spec §7.2). Done inline in a Node
 * broker, that fdatasync stops every connection: ~180 ms per 1 GiB segment under a 1 MiB produce
 * load here (strace), every time the log rolls.
 *
 * Undefined when kafkalite's native addon is missing, or with KAFKALITE_BACKGROUND_FLUSH=off: the
 * caller then flushes inline, as before.
 */
import { StorageError } from '../errors.js';
import { nativeAddon } from '../native/addon.js';

/** Whether `syncInBackground` is available (read at every call: tests switch it). */
export function backgroundSyncAvailable(): boolean {
  return typeof nativeAddon?.fdatasyncAsync === 'function' && process.env.KAFKALITE_BACKGROUND_FLUSH !== 'off';
}

/**
 * fdatasync(fd) on libuv's thread pool, on a duplicate of `fd` made before this returns (so the
 * caller may close `fd` at once). Resolves once the data is on disk.
 */
export function syncInBackground(fd: number, path: string): Promise<void> | undefined {
  const addon = nativeAddon;
  if (addon === undefined || !backgroundSyncAvailable()) return undefined;
  return new Promise((resolve, reject) => {
    const done = (errno: number): void => (errno === 0 ? resolve() : reject(new StorageError(`Cannot flush ${path}: errno ${errno}`)));
    const rc = addon.fdatasyncAsync(fd, done);
    if (rc !== 0) done(rc);
  });
}
