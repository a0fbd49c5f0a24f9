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
