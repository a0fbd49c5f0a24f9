/**
 * ASCII text written straight into a byte buffer, for CLI output that prints millions of lines
 * (`dump-log --deep-iteration`, Kafka `DumpLogSegments`): decimal integers without a number-to-string
 * conversion, constant fragments encoded once. Every function here produces exactly the bytes of
 * the UTF-8 encoding of the equivalent JavaScript string (`String(n)`, the fragment's text).
 */

const ZERO = 0x30;
const MINUS = 0x2d;
const INT31_LIMIT = 0x80000000;

/** Bytes `writeDecimal` can need: `-9007199254740991` (a sign and 16 digits). */
export const MAX_DECIMAL_BYTES = 17;
/** Bytes `writeInt64` can need: `-9223372036854775808`. */
export const MAX_INT64_BYTES = 20;

/** Digits of a non-negative integer below 2^31. */
function digitCount(n: number): number {
  if (n < 100_000) return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : 5;
  return n < 1_000_000 ? 6 : n < 10_000_000 ? 7 : n < 100_000_000 ? 8 : n < 1_000_000_000 ? 9 : 10;
}

/** "00".."99": two digits per division halves the divisions of a long number. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) => ZERO + (i & 1 ? (i >> 1) % 10 : Math.floor((i >> 1) / 10)));

/** `n` (0 <= n < 2^31) as exactly `width` digits ending at `end`, zero-padded on the left. */
function writeDigits(buf: Uint8Array, end: number, n: number, width: number): void {
  // 32-bit integer division: the fast path V8 keeps for small integers
  let p = end;
  for (; width >= 2; width -= 2) {
    const q = (n / 100) | 0;
    const pair = (n - q * 100) << 1;
    buf[--p] = DIGIT_PAIRS[pair + 1]!;
    buf[--p] = DIGIT_PAIRS[pair]!;
    n = q;
  }
  if (width === 1) buf[p - 1] = ZERO + n;
}

/**
 * Writes the safe integer `n` in decimal at `buf[pos]` (room for MAX_DECIMAL_BYTES assumed) and
 * returns the position after it. The text is `String(n)`'s; -0 prints as `0`, as String does.
 */
export function writeDecimal(buf: Uint8Array, pos: number, n: number): number {
  if (n < 0) {
    buf[pos++] = MINUS;
    n = -n;
  }
  if (n < INT31_LIMIT) {
    const width = digitCount(n);
    writeDigits(buf, pos + width, n, width);
    return pos + width;
  }
  // Millisecond timestamps and large offsets: two halves below 2^31 (n < 2^53 keeps high < 10^8)
  const high = Math.floor(n / 100_000_000);
  const low = n - high * 100_000_000;
  const width = digitCount(high);
  writeDigits(buf, pos + width, high, width);
  writeDigits(buf, pos + width + 8, low, 8);
  return pos + width + 8;
}

/**
 * Writes an int64 held as a safe-integer number or as a bigint (values past 2^53, rare: they take
 * a string) at `buf[pos]` (room for MAX_INT64_BYTES assumed); returns the position after it.
 */
export function writeInt64(buf: Uint8Array, pos: number, n: number | bigint): number {
  if (typeof n === 'number') return writeDecimal(buf, pos, n);
  const text = String(BigInt.asIntN(64, n));
  for (let i = 0; i < text.length; i++) buf[pos++] = text.charCodeAt(i);
  return pos;
}

/** Copies the constant fragment `text` (a few bytes: a loop beats a native copy call there). */
export function writeFragment(buf: Uint8Array, pos: number, text: Uint8Array): number {
  for (let i = 0; i < text.length; i++) buf[pos++] = text[i]!;
  return pos;
}

/** A constant fragment of output text, encoded once (it must be ASCII: no encoder choice hides in it). */
export function asciiFragment(text: string): Buffer {
  if (!/^[\x00-\x7f]*$/.test(text)) throw new Error(`not ASCII: ${JSON.stringify(text)}`);
  return Buffer.from(text, 'latin1');
}
