/**
 * Checksums: CRC-32C (Castagnoli) for v2 batches and producer snapshots, CRC-32 (IEEE) for legacy
 * v0/v1 messages (Kafka `Crc32C`, and `java.util.zip.CRC32` in `LegacyRecord`).
 *
 * Implementation chosen by measurement (`node native/bench-crc32c.cjs`; the figures are in
 * bench/README.md, "Figures measured outside these benches"):
 *  - kafkalite-native (native/src/crc32c.c, our own N-API addon), the fastest. The crc32 instruction
 *    has a 3-cycle latency but issues more than once a cycle, so one dependent chain (what the
 *    libraries below run) leaves most of it idle; the addon runs three lanes per 128-byte block
 *    joined with PCLMULQDQ. It takes start/end, so no Buffer view is made per call.
 *  - sse4_crc32 (one crc32q chain), then @node-rs/crc32.
 * Both addons are compiled at install time (package.json `allowScripts`), so both are optional:
 * when absent or failed to build, the next one takes over, down to the prebuilt @node-rs/crc32,
 * with identical results (KAFKALITE_CRC32C=sse4_crc32 or node-rs picks one for comparison; see
 * `loadCrc32c` for why that is an environment variable).
 *
 * Below a cut-over a JS slicing-by-8 loop wins: no native call (plus a Buffer view for the other
 * libraries) beats the arithmetic on a small legacy message or single-record batch: 64 bytes for
 * our addon, 512 for the others, where the measured costs cross (bench/README.md).
 */
import { createRequire } from 'node:module';
import { InvalidConfigError } from '../errors.js';
import { nativeAddon } from '../native/addon.js';

const require = createRequire(import.meta.url);

type CrcFn = (data: Uint8Array, initial?: number) => number;

interface NodeRsCrc32 {
  crc32c(input: Uint8Array, initialState?: number | null): number;
  crc32(input: Uint8Array, initialState?: number | null): number;
}

const nodeRs = require('@node-rs/crc32') as NodeRsCrc32;

/** Native CRC-32C with a range: kafkalite-native (native/) takes start/end, no view needed. */
type RangeCrcFn = (buf: Uint8Array, start: number, end: number) => number;

/** KAFKALITE_CRC32C values: unset or empty picks the fastest available; the others prefer that library. */
const CRC32C_CHOICES = ['kafkalite-native', 'sse4_crc32', 'node-rs'] as const;

/**
 * KAFKALITE_CRC32C stays an environment variable, read once here: `crc32c` is a pure function used
 * by the codec everywhere (no broker or LogManager in sight), and its implementation is chosen when
 * this module loads. A value that names no implementation stops the load instead of being ignored.
 */
function loadCrc32c(): { fn: RangeCrcFn; impl: string; small: number } {
  const want = process.env.KAFKALITE_CRC32C;
  if (want !== undefined && want !== '' && !(CRC32C_CHOICES as readonly string[]).includes(want)) {
    throw new InvalidConfigError(`KAFKALITE_CRC32C must be unset or one of ${CRC32C_CHOICES.join(', ')}, not '${want}'`);
  }
  if (want !== 'node-rs' && want !== 'sse4_crc32') {
    const own = nativeAddon;
    // one native call costs about as much as JS slicing-by-8 on 64 bytes (measured here)
    // the range is clamped to the buffer as subarray() clamps it for the libraries below
    if (own !== undefined) return { fn: (b, s, e) => (e <= b.length ? own.crc32c(0, b, s, e) : own.crc32c(0, b, Math.min(s, b.length), b.length)), impl: 'kafkalite-native', small: 64 };
  }
  if (want !== 'node-rs') {
    try {
      const sse = require('sse4_crc32') as { calculate: CrcFn; hardware_support?: boolean };
      if (sse.hardware_support !== false) return { fn: viewed(sse.calculate), impl: 'sse4_crc32', small: 512 };
    } catch {
      // optional native build not present: fall through to the prebuilt one
    }
  }
  return { fn: viewed((d) => nodeRs.crc32c(d, 0)), impl: '@node-rs/crc32', small: 512 };
}

function viewed(f: CrcFn): RangeCrcFn {
  return (b, s, e) => f(s === 0 && e === b.length ? b : b.subarray(s, e));
}

const loaded = loadCrc32c();
const crc32cImpl: RangeCrcFn = loaded.fn;
const SMALL_CRC32C = loaded.small;

/** Name of the CRC-32C implementation in use (reported by the benchmark). */
export const crc32cImplementation: string = loaded.impl;

const SMALL_INPUT = 512;

/** Slicing-by-8 tables for a reflected polynomial: 8 x 256 entries. */
function slicingTables(poly: number): Int32Array {
  const t = new Int32Array(256 * 8);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? poly ^ (c >>> 1) : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) t[k * 256 + i] = (t[(k - 1) * 256 + i]! >>> 8) ^ t[t[(k - 1) * 256 + i]! & 0xff]!;
  }
  return t;
}

const CRC32C_TABLE = slicingTables(0x82f63b78);
const CRC32_TABLE = slicingTables(0xedb88320);

function crcJs(t: Int32Array, buf: Uint8Array, start: number, end: number): number {
  let c = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    c ^= buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    c =
      t[1792 + (c & 0xff)]! ^
      t[1536 + ((c >>> 8) & 0xff)]! ^
      t[1280 + ((c >>> 16) & 0xff)]! ^
      t[1024 + (c >>> 24)]! ^
      t[768 + buf[i + 4]!]! ^
      t[512 + buf[i + 5]!]! ^
      t[256 + buf[i + 6]!]! ^
      t[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** CRC-32C of `buf[start, end)`, as an unsigned 32-bit number. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  if (end - start < SMALL_CRC32C) return crcJs(CRC32C_TABLE, buf, start, end);
  return crc32cImpl(buf, start, end) >>> 0;
}

/** CRC-32 (IEEE 802.3, as zlib and java.util.zip.CRC32) of `buf[start, end)`, unsigned. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  if (end - start < SMALL_INPUT) return crcJs(CRC32_TABLE, buf, start, end);
  const view = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return nodeRs.crc32(view, 0) >>> 0;
}
