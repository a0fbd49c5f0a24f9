/**
 * A line of constant text and integer fields, such as a dump's record line
 * `| offset: <n> CreateTime: <n> keySize: <n> ...`, kept rendered in a small buffer. Consecutive
 * lines of a dump differ in a few digits: setting a field rewrites only that field's digits (the
 * rest of the line is moved only when the field's width changes), and each line then goes to the
 * output as one copy. Rendering the whole line per record stored every byte of its constant text
 * one by one, which was most of the cost of `dump-log --deep-iteration`.
 *
 * The text is exactly the fragments and `String(value)` of each field, concatenated.
 */
import { asciiFragment, MAX_INT64_BYTES, writeFragment, writeInt64 } from './ascii.js';
import type { LineWriter } from './output.js';

const ZERO = 0x30;
const NINE = 0x39;

export class LineTemplate {
  private readonly fragments: Buffer[];
  /** Each field's value when it is a number, NaN when it is a bigint (typed: no boxed doubles). */
  private readonly numbers: Float64Array;
  private readonly bigints: (bigint | undefined)[];
  /** Where each field's digits start and end in `bytes`. */
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** Room for the fragments and the widest value of every field. */
  private readonly bytes: Buffer;
  private length = 0;

  /**
   * @param fragments the constant text around the fields: `fragments[i]` comes before field i,
   *   the last one after the last field (so there is one field fewer than fragments); ASCII only
   */
  constructor(fragments: readonly string[]) {
    this.fragments = fragments.map(asciiFragment);
    const fields = fragments.length - 1;
    this.numbers = new Float64Array(fields);
    this.bigints = new Array<bigint | undefined>(fields).fill(undefined);
    this.starts = new Int32Array(fields);
    this.ends = new Int32Array(fields);
    const textBytes = this.fragments.reduce((sum, f) => sum + f.length, 0);
    this.bytes = Buffer.alloc(textBytes + fields * MAX_INT64_BYTES);
    this.renderFrom(0, 0);
  }

  /** Sets field `i` to an int64 value (a safe-integer number, or a bigint). */
  set(i: number, value: number | bigint): void {
    const numbers = this.numbers;
    if (typeof value === 'number') {
      const old = numbers[i]!;
      if (old === value) return;
      numbers[i] = value;
      // consecutive offsets (and timestamps a millisecond apart): usually one digit changes
      if (old >= 0 && value === old + 1 && incrementDigits(this.bytes, this.starts[i]!, this.ends[i]!)) return;
    } else {
      if (Number.isNaN(numbers[i]) && this.bigints[i] === value) return;
      numbers[i] = NaN;
      this.bigints[i] = value;
    }
    const end = writeInt64(this.bytes, this.starts[i]!, value);
    if (end === this.ends[i]) return;
    // a new width: the digits ran over (or fell short of) the next fragment, which moves
    this.ends[i] = end;
    this.renderFrom(i + 1, end);
  }

  /** Appends the line as it stands (without a newline). */
  writeTo(out: LineWriter): void {
    out.prefix(this.bytes, this.length);
  }

  /** The line as text (tests, diagnostics). */
  toString(): string {
    return this.bytes.toString('latin1', 0, this.length);
  }

  /** Renders fragment `k` at `pos`, then every field and fragment after it. */
  private renderFrom(k: number, pos: number): void {
    const { bytes, fragments, numbers, starts, ends } = this;
    let p = writeFragment(bytes, pos, fragments[k]!);
    for (let i = k; i < numbers.length; i++) {
      starts[i] = p;
      const n = numbers[i]!;
      p = writeInt64(bytes, p, Number.isNaN(n) ? this.bigints[i]! : n);
      ends[i] = p;
      p = writeFragment(bytes, p, fragments[i + 1]!);
    }
    this.length = p;
  }
}

/** Adds one to the decimal digits `buf[start, end)` in place; false when they were all 9s (one more digit needed). */
function incrementDigits(buf: Uint8Array, start: number, end: number): boolean {
  for (let p = end - 1; p >= start; p--) {
    if (buf[p]! !== NINE) {
      buf[p]!++;
      return true;
    }
    buf[p] = ZERO;
  }
  return false;
}
