/**
 * zstd (Kafka `ZstdCompression`, zstd-jni): standard zstd frames, one per batch, Kafka's default level 3.
 *
 * Library: zstd-napi (N-API over libzstd, compiled at install: it must be listed in `allowScripts`).
 * It measured fastest of the candidates (@mongodb-js/zstd, async only, and the WASM build; figures
 * in bench/README.md). It is also the only candidate
 * with a synchronous streaming decoder into a caller-sized buffer, which is what bounds
 * decompression: output grows geometrically up to the cap and never follows a length from the input.
 * On runtimes where zstd-napi is unavailable and node:zlib has zstd (Node >= 22.15), that is used.
 */
import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';
import { CorruptRecordError, RecordTooLargeError, UnsupportedCompressionError } from '../../errors.js';

const require = createRequire(import.meta.url);

interface ZstdBinding {
  CCtx: new () => { compress(dst: Uint8Array, src: Uint8Array, level: number): number };
  DCtx: new () => {
    decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
    reset(directive: number): void;
  };
  compressBound(size: number): number;
  ResetDirective: { sessionOnly: number };
}

let binding: ZstdBinding | undefined;
let loadError: unknown;
try {
  binding = require('zstd-napi/binding') as ZstdBinding;
} catch (err) {
  loadError = err;
}

type ZlibZstd = {
  zstdCompressSync(data: Uint8Array, opts?: object): Buffer;
  zstdDecompressSync(data: Uint8Array, opts?: object): Buffer;
  constants: Record<string, number>;
};
const zlibZstd = typeof (zlib as unknown as Partial<ZlibZstd>).zstdCompressSync === 'function'
  ? (zlib as unknown as ZlibZstd)
  : undefined;

export const DEFAULT_ZSTD_LEVEL = 3;

let cctx: InstanceType<ZstdBinding['CCtx']> | undefined;
let dctx: InstanceType<ZstdBinding['DCtx']> | undefined;

function unavailable(): UnsupportedCompressionError {
  return new UnsupportedCompressionError(
    'zstd is unavailable: zstd-napi did not load (is it approved in allowScripts?) and node:zlib has no zstd',
    { cause: loadError },
  );
}

export function zstdCompress(data: Uint8Array, level: number | undefined): Buffer {
  const l = level ?? DEFAULT_ZSTD_LEVEL;
  if (binding) {
    cctx ??= new binding.CCtx();
    const out = Buffer.allocUnsafe(binding.compressBound(data.length));
    const n = cctx.compress(out, data, l);
    return out.subarray(0, n);
  }
  if (zlibZstd) {
    return zlibZstd.zstdCompressSync(data, { params: { [zlibZstd.constants.ZSTD_c_compressionLevel!]: l } });
  }
  throw unavailable();
}

export function zstdDecompress(data: Uint8Array, maxBytes: number): Buffer {
  if (binding) return decompressBounded(binding, data, maxBytes);
  if (zlibZstd) {
    try {
      return zlibZstd.zstdDecompressSync(data, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new RecordTooLargeError(`zstd data inflates beyond the ${maxBytes}-byte limit`, { cause: err });
      }
      throw new CorruptRecordError(`Failed to decompress zstd record stream: ${(err as Error).message}`, { cause: err });
    }
  }
  throw unavailable();
}

function decompressBounded(b: ZstdBinding, data: Uint8Array, maxBytes: number): Buffer {
  dctx ??= new b.DCtx();
  const ctx = dctx;
  if (data.length === 0) throw new CorruptRecordError('Cannot decompress empty zstd stream');
  let out = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(64 * 1024, data.length * 4)));
  let produced = 0;
  let consumed = 0;
  let pending = 1;
  try {
    for (;;) {
      const [ret, dstProduced, srcConsumed] = ctx.decompressStream(out.subarray(produced), data.subarray(consumed));
      produced += dstProduced;
      consumed += srcConsumed;
      pending = ret;
      if (consumed === data.length && (ret === 0 || produced < out.length)) break;
      if (produced === out.length) {
        if (out.length >= maxBytes) {
          throw new RecordTooLargeError(`zstd data inflates beyond the ${maxBytes}-byte limit`);
        }
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes, out.length * 2));
        out.copy(bigger, 0, 0, produced);
        out = bigger;
      } else if (srcConsumed === 0 && dstProduced === 0) {
        break; // no progress possible: truncated frame, reported below
      }
    }
  } catch (err) {
    ctx.reset(b.ResetDirective.sessionOnly);
    if (err instanceof RecordTooLargeError) throw err;
    throw new CorruptRecordError(`Failed to decompress zstd record stream: ${(err as Error).message}`, { cause: err });
  }
  if (pending !== 0) {
    ctx.reset(b.ResetDirective.sessionOnly);
    throw new CorruptRecordError('zstd stream ended prematurely');
  }
  return out.subarray(0, produced);
}
