/**
 * JSON output for the CLI: int64 values are printed as exact number literals (JSON has no size
 * limit on numbers; `JSON.stringify` cannot print bigints), and byte payloads as UTF-8 text when
 * they are valid UTF-8, otherwise base64, with the encoding named beside them.
 */
import { bufferView } from '../bytes/buffer-view.js';

const BIGINT_TAG = '\u0000bigint:';

export function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_TAG}${v}` : v));
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function describeBytes(bytes: Uint8Array | null): { text: string | null; encoding: 'utf8' | 'base64' | null } {
  if (bytes === null) return { text: null, encoding: null };
  try {
    return { text: utf8.decode(bytes), encoding: 'utf8' };
  } catch {
    return { text: bufferView(bytes).toString('base64'), encoding: 'base64' };
  }
}
