/**
 * Buffered line output: dumps of large segments print millions of lines. Lines are encoded
 * straight into one reused buffer (no joined strings, no fresh Buffer per flush: both showed up as
 * garbage-collector time on 1 GiB dumps) and written with writeSync when it fills. Hot printers
 * build a line from bytes (`bytes`, `prefix`, `newline`) with no string at all.
 */
import { writeSync } from 'node:fs';

const BUFFER_SIZE = 256 * 1024;
const NEWLINE = 0x0a;

export class LineWriter {
  private readonly buf = Buffer.allocUnsafe(BUFFER_SIZE);
  private used = 0;
  /** Set once the reader went away (EPIPE): later output is dropped, as `head` expects. */
  private closed = false;

  constructor(private readonly fd: number) {}

  write(text: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit
    const worst = text.length * 3;
    if (worst > this.buf.length - this.used) {
      this.flush();
      if (worst > this.buf.length) {
        this.writeAll(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  line(text = ''): void {
    this.write(text);
    this.newline();
  }

  newline(): void {
    if (this.used === this.buf.length) this.flush();
    this.buf[this.used++] = NEWLINE;
  }

  /** Appends `src[start, end)` as it is: constant ASCII fragments, bytes known to be their own text. */
  bytes(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    if (n > this.buf.length - this.used) {
      this.flush();
      if (n > this.buf.length) {
        this.writeAll(src.subarray(start, end));
        return;
      }
    }
    const buf = this.buf;
    let used = this.used;
    // fragments and short keys are a few bytes: a loop beats a native copy call there
    if (n <= 32) for (let i = start; i < end; i++) buf[used++] = src[i]!;
    else {
      buf.set(src.subarray(start, end), used);
      used += n;
    }
    this.used = used;
  }

  /**
   * Appends `src[start, end)` (a few bytes) if it is all ASCII, which is then its own UTF-8 text,
   * and returns true; otherwise appends nothing and returns false. One pass checks and copies.
   */
  ascii(src: Uint8Array, start: number, end: number): boolean {
    if (end - start > this.buf.length - this.used) this.flush();
    const buf = this.buf;
    let used = this.used;
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      if (c >= 0x80) return false;
      buf[used++] = c;
    }
    this.used = used;
    return true;
  }

  /**
   * Appends `src[0, length)` of a small `src` (a line template): all of `src` goes in with one
   * native copy, no view of its first bytes is made, and only `length` bytes are kept.
   */
  prefix(src: Uint8Array, length: number): void {
    if (src.length > this.buf.length - this.used) this.flush();
    this.buf.set(src, this.used);
    this.used += length;
  }

  flush(): void {
    if (this.used === 0) return;
    const data = this.buf.subarray(0, this.used);
    this.used = 0;
    this.writeAll(data);
  }

  private writeAll(data: Uint8Array): void {
    let rest = data;
    while (rest.length > 0 && !this.closed) {
      try {
        const n = writeSync(this.fd, rest);
        rest = rest.subarray(n);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') {
          this.closed = true;
          return;
        }
        throw err;
      }
    }
  }
}
