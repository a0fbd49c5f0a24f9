/**
 * Live updates to an open page over server-sent events (text/event-stream): each stream lives as
 * long as its HTTP request, and ends when the page goes (the browser closes the request, the
 * server sees `close`). Used by the live tail (tail.ts) and the overview's and groups' samplers
 * (sampler.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class EventStream {
  private closed = false;
  private readonly onClose: (() => void)[] = [];
  private readonly keepAlive: NodeJS.Timeout;

  constructor(req: IncomingMessage, private readonly res: ServerResponse) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    const end = (): void => this.close();
    req.once('close', end);
    res.once('close', end);
    // a comment line now and then: a proxy keeps the stream open, and a vanished peer is noticed
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), 15_000);
    this.keepAlive.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `f` when the stream ends (at once if it has). */
  whenClosed(f: () => void): void {
    if (this.closed) f();
    else this.onClose.push(f);
  }

  send(event: string, data: unknown): void {
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private write(s: string): void {
    if (this.closed) return;
    this.res.write(s);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.res.end();
    for (const f of this.onClose.splice(0)) f();
  }
}
