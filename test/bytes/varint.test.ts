/**
 * Varints and varlongs against Kafka's ByteUtilsTest known answers and Kafka's
 * over-long / underflow rules. Expected bytes are literal vectors or come from the BigInt reference
 * encoder in helpers/ref.ts, never from kafkalite.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ByteReader,
  VarintError,
  sizeOfUnsignedVarint,
  sizeOfVarint,
  sizeOfVarlong,
  writeUnsignedVarint,
  writeVarint,
  writeVarlong,
} from '../../src/record/index.js';
import { hex, refUnsignedVarint, refVarint, refVarlong, toHex } from '../helpers/ref.js';
import { tierCount } from '../helpers/tier.js';

/** fast-check runs per property: the unit tier (test/tiers.ts) runs a fifth. */
const RUNS = tierCount(20_000, 4_000);
const INT_MAX = 2147483647;
const INT_MIN = -2147483648;
const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

/** ByteUtilsTest.testVarintSerde */
const VARINT_VECTORS: [number, string][] = [
  [0, '00'],
  [-1, '01'],
  [1, '02'],
  [63, '7e'],
  [-64, '7f'],
  [64, '8001'],
  [-65, '8101'],
  [8191, 'fe7f'],
  [-8192, 'ff7f'],
  [8192, '808001'],
  [-8193, '818001'],
  [1048575, 'feff7f'],
  [-1048576, 'ffff7f'],
  [1048576, '80808001'],
  [-1048577, '81808001'],
  [134217727, 'feffff7f'],
  [-134217728, 'ffffff7f'],
  [134217728, '8080808001'],
  [-134217729, '8180808001'],
  [INT_MAX, 'feffffff0f'],
  [INT_MIN, 'ffffffff0f'],
];

/** ByteUtilsTest.testVarlongSerde (the int32 vectors above apply too). */
const VARLONG_VECTORS: [bigint, string][] = [
  ...VARINT_VECTORS.map(([v, h]) => [BigInt(v), h] as [bigint, string]),
  [17179869183n, 'feffffff7f'],
  [-17179869184n, 'ffffffff7f'],
  [17179869184n, '808080808001'],
  [-17179869185n, '818080808001'],
  [2199023255551n, 'feffffffff7f'],
  [-2199023255552n, 'ffffffffff7f'],
  [2199023255552n, '80808080808001'],
  [-2199023255553n, '81808080808001'],
  [281474976710655n, 'feffffffffff7f'],
  [-281474976710656n, 'ffffffffffff7f'],
  [281474976710656n, '8080808080808001'],
  [-281474976710657n, '8180808080808001'],
  [36028797018963967n, 'feffffffffffff7f'],
  [-36028797018963968n, 'ffffffffffffff7f'],
  [36028797018963968n, '808080808080808001'],
  [-36028797018963969n, '818080808080808001'],
  [4611686018427387903n, 'feffffffffffffff7f'],
  [-4611686018427387904n, 'ffffffffffffffff7f'],
  [4611686018427387904n, '80808080808080808001'],
  [-4611686018427387905n, '81808080808080808001'],
  [LONG_MAX, 'feffffffffffffffff01'],
  [LONG_MIN, 'ffffffffffffffffff01'],
];

/** ByteUtilsTest.testUnsignedVarintSerde (Java ints; -1 and MIN are the unsigned patterns). */
const UNSIGNED_VECTORS: [number, string][] = [
  [0, '00'],
  [-1, 'ffffffff0f'],
  [INT_MAX, 'ffffffff07'],
  [INT_MIN, '8080808008'],
  [127, '7f'],
  [128, '8001'],
  [16383, 'ff7f'],
  [16384, '808001'],
];

function reader(bytes: Uint8Array | string): ByteReader {
  const b = typeof bytes === 'string' ? hex(bytes) : Buffer.from(bytes);
  return new ByteReader(b, 0, b.length);
}

function encodeVarint(v: number): string {
  const b = Buffer.alloc(10);
  return toHex(b.subarray(0, writeVarint(b, 0, v)));
}
function encodeUnsigned(v: number): string {
  const b = Buffer.alloc(10);
  return toHex(b.subarray(0, writeUnsignedVarint(b, 0, v)));
}
function encodeVarlong(v: number | bigint): string {
  const b = Buffer.alloc(12);
  return toHex(b.subarray(0, writeVarlong(b, 0, v)));
}

function assertVarintError(fn: () => unknown, kind: 'TOO_LONG' | 'UNDERFLOW', msg?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof VarintError, `expected VarintError, got ${String(err)}`);
    assert.equal(err.kind, kind);
    assert.equal(typeof err.position, 'number');
    if (msg) assert.match(err.message, msg);
    return true;
  });
}

describe('varint known answers (ByteUtilsTest)', () => {
  test('reference encoder agrees with the literal vectors (sanity of the oracle)', () => {
    for (const [v, h] of VARINT_VECTORS) assert.equal(toHex(Buffer.from(refVarint(v))), h, `varint ${v}`);
    for (const [v, h] of VARLONG_VECTORS) assert.equal(toHex(Buffer.from(refVarlong(v))), h, `varlong ${v}`);
  });

  test('writeVarint / readVarint / sizeOfVarint', () => {
    for (const [v, h] of VARINT_VECTORS) {
      assert.equal(encodeVarint(v), h, `write ${v}`);
      const r = reader(h);
      assert.equal(r.readVarint(), v, `read ${h}`);
      assert.equal(r.pos, h.length / 2, `consumed ${h}`);
      assert.equal(sizeOfVarint(v), h.length / 2, `size ${v}`);
    }
  });

  test('writeVarlong / readVarlong / sizeOfVarlong (bigint and number inputs)', () => {
    for (const [v, h] of VARLONG_VECTORS) {
      assert.equal(encodeVarlong(v), h, `write bigint ${v}`);
      if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
        assert.equal(encodeVarlong(Number(v)), h, `write number ${v}`);
        assert.equal(sizeOfVarlong(Number(v)), h.length / 2, `size number ${v}`);
      }
      assert.equal(sizeOfVarlong(v), h.length / 2, `size ${v}`);
      const r = reader(h);
      const got = r.readVarlong();
      assert.equal(BigInt(got), v, `read ${h}`);
      assert.equal(r.pos, h.length / 2);
    }
  });

  test('varlong 2199023255552 -> 80 80 80 80 80 80 01 (ByteUtilsTest sample)', () => {
    assert.equal(encodeVarlong(2199023255552), '80808080808001');
    assert.equal(encodeVarlong(2199023255552n), '80808080808001');
    assert.equal(reader('80808080808001').readVarlong(), 2199023255552);
  });

  test('Integer.MIN/MAX and Long.MIN/MAX', () => {
    assert.equal(encodeVarint(INT_MAX), 'feffffff0f');
    assert.equal(encodeVarint(INT_MIN), 'ffffffff0f');
    assert.equal(reader('feffffff0f').readVarint(), INT_MAX);
    assert.equal(reader('ffffffff0f').readVarint(), INT_MIN);
    assert.equal(encodeVarlong(LONG_MAX), 'feffffffffffffffff01');
    assert.equal(encodeVarlong(LONG_MIN), 'ffffffffffffffffff01');
    assert.equal(reader('feffffffffffffffff01').readVarlong(), LONG_MAX);
    assert.equal(reader('ffffffffffffffffff01').readVarlong(), LONG_MIN);
    assert.equal(sizeOfVarlong(LONG_MAX), 10);
    assert.equal(sizeOfVarlong(LONG_MIN), 10);
  });

  test('unsigned varint vectors', () => {
    for (const [v, h] of UNSIGNED_VECTORS) {
      assert.equal(encodeUnsigned(v), h, `write ${v}`);
      assert.equal(encodeUnsigned(v >>> 0), h, `write unsigned ${v >>> 0}`);
      assert.equal(sizeOfUnsignedVarint(v), h.length / 2, `size ${v}`);
      const r = reader(h);
      // kafkalite reads an unsigned varint as an unsigned 32-bit number; Java's int is the same bits.
      assert.equal(r.readUnsignedVarint() | 0, v, `read ${h}`);
      assert.equal(r.pos, h.length / 2);
    }
  });

  test('size helpers: sizeOfVarint(-1) === 1 and every boundary', () => {
    assert.equal(sizeOfVarint(-1), 1);
    assert.equal(sizeOfVarint(0), 1);
    assert.equal(sizeOfVarint(63), 1);
    assert.equal(sizeOfVarint(64), 2);
    assert.equal(sizeOfVarint(-64), 1);
    assert.equal(sizeOfVarint(-65), 2);
    assert.equal(sizeOfUnsignedVarint(0x7f), 1);
    assert.equal(sizeOfUnsignedVarint(0x80), 2);
    assert.equal(sizeOfUnsignedVarint(0x3fff), 2);
    assert.equal(sizeOfUnsignedVarint(0x4000), 3);
    assert.equal(sizeOfUnsignedVarint(0x1fffff), 3);
    assert.equal(sizeOfUnsignedVarint(0x200000), 4);
    assert.equal(sizeOfUnsignedVarint(0xfffffff), 4);
    assert.equal(sizeOfUnsignedVarint(0x10000000), 5);
    assert.equal(sizeOfUnsignedVarint(-1), 5);
    assert.equal(sizeOfVarlong(-1), 1);
    assert.equal(sizeOfVarlong(-1n), 1);
    // every power-of-two boundary of the zigzag value, against the reference encoder
    for (let bit = 0; bit < 64; bit++) {
      for (const v of [(1n << BigInt(bit)) - 1n, 1n << BigInt(bit), -(1n << BigInt(bit)), -(1n << BigInt(bit)) - 1n]) {
        if (v > LONG_MAX || v < LONG_MIN) continue;
        assert.equal(sizeOfVarlong(v), refVarlong(v).length, `sizeOfVarlong(${v})`);
        if (v >= BigInt(INT_MIN) && v <= BigInt(INT_MAX)) {
          assert.equal(sizeOfVarint(Number(v)), refVarint(Number(v)).length, `sizeOfVarint(${v})`);
        }
      }
    }
  });
});

describe("Kafka's malformed-input rules", () => {
  test('varint: 5th byte with the continuation bit -> TOO_LONG (ByteUtilsTest.testInvalidVarint)', () => {
    assertVarintError(() => reader('ffffffffff01').readVarint(), 'TOO_LONG', /Varint is too long/);
    assertVarintError(() => reader('8080808080').readVarint(), 'TOO_LONG');
    assertVarintError(() => reader('ffffffff80').readUnsignedVarint(), 'TOO_LONG', /Varint is too long/);
  });

  test('varint: bits beyond 32 in the 5th byte are dropped, not rejected', () => {
    // 0x0ffffffe | (0x7f << 28 as a Java int = 0xf0000000) = 0xfffffffe -> zigzag -> Int.MAX
    assert.equal(reader('feffffff7f').readVarint(), INT_MAX);
    // 0xffffffff -> Int.MIN
    assert.equal(reader('ffffffff7f').readVarint(), INT_MIN);
    // 0x10 in the 5th byte: bit 32 only -> 0
    assert.equal(reader('8080808010').readVarint(), 0);
    assert.equal(reader('ffffffff7f').readUnsignedVarint() | 0, -1);
    assert.equal(reader('8080808070').readUnsignedVarint(), 0);
  });

  test('varint: over-long but <= 5 bytes is read (non-canonical zero padding)', () => {
    const r = reader('8280808000'); // 2 padded to 5 bytes -> zigzag 2 -> 1
    assert.equal(r.readVarint(), 1);
    assert.equal(r.pos, 5);
  });

  test('varlong: more than 10 bytes -> TOO_LONG (ByteUtilsTest.testInvalidVarlong)', () => {
    assertVarintError(() => reader('ffffffffffffffffffff01').readVarlong(), 'TOO_LONG', /Varlong is too long/);
    assertVarintError(() => reader('8080808080808080808000').readVarlong(), 'TOO_LONG');
  });

  test('varlong: 10 bytes with bits beyond 64 in the 10th byte are dropped', () => {
    assert.equal(reader('feffffffffffffffff7f').readVarlong(), LONG_MAX);
    assert.equal(reader('ffffffffffffffffff7f').readVarlong(), LONG_MIN);
    assert.equal(reader('80808080808080808000').readVarlong(), 0);
  });

  test('underflow: empty input, a dangling continuation byte', () => {
    assertVarintError(() => reader('').readVarint(), 'UNDERFLOW');
    assertVarintError(() => reader('80').readVarint(), 'UNDERFLOW');
    assertVarintError(() => reader('ffffff').readVarint(), 'UNDERFLOW');
    assertVarintError(() => reader('').readUnsignedVarint(), 'UNDERFLOW');
    assertVarintError(() => reader('8080').readUnsignedVarint(), 'UNDERFLOW');
    assertVarintError(() => reader('').readVarlong(), 'UNDERFLOW');
    assertVarintError(() => reader('808080').readVarlong(), 'UNDERFLOW');
    assertVarintError(() => reader('8080808080').readVarlong(), 'UNDERFLOW');
    assertVarintError(() => reader('808080808080808080').readVarlong(), 'UNDERFLOW');
    assertVarintError(() => reader('').readInt8(), 'UNDERFLOW');
  });

  test('the reader respects its end bound, not the buffer length', () => {
    const b = hex('80 01 00');
    assertVarintError(() => new ByteReader(b, 0, 1).readVarint(), 'UNDERFLOW');
    assertVarintError(() => new ByteReader(b, 0, 1).readVarlong(), 'UNDERFLOW');
    const r = new ByteReader(b, 1, 3);
    assert.equal(r.readVarint(), -1);
    assert.equal(r.readVarint(), 0);
    assert.equal(r.remaining, 0);
  });
});

describe('number vs bigint policy of readVarlong', () => {
  test('safe integers come back as number, everything else as bigint', () => {
    const cases: [bigint, 'number' | 'bigint'][] = [
      [0n, 'number'],
      [-1n, 'number'],
      [1700000000000n, 'number'],
      [9007199254740991n, 'number'],
      [-9007199254740991n, 'number'],
      [9007199254740992n, 'bigint'],
      [-9007199254740992n, 'bigint'],
      [LONG_MAX, 'bigint'],
      [LONG_MIN, 'bigint'],
    ];
    for (const [v, kind] of cases) {
      const got = reader(Buffer.from(refVarlong(v))).readVarlong();
      assert.equal(typeof got, kind, `${v}`);
      assert.equal(BigInt(got), v);
    }
  });
});

describe('round trips (property-based)', () => {
  test(`int32 varint round trip, bytes equal the reference encoder (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.integer({ min: INT_MIN, max: INT_MAX }), (v) => {
        const b = Buffer.alloc(5);
        const n = writeVarint(b, 0, v);
        assert.equal(toHex(b.subarray(0, n)), toHex(Buffer.from(refVarint(v))));
        assert.equal(n, sizeOfVarint(v));
        const r = new ByteReader(b, 0, n);
        assert.equal(r.readVarint(), v);
        assert.equal(r.pos, n);
      }),
      { numRuns: RUNS },
    );
  });

  test(`uint32 unsigned varint round trip (${RUNS / 2} runs)`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => {
        const b = Buffer.alloc(5);
        const n = writeUnsignedVarint(b, 0, v);
        assert.equal(toHex(b.subarray(0, n)), toHex(Buffer.from(refUnsignedVarint(v))));
        assert.equal(n, sizeOfUnsignedVarint(v));
        assert.equal(new ByteReader(b, 0, n).readUnsignedVarint(), v);
      }),
      { numRuns: RUNS / 2 },
    );
  });

  test(`int64 varlong round trip (bigint), exact value and type policy (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.bigInt({ min: LONG_MIN, max: LONG_MAX }), (v) => {
        const b = Buffer.alloc(10);
        const n = writeVarlong(b, 0, v);
        assert.equal(toHex(b.subarray(0, n)), toHex(Buffer.from(refVarlong(v))));
        assert.equal(n, sizeOfVarlong(v));
        const r = new ByteReader(b, 0, n);
        const got = r.readVarlong();
        assert.equal(r.pos, n);
        const safe = v >= -9007199254740991n && v <= 9007199254740991n;
        assert.equal(typeof got, safe ? 'number' : 'bigint');
        assert.equal(BigInt(got), v);
      }),
      { numRuns: RUNS },
    );
  });

  test(`safe-integer varlong: number and bigint inputs write the same bytes (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (v) => {
        const a = Buffer.alloc(10);
        const b = Buffer.alloc(10);
        const na = writeVarlong(a, 0, v);
        const nb = writeVarlong(b, 0, BigInt(v));
        assert.equal(toHex(a.subarray(0, na)), toHex(b.subarray(0, nb)));
        assert.equal(sizeOfVarlong(v), na);
        assert.equal(new ByteReader(a, 0, na).readVarlong(), v);
      }),
      { numRuns: RUNS },
    );
  });

  test('values written back to back are read back to back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer(), fc.bigInt({ min: LONG_MIN, max: LONG_MAX })), { maxLength: 50 }), (pairs) => {
        const b = Buffer.alloc(pairs.length * 15 + 1);
        let pos = 0;
        for (const [i, l] of pairs) {
          pos = writeVarint(b, pos, i);
          pos = writeVarlong(b, pos, l);
        }
        const r = new ByteReader(b, 0, pos);
        for (const [i, l] of pairs) {
          assert.equal(r.readVarint(), i);
          assert.equal(BigInt(r.readVarlong()), l);
        }
        assert.equal(r.remaining, 0);
      }),
    );
  });
});
