/**
 * Down-conversion of fetched records for Fetch v0-3 (Kafka 3.x `KafkaApis.maybeConvertFetchedData`
 * with `RecordsUtil.downConvert`): a Fetch v0-1 client reads magic 0, v2-3 magic 1 (KIP-32), and
 * the log holds magic-2 batches, so each batch above the client's magic is rewritten:
 * - batches at or below the client's magic are passed through as they are;
 * - control batches are skipped (an old client has no transactions to read markers of);
 * - record headers are dropped (magic 0/1 cannot carry them; Kafka's `convertRecordBatch`
 *   appends key, value and timestamp only);
 * - of an uncompressed batch, records below the fetch offset are dropped: an old consumer expects
 *   the first message at the offset it asked for (`RecordsUtil.downConvert`'s javadoc); a compressed
 *   batch stays whole, as a wrapper message with its inner offsets;
 * - zstd has no magic 0/1 form: the partition answers UNSUPPORTED_COMPRESSION_TYPE (the caller maps
 *   the UnsupportedCompressionError thrown here).
 * A partial trailing batch (the read's byte limit, `LogSegment.read`) is dropped, as Kafka's
 * iteration over the fetched `FileRecords` stops at it. Offsets are kept, so the consumer's
 * positions and the log's stay one.
 */
import { BatchReader, type AnyRecordBatch } from '../record/batches.js';
import type { RecordInput } from '../record/builder.js';
import { CompressionType, type CompressionId } from '../record/compression/index.js';
import { checkLegacyCompression, writeLegacyMessageSet } from '../record/convert.js';

/** The magic a Fetch version reads: v0-1 magic 0, v2-3 magic 1, v4+ magic 2 (no conversion). */
export function fetchMagic(version: number): 0 | 1 | 2 {
  return version <= 1 ? 0 : version <= 3 ? 1 : 2;
}

/** `records` (as read from the log) in `toMagic`; see the module comment for what changes. */
export function downConvertFetched(records: Buffer, toMagic: 0 | 1, fetchOffset: bigint): Buffer {
  if (records.length === 0) return records;
  const out: Buffer[] = [];
  // the CRCs were checked when the batches were appended; reading them again is the broker's cost only
  for (const batch of new BatchReader(records, { verifyCrc: false })) {
    const converted = convertBatch(batch, toMagic, fetchOffset);
    if (converted !== null) out.push(converted);
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}

function convertBatch(batch: AnyRecordBatch, toMagic: 0 | 1, fetchOffset: bigint): Buffer | null {
  if (batch.kind === 'v2' && batch.isControl) return null;
  const compression = batch.compressionType as CompressionId;
  checkLegacyCompression(compression, toMagic, { position: batch.position });
  if (batch.magic <= toMagic) return batch.bytes;
  const compressed = compression !== CompressionType.none;
  const records = batch.records({ verifyCrc: false }).filter((r) => compressed || r.offset >= fetchOffset);
  if (records.length === 0) return null;
  const baseOffset = records[0]!.offset;
  const inputs: RecordInput[] = records.map((r) => ({
    key: r.key,
    value: r.value,
    timestamp: r.timestamp,
    offsetDelta: Number(r.offset - baseOffset),
  }));
  const logAppend = batch.timestampType === 'LogAppendTime';
  return writeLegacyMessageSet(inputs, {
    magic: toMagic,
    baseOffset,
    compression,
    timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
    logAppendTime: batch.maxTimestamp,
  });
}
