/**
 * snappy as Kafka frames it (Kafka `SnappyCompression`: snappy-java's `SnappyOutputStream`).
 *
 * Write: the xerial snappy-java stream the Java client produces: a 16-byte header (`82 SNAPPY 00`,
 * BE int32 version 1, BE int32 compatible version 1), then per 32 KiB of input a BE int32 length and
 * one raw snappy block. Read: xerial when the first 8 bytes are the magic, otherwise the whole input
 * is one raw block (kafkajs-snappy writes those); a chunk length equal to the magic's first int
 * starts a concatenated stream. The raw block codec is the `snappy` package (napi, prebuilt),
 * several times faster than the pure-JS snappyjs (bench/README.md).
 */
import { createRequire } from 'node:module';
import { CorruptRecordError, RecordTooLargeError } from '../../errors.js';
import { ByteReader } from '../../bytes/varint.js';
import { bufferView } from '../../bytes/buffer-view.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as {
  compressSync(input: Buffer | string, opts?: { copyOutputData?: boolean }): Buffer;
  uncompressSync(input: Buffer, opts?: { asBuffer?: boolean; copyOutputData?: boolean }): Buffer | string;
};

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
const XERIAL_HEADER_SIZE = 16;
const XERIAL_MAGIC_INT = 0x82534e41 | 0;
/** snappy-java's default block size: 32 KiB of uncompressed input per chunk. */
const XERIAL_BLOCK_SIZE = 32 * 1024;
/**
 * A raw snappy block cannot expand by more than ~21x (a 3-byte copy op yields at most 64 bytes), so
 * a declared uncompressed length beyond this factor is a lie and is refused before allocating.
 */
const MAX_SNAPPY_EXPANSION = 22;

export function snappyCompress(data: Uint8Array): Buffer {
  const input = bufferView(data);
  const parts: Buffer[] = [XERIAL_HEADER];
  let total = XERIAL_HEADER_SIZE;
  // snappy-java writes only the header for an empty stream.
  if (input.length === 0) return Buffer.from(XERIAL_HEADER);
  let off = 0;
  do {
    const block = snappy.compressSync(input.subarray(off, Math.min(off + XERIAL_BLOCK_SIZE, input.length)), {
      copyOutputData: true,
    });
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, block);
    total += 4 + block.length;
    off += XERIAL_BLOCK_SIZE;
  } while (off < input.length);
  return Buffer.concat(parts, total);
}

function isXerial(data: Uint8Array, pos: number): boolean {
  if (data.length - pos < XERIAL_HEADER_SIZE) return false;
  for (let i = 0; i < 8; i++) if (data[pos + i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

function rawUncompressedLength(block: Uint8Array): number {
  try {
    return new ByteReader(block, 0, block.length).readUnsignedVarint();
  } catch (err) {
    throw new CorruptRecordError('Invalid snappy block: unreadable length preamble', { cause: err });
  }
}

function uncompressRaw(block: Buffer, budget: number, maxBytes: number): Buffer {
  const declared = rawUncompressedLength(block);
  if (declared > budget) {
    throw new RecordTooLargeError(`snappy data inflates beyond the ${maxBytes}-byte limit`);
  }
  if (declared > block.length * MAX_SNAPPY_EXPANSION + 32) {
    throw new CorruptRecordError(`Invalid snappy block: declares ${declared} bytes from ${block.length} compressed bytes`);
  }
  try {
    return snappy.uncompressSync(block, { asBuffer: true, copyOutputData: true }) as Buffer;
  } catch (err) {
    throw new CorruptRecordError(`Failed to decompress snappy record stream: ${(err as Error).message}`, { cause: err });
  }
}

export function snappyDecompress(data: Uint8Array, maxBytes: number): Buffer {
  const input = bufferView(data);
  if (input.length === 0) throw new CorruptRecordError('Cannot decompress empty snappy stream');
  if (!isXerial(input, 0)) return uncompressRaw(input, maxBytes, maxBytes);

  const chunks: Buffer[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  while (pos < input.length) {
    if (input.length - pos < 4) {
      throw new CorruptRecordError('Truncated xerial snappy chunk length', { position: pos });
    }
    const chunkLen = input.readInt32BE(pos);
    if (chunkLen === XERIAL_MAGIC_INT && isXerial(input, pos)) {
      pos += XERIAL_HEADER_SIZE; // concatenated stream: its own header follows
      continue;
    }
    if (chunkLen < 0 || chunkLen > input.length - pos - 4) {
      throw new CorruptRecordError(`Invalid xerial snappy chunk length ${chunkLen}`, { position: pos });
    }
    const out = uncompressRaw(input.subarray(pos + 4, pos + 4 + chunkLen), maxBytes - total, maxBytes);
    chunks.push(out);
    total += out.length;
    pos += 4 + chunkLen;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
