/**
 * Codec dispatch: compress or decompress a batch's records section (v2) or a wrapper message's
 * value (v0/v1) by the codec id in the attributes (Kafka `CompressionType.forId`, `Compression.wrapForInput/wrapForOutput`).
 */
import { UnsupportedCompressionError } from '../../errors.js';
import { gzipCompress, gzipDecompress } from './gzip.js';
import { lz4Compress, lz4Decompress } from './lz4.js';
import { snappyCompress, snappyDecompress } from './snappy.js';
import { CompressionType, type CompressOptions, type DecompressOptions } from './types.js';
import { zstdCompress, zstdDecompress } from './zstd.js';

export * from './types.js';

export function compress(codec: number, data: Uint8Array, options: CompressOptions): Buffer {
  switch (codec) {
    case CompressionType.gzip:
      return gzipCompress(data, options.level);
    case CompressionType.snappy:
      return snappyCompress(data);
    case CompressionType.lz4:
      return lz4Compress(data, options.magic);
    case CompressionType.zstd:
      return zstdCompress(data, options.level);
    default:
      throw new UnsupportedCompressionError(`Cannot compress with compression type id ${codec}`);
  }
}

export function decompress(codec: number, data: Uint8Array, options: DecompressOptions): Buffer {
  switch (codec) {
    case CompressionType.gzip:
      return gzipDecompress(data, options.maxBytes);
    case CompressionType.snappy:
      return snappyDecompress(data, options.maxBytes);
    case CompressionType.lz4:
      return lz4Decompress(data, options.magic, options.maxBytes);
    case CompressionType.zstd:
      return zstdDecompress(data, options.maxBytes);
    default:
      throw new UnsupportedCompressionError(`Unknown compression type id: ${codec}`);
  }
}
