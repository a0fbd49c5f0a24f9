/**
 * int64 fields accept `bigint` (exact) or a safe-integer `number` (convenient); both write exactly.
 * Anything else (a fraction, a number past 2^53, a bigint outside int64) is refused with a typed
 * error rather than written as some other value.
 */
import { readInt32BE, readUInt32BE, writeInt32BE, writeUInt32BE } from './big-endian.js';
import { InvalidArgumentError } from '../errors.js';

export type Int64Input = bigint | number;

const TWO_32 = 4294967296;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export function checkInt64(name: string, value: Int64Input): void {
  if (typeof value === 'bigint') {
    if (value < INT64_MIN || value > INT64_MAX) throw new InvalidArgumentError(`${name} ${value} is outside the int64 range`);
  } else if (!Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(`${name} ${value} is not a safe integer: pass a bigint`);
  }
}

/** Checks a 32- or 16-bit signed field. */
export function checkInt(name: string, value: number, bits: 16 | 32): void {
  // a constant per width, not `2 ** (bits - 1)`: V8 calls pow() for it on every check
  const limit = bits === 16 ? 0x8000 : 0x80000000;
  if (!Number.isInteger(value) || value < -limit || value >= limit) {
    throw new InvalidArgumentError(`${name} ${value} is not an int${bits}`);
  }
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE_BIG = -MAX_SAFE_BIG;

/**
 * Writes an int64 (a number must be a safe integer). Buffer.writeBigInt64BE splits a bigint with
 * BigInt arithmetic, several allocations per call; one within ±2^53 (offsets, ids, timestamps) is
 * split as a double instead. Beyond that, and for a bigint outside int64 (RangeError), Buffer's.
 */
export function writeInt64BE(buf: Buffer, pos: number, value: Int64Input): void {
  if (typeof value === 'bigint') {
    if (value > MAX_SAFE_BIG || value < MIN_SAFE_BIG) {
      buf.writeBigInt64BE(value, pos);
      return;
    }
    value = Number(value);
  }
  const hi = Math.floor(value / TWO_32);
  writeInt32BE(buf, pos, hi | 0);
  writeUInt32BE(buf, pos + 4, value - hi * TWO_32);
}

export function toBigInt64(value: Int64Input): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/**
 * Reads an int64 as a bigint. Buffer.readBigInt64BE builds it from three BigInts; a value within
 * ±2^53 (|high word| < 2^21) is exact as a double, whose conversion costs one.
 */
export function readInt64BE(buf: Buffer, pos: number): bigint {
  const hi = readInt32BE(buf, pos);
  if (hi >= -0x200000 && hi < 0x200000) return BigInt(hi * TWO_32 + readUInt32BE(buf, pos + 4));
  return buf.readBigInt64BE(pos);
}
