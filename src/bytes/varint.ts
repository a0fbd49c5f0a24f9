/**
 * Zigzag varints and varlongs exactly as Kafka's `ByteUtils` reads and writes them.
 *
 * Decoding rules that matter for compatibility:
 * - a varint may span at most 5 bytes; a 5th byte with the continuation bit set is an error, while
 *   bits of the 5th byte beyond bit 31 are silently dropped (Java int shift semantics, reproduced
 *   here by JS's 32-bit `<<`);
 * - a varlong may span at most 10 bytes;
 * - running out of input is an error of its own (Java's BufferUnderflowException).
 *
 * int64 policy: a varlong is returned as a `number` when it is a safe integer (every realistic
 * timestamp delta), and as a `bigint` only when it is not, so the value always round-trips exactly
 * without putting a BigInt allocation on the per-record path.
 */
import { anchorHiddenClass } from '../v8/map-anchors.js';

export class VarintError extends Error {
  constructor(
    readonly kind: 'TOO_LONG' | 'UNDERFLOW',
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

/** A cursor over a byte range; the hot decoding loops use it directly. */
export class ByteReader {
  constructor(
    public buf: Uint8Array,
    public pos: number,
    public end: number,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  readInt8(): number {
    if (this.pos >= this.end) throw underflow(this.pos);
    const b = this.buf[this.pos++]!;
    return (b << 24) >> 24;
  }

  readVarint(): number {
    const buf = this.buf;
    const end = this.end;
    let pos = this.pos;
    if (pos >= end) throw underflow(pos);
    let b = buf[pos++]!;
    if (b < 0x80) {
      this.pos = pos;
      return (b >>> 1) ^ -(b & 1);
    }
    let value = b & 0x7f;
    let shift = 7;
    for (;;) {
      if (pos >= end) throw underflow(pos);
      b = buf[pos++]!;
      if ((b & 0x80) === 0) break;
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 28) {
        throw new VarintError(
          'TOO_LONG',
          this.pos,
          'Varint is too long, the most significant bit in the 5th byte is set',
        );
      }
    }
    value |= b << shift;
    this.pos = pos;
    return (value >>> 1) ^ -(value & 1);
  }

  readUnsignedVarint(): number {
    const start = this.pos;
    let value = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw underflow(this.pos);
      const b = this.buf[this.pos++]!;
      if ((b & 0x80) === 0) {
        value |= b << shift;
        return value >>> 0;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 28) {
        throw new VarintError('TOO_LONG', start, 'Varint is too long, the most significant bit in the 5th byte is set');
      }
    }
  }

  /** Zigzag varlong; `number` when safe, otherwise `bigint` (see the module comment). */
  readVarlong(): number | bigint {
    const buf = this.buf;
    const start = this.pos;
    let pos = start;
    const end = this.end;
    // Fast path: up to 4 bytes fit 28 bits, so 32-bit arithmetic is exact.
    let value = 0;
    let shift = 0;
    for (;;) {
      if (pos >= end) throw underflow(pos);
      const b = buf[pos++]!;
      if (shift === 28) {
        pos--;
        break;
      }
      value |= (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) === 0) {
        this.pos = pos;
        return (value >>> 1) ^ -(value & 1);
      }
    }
    // Slow path: accumulate as BigInt, Kafka's 10-byte limit applies.
    let big = BigInt(value >>> 0);
    let bigShift = 28n;
    for (;;) {
      if (pos >= end) throw underflow(pos);
      const b = buf[pos++]!;
      if ((b & 0x80) === 0) {
        big |= BigInt(b) << bigShift;
        break;
      }
      big |= BigInt(b & 0x7f) << bigShift;
      bigShift += 7n;
      if (bigShift > 63n) {
        throw new VarintError('TOO_LONG', start, 'Varlong is too long, most significant bit in the 10th byte is set');
      }
    }
    this.pos = pos;
    big = BigInt.asUintN(64, big);
    const decoded = BigInt.asIntN(64, (big >> 1n) ^ -(big & 1n));
    if (decoded >= -9007199254740991n && decoded <= 9007199254740991n) return Number(decoded);
    return decoded;
  }
}

function underflow(position: number): VarintError {
  return new VarintError('UNDERFLOW', position, 'Reached the end of the input while reading');
}

// ---- writing ---------------------------------------------------------------------------------

/** Bytes needed for an unsigned varint of a 32-bit value (treated as unsigned). */
export function sizeOfUnsignedVarint(value: number): number {
  value >>>= 0;
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** Bytes needed for a zigzag varint of an int32. `sizeOfVarint(-1) === 1`. */
export function sizeOfVarint(value: number): number {
  return sizeOfUnsignedVarint((value << 1) ^ (value >> 31));
}

/** Bytes needed for a zigzag varlong. */
export function sizeOfVarlong(value: number | bigint): number {
  if (typeof value === 'number' && value >= -0x40000000 && value < 0x40000000) {
    return sizeOfVarint(value);
  }
  let zz = zigzag64(value);
  let n = 1;
  while (zz >= 0x80n) {
    zz >>= 7n;
    n++;
  }
  return n;
}

export function writeUnsignedVarint(buf: Uint8Array, pos: number, value: number): number {
  value >>>= 0;
  while (value >= 0x80) {
    buf[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[pos++] = value;
  return pos;
}

export function writeVarint(buf: Uint8Array, pos: number, value: number): number {
  return writeUnsignedVarint(buf, pos, (value << 1) ^ (value >> 31));
}

export function writeVarlong(buf: Uint8Array, pos: number, value: number | bigint): number {
  if (typeof value === 'number' && value >= -0x40000000 && value < 0x40000000) {
    return writeUnsignedVarint(buf, pos, ((value << 1) ^ (value >> 31)) >>> 0);
  }
  let zz = zigzag64(value);
  while (zz >= 0x80n) {
    buf[pos++] = Number(zz & 0x7fn) | 0x80;
    zz >>= 7n;
  }
  buf[pos++] = Number(zz);
  return pos;
}

function zigzag64(value: number | bigint): bigint {
  const v = BigInt.asIntN(64, BigInt(value));
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
}

anchorHiddenClass(new ByteReader(Buffer.alloc(0), 0, 0));
