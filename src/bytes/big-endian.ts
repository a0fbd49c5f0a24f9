/**
 * Big-endian integer reads and writes by byte index, for the request path.
 *
 * Why not `buf.readInt32BE(pos)`: on Node 20 (V8 11.3) TurboFan compiles on a background thread,
 * and there it does not resolve a named property of a typed array (it cannot read the name's
 * characters to rule out a numeric index: `AccessInfoFactory::ComputePropertyAccessInfo`). So in
 * optimized code every Buffer method call first looks the method up by a generic `LoadIC` (the
 * method's body may still be inlined, behind a check of the loaded function against the call's
 * feedback: `--trace-turbo-inlining` on Node 20.20). A read in a loop took about 5.5 ns against
 * 1.5 ns by index, a function making one read 8.3 against 3.6 ns (a 16 KiB Produce stream spent
 * 0.5 µs a request in `LoadIC`; `perf`, bench/README.md). Element loads of a Uint8Array are
 * inlined. Node 24.22's V8 resolves these names; there the helpers measured as fast as Buffer's
 * methods (one read 4.0 ns both) or faster (a loop of 16 reads 21 against 28 ns).
 *
 * Out of range they throw a RangeError, as Buffer's methods do; a value out of range for a write
 * (or NaN, which Buffer writes as 0) throws one too. Each returns what Buffer's returns.
 */

function outOfBounds(buf: Uint8Array, pos: number, size: number): RangeError {
  return new RangeError(`Attempt to access ${size} bytes at ${pos} of a buffer of ${buf.length}`);
}

function outOfRange(value: number, bits: string): RangeError {
  return new RangeError(`${value} is out of range for ${bits}`);
}

export function readInt8(buf: Uint8Array, pos: number): number {
  const b = buf[pos];
  if (b === undefined) throw outOfBounds(buf, pos, 1);
  return (b << 24) >> 24;
}

export function readInt16BE(buf: Uint8Array, pos: number): number {
  const first = buf[pos];
  const last = buf[pos + 1];
  if (first === undefined || last === undefined) throw outOfBounds(buf, pos, 2);
  return (((first << 8) | last) << 16) >> 16;
}

export function readUInt16BE(buf: Uint8Array, pos: number): number {
  const first = buf[pos];
  const last = buf[pos + 1];
  if (first === undefined || last === undefined) throw outOfBounds(buf, pos, 2);
  return (first << 8) | last;
}

export function readInt32BE(buf: Uint8Array, pos: number): number {
  const first = buf[pos];
  const last = buf[pos + 3];
  if (first === undefined || last === undefined) throw outOfBounds(buf, pos, 4);
  return (first << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | last;
}

export function readUInt32BE(buf: Uint8Array, pos: number): number {
  const first = buf[pos];
  const last = buf[pos + 3];
  if (first === undefined || last === undefined) throw outOfBounds(buf, pos, 4);
  return first * 0x1000000 + ((buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | last);
}

/** Whether pos..pos+size is inside `buf` (pos a non-negative integer). */
function fits(buf: Uint8Array, pos: number, size: number): boolean {
  return pos >= 0 && pos + size <= buf.length && Math.floor(pos) === pos;
}

/** The two bytes of a 16-bit value at `pos`, once its range was checked. */
function put16(buf: Uint8Array, pos: number, value: number): number {
  if (!fits(buf, pos, 2)) throw outOfBounds(buf, pos, 2);
  buf[pos] = value >>> 8;
  buf[pos + 1] = value;
  return pos + 2;
}

/** The four bytes of a 32-bit value at `pos`, once its range was checked. */
function put32(buf: Uint8Array, pos: number, value: number): number {
  if (!fits(buf, pos, 4)) throw outOfBounds(buf, pos, 4);
  buf[pos] = value >>> 24;
  buf[pos + 1] = value >>> 16;
  buf[pos + 2] = value >>> 8;
  buf[pos + 3] = value;
  return pos + 4;
}

export function writeInt16BE(buf: Uint8Array, pos: number, value: number): number {
  if (!(value >= -0x8000 && value <= 0x7fff)) throw outOfRange(value, 'int16');
  return put16(buf, pos, value);
}

export function writeUInt16BE(buf: Uint8Array, pos: number, value: number): number {
  if (!(value >= 0 && value <= 0xffff)) throw outOfRange(value, 'uint16');
  return put16(buf, pos, value);
}

export function writeInt32BE(buf: Uint8Array, pos: number, value: number): number {
  if (!(value >= -0x80000000 && value <= 0x7fffffff)) throw outOfRange(value, 'int32');
  return put32(buf, pos, value);
}

export function writeUInt32BE(buf: Uint8Array, pos: number, value: number): number {
  if (!(value >= 0 && value <= 0xffffffff)) throw outOfRange(value, 'uint32');
  return put32(buf, pos, value);
}
