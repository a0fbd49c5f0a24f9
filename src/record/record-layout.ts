/**
 * Where one v2 record's parts lie (Kafka `DefaultRecord.readFrom`), as
 * `RecordIterator.scanNext` reports them: byte positions in `data` plus the fixed fields, with no
 * `Record` object, Buffer view or BigInt created. Hot loops that only need a record's key, offset
 * delta or value nullity (the log cleaner's offset map and retention pass) read the key where it
 * lies and reuse one `RecordLayout` for every record. The positions are valid while `data` is left
 * intact; `scanNext` overwrites every field.
 */
import type { RecordBatch } from './batch.js';
import { Record } from './record.js';

export class RecordLayout {
  /** Bytes the record was parsed from (the batch, or its decompressed records). */
  data: Buffer = Buffer.alloc(0);
  /** Position of the record's length varint. */
  recordStart = 0;
  /** Position of the offsetDelta varint (just past attributes and timestampDelta). */
  offsetDeltaStart = 0;
  /** Position just past the record (its last header). */
  recordEnd = 0;
  /** Record attributes byte: unused by Kafka, read and kept. */
  attributes = 0;
  timestampDelta: number | bigint = 0;
  offsetDelta = 0;
  keyStart = 0;
  /** Key length in bytes, -1 for a null key (any negative stored length reads as null). */
  keySize = -1;
  valueStart = 0;
  /** Value length in bytes, -1 for a null value. */
  valueSize = -1;
  headersStart = 0;
  headerCount = 0;

  /** The `Record` of this layout (what `RecordIterator.readNext` returns for the same bytes). */
  toRecord(batch: RecordBatch): Record {
    return new Record(
      batch,
      this.data,
      this.attributes,
      this.timestampDelta,
      this.offsetDelta,
      this.keyStart,
      this.keySize,
      this.valueStart,
      this.valueSize,
      this.headersStart,
      this.headerCount,
      this.recordEnd - this.recordStart,
    );
  }
}
