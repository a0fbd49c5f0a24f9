/**
 * int64 helpers (src/bytes/int64.ts): the double path within ±2^53 must give exactly the bytes and
 * values of Buffer's BigInt path, which they fall back to beyond.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readInt64BE, writeInt64BE } from '../../src/bytes/int64.js';

const values: bigint[] = [0n, 1n, -1n, 255n, -256n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), -(2n ** 32n) - 1n, 1733100000000n, -1733100000000n];
for (const e of [52n, 53n, 54n, 62n]) for (const d of [-1n, 0n, 1n]) values.push(2n ** e + d, -(2n ** e) + d);
values.push(2n ** 63n - 1n, -(2n ** 63n));

test('writeInt64BE writes the bytes of Buffer.writeBigInt64BE, from a bigint or a safe number', () => {
  for (const v of values) {
    const expected = Buffer.alloc(10);
    expected.writeBigInt64BE(v, 1);
    const got = Buffer.alloc(10);
    writeInt64BE(got, 1, v);
    assert.deepStrictEqual(got, expected, `bigint ${v}`);
    if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
      const fromNumber = Buffer.alloc(10);
      writeInt64BE(fromNumber, 1, Number(v));
      assert.deepStrictEqual(fromNumber, expected, `number ${v}`);
    }
  }
  assert.throws(() => writeInt64BE(Buffer.alloc(8), 0, 2n ** 63n), RangeError);
});

test('readInt64BE reads what Buffer.readBigInt64BE reads, every bit pattern of the high word boundaries', () => {
  for (const v of values) {
    const b = Buffer.alloc(10);
    b.writeBigInt64BE(v, 2);
    assert.equal(readInt64BE(b, 2), v);
  }
  for (const hi of [0x1fffff, 0x200000, -0x200000, -0x200001, 0x7fffffff, -0x80000000]) {
    for (const lo of [0, 1, 0x7fffffff, 0x80000000, 0xffffffff]) {
      const b = Buffer.alloc(8);
      b.writeInt32BE(hi, 0);
      b.writeUInt32BE(lo, 4);
      assert.equal(readInt64BE(b, 0), b.readBigInt64BE(0), `hi ${hi} lo ${lo}`);
    }
  }
});
