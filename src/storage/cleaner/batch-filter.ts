/**
 * Rewriting batches for the cleaner (Kafka `MemoryRecords.filterTo`,
 * `buildRetainedRecordsInto`, `DefaultRecordBatch.writeEmptyHeader`).
 *
 * Per batch: the filter decides the batch's retention (DELETE, DELETE_EMPTY, RETAIN_EMPTY) and then
 * each record's. A batch whose records all survive and that needs no new delete horizon is copied
 * byte for byte. Otherwise it is rebuilt with the same baseOffset, lastOffsetDelta (so the last
 * sequence survives), producer fields, flags, leader epoch and codec (at the codec's default level);
 * baseTimestamp becomes the delete horizon (attribute bit 6) when one is set or carried. A batch
 * with no surviving record is dropped, or under RETAIN_EMPTY written as a 61-byte header.
 *
 * Output goes into one reused buffer (fresh large Buffers cost page faults on this machine); the
 * returned view is valid until the next `filter` call.
 */
import { StorageError } from '../../errors.js';
import type { RecordBatch } from '../../record/batch.js';
import { readRecordBatches, type AnyRecordBatch } from '../../record/batches.js';
import { encodeEmptyBatch, RecordBatchEncoder, type EmptyBatchOptions, type RecordInput } from '../../record/builder.js';
import { ATTRIBUTES_OFFSET, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, MAX_TIMESTAMP_OFFSET } from '../../record/constants.js';
import { crc32c } from '../../record/crc.js';
import { encodeLegacyMessageSet } from '../../record/legacy-builder.js';
import type { LegacyRecordBatch } from '../../record/legacy.js';
import { RecordLayout } from '../../record/record-layout.js';
import { OFFSET_MAP_GROUP } from './offset-map.js';
import { copyBound, rebuildByCopy } from './record-copy.js';

/** Largest base offset whose records' offsets (base + any int32 offsetDelta) are exact numbers. */
const MAX_SMALL_BASE = BigInt(Number.MAX_SAFE_INTEGER) - (1n << 31n);

/**
 * Whether a v2 batch's offsets can be handled as numbers (base + offsetDelta, exact below 2^53)
 * instead of a BigInt per record; Java's wrapping long arithmetic cannot occur there either.
 */
export function isSmallBase(baseOffset: bigint): boolean {
  return baseOffset >= 0n && baseOffset <= MAX_SMALL_BASE;
}

/** Kafka `RecordFilter.BatchRetention`. */
export type BatchRetention = 'DELETE' | 'DELETE_EMPTY' | 'RETAIN_EMPTY';

export interface BatchRetentionResult {
  retention: BatchRetention;
  /** A marker whose transaction has no data left here: it gets a delete horizon like a tombstone. */
  containsMarkerForEmptyTxn: boolean;
}

/** Kafka `MemoryRecords.RecordFilter`, with the record given as its parts. */
export interface RecordFilter {
  readonly currentTime: bigint;
  readonly deleteRetentionMs: bigint;
  checkBatchRetention(batch: AnyRecordBatch): BatchRetentionResult;
  /**
   * `offset` is a number when the batch's offsets are all below 2^53 (no BigInt per record); the
   * key is `data[keyStart, keyStart + keySize)` where it lies, keySize -1 for a null key.
   */
  shouldRetainRecord(batch: AnyRecordBatch, offset: bigint | number, data: Uint8Array, keyStart: number, keySize: number, hasValue: boolean): boolean;
  /**
   * Optional hint: `shouldRetainRecord` is about to be asked about `records[from, to)` of the v2
   * batch `batch` (at most RECORD_GROUP of them), in that order, so their keys can be looked up
   * together (offset-map.ts groups).
   */
  prepareRecords?(batch: RecordBatch, records: readonly RecordLayout[], from: number, to: number): void;
}

/** Records of a v2 batch scanned before they are filtered (`RecordFilter.prepareRecords`). */
export const RECORD_GROUP = OFFSET_MAP_GROUP;

const NO_BYTES = new Uint8Array(0);

/** What one `filter` call read and wrote (Kafka `FilterResult`). */
export interface FilterResult {
  /** The retained batches (a view of the filter's buffer). */
  output: Buffer;
  bytesRead: number;
  messagesRead: number;
  messagesRetained: number;
  /** Largest offset retained (-1 when nothing): the offset index entry of this chunk. */
  maxOffset: bigint;
  maxTimestamp: bigint;
  shallowOffsetOfMaxTimestamp: bigint;
}

/** What `DefaultRecordBatch.writeEmptyHeader` takes from the original batch (`MemoryRecords.filterTo`). */
const EMPTY_HEADER_FIELDS = [
  'baseOffset', 'lastOffsetDelta', 'maxTimestamp', 'partitionLeaderEpoch', 'timestampType',
  'isTransactional', 'isControl', 'producerId', 'producerEpoch', 'baseSequence',
] as const;

/** A retained record of a legacy batch. */
interface KeptRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
}

export class BatchFilter {
  private out = Buffer.allocUnsafe(256 * 1024);
  private used = 0;
  private readonly encoder = new RecordBatchEncoder();
  /**
   * The current v2 batch's records are scanned into these (reused for every batch): a kept record
   * keeps its layout and the next one is scanned into the following slot, so no object is created
   * per record and a kept record's bytes can be copied (record-copy.ts).
   */
  private readonly layouts: RecordLayout[] = [new RecordLayout()];

  /** Makes room for `size` more bytes in the output buffer. */
  private reserve(size: number): void {
    if (this.used + size > this.out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.used + size, this.out.length * 2));
      this.out.copy(bigger, 0, 0, this.used);
      this.out = bigger;
    }
  }

  private write(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.out.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Filters the complete batches of `chunk` (a trailing partial batch is left unread). */
  filter(chunk: Buffer, filter: RecordFilter): FilterResult {
    this.used = 0;
    const result: FilterResult = {
      output: this.out,
      bytesRead: 0,
      messagesRead: 0,
      messagesRetained: 0,
      maxOffset: -1n,
      maxTimestamp: -1n,
      shallowOffsetOfMaxTimestamp: -1n,
    };
    const retained = (maxTimestamp: bigint, shallowOffset: bigint, maxOffset: bigint, messages: number) => {
      if (maxTimestamp > result.maxTimestamp) {
        result.maxTimestamp = maxTimestamp;
        result.shallowOffsetOfMaxTimestamp = shallowOffset;
      }
      if (maxOffset > result.maxOffset) result.maxOffset = maxOffset;
      result.messagesRetained += messages;
    };
    const reader = readRecordBatches(chunk, { verifyCrc: true });
    for (let batch = reader.nextBatch(); batch !== null; batch = reader.nextBatch()) {
      const { retention, containsMarkerForEmptyTxn } = filter.checkBatchRetention(batch);
      result.bytesRead = reader.position;
      if (retention === 'DELETE') continue;
      let keptAll = true;
      let containsTombstones = false;
      let maxOffset = -1n;
      // v2 records are only scanned (record-layout.ts): a batch whose records all stay is then
      // copied as bytes without building anything per record
      const layouts = this.layouts;
      let keptV2 = 0;
      const kept: KeptRecord[] = [];
      if (batch.kind === 'v2') {
        const baseOffset = batch.baseOffset;
        const small = isSmallBase(baseOffset);
        const baseNumber = Number(baseOffset);
        const it = batch.recordIterator({ verifyCrc: false });
        // records are scanned a group at a time (the filter may look their keys up together),
        // then decided in order: a kept one is swapped down to layouts[keptV2]
        for (let more = true; more; ) {
          const from = keptV2;
          let to = from;
          while ((more = to < from + RECORD_GROUP && it.scanNext(layouts[to] ?? (layouts[to] = new RecordLayout())))) to++;
          more = to === from + RECORD_GROUP;
          filter.prepareRecords?.(batch, layouts, from, to);
          for (let i = from; i < to; i++) {
            const r = layouts[i]!;
            result.messagesRead++;
            const hasValue = r.valueSize >= 0;
            const offset = small ? baseNumber + r.offsetDelta : BigInt.asIntN(64, baseOffset + BigInt(r.offsetDelta));
            if (!filter.shouldRetainRecord(batch, offset, r.data, r.keyStart, r.keySize, hasValue)) {
              keptAll = false;
              continue;
            }
            if (!hasValue) containsTombstones = true;
            layouts[i] = layouts[keptV2]!;
            layouts[keptV2++] = r;
          }
        }
      } else {
        for (const r of batch.records({ verifyCrc: false })) {
          result.messagesRead++;
          const value = r.value;
          const key = r.key;
          if (!filter.shouldRetainRecord(batch, r.offset, key ?? NO_BYTES, 0, key === null ? -1 : key.length, value !== null)) {
            keptAll = false;
            continue;
          }
          if (r.offset > maxOffset) maxOffset = r.offset;
          kept.push({ offset: r.offset, timestamp: r.timestamp, key: r.key, value });
        }
      }
      const keptCount = batch.kind === 'v2' ? keptV2 : kept.length;
      if (keptCount > 0) {
        const v2 = batch.kind === 'v2' ? batch : undefined;
        const needHorizon = v2 !== undefined && (containsTombstones || containsMarkerForEmptyTxn) && !v2.hasDeleteHorizon;
        if (keptAll && !needHorizon) {
          this.write(batch.bytes);
          retained(batch.maxTimestamp, batch.lastOffset, batch.lastOffset, keptCount);
        } else if (v2 !== undefined) {
          const horizon = needHorizon ? filter.currentTime + filter.deleteRetentionMs : v2.deleteHorizonMs;
          const start = this.used;
          this.rebuildV2(v2, keptCount, horizon);
          // the rebuild requires increasing offset deltas: the last kept record has the largest offset
          maxOffset = BigInt.asIntN(64, v2.baseOffset + BigInt(layouts[keptCount - 1]!.offsetDelta));
          retained(this.out.readBigInt64BE(start + MAX_TIMESTAMP_OFFSET), v2.lastOffset, maxOffset, keptCount);
        } else {
          const built = rebuildLegacy(batch as LegacyRecordBatch, kept);
          this.write(built);
          retained(batch.timestampType === 'LogAppendTime' ? batch.maxTimestamp : maxOf(kept), kept[kept.length - 1]!.offset, maxOffset, kept.length);
        }
      } else if (retention === 'RETAIN_EMPTY') {
        // Kafka throws IllegalStateException for legacy batches here; none of them can carry a
        // producer, and the round's last batch is dropped instead of failing the whole round
        if (batch.kind !== 'v2') continue;
        this.write(encodeEmptyBatch(Object.fromEntries(EMPTY_HEADER_FIELDS.map((f) => [f, batch[f]])) as unknown as EmptyBatchOptions));
        retained(batch.maxTimestamp, batch.lastOffset, batch.lastOffset, 0);
      }
    }
    result.output = this.out.subarray(0, this.used);
    return result;
  }

  /**
   * Kafka `buildRetainedRecordsInto` for magic 2, then `overrideLastOffset(original lastOffset)`,
   * appended to the output: the kept records' bytes copied where that gives the encoder's bytes
   * (record-copy.ts), else the encoder.
   */
  private rebuildV2(batch: RecordBatch, count: number, deleteHorizonMs: bigint | undefined): void {
    const layouts = this.layouts;
    this.reserve(copyBound(layouts, count));
    const end = rebuildByCopy(batch, layouts, count, deleteHorizonMs, this.out, this.used);
    if (end >= 0) {
      this.used = end;
      return;
    }
    const logAppendTime = batch.timestampType === 'LogAppendTime' ? batch.maxTimestamp : undefined;
    const records: RecordInput[] = layouts.slice(0, count).map((layout) => layout.toRecord(batch)).map((r) => ({
      key: r.key,
      value: r.value,
      headers: r.headerCount > 0 ? [...r.headers] : null,
      timestamp: logAppendTime ?? r.timestamp,
      offsetDelta: r.offsetDelta,
    }));
    const built = this.encoder.encode(records, {
      baseOffset: batch.baseOffset,
      partitionLeaderEpoch: batch.partitionLeaderEpoch,
      compression: batch.compressionType as 0 | 1 | 2 | 3 | 4,
      timestampType: batch.timestampType,
      ...(logAppendTime !== undefined ? { logAppendTime } : {}),
      isTransactional: batch.isTransactional,
      isControl: batch.isControl,
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence,
      ...(deleteHorizonMs !== undefined ? { deleteHorizonMs } : {}),
    });
    // the original lastOffsetDelta keeps the batch's last offset and last sequence (`MemoryRecords.buildRetainedRecordsInto`)
    built.writeInt32BE(batch.lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET);
    built.writeUInt32BE(crc32c(built, ATTRIBUTES_OFFSET, built.length), CRC_OFFSET);
    this.write(built);
  }
}

/** Kafka rebuilds a legacy wrapper from its first kept offset, same magic and codec. */
function rebuildLegacy(batch: LegacyRecordBatch, kept: KeptRecord[]): Buffer {
  const magic = batch.magic;
  if (magic !== 0 && magic !== 1) throw new StorageError(`Unexpected magic ${magic} in a legacy batch`);
  const base = kept[0]!.offset;
  const logAppend = batch.timestampType === 'LogAppendTime';
  return encodeLegacyMessageSet(
    kept.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, offsetDelta: Number(r.offset - base) })),
    {
      magic,
      baseOffset: base,
      compression: batch.compressionType as 0 | 1 | 2 | 3,
      ...(magic === 1 ? { timestampType: logAppend ? ('LogAppendTime' as const) : ('CreateTime' as const) } : {}),
      ...(logAppend ? { logAppendTime: batch.maxTimestamp } : {}),
    },
  );
}

function maxOf(kept: KeptRecord[]): bigint {
  let m = -1n;
  for (const r of kept) if (r.timestamp > m) m = r.timestamp;
  return m;
}
