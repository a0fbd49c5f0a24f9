/**
 * Independent reference code for tests: nothing here imports kafkalite, so expected values built
 * with these helpers do not come from the code under test.
 *
 * - table-driven CRC-32C (Castagnoli, reflected 0x82F63B78) and CRC-32 (IEEE, reflected 0xEDB88320)
 * - zigzag varint / varlong encoders written from Kafka's `ByteUtils` rules with BigInt arithmetic
 * - a hand-rolled v2 batch header writer (`DefaultRecordBatch` layout) so tests can build arbitrary, even malformed,
 *   batches with a valid CRC
 * - a small deterministic PRNG
 */

// ---- hex ---------------------------------------------------------------------------------------

/** Parses hex with any whitespace in it. */
export function hex(s: string): Buffer {
  const clean = s.replace(/\s+/g, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error(`bad hex: ${s}`);
  return Buffer.from(clean, 'hex');
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

// ---- CRC ---------------------------------------------------------------------------------------

function makeTable(poly: number): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}
const CRC32C_TABLE = makeTable(0x82f63b78);
const CRC32_TABLE = makeTable(0xedb88320);

function crcWith(table: Uint32Array, b: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = table[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function refCrc32c(b: Uint8Array, start = 0, end = b.length): number {
  return crcWith(CRC32C_TABLE, b, start, end);
}

export function refCrc32(b: Uint8Array, start = 0, end = b.length): number {
  return crcWith(CRC32_TABLE, b, start, end);
}

// ---- varints -----------------------------------------------------------------------------------

/** Unsigned LEB128 of a non-negative bigint. */
export function refUnsignedVarint(u: bigint | number): number[] {
  let v = BigInt(u);
  if (v < 0n) throw new Error('negative');
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** Zigzag int32 (ByteUtils: `(v << 1) ^ (v >> 31)`), as an unsigned value. */
export function refZigzag32(v: number): bigint {
  const x = BigInt.asIntN(32, BigInt(v));
  return BigInt.asUintN(32, (x << 1n) ^ (x >> 31n));
}

export function refZigzag64(v: bigint | number): bigint {
  const x = BigInt.asIntN(64, BigInt(v));
  return BigInt.asUintN(64, (x << 1n) ^ (x >> 63n));
}

export function refVarint(v: number): number[] {
  return refUnsignedVarint(refZigzag32(v));
}

export function refVarlong(v: bigint | number): number[] {
  return refUnsignedVarint(refZigzag64(v));
}

/**
 * An over-long (non-canonical) encoding of `bytes`: the same value padded with `extra` groups of
 * zero bits (continuation bits set on every byte but the last).
 */
export function overlong(bytes: readonly number[], extra: number): number[] {
  const out = bytes.slice();
  for (let i = 0; i < extra; i++) {
    out[out.length - 1] = out[out.length - 1]! | 0x80;
    out.push(0);
  }
  return out;
}

// ---- raw records -------------------------------------------------------------------------------

/** Prefixes a record body with its varint length (`DefaultRecord`). */
export function record(body: readonly number[] | Uint8Array): Buffer {
  const b = Buffer.from(body as number[]);
  return Buffer.concat([Buffer.from(refVarint(b.length)), b]);
}

export function ascii(s: string): number[] {
  return [...Buffer.from(s, 'latin1')];
}

// ---- raw batches -------------------------------------------------------------------------------

export interface RawBatchFields {
  baseOffset?: bigint;
  partitionLeaderEpoch?: number;
  magic?: number;
  attributes?: number;
  lastOffsetDelta?: number;
  baseTimestamp?: bigint;
  maxTimestamp?: bigint;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  count: number;
}

/** A v2 batch written field by field from `DefaultRecordBatch`'s header layout, CRC-32C fixed with `refCrc32c`. */
export function rawBatch(f: RawBatchFields, payload: Uint8Array): Buffer {
  const b = Buffer.alloc(61 + payload.length);
  b.writeBigInt64BE(f.baseOffset ?? 0n, 0);
  b.writeInt32BE(49 + payload.length, 8);
  b.writeInt32BE(f.partitionLeaderEpoch ?? 0, 12);
  b.writeInt8(f.magic ?? 2, 16);
  b.writeInt16BE(f.attributes ?? 0, 21);
  b.writeInt32BE(f.lastOffsetDelta ?? Math.max(f.count - 1, 0), 23);
  b.writeBigInt64BE(f.baseTimestamp ?? 1700000000000n, 27);
  b.writeBigInt64BE(f.maxTimestamp ?? 1700000000000n, 35);
  b.writeBigInt64BE(f.producerId ?? -1n, 43);
  b.writeInt16BE(f.producerEpoch ?? -1, 51);
  b.writeInt32BE(f.baseSequence ?? -1, 53);
  b.writeInt32BE(f.count, 57);
  Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).copy(b, 61);
  return fixCrc(b);
}

/**
 * Recomputes the CRC of the batch at `pos` over [pos+21, pos+length+12), clamped to the buffer's
 * end (a batch whose length field lies gets a CRC over the bytes that exist).
 */
export function fixCrc(b: Buffer, pos = 0): Buffer {
  const length = b.readInt32BE(pos + 8);
  const end = Math.max(pos + 21, Math.min(b.length, pos + length + 12));
  b.writeUInt32BE(refCrc32c(b, pos + 21, end), pos + 17);
  return b;
}

// ---- PRNG --------------------------------------------------------------------------------------

/** mulberry32: small, fast, deterministic. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  bool(p = 0.5): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}
