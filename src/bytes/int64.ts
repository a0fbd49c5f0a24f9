/**
 * int64 fields accept `bigint` (exact) or a safe-integer `number` (convenient); both write exactly.
 * Anything else (a fraction, a number past 2^53, a bigint outside int64) is refused with a typed
 * error rather than written as some other value.
 */
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
  const limit = 2 ** (bits - 1);
  if (!Number.isInteger(value) || value < -limit || value >= limit) {
    throw new InvalidArgumentError(`${name} ${value} is not an int${bits}`);
  }
}

export function writeInt64BE(buf: Buffer, pos: number, value: Int64Input): void {
  if (typeof value === 'bigint') {
    buf.writeBigInt64BE(value, pos);
    return;
  }
  const hi = Math.floor(value / TWO_32);
  buf.writeInt32BE(hi | 0, pos);
  buf.writeUInt32BE(value - hi * TWO_32, pos + 4);
}

export function toBigInt64(value: Int64Input): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}
