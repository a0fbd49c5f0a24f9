/**
 * Buffered line output: dumps of large segments print millions of lines. Lines are encoded
 * straight into one reused buffer (no joined strings, no fresh Buffer per flush: both showed up as
 * garbage-collector time on 1 GiB dumps) and written with writeSync when it fills.
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
    if (this.used === this.buf.length) this.flush();
    this.buf[this.used++] = NEWLINE;
  }

  flush(): void {
    if (this.used === 0) return;
    const data = this.buf.subarray(0, this.used);
    this.used = 0;
    this.writeAll(data);
  }

  private writeAll(data: Buffer): void {
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
