/** The console's JSON API over HTTP, for the tests: a call, and a call that must answer 200. */
import assert from 'node:assert/strict';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function call(base: string, path: string, init?: RequestInit): Promise<{ status: number; body: Json }> {
  const res = await fetch(new URL(path, base), init);
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

export async function ok(base: string, path: string, init?: RequestInit): Promise<Json> {
  const r = await call(base, path, init);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export function post(body: unknown, method = 'POST'): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export const text = (b64: string | null): string | null => (b64 === null ? null : Buffer.from(b64, 'base64').toString('utf8'));

/** A server-sent event stream read by the test: `next(event)` waits for the next event of that name. */
export async function events(base: string, path: string): Promise<{ next(event: string): Promise<Json>; close(): void; status: number; type: string | null }> {
  const abort = new AbortController();
  const res = await fetch(new URL(path, base), { signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: { event: string; data: Json }[] = [];
  const pull = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the event stream ended');
    buffer += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined) queue.push({ event, data: JSON.parse(data) });
    }
  };
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    async next(event: string): Promise<Json> {
      for (;;) {
        const at = queue.findIndex((e) => e.event === event || e.event === 'error');
        if (at >= 0) {
          const [e] = queue.splice(at, 1);
          if (e!.event === 'error' && event !== 'error') throw new Error(`stream error: ${JSON.stringify(e!.data)}`);
          return e!.data;
        }
        await pull();
      }
    },
    close: () => abort.abort(),
  };
}
