/**
 * Record batch v2 and records (Kafka `DefaultRecordBatch`, `DefaultRecord`), after Kafka's DefaultRecordBatchTest, DefaultRecordTest,
 * EndTransactionMarkerTest, ControlRecordTypeTest and ByteBufferLogInputStreamTest.
 *
 * Expected bytes come from hand-computed worked examples (their CRCs were re-checked with the
 * independent CRC-32C in helpers/ref.ts) or are written field by field with helpers/ref.ts; malformed
 * inputs are hand-built with `rawBatch`/`record` and a recomputed (valid) CRC, so the record parser
 * is what rejects them.
 */
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import {
  CorruptRecordError,
  ErrorCodes,
  InvalidArgumentError,
  InvalidRecordError,
  KafkaliteError,
  UnsupportedCompressionError,
} from '../../src/errors.js';
import {
  BatchReader,
  ControlRecordType,
  RecordBatch,
  decrementSequence,
  encodeControlRecordKey,
  encodeEmptyBatch,
  encodeEndTransactionMarker,
  encodeEndTransactionMarkerValue,
  encodeRecordBatch,
  encodeKeyValueBatch,
  incrementSequence,
  parseControlRecordKey,
  parseEndTransactionMarker,
  readRecordBatches,
  type CompressionName,
  type Record,
  type RecordInput,
} from '../../src/record/index.js';
import { ascii, fixCrc, hex, overlong, rawBatch, record, refCrc32c, refVarint, refVarlong, toHex } from '../helpers/ref.js';
import { v2 } from '../helpers/v2.js';

const T = 1700000000000;
const INT_MAX = 0x7fffffff;
const INT_MIN = -0x80000000;
const LONG_MAX = 9223372036854775807n;
const CODECS: CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

type ErrClass = abstract new (...args: never[]) => KafkaliteError;

/** Asserts a KafkaliteError of the given class, code, message pattern and position range. */
function assertKErr(
  fn: () => unknown,
  cls: ErrClass,
  opts: { message?: RegExp; position?: number | [number, number] } = {},
): KafkaliteError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, 'expected an error, none was thrown');
  assert.ok(caught instanceof cls, `expected ${cls.name}, got ${(caught as Error)?.constructor?.name}: ${(caught as Error)?.message}`);
  const err = caught as KafkaliteError;
  assert.ok(err instanceof KafkaliteError);
  assert.ok(err.code in ErrorCodes);
  assert.equal(err.kafkaErrorCode, ErrorCodes[err.code]);
  if (opts.message) assert.match(err.message, opts.message);
  if (opts.position !== undefined) {
    assert.equal(typeof err.position, 'number', `position missing on: ${err.message}`);
    if (typeof opts.position === 'number') assert.equal(err.position, opts.position, err.message);
    else {
      const [lo, hi] = opts.position;
      assert.ok(err.position! >= lo && err.position! < hi, `position ${err.position} not in [${lo}, ${hi}): ${err.message}`);
    }
  }
  return err;
}

function decode(buf: Buffer, position = 0): Record[] {
  return new RecordBatch(buf, position).records();
}

function keyStr(r: Record): string | null {
  return r.key === null ? null : r.key.toString('latin1');
}

// ------------------------------------------------------------------------------------------------

describe('hand-computed worked examples', () => {
  const EX1 = hex(`00000000 00000000  0000003a  00000000  02  e99b8dd8  0000  00000000
    0000018bcfe56800  0000018bcfe56800  ffffffffffffffff  ffff  ffffffff  00000001
    10 00 00 00 02 6b 02 76 00`);
  const EX2 = hex(`000000000000000a 00000042 00000003 02 40d514e9 0030 00000000
    0000018bcfe56800 0000018bcfe56800 00000000000003e8 0005 ffffffff 00000001
    20 00 00 00 08 0000 0001 0c 0000 00000007 00`);
  const EX3 = hex('24 00 0a 02 06 6b6579 01 04 04 6831 02 78 04 6832 01');
  const EX4 = hex(`0000000000000064 00000031 00000000 02 920c280a 0000 00000004 ffffffffffffffff
    0000018bcfe56800 0000000000000007 0000 00000014 00000000`);

  test('the examples carry correct CRC-32C values (independent check of the oracle)', () => {
    for (const ex of [EX1, EX2, EX4]) assert.equal(refCrc32c(ex, 21), ex.readUInt32BE(17));
    assert.equal(EX1.readUInt32BE(17), 0xe99b8dd8);
    assert.equal(EX4.readUInt32BE(17), 2450270218);
  });

  test('example 1: one-record batch, encode byte for byte', () => {
    const b = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: T }], { baseOffset: 0, partitionLeaderEpoch: 0 });
    assert.equal(toHex(b), toHex(EX1));
  });

  test('example 1: decode', () => {
    const batch = new RecordBatch(EX1);
    assert.equal(batch.baseOffset, 0n);
    assert.equal(batch.length, 58);
    assert.equal(batch.sizeInBytes, 70);
    assert.equal(batch.partitionLeaderEpoch, 0);
    assert.equal(batch.magic, 2);
    assert.equal(batch.crc, 0xe99b8dd8);
    assert.equal(batch.attributes, 0);
    assert.equal(batch.compressionType, 0);
    assert.equal(batch.timestampType, 'CreateTime');
    assert.equal(batch.isTransactional, false);
    assert.equal(batch.isControl, false);
    assert.equal(batch.hasDeleteHorizon, false);
    assert.equal(batch.deleteHorizonMs, undefined);
    assert.equal(batch.lastOffsetDelta, 0);
    assert.equal(batch.lastOffset, 0n);
    assert.equal(batch.nextOffset, 1n);
    assert.equal(batch.baseTimestamp, BigInt(T));
    assert.equal(batch.maxTimestamp, BigInt(T));
    assert.equal(batch.producerId, -1n);
    assert.equal(batch.hasProducerId, false);
    assert.equal(batch.producerEpoch, -1);
    assert.equal(batch.baseSequence, -1);
    assert.equal(batch.lastSequence, -1);
    assert.equal(batch.recordsCount, 1);
    assert.equal(batch.isValid(), true);
    assert.equal(batch.computeChecksum(), 0xe99b8dd8);
    const [r, ...rest] = batch.records();
    assert.equal(rest.length, 0);
    assert.equal(keyStr(r!), 'k');
    assert.equal(r!.value!.toString(), 'v');
    assert.deepEqual(r!.headers, []);
    assert.equal(r!.offset, 0n);
    assert.equal(r!.timestamp, BigInt(T));
    assert.equal(r!.sequence, -1);
    assert.equal(r!.sizeInBytes, 9);
    assert.equal(r!.attributes, 0);
    assert.equal(Number(r!.timestampDelta), 0);
    assert.equal(r!.offsetDelta, 0);
  });

  test('example 2: COMMIT marker, encode byte for byte (78 bytes)', () => {
    const b = encodeEndTransactionMarker({
      type: 'COMMIT',
      producerId: 1000,
      producerEpoch: 5,
      coordinatorEpoch: 7,
      baseOffset: 10,
      partitionLeaderEpoch: 3,
      timestamp: T,
    });
    assert.equal(b.length, 78);
    assert.equal(toHex(b), toHex(EX2));
  });

  test('example 2: decode the marker', () => {
    const batch = new RecordBatch(EX2);
    assert.equal(batch.isControl, true);
    assert.equal(batch.isTransactional, true);
    assert.equal(batch.attributes, 0x30);
    assert.equal(batch.producerId, 1000n);
    assert.equal(batch.producerEpoch, 5);
    assert.equal(batch.baseSequence, -1);
    assert.equal(batch.partitionLeaderEpoch, 3);
    assert.equal(batch.baseOffset, 10n);
    const [r] = batch.records();
    assert.equal(r!.isControl, true);
    assert.equal(r!.sizeInBytes, 17);
    assert.equal(r!.offset, 10n);
    assert.deepEqual(parseControlRecordKey(r!.key), { version: 0, typeId: 1, type: 'COMMIT' });
    assert.deepEqual(parseEndTransactionMarker(r!.key, r!.value), { type: 'COMMIT', coordinatorEpoch: 7, version: 0 });
  });

  test('example 3: record with headers, encode byte for byte', () => {
    const b = encodeRecordBatch(
      [
        { key: 'a', value: 'b', timestamp: T, offsetDelta: 0 },
        { key: 'key', value: null, headers: [{ key: 'h1', value: 'x' }, { key: 'h2', value: null }], timestamp: T + 5, offsetDelta: 1 },
      ],
      { baseOffset: 0 },
    );
    assert.equal(toHex(b.subarray(b.length - EX3.length)), toHex(EX3));
  });

  test('example 3: decode (null value, header order, null header value)', () => {
    const batch = rawBatch({ count: 1, lastOffsetDelta: 1, baseTimestamp: BigInt(T), maxTimestamp: BigInt(T + 5) }, EX3);
    const [r] = decode(batch);
    assert.equal(keyStr(r!), 'key');
    assert.equal(r!.value, null);
    assert.equal(r!.valueSize, -1);
    assert.equal(r!.offset, 1n);
    assert.equal(r!.timestamp, BigInt(T + 5));
    assert.equal(r!.headers.length, 2);
    assert.equal(r!.headers[0]!.key, 'h1');
    assert.equal(r!.headers[0]!.value!.toString(), 'x');
    assert.equal(r!.headers[1]!.key, 'h2');
    assert.equal(r!.headers[1]!.value, null);
    assert.equal(r!.sizeInBytes, EX3.length);
  });

  test('example 4: cleaner empty header, encode byte for byte', () => {
    const b = encodeEmptyBatch({
      baseOffset: 100,
      lastOffsetDelta: 4,
      producerId: 7,
      producerEpoch: 0,
      baseSequence: 20,
      maxTimestamp: T,
      partitionLeaderEpoch: 0,
      timestampType: 'CreateTime',
    });
    assert.equal(toHex(b), toHex(EX4));
  });

  test('example 4: decode; iterates to nothing', () => {
    const batch = new RecordBatch(EX4);
    assert.equal(batch.recordsCount, 0);
    assert.equal(batch.baseTimestamp, -1n);
    assert.equal(batch.maxTimestamp, BigInt(T));
    assert.equal(batch.lastOffset, 104n);
    assert.equal(batch.nextOffset, 105n);
    assert.equal(batch.hasProducerId, true);
    assert.equal(batch.lastSequence, 24);
    assert.equal(batch.isValid(), true);
    assert.deepEqual(batch.records(), []);
    assert.deepEqual([...batch], []);
  });
});

// ------------------------------------------------------------------------------------------------

describe('attributes', () => {
  test('codec bits 0-2 for every codec; records decode the same', () => {
    const records: RecordInput[] = Array.from({ length: 20 }, (_, i) => ({
      key: `key-${i}`,
      value: 'v'.repeat(i * 10),
      timestamp: T + i,
      headers: [{ key: 'i', value: String(i) }],
    }));
    CODECS.forEach((codec, id) => {
      const b = encodeRecordBatch(records, { compression: codec });
      assert.equal(b[22]! & 0x07, id, codec);
      assert.equal(b[21], 0, 'attribute high byte written 0');
      const batch = new RecordBatch(b);
      assert.equal(batch.compressionType, id);
      assert.equal(batch.compression, codec);
      const got = batch.records();
      assert.equal(got.length, 20);
      got.forEach((r, i) => {
        assert.equal(keyStr(r), `key-${i}`);
        assert.equal(r.value!.toString(), 'v'.repeat(i * 10));
        assert.equal(r.timestamp, BigInt(T + i));
        assert.equal(r.offset, BigInt(i));
        assert.equal(r.headers[0]!.value!.toString(), String(i));
      });
    });
  });

  test('codec ids 5-7 -> UnsupportedCompressionError when records are read', () => {
    for (const id of [5, 6, 7]) {
      const b = rawBatch({ count: 1, attributes: id }, record([0, 0, 0, 1, 1, 0]));
      assertKErr(() => decode(b), UnsupportedCompressionError);
    }
  });

  test('only the low attribute byte is interpreted (byte 21 ignored on read)', () => {
    const body = [0, 0, 0, ...refVarint(1), 0x6b, 1, 0];
    const b = rawBatch({ count: 1, attributes: 0x7f00 }, record(body));
    const batch = new RecordBatch(b);
    assert.equal(batch.compressionType, 0);
    assert.equal(batch.timestampType, 'CreateTime');
    assert.equal(batch.isTransactional, false);
    assert.equal(batch.isControl, false);
    assert.equal(batch.hasDeleteHorizon, false);
    assert.equal(keyStr(batch.records()[0]!), 'k');
  });

  test('LogAppendTime (bit 3): every record reports maxTimestamp (encoder)', () => {
    const L = T + 99999;
    const b = encodeRecordBatch(
      [
        { key: 'a', timestamp: T },
        { key: 'b', timestamp: T + 10 },
        { key: 'c', timestamp: T - 5 },
      ],
      { timestampType: 'LogAppendTime', logAppendTime: L },
    );
    assert.equal(b[22]! & 0x08, 0x08);
    const batch = new RecordBatch(b);
    assert.equal(batch.timestampType, 'LogAppendTime');
    assert.equal(batch.maxTimestamp, BigInt(L));
    const rs = batch.records();
    assert.deepEqual(rs.map((r) => Number(r.timestampDelta)), [0, 10, -5]);
    for (const r of rs) assert.equal(r.timestamp, BigInt(L));
  });

  test('LogAppendTime reading rule on a hand-built batch', () => {
    const payload = Buffer.concat([
      record([0, ...refVarlong(0), ...refVarint(0), 1, 1, 0]),
      record([0, ...refVarlong(123456), ...refVarint(1), 1, 1, 0]),
    ]);
    const b = rawBatch({ count: 2, attributes: 0x08, baseTimestamp: 5n, maxTimestamp: 777n }, payload);
    const rs = decode(b);
    assert.deepEqual(rs.map((r) => r.timestamp), [777n, 777n]);
    // CreateTime: base + delta
    const c = rawBatch({ count: 2, attributes: 0x00, baseTimestamp: 5n, maxTimestamp: 777n }, payload);
    assert.deepEqual(decode(c).map((r) => r.timestamp), [5n, 123461n]);
  });

  test('transactional (bit 4) and control (bit 5)', () => {
    const b = encodeRecordBatch([{ value: 'x', timestamp: T }], {
      isTransactional: true,
      producerId: 5,
      producerEpoch: 1,
      baseSequence: 0,
    });
    assert.equal(b[22], 0x10);
    const batch = new RecordBatch(b);
    assert.equal(batch.isTransactional, true);
    assert.equal(batch.isControl, false);
    const m = new RecordBatch(encodeEndTransactionMarker({ type: 'ABORT', producerId: 5, producerEpoch: 1, coordinatorEpoch: 0, timestamp: T }));
    assert.equal(m.attributes, 0x30);
    assert.equal(m.isControl, true);
    assert.equal(m.records()[0]!.isControl, true);
  });

  test('delete horizon (bit 6): baseTimestamp holds it, record deltas go negative', () => {
    const H = T + 1000;
    const b = encodeRecordBatch(
      [
        { key: 'a', timestamp: T },
        { key: 'b', timestamp: T + 1 },
      ],
      { deleteHorizonMs: H },
    );
    assert.equal(b[22]! & 0x40, 0x40);
    assert.equal(b.readBigInt64BE(27), BigInt(H));
    const batch = new RecordBatch(b);
    assert.equal(batch.hasDeleteHorizon, true);
    assert.equal(batch.deleteHorizonMs, BigInt(H));
    assert.equal(batch.baseTimestamp, BigInt(H));
    assert.equal(batch.maxTimestamp, BigInt(T + 1));
    const rs = batch.records();
    assert.deepEqual(rs.map((r) => Number(r.timestampDelta)), [-1000, -999]);
    assert.deepEqual(rs.map((r) => r.timestamp), [BigInt(T), BigInt(T + 1)]);
    // the record bytes carry the zigzag varlong of -1000 (hand-computed)
    assert.ok(b.includes(Buffer.from(refVarlong(-1000))));
  });

  test('all bits together: zstd + LogAppendTime + transactional + delete horizon', () => {
    const b = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: T }], {
      compression: 'zstd',
      timestampType: 'LogAppendTime',
      logAppendTime: T + 7,
      isTransactional: true,
      producerId: 1,
      producerEpoch: 0,
      baseSequence: 0,
      deleteHorizonMs: T + 50,
    });
    assert.equal(b[22], 0x04 | 0x08 | 0x10 | 0x40);
    const batch = new RecordBatch(b);
    assert.equal(batch.compression, 'zstd');
    assert.equal(batch.deleteHorizonMs, BigInt(T + 50));
    assert.equal(batch.records()[0]!.timestamp, BigInt(T + 7));
  });
});

// ------------------------------------------------------------------------------------------------

describe('records: keys, values, headers', () => {
  test('null key and value are written as -1 and read as null', () => {
    const b = encodeRecordBatch([{ key: null, value: null, timestamp: T }]);
    // body: attrs 00, ts 00, off 00, key -1 (01), value -1 (01), headers 0 (00) -> length 6 (0c)
    assert.equal(toHex(b.subarray(61)), '0c000000010100');
    const [r] = decode(b);
    assert.equal(r!.key, null);
    assert.equal(r!.value, null);
    assert.equal(r!.keySize, -1);
    assert.equal(r!.valueSize, -1);
  });

  test('empty (zero-length) key and value are not null', () => {
    const [r] = decode(encodeRecordBatch([{ key: '', value: new Uint8Array(0), timestamp: T }]));
    assert.equal(r!.key!.length, 0);
    assert.equal(r!.value!.length, 0);
    assert.equal(r!.keySize, 0);
  });

  test('any negative length (-2, Int.MIN) for key, value and header value reads as null', () => {
    for (const neg of [-2, -100, INT_MIN]) {
      const body = [0, 0, 0, ...refVarint(neg), ...refVarint(neg), ...refVarint(1), ...refVarint(1), ...ascii('h'), ...refVarint(neg)];
      const [r] = decode(rawBatch({ count: 1 }, record(body)));
      assert.equal(r!.key, null, `key ${neg}`);
      assert.equal(r!.value, null, `value ${neg}`);
      assert.equal(r!.headers.length, 1);
      assert.equal(r!.headers[0]!.key, 'h');
      assert.equal(r!.headers[0]!.value, null, `header value ${neg}`);
    }
  });

  test('headers: order preserved, duplicates kept, null values, UTF-8 keys, binary values', () => {
    const bin = Uint8Array.from([0, 255, 128, 1]);
    const headers = [
      { key: 'b', value: '1' },
      { key: 'a', value: null },
      { key: 'b', value: '2' },
      { key: 'clé-ключ-鍵', value: bin },
      { key: '', value: '' },
    ];
    const [r] = decode(encodeRecordBatch([{ key: 'k', value: 'v', headers, timestamp: T }]));
    assert.deepEqual(
      r!.headers.map((h) => [h.key, h.value === null ? null : toHex(h.value)]),
      [
        ['b', '31'],
        ['a', null],
        ['b', '32'],
        ['clé-ключ-鍵', '00ff8001'],
        ['', ''],
      ],
    );
  });

  test('negative header key length -> InvalidRecordError', () => {
    const body = [0, 0, 0, 1, 1, ...refVarint(1), ...refVarint(-1), ...refVarint(1), 0x78];
    const b = rawBatch({ count: 1 }, record(body));
    assertKErr(() => decode(b), InvalidRecordError, { message: /Invalid negative header key size -1/, position: [61, b.length] });
  });

  const twoHeaders = (count: number): number[] => [
    0, 0, 0, 1, 1, ...refVarint(count),
    ...refVarint(2), ...ascii('h1'), ...refVarint(1), ...ascii('x'),
    ...refVarint(2), ...ascii('h2'), ...refVarint(1), ...ascii('y'),
  ];

  test('header count matches -> decodes (control for the cases below)', () => {
    const [r] = decode(rawBatch({ count: 1 }, record(twoHeaders(2))));
    assert.deepEqual(r!.headers.map((h) => h.key), ['h1', 'h2']);
  });

  test('header count too low -> InvalidRecordError (bytes left in the body)', () => {
    assertKErr(() => decode(rawBatch({ count: 1 }, record(twoHeaders(1)))), InvalidRecordError, {
      message: /Invalid record size: expected to read \d+ bytes in record payload, but instead read \d+/,
    });
  });

  test('header count too high -> InvalidRecordError', () => {
    assertKErr(() => decode(rawBatch({ count: 1 }, record(twoHeaders(3)))), InvalidRecordError);
    assertKErr(() => decode(rawBatch({ count: 1 }, record(twoHeaders(INT_MAX)))), InvalidRecordError, {
      message: /Found invalid number of record headers\. \d+ is larger than the remaining size of the buffer/,
    });
  });

  test('negative header count -> InvalidRecordError', () => {
    assertKErr(() => decode(rawBatch({ count: 1 }, record(twoHeaders(-1)))), InvalidRecordError, {
      message: /Found invalid number of record headers -1/,
    });
  });

  test('key / value / header key / header value longer than the record -> InvalidRecordError', () => {
    const cases = [
      [0, 0, 0, ...refVarint(105), 0x61, 1, 0], // key
      [0, 0, 0, 1, ...refVarint(105), 0x61, 0], // value
      [0, 0, 0, 1, 1, 2, ...refVarint(105), 0x61, 1], // header key
      [0, 0, 0, 1, 1, 2, 2, 0x61, ...refVarint(105), 0x61], // header value
      [0, 0, 0, ...refVarint(INT_MAX), 0x61, 1, 0], // huge key
    ];
    for (const body of cases) assertKErr(() => decode(rawBatch({ count: 1 }, record(body))), InvalidRecordError);
  });

  test('record body length beyond the batch -> "Invalid record size: expected N bytes ..."', () => {
    const body = Buffer.from([0, 0, 0, 1, 1, 0]);
    const payload = Buffer.concat([Buffer.from(refVarint(50)), body]);
    assertKErr(() => decode(rawBatch({ count: 1 }, payload)), InvalidRecordError, {
      message: /Invalid record size: expected 50 bytes in record payload, but instead the buffer has only 6 remaining bytes/,
      position: 61,
    });
    const neg = Buffer.concat([Buffer.from(refVarint(-5)), body]);
    assertKErr(() => decode(rawBatch({ count: 1 }, neg)), InvalidRecordError);
  });

  test('record body shorter than its fields -> InvalidRecordError (underflow reading timestamp)', () => {
    // DefaultRecordTest.testUnderflowReadingTimestamp: body holds only the attributes byte
    assertKErr(() => decode(rawBatch({ count: 1 }, record([0]))), InvalidRecordError, { message: /Found invalid record structure/ });
    // testUnderflowReadingVarlong: a timestamp varlong cut off by the body end
    assertKErr(() => decode(rawBatch({ count: 1 }, record([0, 0x80, 0x80]))), InvalidRecordError, {
      message: /Found invalid record structure/,
    });
  });

  test('invalid (11-byte) timestamp varlong -> InvalidRecordError', () => {
    const body = [0, ...overlong([0], 10), 0, 1, 1, 0];
    assert.equal(body.length, 1 + 11 + 4);
    assertKErr(() => decode(rawBatch({ count: 1 }, record(body))), InvalidRecordError, { message: /Found invalid record structure/ });
  });

  test('over-long but legal varints (<= 5 / <= 10 bytes) inside a record are accepted', () => {
    const body = [0, ...overlong(refVarlong(3), 9), ...overlong(refVarint(0), 4), ...overlong(refVarint(1), 4), 0x6b, 1, 0];
    const [r] = decode(rawBatch({ count: 1, baseTimestamp: 10n }, record(body)));
    assert.equal(keyStr(r!), 'k');
    assert.equal(r!.timestamp, 13n);
  });

  test('record attributes byte is read and kept, not interpreted', () => {
    const [r] = decode(rawBatch({ count: 1 }, record([0x7f, 0, 0, 1, 1, 0])));
    assert.equal(r!.attributes, 0x7f);
  });

  test('errors inside an uncompressed batch report a position inside that batch in the caller buffer', () => {
    const first = encodeRecordBatch([{ key: 'a', timestamp: T }]);
    const bad = rawBatch({ count: 1 }, record([0, 0, 0, 1, 1, ...refVarint(1), ...refVarint(-1), ...refVarint(1), 0x78]));
    const buf = Buffer.concat([first, bad]);
    const batches = [...new BatchReader(buf)];
    assert.equal(batches.length, 2);
    assertKErr(() => batches[1]!.records(), InvalidRecordError, { position: [first.length + 61, buf.length] });
  });
});

// ------------------------------------------------------------------------------------------------

describe('record count vs actual records (DefaultRecordBatchTest)', () => {
  const records: RecordInput[] = [
    { key: 'a', value: '1', timestamp: T },
    { key: 'b', value: '2', timestamp: T + 1 },
    { key: 'c', value: '3', timestamp: T + 2 },
  ];
  const withCount = (b: Buffer, count: number): Buffer => {
    const c = Buffer.from(b);
    c.writeInt32BE(count, 57);
    return fixCrc(c);
  };

  for (const codec of CODECS) {
    test(`${codec}: count too high -> "Incorrect declared batch size, premature EOF reached"`, () => {
      const b = encodeRecordBatch(records, { compression: codec });
      for (const n of [4, 100, INT_MAX]) {
        assertKErr(() => decode(withCount(b, n)), InvalidRecordError, { message: /Incorrect declared batch size, premature EOF reached/ });
      }
    });

    test(`${codec}: count too low -> "Incorrect declared batch size, records still remaining"`, () => {
      const b = encodeRecordBatch(records, { compression: codec });
      for (const n of [1, 2]) {
        assertKErr(() => decode(withCount(b, n)), InvalidRecordError, { message: /records still remaining/ });
      }
      // the iterator yields the declared records first, then fails
      const it = new RecordBatch(withCount(b, 2)).recordIterator();
      assert.equal(keyStr(it.next().value as Record), 'a');
      assert.equal(keyStr(it.next().value as Record), 'b');
      assertKErr(() => it.next(), InvalidRecordError, { message: /records still remaining/ });
    });

    test(`${codec}: negative count -> "Found invalid record count"`, () => {
      const b = encodeRecordBatch(records, { compression: codec });
      assertKErr(() => decode(withCount(b, -1)), InvalidRecordError, { message: /Found invalid record count -1 in magic v2 batch/ });
    });
  }

  test('lazy iterator and full decode agree', () => {
    for (const codec of CODECS) {
      const b = encodeRecordBatch(records, { compression: codec });
      const lazy = [...new RecordBatch(b)].map((r) => [keyStr(r), r.offset, r.timestamp]);
      const full = new RecordBatch(b).records().map((r) => [keyStr(r), r.offset, r.timestamp]);
      assert.deepEqual(lazy, full);
    }
  });
});

// ------------------------------------------------------------------------------------------------

describe('CRC and size validation', () => {
  test('invalid CRC -> CorruptRecordError with the batch position', () => {
    const good = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: T }]);
    const bad = Buffer.from(good);
    bad[bad.length - 2] ^= 0x01;
    const buf = Buffer.concat([Buffer.alloc(100, 0xaa), bad]);
    const batch = new RecordBatch(buf, 100);
    assert.equal(batch.isValid(), false);
    assertKErr(() => batch.ensureValid(), CorruptRecordError, {
      message: /Record is corrupt \(stored crc = \d+, computed crc = \d+\)/,
      position: 100,
    });
    assertKErr(() => batch.records(), CorruptRecordError, { position: 100 });
    // verifyCrc: false skips the check
    assert.equal(batch.records({ verifyCrc: false }).length, 1);
  });

  test('stored CRC field corrupted -> CorruptRecordError', () => {
    const b = encodeRecordBatch([{ key: 'k', timestamp: T }]);
    b.writeUInt32BE((b.readUInt32BE(17) ^ 0x80000000) >>> 0, 17);
    assertKErr(() => decode(b), CorruptRecordError);
  });

  test('the CRC covers bytes 21..end (incl. the ignored attribute high byte) but not offset/epoch', () => {
    const b = encodeRecordBatch([{ key: 'k', timestamp: T }]);
    const c = Buffer.from(b);
    c.writeBigInt64BE(12345n, 0);
    c.writeInt32BE(99, 12);
    assert.equal(new RecordBatch(c).isValid(), true);
    const d = Buffer.from(b);
    d[21] = 0x01;
    assert.equal(new RecordBatch(d).isValid(), false);
  });

  test('a buffer shorter than 61 bytes is not a batch', () => {
    assertKErr(() => new RecordBatch(Buffer.alloc(60)), CorruptRecordError);
  });

  test('length field below the overhead -> CorruptRecordError from ensureValid', () => {
    const b = encodeRecordBatch([{ key: 'k', timestamp: T }]);
    b.writeInt32BE(40, 8);
    assertKErr(() => new RecordBatch(b).ensureValid(), CorruptRecordError, { message: /smaller than the minimum allowed overhead 61/ });
    assert.equal(new RecordBatch(b).isValid(), false);
  });

  test('length field beyond the buffer -> CorruptRecordError, even with a CRC over the bytes present', () => {
    const b = encodeRecordBatch([{ key: 'k', timestamp: T }]);
    b.writeInt32BE(0x7fffffff, 8);
    fixCrc(b);
    assertKErr(() => decode(b), CorruptRecordError);
  });
});

// ------------------------------------------------------------------------------------------------

describe('empty batches', () => {
  test('encodeEmptyBatch: 61 bytes, count 0, iterates to nothing', () => {
    const b = encodeEmptyBatch({ baseOffset: 5, lastOffsetDelta: 0, maxTimestamp: -1 });
    assert.equal(b.length, 61);
    assert.equal(b.readInt32BE(8), 49);
    assert.equal(b.readInt32BE(57), 0);
    assert.equal(b.readUInt32BE(17), refCrc32c(b, 21));
    const batch = new RecordBatch(b);
    assert.deepEqual(batch.records(), []);
    assert.equal(batch.recordIterator().next().done, true);
  });

  test('empty control batch with LogAppendTime and transactional flags', () => {
    const b = encodeEmptyBatch({
      baseOffset: 1,
      lastOffsetDelta: 0,
      maxTimestamp: T,
      timestampType: 'LogAppendTime',
      isTransactional: true,
      isControl: true,
      producerId: 3,
      producerEpoch: 2,
    });
    assert.equal(b[22], 0x08 | 0x10 | 0x20);
    assert.deepEqual(new RecordBatch(b).records(), []);
  });

  test('count 0: trailing bytes are not inspected (DefaultRecordBatch iterator)', () => {
    const b = rawBatch({ count: 0 }, Buffer.from('garbage that is not records'));
    assert.deepEqual(decode(b), []);
  });

  test('encoder refuses zero records (a batch needs encodeEmptyBatch)', () => {
    assertKErr(() => encodeRecordBatch([]), InvalidArgumentError);
  });
});

// ------------------------------------------------------------------------------------------------

describe('int64 fields', () => {
  test('values above 2^53 round trip exactly (header bytes checked field by field)', () => {
    const base = (1n << 62n) + 7n;
    const ts0 = (1n << 60n) + 1n;
    const b = encodeRecordBatch(
      [
        { key: 'a', timestamp: ts0 },
        { key: 'b', timestamp: ts0 + 3n },
      ],
      { baseOffset: base, producerId: LONG_MAX, producerEpoch: 32767, baseSequence: 0 },
    );
    assert.equal(toHex(b.subarray(0, 8)), '4000000000000007');
    assert.equal(toHex(b.subarray(27, 35)), '1000000000000001');
    assert.equal(toHex(b.subarray(35, 43)), '1000000000000004');
    assert.equal(toHex(b.subarray(43, 51)), '7fffffffffffffff');
    assert.equal(toHex(b.subarray(51, 53)), '7fff');
    const batch = new RecordBatch(b);
    assert.equal(batch.baseOffset, base);
    assert.equal(batch.lastOffset, base + 1n);
    assert.equal(batch.producerId, LONG_MAX);
    const rs = batch.records();
    assert.deepEqual(rs.map((r) => r.offset), [base, base + 1n]);
    assert.deepEqual(rs.map((r) => r.timestamp), [ts0, ts0 + 3n]);
  });

  test('timestamp deltas beyond 2^53 (bigint deltas) round trip', () => {
    const lo = 0n;
    const hi = (1n << 62n) + 11n;
    const b = encodeRecordBatch([
      { key: 'a', timestamp: lo },
      { key: 'b', timestamp: hi },
    ]);
    const rs = decode(b);
    assert.equal(typeof rs[1]!.timestampDelta, 'bigint');
    assert.equal(rs[1]!.timestamp, hi);
    assert.ok(b.includes(Buffer.from(refVarlong(hi))));
  });

  test('-1 sentinels: baseOffset, timestamps, producerId, epoch, sequence', () => {
    const b = encodeRecordBatch([{ key: 'k', timestamp: -1 }], { baseOffset: -1n });
    assert.equal(toHex(b.subarray(0, 8)), 'ffffffffffffffff');
    assert.equal(toHex(b.subarray(27, 61)), 'ffffffffffffffff' + 'ffffffffffffffff' + 'ffffffffffffffff' + 'ffff' + 'ffffffff' + '00000001');
    const batch = new RecordBatch(b);
    assert.equal(batch.baseOffset, -1n);
    assert.equal(batch.baseTimestamp, -1n);
    assert.equal(batch.maxTimestamp, -1n);
    assert.equal(batch.producerId, -1n);
    assert.equal(batch.hasProducerId, false);
    const [r] = batch.records();
    assert.equal(r!.timestamp, -1n);
    assert.equal(r!.offset, -1n);
    assert.equal(r!.sequence, -1);
  });

  test('maxTimestamp is the largest record timestamp; -1 never raises it', () => {
    const b = encodeRecordBatch([
      { key: 'a', timestamp: -1 },
      { key: 'b', timestamp: 5 },
      { key: 'c', timestamp: 3 },
    ]);
    assert.equal(new RecordBatch(b).maxTimestamp, 5n);
    assert.equal(new RecordBatch(b).baseTimestamp, -1n);
  });
});

// ------------------------------------------------------------------------------------------------

describe('sequence numbers (DefaultRecordBatch.incrementSequence)', () => {
  test('incrementSequence / decrementSequence wrap cases', () => {
    assert.equal(incrementSequence(5, 5), 10);
    assert.equal(incrementSequence(INT_MAX, 1), 0);
    assert.equal(incrementSequence(INT_MAX - 5, 10), 4);
    assert.equal(incrementSequence(INT_MAX - 1, 1), INT_MAX);
    assert.equal(incrementSequence(0, INT_MAX), INT_MAX);
    assert.equal(incrementSequence(1, INT_MAX), 0);
    assert.equal(decrementSequence(5, 5), 0);
    assert.equal(decrementSequence(0, 1), INT_MAX);
    assert.equal(decrementSequence(4, 10), INT_MAX - 5);
    assert.equal(decrementSequence(INT_MAX, INT_MAX), 0);
    for (const [s, d] of [[0, 1], [3, 7], [INT_MAX, 1], [100, 100000]] as const) {
      assert.equal(decrementSequence(incrementSequence(s, d), d), s);
    }
  });

  test('sequence wrap-around inside a batch', () => {
    const b = encodeRecordBatch(
      [{ key: 'a', timestamp: T }, { key: 'b', timestamp: T }, { key: 'c', timestamp: T }],
      { producerId: 1, producerEpoch: 0, baseSequence: INT_MAX - 1 },
    );
    const batch = new RecordBatch(b);
    assert.equal(batch.baseSequence, INT_MAX - 1);
    assert.equal(batch.lastSequence, 0);
    assert.deepEqual(batch.records().map((r) => r.sequence), [INT_MAX - 1, INT_MAX, 0]);
  });
});

// ------------------------------------------------------------------------------------------------

describe('control records (ControlRecordTypeTest, EndTransactionMarkerTest)', () => {
  const key = (version: number, type: number, extra = 0): Buffer => {
    const b = Buffer.alloc(4 + extra);
    b.writeInt16BE(version, 0);
    b.writeInt16BE(type, 2);
    return b;
  };
  const value = (version: number, epoch: number, extra = 0): Buffer => {
    const b = Buffer.alloc(6 + extra, 0xee);
    b.writeInt16BE(version, 0);
    b.writeInt32BE(epoch, 2);
    return b;
  };

  test('types 0-6 by name', () => {
    const names = ['ABORT', 'COMMIT', 'LEADER_CHANGE', 'SNAPSHOT_HEADER', 'SNAPSHOT_FOOTER', 'KRAFT_VERSION', 'KRAFT_VOTERS'];
    names.forEach((name, id) => {
      const k = parseControlRecordKey(key(0, id));
      assert.equal(k.type, name);
      assert.equal(k.typeId, id);
      assert.equal(k.version, 0);
      assert.equal(ControlRecordType[name as keyof typeof ControlRecordType], id);
    });
  });

  test('unknown type ids -> UNKNOWN, raw id kept', () => {
    for (const id of [7, 337, -1, 0x7fff, -0x8000]) {
      const k = parseControlRecordKey(key(0, id));
      assert.equal(k.type, 'UNKNOWN');
      assert.equal(k.typeId, id);
    }
  });

  test('newer key version with extra bytes parses the type', () => {
    const k = parseControlRecordKey(key(1, 0, 28));
    assert.equal(k.type, 'ABORT');
  });

  test('negative key version -> InvalidRecordError', () => {
    assertKErr(() => parseControlRecordKey(key(-1, 0)), InvalidRecordError, { message: /Invalid version found for control record: -1/ });
  });

  test('too few key bytes -> InvalidRecordError', () => {
    for (const k of [Buffer.alloc(0), Buffer.alloc(3), null]) {
      assertKErr(() => parseControlRecordKey(k), InvalidRecordError, { message: /Must have at least 4 bytes/ });
    }
  });

  test('key parse works on a view into a larger buffer (byteOffset honoured)', () => {
    const big = Buffer.concat([Buffer.from([9, 9, 9]), key(0, 1)]);
    assert.equal(parseControlRecordKey(big.subarray(3)).type, 'COMMIT');
  });

  test('encoders: key = version + type, value = version 0 + coordinatorEpoch', () => {
    assert.equal(toHex(encodeControlRecordKey(1)), '00000001');
    assert.equal(toHex(encodeControlRecordKey(0)), '00000000');
    assert.equal(toHex(encodeEndTransactionMarkerValue(7)), '000000000007');
    assert.equal(toHex(encodeEndTransactionMarkerValue(-1)), '0000ffffffff');
  });

  test('EndTransactionMarker serde round trip (COMMIT and ABORT)', () => {
    for (const type of ['COMMIT', 'ABORT'] as const) {
      const b = encodeEndTransactionMarker({ type, producerId: 9, producerEpoch: 1, coordinatorEpoch: 79, timestamp: T });
      assert.equal(b.length, 78);
      const [r] = decode(b);
      assert.deepEqual(parseEndTransactionMarker(r!.key, r!.value), { type, coordinatorEpoch: 79, version: 0 });
    }
  });

  test('encodeKeyValueBatch: the bytes encodeRecordBatch writes for the same records, with and without a producer', () => {
    const big = Buffer.alloc(300, 7);
    const sets = [
      [{ key: Buffer.from('k'), value: Buffer.from('v') }],
      [{ key: Buffer.from('k1'), value: null }, { key: null, value: Buffer.alloc(0) }, { key: Buffer.alloc(0), value: big }],
      Array.from({ length: 200 }, (_, i) => ({ key: Buffer.from(`key-${i}`), value: i % 3 === 0 ? null : Buffer.from(`value-${i}`) })),
    ];
    const producers = [undefined, { producerId: 5n, producerEpoch: 2, baseSequence: 0, isTransactional: true }, { producerId: 2n ** 62n, producerEpoch: 32767, baseSequence: 2 ** 31 - 1, isTransactional: false }];
    for (const records of sets) {
      for (const producer of producers) {
        for (const ts of [0, T]) {
          const generic = encodeRecordBatch(records.map((r) => ({ key: r.key, value: r.value, timestamp: ts })), producer);
          assert.equal(toHex(encodeKeyValueBatch(records, ts, producer)), toHex(generic));
        }
      }
    }
    // what the direct form does not take goes to encodeRecordBatch, which refuses it typed
    assert.throws(() => encodeKeyValueBatch([], T), InvalidArgumentError);
    assert.throws(() => encodeKeyValueBatch(sets[0]!, -5), InvalidArgumentError);
    assert.throws(() => encodeKeyValueBatch(sets[0]!, T, { producerId: 1n, producerEpoch: -1, baseSequence: 0, isTransactional: true }), InvalidArgumentError);
    assert.throws(() => encodeKeyValueBatch(sets[0]!, T, { producerId: -1n, producerEpoch: 0, baseSequence: 0, isTransactional: true }), InvalidArgumentError);
  });

  test('EndTransactionMarker batch: the bytes the generic encoder writes for its one control record', () => {
    for (const type of ['COMMIT', 'ABORT'] as const) {
      for (const o of [
        { producerId: 9n, producerEpoch: 1, coordinatorEpoch: 79, timestamp: T, partitionLeaderEpoch: 3, baseOffset: 12n },
        { producerId: 2n ** 62n, producerEpoch: 32767, coordinatorEpoch: -1, timestamp: 0, partitionLeaderEpoch: -1, baseOffset: 0n },
        { producerId: 0n, producerEpoch: 0, coordinatorEpoch: 2 ** 31 - 1, timestamp: T, partitionLeaderEpoch: 0, baseOffset: 2n ** 40n },
      ]) {
        const generic = encodeRecordBatch(
          [{ key: encodeControlRecordKey(type === 'COMMIT' ? 1 : 0), value: encodeEndTransactionMarkerValue(o.coordinatorEpoch), timestamp: o.timestamp }],
          { baseOffset: o.baseOffset, partitionLeaderEpoch: o.partitionLeaderEpoch, isControl: true, isTransactional: true, producerId: o.producerId, producerEpoch: o.producerEpoch, baseSequence: -1 },
        );
        assert.equal(toHex(encodeEndTransactionMarker({ type, ...o })), toHex(generic));
      }
    }
    // bad fields fail typed, as the generic encoder's do
    assert.throws(() => encodeEndTransactionMarker({ type: 'COMMIT', producerId: -1n, producerEpoch: 0, coordinatorEpoch: 0 }), InvalidArgumentError);
    assert.throws(() => encodeEndTransactionMarker({ type: 'COMMIT', producerId: 1n, producerEpoch: 40000, coordinatorEpoch: 0 }), InvalidArgumentError);
    assert.throws(() => encodeEndTransactionMarker({ type: 'COMMIT', producerId: 1n, producerEpoch: 0, coordinatorEpoch: 2 ** 31 }), InvalidArgumentError);
    assert.throws(() => encodeEndTransactionMarker({ type: 'COMMIT', producerId: 1n, producerEpoch: 0, coordinatorEpoch: 0, timestamp: -5 }), InvalidArgumentError);
  });

  test('EndTransactionMarker: newer version with extra bytes is read by its first 6 bytes', () => {
    const m = parseEndTransactionMarker(key(0, 0), value(1, 123456, 10));
    assert.equal(m.type, 'ABORT');
    assert.equal(m.coordinatorEpoch, 123456);
  });

  test('EndTransactionMarker: negative version -> InvalidRecordError', () => {
    assertKErr(() => parseEndTransactionMarker(key(0, 1), value(-1, 5)), InvalidRecordError, {
      message: /Invalid version found for end transaction marker: -1/,
    });
  });

  test('EndTransactionMarker: too few value bytes -> InvalidRecordError', () => {
    for (const v of [Buffer.alloc(0), Buffer.alloc(5), null]) {
      assertKErr(() => parseEndTransactionMarker(key(0, 1), v), InvalidRecordError, { message: /at least 6 bytes/ });
    }
  });

  test('EndTransactionMarker: non-marker control type is refused', () => {
    for (const t of [2, 3, 6, 99]) assertKErr(() => parseEndTransactionMarker(key(0, t), value(0, 1)), KafkaliteError);
  });
});

// ------------------------------------------------------------------------------------------------

describe('encoder argument validation (MemoryRecordsBuilder.validateProducerState)', () => {
  const one: RecordInput[] = [{ key: 'k', timestamp: T }];

  test('transactional without a producer id', () => {
    assertKErr(() => encodeRecordBatch(one, { isTransactional: true }), InvalidArgumentError, {
      message: /Cannot write transactional messages without a valid producer ID/,
    });
    assertKErr(() => encodeRecordBatch(one, { isTransactional: true, producerId: -1n, producerEpoch: 0, baseSequence: 0 }), InvalidArgumentError);
  });

  test('producer id with a negative epoch', () => {
    assertKErr(() => encodeRecordBatch(one, { producerId: 1, producerEpoch: -1, baseSequence: 0 }), InvalidArgumentError);
    assertKErr(() => encodeRecordBatch(one, { producerId: 1n, baseSequence: 0 }), InvalidArgumentError);
  });

  test('producer id with a negative sequence, unless control', () => {
    assertKErr(() => encodeRecordBatch(one, { producerId: 1, producerEpoch: 0, baseSequence: -1 }), InvalidArgumentError, {
      message: /Invalid negative sequence number used/,
    });
    assertKErr(() => encodeRecordBatch(one, { producerId: 1, producerEpoch: 0 }), InvalidArgumentError);
    const ok = encodeRecordBatch([{ key: encodeControlRecordKey(0), value: encodeEndTransactionMarkerValue(0), timestamp: T }], {
      producerId: 1,
      producerEpoch: 0,
      baseSequence: -1,
      isControl: true,
      isTransactional: true,
    });
    assert.equal(new RecordBatch(ok).baseSequence, -1);
  });

  test('producer id 0 counts as present', () => {
    assertKErr(() => encodeRecordBatch(one, { producerId: 0, producerEpoch: 0 }), InvalidArgumentError);
    assert.equal(new RecordBatch(encodeRecordBatch(one, { producerId: 0, producerEpoch: 0, baseSequence: 0 })).hasProducerId, true);
  });

  test('negative timestamps other than -1', () => {
    for (const ts of [-2, -1000, -2n, -(1n << 62n)]) {
      assertKErr(() => encodeRecordBatch([{ key: 'k', timestamp: ts }]), InvalidArgumentError, { message: /Invalid negative timestamp/ });
      assertKErr(() => encodeRecordBatch([{ key: 'a', timestamp: T }, { key: 'b', timestamp: ts }]), InvalidArgumentError);
    }
    assertKErr(() => encodeRecordBatch(one, { deleteHorizonMs: -5 }), InvalidArgumentError);
    // -1 is NO_TIMESTAMP and legal
    assert.equal(new RecordBatch(encodeRecordBatch([{ key: 'k', timestamp: -1n }])).baseTimestamp, -1n);
  });

  test('null header key', () => {
    const bad = [{ key: 'k', timestamp: T, headers: [{ key: null as unknown as string, value: 'x' }] }];
    assertKErr(() => encodeRecordBatch(bad), InvalidArgumentError, { message: /Invalid null header key/ });
  });

  test('offset deltas must increase', () => {
    assertKErr(
      () => encodeRecordBatch([{ key: 'a', offsetDelta: 3, timestamp: T }, { key: 'b', offsetDelta: 3, timestamp: T }]),
      InvalidArgumentError,
    );
  });
});

// ------------------------------------------------------------------------------------------------

describe('BatchReader (ByteBufferLogInputStreamTest)', () => {
  const a = encodeRecordBatch([{ key: 'a', timestamp: T }], { baseOffset: 0 });
  const b = encodeRecordBatch([{ key: 'b', timestamp: T }, { key: 'c', timestamp: T }], { baseOffset: 1, compression: 'gzip' });
  const c = encodeRecordBatch([{ key: 'd', timestamp: T }], { baseOffset: 3 });

  test('iterates complete batches back to back', () => {
    const r = new BatchReader(Buffer.concat([a, b, c]));
    const batches = [...r].map(v2);
    assert.deepEqual(batches.map((x) => x.baseOffset), [0n, 1n, 3n]);
    assert.deepEqual(batches.map((x) => x.position), [0, a.length, a.length + b.length]);
    assert.deepEqual(batches.flatMap((x) => x.records().map(keyStr)), ['a', 'b', 'c', 'd']);
    assert.equal(r.incompleteBytes, 0);
  });

  test('partial trailing batch: no error, incompleteBytes > 0 (at every cut point)', () => {
    const whole = Buffer.concat([a, b]);
    for (let cut = 1; cut < b.length; cut++) {
      const r = readRecordBatches(whole.subarray(0, a.length + cut));
      const got = [...r];
      assert.equal(got.length, 1, `cut ${cut}`);
      assert.equal(r.incompleteBytes, cut, `cut ${cut}`);
    }
  });

  test('size < 14 -> CorruptRecordError (checked before the 17-byte magic peek)', () => {
    for (const size of [13, 0, -1, INT_MIN]) {
      const buf = Buffer.alloc(12);
      buf.writeInt32BE(size, 8);
      assertKErr(() => [...new BatchReader(buf)], CorruptRecordError, {
        message: /Record size -?\d+ is less than the minimum record overhead \(14\)/,
        position: 0,
      });
    }
    const after = Buffer.concat([a, Buffer.alloc(20)]);
    assertKErr(() => [...new BatchReader(after)], CorruptRecordError, { position: a.length });
  });

  test('magic outside 0..2 -> CorruptRecordError', () => {
    for (const magic of [3, 127, -1, -128]) {
      const x = Buffer.from(a);
      x.writeInt8(magic, 16);
      assertKErr(() => [...new BatchReader(x)], CorruptRecordError, { message: new RegExp(`Invalid magic found in record: ${magic}`) });
      // even when only 17 bytes of that batch are present
      assertKErr(() => [...new BatchReader(x.subarray(0, 17))], CorruptRecordError);
    }
  });

  test('size above the caller maximum -> CorruptRecordError', () => {
    assertKErr(() => [...new BatchReader(a, { maxBatchSize: a.length - 13 })], CorruptRecordError);
    assert.equal([...new BatchReader(a, { maxBatchSize: a.length - 12 })].length, 1);
  });

  test('magic 2 with a size too small for a v2 header -> CorruptRecordError', () => {
    const x = Buffer.concat([a.subarray(0, 61)]);
    x.writeInt32BE(20, 8);
    assertKErr(() => [...new BatchReader(x)], CorruptRecordError);
  });

  test('fewer than 12 or 17 bytes at the end: stop quietly', () => {
    for (const n of [1, 11, 12, 16]) {
      const r = new BatchReader(Buffer.concat([a, a.subarray(0, n)]));
      assert.equal([...r].length, 1);
      assert.equal(r.incompleteBytes, n);
    }
  });

  test('CRC failure in a later batch reports that batch position', () => {
    const bad = Buffer.from(c);
    bad[bad.length - 1] ^= 0xff;
    const r = new BatchReader(Buffer.concat([a, b, bad]));
    assert.ok(r.next().value);
    assert.ok(r.next().value);
    assertKErr(() => r.next(), CorruptRecordError, { position: a.length + b.length });
    // verifyCrc: false yields it
    assert.equal([...new BatchReader(Buffer.concat([a, b, bad]), { verifyCrc: false })].length, 3);
  });

  test('position and end options', () => {
    const buf = Buffer.concat([a, b, c]);
    const got = [...new BatchReader(buf, { position: a.length, end: a.length + b.length })];
    assert.deepEqual(got.map((x) => x.baseOffset), [1n]);
  });
});

// ------------------------------------------------------------------------------------------------

describe('compressed batches', () => {
  test('decompressed size cap applies per batch (maxDecompressedBytes)', () => {
    const big: RecordInput[] = [{ key: 'k', value: Buffer.alloc(200_000), timestamp: T }];
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const b = encodeRecordBatch(big, { compression: codec });
      assert.ok(b.length < 50_000, `${codec} compresses zeros`);
      const err = assertKErr(() => new RecordBatch(b).records({ maxDecompressedBytes: 100_000 }), KafkaliteError);
      assert.equal(err.code, 'RECORD_TOO_LARGE', codec);
      assert.equal(errorName(err.kafkaErrorCode), 'MESSAGE_TOO_LARGE');
      assert.equal(new RecordBatch(b).records({ maxDecompressedBytes: 300_000 })[0]!.value!.length, 200_000);
    }
  });

  test('record errors inside a compressed batch report the batch position', () => {
    const first = encodeRecordBatch([{ key: 'a', timestamp: T }]);
    const inner = record([0, 0, 0, 1, 1, ...refVarint(1), ...refVarint(-1)]);
    const gz = encodeRecordBatch([{ key: 'x', timestamp: T }], { compression: 'gzip' });
    // same header, records section replaced by gzip of the malformed record (node:zlib, not kafkalite)
    const payload = gzipSync(inner);
    const bad = rawBatch({ count: 1, attributes: 1, baseTimestamp: gz.readBigInt64BE(27), maxTimestamp: gz.readBigInt64BE(35) }, payload);
    const buf = Buffer.concat([first, bad]);
    const [, batch] = [...new BatchReader(buf)];
    assertKErr(() => batch!.records(), InvalidRecordError, { position: first.length });
  });

  for (const codec of ['lz4', 'snappy'] as const) {
    test(`${codec}: a framing error inside a batch reports a position inside that batch of the caller's buffer`, () => {
      const first = encodeRecordBatch([{ key: 'a', value: 'x'.repeat(500), timestamp: T }]);
      const b = encodeRecordBatch([{ key: 'b', value: 'y'.repeat(500), timestamp: T }], { compression: codec });
      const bad = Buffer.from(b);
      if (codec === 'lz4') {
        // first block size word (after the 7-byte frame header) -> 0x00100000, above the 64 KiB max
        bad.writeUInt32LE(0x00100000, 61 + 7);
      } else {
        // first xerial chunk length (after the 16-byte header) -> negative
        bad.writeInt32BE(-5, 61 + 16);
      }
      fixCrc(bad);
      const buf = Buffer.concat([first, bad]);
      const [, batch] = [...new BatchReader(buf)];
      const err = assertKErr(() => batch!.records(), CorruptRecordError);
      if (err.position !== undefined) {
        assert.ok(
          err.position >= first.length && err.position < buf.length,
          `position ${err.position} is not inside the batch [${first.length}, ${buf.length}) of the caller's buffer: ${err.message}`,
        );
      }
    });
  }
});
