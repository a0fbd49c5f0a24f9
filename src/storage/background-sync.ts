/**
 * fdatasync off the event loop, for flushes nothing waits for.
 *
 * Kafka flushes a rolled segment in the background and moves the recovery point once that is done
 * (`UnifiedLog.roll` schedules the "flush-log" task). Done inline in a Node broker, that fdatasync
 * stops every connection for a long pause every time the log rolls under a produce load
 * (measured with strace, bench/README.md).
 *
 * Whether a data directory uses it is its `LogResources.backgroundFlush` (log-resources.ts): asked
 * for (the default; `LogManager.open({ backgroundFlush: false })` or the broker property
 * `kafkalite.background.flush.enable=false` turn it off) and supported, which needs kafkalite's
 * native addon. Otherwise the caller flushes inline, as before.
 */
import { StorageError } from '../errors.js';
import { nativeAddon } from '../native/addon.js';

/** Whether `syncInBackground` can run here (the native addon is built). */
export function backgroundSyncSupported(): boolean {
  return typeof nativeAddon?.fdatasyncAsync === 'function';
}

/**
 * fdatasync(fd) on libuv's thread pool, on a duplicate of `fd` made before this returns (so the
 * caller may close `fd` at once). Resolves once the data is on disk; undefined when not supported.
 */
export function syncInBackground(fd: number, path: string): Promise<void> | undefined {
  const addon = nativeAddon;
  if (addon === undefined || !backgroundSyncSupported()) return undefined;
  return new Promise((resolve, reject) => {
    const done = (errno: number): void => (errno === 0 ? resolve() : reject(new StorageError(`Cannot flush ${path}: errno ${errno}`)));
    const rc = addon.fdatasyncAsync(fd, done);
    if (rc !== 0) done(rc);
  });
}
