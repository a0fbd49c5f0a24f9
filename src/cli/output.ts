/**
 * Buffered line output: dumps of large segments print millions of lines. Lines are encoded
 * straight into one reused buffer (no joined strings, no fresh Buffer per flush: both showed up as
 * garbage-collector time on 1 GiB dumps) and written with writeSync when it fills. Hot printers
 * build a line from bytes (`bytes`, `prefix`, `newline`) with no string at all.
 */
import { writeSync } from 'node:fs';

/**
 * Where a command's text goes: a file descriptor (the binary passes the process's 1 and 2, written
 * with writeSync, as the dumps always were) or a sink that keeps the bytes (tests run `main()` in
 * their own process with one, instead of spawning the binary for every case).
 */
export type OutputTarget = number | OutputSink;

export interface OutputSink {
  /** `bytes` is only valid during the call (the writer reuses its buffer): a sink that keeps it copies it. */
  write(bytes: Uint8Array): void;
}

/** A command's two outputs. */
export interface CliIo {
  readonly stdout: OutputTarget;
  readonly stderr: OutputTarget;
}

/** The process's own stdout and stderr. */
export const PROCESS_IO: CliIo = { stdout: 1, stderr: 2 };

/** Writes a short text (an error or warning line, a few result lines) at once. */
export function writeText(to: OutputTarget, text: string): void {
  writeAllTo(to, Buffer.from(text, 'utf8'));
}

/** Whether `to` is the process's stderr on a terminal (where progress is drawn). */
export function isTerminalStderr(to: OutputTarget): boolean {
  return to === 2 && process.stderr.isTTY === true;
}

/** Writes all of `data`; returns false once the reader went away (EPIPE), dropping the rest. */
function writeAllTo(to: OutputTarget, data: Uint8Array): boolean {
  if (typeof to !== 'number') {
    to.write(data);
    return true;
  }
  let rest = data;
  while (rest.length > 0) {
    try {
      const n = writeSync(to, rest);
      rest = rest.subarray(n);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') return false;
      throw err;
    }
  }
  return true;
}

const BUFFER_SIZE = 256 * 1024;
const NEWLINE = 0x0a;

export class LineWriter {
  private readonly buf = Buffer.allocUnsafe(BUFFER_SIZE);
  private used = 0;
  /** Set once the reader went away (EPIPE): later output is dropped, as `head` expects. */
  private closed = false;

  constructor(private readonly target: OutputTarget) {}

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
    if (!this.closed && !writeAllTo(this.target, data)) this.closed = true;
  }
}
