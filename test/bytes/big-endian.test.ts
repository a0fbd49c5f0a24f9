/**
 * Big-endian helpers (src/bytes/big-endian.ts): the same values, bytes, return values and
 * RangeErrors as Node's Buffer methods they stand in for on the request path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as be from '../../src/bytes/big-endian.js';

/** Every boundary of each width, and pseudo-random values between (a fixed seed). */
function valuesFor(min: number, max: number): number[] {
  const out = [min, min + 1, -1, 0, 1, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000, max - 1, max].filter((v) => v >= min && v <= max);
  let seed = 12345;
  for (let i = 0; i < 500; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out.push(min + Math.floor((seed / 0x100000000) * (max - min + 1)));
  }
  return out;
}

const widths = [
  { name: 'Int16BE', size: 2, min: -0x8000, max: 0x7fff },
  { name: 'UInt16BE', size: 2, min: 0, max: 0xffff },
  { name: 'Int32BE', size: 4, min: -0x80000000, max: 0x7fffffff },
  { name: 'UInt32BE', size: 4, min: 0, max: 0xffffffff },
] as const;

for (const w of widths) {
  const read = be[`read${w.name}`] as (b: Uint8Array, p: number) => number;
  const write = be[`write${w.name}`] as (b: Uint8Array, p: number, v: number) => number;
  const nodeRead = (b: Buffer, p: number) => (b[`read${w.name}`] as (p: number) => number).call(b, p);
  const nodeWrite = (b: Buffer, v: number, p: number) => (b[`write${w.name}`] as (v: number, p: number) => number).call(b, v, p);

  test(`write${w.name} writes Buffer's bytes and returns its position; read${w.name} reads Buffer's value`, () => {
    for (const v of valuesFor(w.min, w.max)) {
      for (const pos of [0, 3]) {
        const expected = Buffer.alloc(9, 0xa5);
        const expectedEnd = nodeWrite(expected, v, pos);
        const got = Buffer.alloc(9, 0xa5);
        assert.equal(write(got, pos, v), expectedEnd, `${v} at ${pos}`);
        assert.deepEqual(got, expected, `${v} at ${pos}`);
        assert.equal(read(got, pos), nodeRead(expected, pos), `${v} at ${pos}`);
        assert.equal(read(got, pos), v);
      }
    }
  });

  test(`read${w.name} and write${w.name} throw a RangeError where Buffer's do, and write nothing then`, () => {
    const buf = Buffer.alloc(6);
    for (const pos of [-1, 6 - w.size + 1, 6, 100, 1.5]) {
      assert.throws(() => nodeRead(buf, pos), RangeError);
      assert.throws(() => read(buf, pos), RangeError, `read at ${pos}`);
      assert.throws(() => write(buf, pos, 1), RangeError, `write at ${pos}`);
    }
    for (const v of [w.min - 1, w.max + 1, NaN]) assert.throws(() => write(buf, 0, v), RangeError, `value ${v}`);
    assert.deepEqual(buf, Buffer.alloc(6));
    // the last position that fits works, on a view too
    const view = Buffer.alloc(12).subarray(3, 9);
    assert.equal(write(view, 6 - w.size, w.max), 6);
    assert.equal(read(view, 6 - w.size), w.max);
  });
}

test("readInt8 reads Buffer's signed value of every byte, and throws a RangeError where Buffer's does", () => {
  const buf = Buffer.alloc(256);
  for (let i = 0; i < 256; i++) buf[i] = i;
  for (let i = 0; i < 256; i++) assert.equal(be.readInt8(buf, i), buf.readInt8(i), `byte ${i}`);
  assert.equal(be.readInt8(buf, 0xff), -1);
  assert.equal(be.readInt8(buf.subarray(0x80), 0), -128, 'on a view');
  for (const pos of [-1, 256, 1.5]) {
    assert.throws(() => buf.readInt8(pos), RangeError);
    assert.throws(() => be.readInt8(buf, pos), RangeError, `at ${pos}`);
  }
});
