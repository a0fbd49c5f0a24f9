/**
 * record-copy.ts: a batch rebuilt by copying its kept records' bytes must be byte for byte what the
 * encoder path writes (RecordBatchEncoder with the kept records at their original offsets and
 * timestamps, the original lastOffsetDelta; `MemoryRecords.filterTo`), and anything the copy cannot reproduce
 * (compressed batches, non-canonical record bytes, non-ASCII header keys, records the encoder
 * refuses) must be refused so the cleaner falls back to the encoder.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordBatch } from '../../../src/record/batch.js';
import { encodeRecordBatch, type RecordBatchOptions, type RecordInput } from '../../../src/record/builder.js';
import { ATTRIBUTES_OFFSET, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, LENGTH_OFFSET, RECORD_BATCH_OVERHEAD, RECORDS_COUNT_OFFSET } from '../../../src/record/constants.js';
import { crc32c } from '../../../src/record/crc.js';
import { RecordLayout } from '../../../src/record/record-layout.js';
import { writeVarint, writeVarlong } from '../../../src/bytes/varint.js';
import { copyBound, rebuildByCopy } from '../../../src/storage/cleaner/record-copy.js';
import { batchOptionsOf } from '../../helpers/reencode.js';

/** The layouts of the records of `batch` whose index passes `keep`. */
function keptLayouts(batch: RecordBatch, keep: (i: number) => boolean): RecordLayout[] {
  const it = batch.recordIterator();
  const kept: RecordLayout[] = [];
  for (let i = 0, l = new RecordLayout(); it.scanNext(l); i++, l = new RecordLayout()) if (keep(i)) kept.push(l);
  return kept;
}

/** The encoder path (what the cleaner wrote before the copy): the reference bytes. */
function encoderRebuild(batch: RecordBatch, keep: (i: number) => boolean, horizon: bigint | undefined): Buffer {
  const logAppendTime = batch.timestampType === 'LogAppendTime' ? batch.maxTimestamp : undefined;
  const records: RecordInput[] = batch
    .records()
    .filter((_, i) => keep(i))
    .map((r) => ({
      key: r.key,
      value: r.value,
      headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
      timestamp: logAppendTime ?? BigInt.asIntN(64, batch.baseTimestamp + BigInt(r.timestampDelta)),
      offsetDelta: r.offsetDelta,
    }));
  const options: RecordBatchOptions = { ...batchOptionsOf(batch) };
  delete options.deleteHorizonMs;
  if (horizon !== undefined) options.deleteHorizonMs = horizon;
  const built = encodeRecordBatch(records, options);
  built.writeInt32BE(batch.lastOffsetDelta, LAST_OFFSET_DELTA_OFFSET);
  built.writeUInt32BE(crc32c(built, ATTRIBUTES_OFFSET, built.length), CRC_OFFSET);
  return built;
}

function copyRebuild(batch: RecordBatch, keep: (i: number) => boolean, horizon: bigint | undefined): Buffer | null {
  const kept = keptLayouts(batch, keep);
  const out = Buffer.alloc(copyBound(kept, kept.length) + 7);
  const end = rebuildByCopy(batch, kept, kept.length, horizon, out, 7); // not at 0: positions are relative
  return end < 0 ? null : out.subarray(7, end);
}

const T = 1_700_000_000_000;
const value = (i: number) => (i % 5 === 0 ? null : Buffer.alloc(i * 37, i)); // tombstones, empty and large values

function records(n: number, timestamp: (i: number) => number): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 7 === 3 ? null : `key-${i}`,
    value: value(i),
    headers: i % 4 === 1 ? [{ key: 'h', value: Buffer.from('v') }, { key: 'null-value' }] : null,
    timestamp: timestamp(i),
    offsetDelta: i * 3, // gaps, as compaction leaves them
  }));
}

const keeps: [string, (i: number) => boolean][] = [
  ['all', () => true],
  ['first dropped', (i) => i !== 0],
  ['every third', (i) => i % 3 === 2],
  ['only the last', (i) => i === 29],
  ['only the first', (i) => i === 0],
];

describe('cleaner: rebuilding a batch by copying kept records', () => {
  const batches: [string, Buffer][] = [
    ['CreateTime, rising timestamps', encodeRecordBatch(records(30, (i) => T + i * 1000), { baseOffset: 1000n })],
    ['CreateTime, timestamps before the first and -1', encodeRecordBatch(records(30, (i) => (i === 4 ? -1 : T - i * 70_000)), { baseOffset: 5n })],
    ['CreateTime, deltas beyond 2^30', encodeRecordBatch(records(30, (i) => i * 2 ** 31), { baseOffset: 0n })],
    ['LogAppendTime', encodeRecordBatch(records(30, (i) => T + i), { timestampType: 'LogAppendTime', logAppendTime: T + 99 })],
    [
      'idempotent transactional, leader epoch',
      encodeRecordBatch(records(30, (i) => T + i), { baseOffset: 77n, producerId: 42n, producerEpoch: 3, baseSequence: 1000, isTransactional: true, partitionLeaderEpoch: 9 }),
    ],
    ['already has a horizon', encodeRecordBatch(records(30, (i) => T + i), { deleteHorizonMs: T + 500_000 })],
  ];
  for (const [name, bytes] of batches) {
    for (const [keepName, keep] of keeps) {
      for (const horizon of [undefined, BigInt(T + 86_400_000)]) {
        it(`${name}, ${keepName} kept, ${horizon === undefined ? 'no new horizon' : 'new horizon'}: the encoder's bytes`, () => {
          const batch = new RecordBatch(bytes);
          const carried = horizon ?? batch.deleteHorizonMs;
          const copied = copyRebuild(batch, keep, carried);
          assert.ok(copied !== null, 'canonical uncompressed records are copied');
          assert.deepEqual(copied, encoderRebuild(batch, keep, carried));
          new RecordBatch(copied).ensureValid();
        });
      }
    }
  }

  /** A batch holding `recordBytes` as its records (header from an encoded one-record batch). */
  function withRecords(recordBytes: Buffer[], options: RecordBatchOptions = {}): RecordBatch {
    const header = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: T }], options).subarray(0, RECORD_BATCH_OVERHEAD);
    const buf = Buffer.concat([header, ...recordBytes]);
    buf.writeInt32BE(buf.length - 12, LENGTH_OFFSET);
    buf.writeInt32BE(recordBytes.length, RECORDS_COUNT_OFFSET);
    buf.writeInt32BE(recordBytes.length - 1, LAST_OFFSET_DELTA_OFFSET);
    buf.writeUInt32BE(crc32c(buf, ATTRIBUTES_OFFSET, buf.length), CRC_OFFSET);
    return new RecordBatch(buf);
  }

  /** One record: `body` after the attributes byte and timestampDelta, with its length prefix. */
  function record(attributes: number, body: number[], timestampDelta = 0): Buffer {
    const ts = Buffer.alloc(10);
    const inner = Buffer.concat([Buffer.from([attributes]), ts.subarray(0, writeVarlong(ts, 0, timestampDelta)), Buffer.from(body)]);
    const len = Buffer.alloc(5);
    return Buffer.concat([len.subarray(0, writeVarint(len, 0, inner.length)), inner]);
  }
  const canonical = (offsetDelta: number) => record(0, [offsetDelta * 2, 2, 0x6b, 2, 0x76, 0]); // key "k", value "v", no headers

  it('a record whose attributes byte is not 0 is still copied: the encoder writes 0 there too', () => {
    const batch = withRecords([canonical(0), record(0x55, [2, 2, 0x6b, 2, 0x76, 0])]);
    const copied = copyRebuild(batch, (i) => i === 1, undefined);
    assert.ok(copied !== null);
    assert.deepEqual(copied, encoderRebuild(batch, (i) => i === 1, undefined));
  });

  const refused: [string, number[]][] = [
    ['a key length in a 2-byte varint', [2, 0x82, 0x00, 0x6b, 2, 0x76, 0]],
    ['a null key stored as -2', [2, 3, 2, 0x76, 0]],
    ['a null value stored as -65 (2 bytes)', [2, 2, 0x6b, 0x81, 0x01, 0]],
    ['an offsetDelta in a 2-byte varint', [0x82, 0x00, 2, 0x6b, 2, 0x76, 0]],
    ['a header key that is not UTF-8', [2, 2, 0x6b, 2, 0x76, 2, 2, 0xff, 1]],
    ['a header value length in a 2-byte varint', [2, 2, 0x6b, 2, 0x76, 2, 2, 0x68, 0x82, 0x00, 0x76]],
    ['a null header value stored as -3', [2, 2, 0x6b, 2, 0x76, 2, 2, 0x68, 5]],
  ];
  for (const [name, body] of refused) {
    it(`refuses ${name} (the encoder rewrites it), and the encoder indeed writes other bytes`, () => {
      const batch = withRecords([canonical(0), record(0, body)]);
      assert.equal(copyRebuild(batch, (i) => i === 1, undefined), null);
      const original = batch.buf.subarray(RECORD_BATCH_OVERHEAD + canonical(0).length);
      const encoded = encoderRebuild(batch, (i) => i === 1, undefined).subarray(RECORD_BATCH_OVERHEAD);
      assert.notDeepEqual(encoded, original);
    });
  }

  it('accepts the canonical forms of the same parts (ASCII header key, null header value as -1)', () => {
    const batch = withRecords([canonical(0), record(0, [2, 2, 0x6b, 2, 0x76, 4, 2, 0x68, 2, 0x76, 2, 0x6e, 1])]);
    const copied = copyRebuild(batch, (i) => i === 1, undefined);
    assert.ok(copied !== null);
    assert.deepEqual(copied, encoderRebuild(batch, (i) => i === 1, undefined));
  });

  it('refuses compressed batches, decreasing offset deltas, timestamps the encoder rejects, producer state it rejects', () => {
    const gzip = new RecordBatch(encodeRecordBatch(records(5, (i) => T + i), { compression: 'gzip' }));
    assert.equal(copyRebuild(gzip, () => true, undefined), null);
    const decreasing = withRecords([canonical(1), canonical(0)]);
    assert.equal(copyRebuild(decreasing, () => true, undefined), null);
    assert.throws(() => encoderRebuild(decreasing, () => true, undefined));
    // baseTimestamp T with delta -T-5: timestamp -5 (the encoder's "Invalid negative timestamp")
    const badTs = withRecords([record(0, [0, 2, 0x6b, 2, 0x76, 0], -T - 5)]);
    assert.equal(copyRebuild(badTs, () => true, undefined), null);
    assert.throws(() => encoderRebuild(badTs, () => true, undefined));
    const noEpoch = new RecordBatch(encodeRecordBatch(records(3, () => T), { producerId: 5n, producerEpoch: 0, baseSequence: 0 }));
    noEpoch.buf.writeInt16BE(-1, 51); // producerEpoch -1 with a producerId: "Invalid negative producer epoch"
    noEpoch.buf.writeUInt32BE(crc32c(noEpoch.buf, ATTRIBUTES_OFFSET, noEpoch.buf.length), CRC_OFFSET);
    assert.equal(copyRebuild(noEpoch, () => true, undefined), null);
    assert.throws(() => encoderRebuild(noEpoch, () => true, undefined));
  });
});
