/**
 * The framing of the coordinators' records (`__consumer_offsets`, `__transaction_state`): key and
 * value are each an int16 schema version followed by the message of that version (Kafka
 * `MessageUtil.toVersionPrefixedBytes`, read back by `CoordinatorRecordSerde`).
 */
import { InvalidRecordError, KafkaliteError } from '../errors.js';
import { decodeMessage, encodeMessageToBuffer } from '../protocol/codec.js';
import type { MessageSchema } from '../protocol/schema.js';

/**
 * The error for an internal record that does not decode: what it was, and the byte of the key or
 * value (not of the file) where decoding stopped.
 */
export function undecodable(what: string, e: unknown): never {
  const at = e instanceof KafkaliteError && e.position !== undefined ? ` at value byte ${e.position}` : '';
  const why = e instanceof KafkaliteError ? e.detail : (e as Error).message;
  throw new InvalidRecordError(`Cannot decode ${what}${at}: ${why}`, { cause: e });
}

export function encodeVersionPrefixed(schema: MessageSchema, version: number, value: unknown): Buffer {
  const body = encodeMessageToBuffer(schema, version, value);
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

/** The int16 version in front of a key or value; an InvalidRecordError when there are not 2 bytes. */
export function prefixedVersion(bytes: Buffer, what: string): number {
  if (bytes.length < 2) undecodable(what, new Error(`${bytes.length} bytes, no int16 version`));
  return bytes.readInt16BE(0);
}

/** The message after the int16 version, read at that version; an InvalidRecordError naming schema and version when it does not decode. */
export function decodeVersionPrefixed<T = { [k: string]: unknown }>(schema: MessageSchema, bytes: Buffer, what: string): { version: number; value: T } {
  const version = prefixedVersion(bytes, what);
  try {
    return { version, value: decodeMessage<T>(schema, version, bytes, 2).value };
  } catch (e) {
    return undecodable(`${what} (${schema.name} v${version})`, e);
  }
}
