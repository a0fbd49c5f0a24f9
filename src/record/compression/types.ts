/**
 * Compression codec ids as they appear in bits 0-2 of a batch's attributes (Kafka
 * `DefaultRecordBatch` attributes, `CompressionType.java`). Ids 5-7 are not codecs.
 */
export const CompressionType = {
  none: 0,
  gzip: 1,
  snappy: 2,
  lz4: 3,
  zstd: 4,
} as const;

export type CompressionName = keyof typeof CompressionType;
export type CompressionId = (typeof CompressionType)[CompressionName];

const NAMES: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** Kafka's name for a codec id, as kafka-dump-log.sh prints it (`compresscodec: lz4`). */
export function compressionName(id: number): string {
  return NAMES[id] ?? `unknown(${id})`;
}

export function compressionId(name: CompressionName | CompressionId): CompressionId {
  if (typeof name === 'number') return name;
  return CompressionType[name];
}

export interface DecompressOptions {
  /**
   * Upper bound on the decompressed size of one batch's records. Exceeding it raises
   * RecordTooLargeError instead of allocating: a tiny hostile batch cannot inflate to gigabytes.
   */
  maxBytes: number;
  /** The batch magic: Kafka's lz4 reader skips the header checksum for magic 0 (`Lz4BlockInputStream`). */
  magic: number;
}

export interface CompressOptions {
  /** Codec level; undefined means Kafka's default for the codec (gzip 6, lz4 9, zstd 3). */
  level?: number | undefined;
  /** The batch magic: Kafka's lz4 writer computes a wrong header checksum for magic 0. */
  magic: number;
}

/** Default cap on a batch's decompressed records: 256 MiB, far above Kafka's 1 MiB default message size. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;
