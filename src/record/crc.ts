/**
 * Checksums: CRC-32C (Castagnoli) for v2 batches and producer snapshots, CRC-32 (IEEE) for legacy
 * v0/v1 messages (storage spec §1.3).
 *
 * Implementation chosen by measurement on this project's machine (`node dist/bench/crc.js`):
 * sse4_crc32 (SSE4.2, N-API) runs 9.1 GB/s on 100 KB and 4.8 GB/s on 1 KiB; @node-rs/crc32 runs
 * 6.8 and 3.1 GB/s; the best pure-JS slicing-by-8 about 1 GB/s. sse4_crc32 is compiled at install
 * time (it needs `allowScripts`), so it is optional: when it is absent or failed to build, the
 * prebuilt @node-rs/crc32 takes over with identical results.
 *
 * Below SMALL_INPUT bytes a JS slicing-by-8 loop wins: it needs no Buffer view and no native call,
 * which cost more than the arithmetic on a 140-byte legacy message (112 ns in JS against 224 ns
 * native, measured here); legacy messages and single-record batches are that small.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type CrcFn = (data: Uint8Array, initial?: number) => number;

interface NodeRsCrc32 {
  crc32c(input: Uint8Array, initialState?: number | null): number;
  crc32(input: Uint8Array, initialState?: number | null): number;
}

const nodeRs = require('@node-rs/crc32') as NodeRsCrc32;

function loadCrc32c(): { fn: CrcFn; impl: string } {
  if (process.env.KAFKALITE_CRC32C !== 'node-rs') {
    try {
      const sse = require('sse4_crc32') as { calculate: CrcFn; hardware_support?: boolean };
      if (sse.hardware_support !== false) return { fn: sse.calculate, impl: 'sse4_crc32' };
    } catch {
      // optional native build not present: fall through to the prebuilt one
    }
  }
  return { fn: (d, i) => nodeRs.crc32c(d, i ?? 0), impl: '@node-rs/crc32' };
}

const loaded = loadCrc32c();
const crc32cImpl: CrcFn = loaded.fn;

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
  if (end - start < SMALL_INPUT) return crcJs(CRC32C_TABLE, buf, start, end);
  const view = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return crc32cImpl(view) >>> 0;
}

/** CRC-32 (IEEE 802.3, as zlib and java.util.zip.CRC32) of `buf[start, end)`, unsigned. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  if (end - start < SMALL_INPUT) return crcJs(CRC32_TABLE, buf, start, end);
  const view = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return nodeRs.crc32(view, 0) >>> 0;
}
