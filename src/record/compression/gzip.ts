/**
 * gzip as Kafka frames it (Kafka `GzipCompression`): one gzip member (RFC 1952) written by the JDK's
 * GZIPOutputStream; the reader accepts concatenated members. node:zlib is the same zlib, so it is
 * used directly; its `maxOutputLength` bounds decompression without trusting any length field.
 */
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { CorruptRecordError, RecordTooLargeError } from '../../errors.js';

export function gzipCompress(data: Uint8Array, level: number | undefined): Buffer {
  // Kafka's default level -1 is zlib's default (6).
  const l = level === undefined || level === -1 ? constants.Z_DEFAULT_COMPRESSION : level;
  return gzipSync(data, { level: l });
}

export function gzipDecompress(data: Uint8Array, maxBytes: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RecordTooLargeError(`gzip data inflates beyond the ${maxBytes}-byte limit`, { cause: err });
    }
    throw new CorruptRecordError(`Failed to decompress gzip record stream: ${(err as Error).message}`, { cause: err });
  }
}
