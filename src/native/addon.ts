/**
 * kafkalite's own Node-API addon (native/: CRC-32C, the v2 records scan, page-cache hints), when it was built at
 * install. It is an optional dependency: without it (no compiler, another platform, or
 * KAFKALITE_NATIVE=off) every caller has a JavaScript or library path with identical results.
 */
import { createRequire } from 'node:module';
import { InvalidConfigError } from '../errors.js';

export interface NativeAddon {
  /** CRC-32C of data[start, end), continuing from the finished CRC `initial`. */
  crc32c(initial: number, data: Uint8Array, start: number, end: number): number;
  /** Whether the CRC runs on SSE4.2 + PCLMULQDQ (else its table path). */
  hardware: boolean;
  /**
   * Structural scan of `count` uncompressed v2 records in data[start, end) (native/src/records.c):
   * true when all are well formed, with summary = [max timestampDelta, min timestampDelta, null
   * keys]; false for anything it does not accept (the JavaScript scan then decides and reports).
   */
  scanRecords(data: Uint8Array, start: number, end: number, count: number, summary: Float64Array): boolean;
  /** sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE): 0 or an errno (native/src/pagecache.c). */
  startWriteback(fd: number, offset: number, length: number): number;
  /** posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED): 0 or an errno. */
  dropPages(fd: number, offset: number, length: number): number;
  /**
   * The two above (each skipped when its length is 0) on libuv's thread pool, on a duplicate of
   * `fd` made before returning: 0, or the errno of that dup.
   */
  pageHintsAsync(fd: number, writebackOffset: number, writebackLength: number, dropOffset: number, dropLength: number): number;
  /** fdatasync on the thread pool on a duplicate of `fd`; `done(errno)` on the event loop. Returns 0 or the errno of the dup. */
  fdatasyncAsync(fd: number, done: (errno: number) => void): number;
  /** An exclusive whole-file lock on `fd`, not waiting (native/src/dirlock.c): 0, or an errno (EAGAIN: held). */
  tryLockFile(fd: number): number;
  /** Who holds a lock refusing ours: 0 nobody, a pid when the OS tells, -1 an unknown holder, or -errno. */
  lockHolder(fd: number): number;
}

/**
 * KAFKALITE_NATIVE stays an environment variable, read once at load: the addon backs pure functions
 * (CRC-32C, the records scan) that pick their implementation when their module loads, before any
 * broker or LogManager exists to carry an option. Unset, empty or `on`: the addon when it is built;
 * `off`: never. Anything else stops the load instead of being ignored.
 */
function load(): NativeAddon | undefined {
  const mode = process.env.KAFKALITE_NATIVE;
  if (mode !== undefined && mode !== '' && mode !== 'on' && mode !== 'off') {
    throw new InvalidConfigError(`KAFKALITE_NATIVE must be unset, 'on' or 'off', not '${mode}'`);
  }
  if (mode === 'off') return undefined;
  try {
    return createRequire(import.meta.url)('kafkalite-native') as NativeAddon;
  } catch {
    return undefined;
  }
}

export const nativeAddon: NativeAddon | undefined = load();
