/** Numbers, sizes, times and record bytes as the console prints them. */

export function fmtBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = Number(n);
  while (x >= 1024 && i < u.length - 1) { x /= 1024; i++; }
  return (i === 0 ? String(x) : x.toFixed(1)) + ' ' + u[i];
}

export function fmtTime(ms: string | number | null): string {
  const n = Number(ms);
  if (!Number.isFinite(n) || n < 0) return String(ms);
  return new Date(n).toISOString().replace('T', ' ').replace('Z', '');
}

export function fmtRate(r: number | null | undefined): string {
  return r === null || r === undefined ? '' : (r >= 100 ? Math.round(r) : r.toFixed(r >= 10 ? 1 : 2)) + ' msg/s';
}

export function fmtAge(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const s = Math.floor(ms / 1000);
  return s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min ' + (s % 60) + ' s' : Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}

export function bytesOf(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function hexOf(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** A form's "offset or ms / ISO time" field as the API's start spec (offset:N, timestamp:MS). */
export function startSpec(kind: string, at: string): string {
  const v = at.trim();
  if (kind === 'offset') return 'offset:' + v;
  if (kind === 'timestamp') return 'timestamp:' + (/^\d+$/.test(v) ? v : String(Date.parse(v)));
  return kind;
}
