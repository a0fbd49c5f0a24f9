/**
 * The `.kafka_cleanshutdown` marker of a log directory (Kafka
 * `storage/.../checkpoint/CleanShutdownFileHandler.java`, `LogManager.loadLogs`).
 *
 * Written last on a clean shutdown as the JSON `{"version":0,"brokerEpoch":<long>}`. At startup its
 * presence, not its content, is what matters: LogManager deletes it at once and skips segment
 * recovery for that directory. The broker epoch is read separately and is best-effort: Kafka's
 * `read()` returns an empty OptionalLong for any problem (unreadable file, bad JSON, missing or null
 * brokerEpoch) and ignores unknown fields, so `readCleanShutdownFile` returns undefined in exactly
 * those cases instead of throwing.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../errors.js';
import { readFileIfExists } from './checkpoint.js';
import { CLEAN_SHUTDOWN_FILE } from './file-names.js';
import { atomicWriteFileSync } from './fs-util.js';

/** CleanShutdownFileHandler.CURRENT_VERSION. */
export const CLEAN_SHUTDOWN_VERSION = 0;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export function cleanShutdownFilePath(dir: string): string {
  return join(dir, CLEAN_SHUTDOWN_FILE);
}

/**
 * Write the marker with the broker epoch. Kafka writes the file in place and fsyncs it; kafkalite
 * goes through `.tmp` + rename so that a crash mid-write cannot leave a torn marker that would
 * still count as "clean" at the next start. The bytes are the same as Jackson's.
 */
export function writeCleanShutdownFile(dir: string, brokerEpoch: bigint): void {
  if (typeof brokerEpoch !== 'bigint' || brokerEpoch < INT64_MIN || brokerEpoch > INT64_MAX) {
    throw new InvalidArgumentError(`brokerEpoch ${String(brokerEpoch)} is not an int64`);
  }
  atomicWriteFileSync(cleanShutdownFilePath(dir), `{"version":${CLEAN_SHUTDOWN_VERSION},"brokerEpoch":${brokerEpoch}}`);
}

/** The broker epoch recorded in the marker, or undefined when absent or unreadable (see above). */
export function readCleanShutdownFile(dir: string): { brokerEpoch: bigint } | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readFileIfExists(cleanShutdownFilePath(dir));
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  const brokerEpoch = parseBrokerEpoch(bytes);
  return brokerEpoch === undefined ? undefined : { brokerEpoch };
}

/**
 * LogManager.loadLogs: if the marker exists, delete it and report a clean shutdown. Deleting first
 * means a crash during the following run is never mistaken for a clean one.
 */
export function consumeCleanShutdownFile(dir: string): boolean {
  const path = cleanShutdownFilePath(dir);
  if (!existsSync(path)) return false;
  try {
    rmSync(path, { force: true });
  } catch (e) {
    throw new StorageError(`failed to delete ${path}: ${(e as Error).message}`, { cause: e });
  }
  return true;
}

/**
 * Jackson binding of `Content { int version; Long brokerEpoch }` with unknown fields ignored.
 * JSON.parse validates the document; the top-level `brokerEpoch` literal is then re-read from the
 * text because a JavaScript number loses int64 precision. Jackson's default coercions are kept
 * where cheap: an integral float or a numeric string becomes a long. A fractional or out-of-range
 * number, null or any other type gives undefined (Jackson fails or yields null → empty).
 */
function parseBrokerEpoch(bytes: Buffer): bigint | undefined {
  let text: string;
  let doc: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const fields = doc as Record<string, unknown>;
  const version = fields['version'];
  const versionOk =
    version === undefined ||
    version === null ||
    (typeof version === 'number' && version >= -0x80000000 && version <= 0x7fffffff) ||
    (typeof version === 'string' && /^[+-]?[0-9]{1,10}$/.test(version) && Math.abs(Number(version)) <= 0x7fffffff);
  if (!versionOk) return undefined;
  const epoch = fields['brokerEpoch'];
  let value: bigint | undefined;
  if (typeof epoch === 'number') {
    const raw = topLevelRawValue(text, 'brokerEpoch');
    if (raw !== undefined && /^-?(0|[1-9][0-9]*)$/.test(raw)) value = BigInt(raw);
    else if (Number.isInteger(epoch)) value = BigInt(epoch);
  } else if (typeof epoch === 'string' && /^[+-]?[0-9]{1,19}$/.test(epoch)) {
    value = BigInt(epoch);
  }
  return value === undefined || value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/**
 * The source text of the last top-level member named `key` of an already-validated JSON object.
 * Iterative (no recursion), so deep nesting in unknown fields cannot exhaust the stack.
 */
function topLevelRawValue(text: string, key: string): string | undefined {
  let depth = 0;
  let i = 0;
  let found: string | undefined;
  let pendingKey: string | undefined;
  let valueStart = -1;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      if (depth === 1 && expectKey) {
        pendingKey = JSON.parse(text.slice(start, i)) as string;
        expectKey = false;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      if (depth === 1 && valueStart >= 0 && pendingKey === key) found = text.slice(valueStart, i).trim();
      depth--;
    } else if (depth === 1 && c === ':') {
      valueStart = i + 1;
    } else if (depth === 1 && c === ',') {
      if (valueStart >= 0 && pendingKey === key) found = text.slice(valueStart, i).trim();
      valueStart = -1;
      expectKey = true;
    }
    i++;
  }
  return found;
}
