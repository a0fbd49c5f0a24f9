/**
 * RecordIterator.scanNext / RecordLayout: the same records, fields and errors as readNext, with
 * the parts reported as positions (key where it lies, offsetDelta's varint, the record's extent).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordBatch } from '../../src/record/batch.js';
import { encodeRecordBatch, type RecordInput } from '../../src/record/builder.js';
import { ATTRIBUTES_OFFSET, CRC_OFFSET, RECORDS_COUNT_OFFSET } from '../../src/record/constants.js';
import { crc32c } from '../../src/record/crc.js';
import { RecordLayout } from '../../src/record/record-layout.js';
import { ByteReader } from '../../src/bytes/varint.js';

const T = 1_700_000_000_000;
const inputs: RecordInput[] = [
  { key: 'a', value: 'one', timestamp: T, offsetDelta: 0 },
  { key: null, value: 'keyless', timestamp: T + 5, offsetDelta: 2 },
  { key: 'tomb', value: null, timestamp: T - 7, offsetDelta: 3 },
  { key: '', value: '', timestamp: T + 2 ** 40, offsetDelta: 9, headers: [{ key: 'h1', value: 'x' }, { key: 'h2' }] },
];

describe('RecordIterator.scanNext (record layout without Record objects)', () => {
  for (const compression of ['none', 'gzip', 'zstd'] as const) {
    it(`${compression}: the fields readNext decodes, the key at its position, offsetDelta's varint, the record's extent`, () => {
      const batch = new RecordBatch(encodeRecordBatch(inputs, { baseOffset: 100n, compression }));
      const expected = batch.records();
      const it = batch.recordIterator();
      const layout = new RecordLayout(); // one object reused for every record
      for (const [i, want] of expected.entries()) {
        assert.equal(it.scanNext(layout), true);
        assert.equal(layout.offsetDelta, inputs[i]!.offsetDelta);
        assert.equal(layout.offsetDelta, want.offsetDelta);
        assert.equal(layout.timestampDelta, want.timestampDelta);
        assert.equal(layout.attributes, want.attributes);
        assert.equal(layout.keySize, want.keySize);
        assert.equal(layout.valueSize, want.valueSize);
        assert.equal(layout.headerCount, want.headerCount);
        assert.equal(layout.recordEnd - layout.recordStart, want.sizeInBytes);
        const key = layout.keySize < 0 ? null : layout.data.subarray(layout.keyStart, layout.keyStart + layout.keySize);
        assert.deepEqual(key, inputs[i]!.key === null ? null : Buffer.from(inputs[i]!.key as string));
        assert.equal(new ByteReader(layout.data, layout.offsetDeltaStart, layout.recordEnd).readVarint(), want.offsetDelta);
        const record = layout.toRecord(batch);
        assert.deepEqual([record.offset, record.timestamp, record.key, record.value, record.headers], [want.offset, want.timestamp, want.key, want.value, want.headers]);
      }
      assert.equal(it.scanNext(layout), false);
      assert.equal(it.scanNext(layout), false);
    });
  }

  it('throws what readNext throws on the same bad bytes', () => {
    const good = encodeRecordBatch(inputs);
    const broken: Buffer[] = [];
    // count beyond the records present, count below them, a record length past the batch
    for (const count of [inputs.length + 1, inputs.length - 1]) {
      const b = Buffer.from(good);
      b.writeInt32BE(count, RECORDS_COUNT_OFFSET);
      broken.push(b);
    }
    const b = Buffer.from(good);
    b[61] = 0x7e; // first record's length varint: 63 bytes, more than its body
    broken.push(b);
    for (const bytes of broken) {
      bytes.writeUInt32BE(crc32c(bytes, ATTRIBUTES_OFFSET, bytes.length), CRC_OFFSET);
      const drain = (step: (it: ReturnType<RecordBatch['recordIterator']>) => boolean) => {
        const it = new RecordBatch(bytes).recordIterator();
        try {
          while (step(it));
        } catch (err) {
          return err;
        }
        return undefined;
      };
      const fromRead = drain((it) => it.readNext() !== null);
      const layout = new RecordLayout();
      const fromScan = drain((it) => it.scanNext(layout));
      assert.ok(fromRead instanceof Error);
      assert.deepEqual(fromScan, fromRead);
      assert.equal((fromScan as Error).message, fromRead.message);
    }
  });
});
