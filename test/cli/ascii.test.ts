/**
 * The ASCII writers of the CLI's hot output path (src/cli/ascii.ts): every number they write must
 * be the text JavaScript's own conversion gives (`String(n)`, `BigInt#toString`), over each digit
 * count and the boundaries of the int32 and two-halves paths.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asciiFragment, MAX_DECIMAL_BYTES, MAX_INT64_BYTES, writeDecimal, writeFragment, writeInt64 } from '../../src/cli/ascii.js';

/** Deterministic values of every magnitude up to 2^53 (xorshift; no Math.random in tests). */
function* safeIntegers(count: number): Generator<number> {
  let s = 0x2545f491;
  for (let i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const digits = 1 + ((s >>> 0) % 16);
    const n = Math.min(Math.floor(((s >>> 0) / 2 ** 32) * 10 ** digits), Number.MAX_SAFE_INTEGER);
    yield i % 3 === 0 ? -n : n;
  }
}

function decimalText(n: number): string {
  const buf = Buffer.alloc(MAX_DECIMAL_BYTES + 4, 0x23);
  const end = writeDecimal(buf, 2, n);
  assert.equal(buf[1], 0x23, 'nothing written before the position');
  assert.equal(buf[end], 0x23, 'nothing written after the returned end');
  return buf.toString('latin1', 2, end);
}

describe('writeDecimal', () => {
  it('writes String(n) at the boundaries of each path', () => {
    const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 99_999, 100_000, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 99_999_999, 100_000_000];
    edges.push(999_999_999, 1_000_000_000, 100_000_001, 4_294_967_297, 1_700_000_000_000, 10 ** 15, 10 ** 15 + 1, Number.MAX_SAFE_INTEGER);
    for (const n of edges) {
      assert.equal(decimalText(n), String(n));
      assert.equal(decimalText(-n), String(-n));
    }
  });

  it('writes String(n) for values of every digit count', () => {
    for (const n of safeIntegers(20_000)) assert.equal(decimalText(n), String(n), `n = ${n}`);
  });

  it('keeps the zero digits inside the low half of a large number', () => {
    assert.equal(decimalText(1_700_000_000_001), '1700000000001');
    assert.equal(decimalText(123_00000007), '12300000007');
    assert.equal(decimalText(-9_007_199_254_740_991), '-9007199254740991');
    assert.equal(decimalText(-0), '0');
  });
});

describe('writeInt64', () => {
  it('writes numbers as writeDecimal does and bigints as their int64 text', () => {
    const buf = Buffer.alloc(MAX_INT64_BYTES);
    const text = (v: number | bigint) => buf.toString('latin1', 0, writeInt64(buf, 0, v));
    assert.equal(text(-9_223_372_036_854_775_808n), '-9223372036854775808');
    assert.equal(text(9_223_372_036_854_775_807n), '9223372036854775807');
    assert.equal(text(9_007_199_254_740_993n), '9007199254740993');
    assert.equal(text(42), '42');
    assert.equal(text(-1), '-1');
  });
});

describe('fragments', () => {
  it('copies a constant fragment and returns the position after it', () => {
    const buf = Buffer.alloc(16, 0x2e);
    const end = writeFragment(buf, 3, asciiFragment(' keySize: '));
    assert.equal(end, 13);
    assert.equal(buf.toString('latin1'), '... keySize: ...');
  });

  it('refuses text that is not ASCII', () => {
    assert.throws(() => asciiFragment('clé'), /not ASCII/);
    assert.throws(() => asciiFragment('\u0141'), /not ASCII/); // its low byte alone would be ASCII 'A'
  });
});
