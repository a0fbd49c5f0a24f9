/** Buffered line output: dumps of large segments print millions of lines. */
import { writeSync } from 'node:fs';

export class LineWriter {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly fd: number) {}

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size > 1 << 16) this.flush();
  }

  line(text = ''): void {
    this.write(text + '\n');
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const data = this.parts.join('');
    this.parts = [];
    this.size = 0;
    let buf = Buffer.from(data, 'utf8');
    while (buf.length > 0) {
      try {
        const n = writeSync(this.fd, buf);
        buf = buf.subarray(n);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
        throw err;
      }
    }
  }
}
