/**
 * lz4 as Kafka frames it (Kafka `Lz4BlockOutputStream`/`Lz4BlockInputStream`).
 *
 * Kafka writes the LZ4 frame itself: magic 0x184D2204 (LE), FLG 0x60, BD 0x40 (64 KiB blocks),
 * header checksum HC = (XXH32(FLG..BD) >> 8) & 0xFF, blocks as LE int32 size (high bit = stored
 * uncompressed) + bytes, end mark 0, no content checksum. For magic 0 Kafka computes HC over the
 * magic bytes too (a historical bug it must keep) and skips the HC check when reading magic 0.
 *
 * The frame is written and parsed here, so both quirks are exact and every block is bounded by the
 * frame's block size before it is decompressed; the block codec is lz4-napi (lz4_flex, napi,
 * prebuilt), an order of magnitude faster than lz4js and the node-gyp lz4 binding's decoder
 * (bench/README.md). XXH32 comes from @node-rs/xxhash.
 */
import { createRequire } from 'node:module';
import { CorruptRecordError, RecordTooLargeError } from '../../errors.js';
import { bufferView } from '../../bytes/buffer-view.js';

const require = createRequire(import.meta.url);
const lz4 = require('lz4-napi') as {
  compressSync(data: Buffer): Buffer;
  uncompressSync(data: Buffer): Buffer;
};
const { xxh32 } = require('@node-rs/xxhash') as { xxh32(input: Uint8Array, seed?: number): number };

const MAGIC = 0x184d2204;
const FLG_WRITTEN = 0x60; // version 01, block independence, no checksums, no content size
const BD_WRITTEN = 0x40; // block max size code 4 = 64 KiB
const BLOCK_SIZE_WRITTEN = 64 * 1024;
const UNCOMPRESSED_FLAG = 0x80000000;

const FLG_VERSION_MASK = 0xc0;
const FLG_BLOCK_INDEPENDENCE = 0x20;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_RESERVED = 0x03; // Kafka's reader treats the dictionary-id bit as reserved too

function headerChecksum(frame: Uint8Array, from: number, to: number): number {
  return (xxh32(frame.subarray(from, to), 0) >>> 8) & 0xff;
}

export function lz4Compress(data: Uint8Array, magic: number): Buffer {
  const input = bufferView(data);
  const parts: Buffer[] = [];
  const header = Buffer.allocUnsafe(7);
  header.writeUInt32LE(MAGIC, 0);
  header[4] = FLG_WRITTEN;
  header[5] = BD_WRITTEN;
  // Kafka's magic-0 bug: the checksum covers the magic bytes as well (KAFKA-3160 keeps it for v0).
  header[6] = magic === 0 ? headerChecksum(header, 0, 6) : headerChecksum(header, 4, 6);
  parts.push(header);
  let total = header.length;
  for (let off = 0; off < input.length; off += BLOCK_SIZE_WRITTEN) {
    const chunk = input.subarray(off, Math.min(off + BLOCK_SIZE_WRITTEN, input.length));
    // lz4-napi's block format is the raw block behind a 4-byte LE size prefix.
    const block = lz4.compressSync(chunk).subarray(4);
    const size = Buffer.allocUnsafe(4);
    if (block.length >= chunk.length) {
      size.writeUInt32LE((chunk.length | UNCOMPRESSED_FLAG) >>> 0, 0);
      parts.push(size, chunk);
      total += 4 + chunk.length;
    } else {
      size.writeUInt32LE(block.length, 0);
      parts.push(size, block);
      total += 4 + block.length;
    }
  }
  parts.push(Buffer.alloc(4)); // end mark
  total += 4;
  return Buffer.concat(parts, total);
}

export function lz4Decompress(data: Uint8Array, magic: number, maxBytes: number): Buffer {
  const input = bufferView(data);
  if (input.length < 6) throw new CorruptRecordError('lz4 stream ended prematurely');
  if (input.readUInt32LE(0) !== MAGIC) throw new CorruptRecordError('lz4 stream unsupported (invalid magic bytes)');
  const flg = input[4]!;
  const bd = input[5]!;
  if ((flg & FLG_RESERVED) !== 0 || (flg & FLG_VERSION_MASK) !== 0x40 || (flg & FLG_BLOCK_INDEPENDENCE) === 0) {
    throw new CorruptRecordError(`lz4 frame flags 0x${flg.toString(16)} are not supported by Kafka`, { position: 4 });
  }
  const sizeCode = (bd >> 4) & 0x07;
  if ((bd & 0x8f) !== 0 || sizeCode < 4) {
    throw new CorruptRecordError(`lz4 block descriptor 0x${bd.toString(16)} is invalid`, { position: 5 });
  }
  const maxBlockSize = 1 << (2 * sizeCode + 8);
  let pos = 6;
  if (flg & FLG_CONTENT_SIZE) pos += 8;
  if (input.length < pos + 1) throw new CorruptRecordError('lz4 stream ended prematurely');
  if (magic !== 0 && input[pos] !== headerChecksum(input, 4, pos)) {
    throw new CorruptRecordError('lz4 stream frame descriptor corrupted', { position: pos });
  }
  pos += 1;

  const blockChecksum = (flg & FLG_BLOCK_CHECKSUM) !== 0;
  const chunks: Buffer[] = [];
  let total = 0;
  let sizePrefix: Buffer | undefined;
  for (;;) {
    if (input.length - pos < 4) throw new CorruptRecordError('lz4 stream ended prematurely', { position: pos });
    const word = input.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break; // end mark; a content checksum after it is not verified (as Kafka)
    const stored = (word & UNCOMPRESSED_FLAG) !== 0;
    const len = word & 0x7fffffff;
    if (len > maxBlockSize) {
      throw new CorruptRecordError(`lz4 block size ${len} exceeded max: ${maxBlockSize}`, { position: pos - 4 });
    }
    if (input.length - pos < len + (blockChecksum ? 4 : 0)) {
      throw new CorruptRecordError('lz4 stream ended prematurely', { position: pos });
    }
    const body = input.subarray(pos, pos + len);
    pos += len;
    if (blockChecksum) {
      if (input.readUInt32LE(pos) !== xxh32(body, 0) >>> 0) {
        throw new CorruptRecordError('lz4 block checksum mismatch', { position: pos });
      }
      pos += 4;
    }
    let out: Buffer;
    if (stored) {
      out = body;
    } else {
      // lz4-napi wants the size prefix; giving the frame's max block size bounds the output.
      sizePrefix ??= Buffer.allocUnsafe(4);
      sizePrefix.writeUInt32LE(maxBlockSize, 0);
      try {
        out = lz4.uncompressSync(Buffer.concat([sizePrefix, body], 4 + len));
      } catch (err) {
        throw new CorruptRecordError(`Failed to decompress lz4 block: ${(err as Error).message}`, {
          position: pos - len,
          cause: err,
        });
      }
    }
    total += out.length;
    if (total > maxBytes) throw new RecordTooLargeError(`lz4 data inflates beyond the ${maxBytes}-byte limit`);
    chunks.push(out);
  }
  if (chunks.length === 1 && chunks[0]!.buffer !== input.buffer) return chunks[0]!;
  return Buffer.concat(chunks, total);
}
