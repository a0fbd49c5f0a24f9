/**
 * A decoded protocol message as Kafka's generated `*JsonConverter.write(message, version)` shows it
 * (what kafka-dump-log.sh's decoders print, `DumpLogSegments`): the fields of that version in
 * schema order under their camelCase names; tagged fields only when they differ from their default;
 * int64 as JSON numbers (exact: see json.ts); uuids as `Uuid.toString()`; bytes as base64 (Jackson's
 * BinaryNode); null for null.
 */
import { inVersions, isArrayType, isStructType, type Field, type FieldType, type MessageSchema } from '../protocol/schema.js';
import { uuidToString } from '../storage/uuid.js';

type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

export function messageJson(schema: MessageSchema, version: number, value: { [k: string]: unknown }): { [k: string]: Json } {
  return structJson(schema.fields, version, value);
}

function structJson(fields: readonly Field[], version: number, value: { [k: string]: unknown }): { [k: string]: Json } {
  const out: { [k: string]: Json } = {};
  for (const f of fields) {
    if (!inVersions(f.versions, version)) continue;
    const v = value[f.name];
    if (f.tag !== undefined && inVersions(f.taggedVersions, version) && isDefault(f, v)) continue;
    out[f.name] = fieldJson(f.type, version, v);
  }
  return out;
}

function fieldJson(type: FieldType, version: number, v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (isArrayType(type)) return (v as unknown[]).map((e) => fieldJson(type.array, version, e));
  if (isStructType(type)) return structJson(type.fields, version, v as { [k: string]: unknown });
  switch (type) {
    case 'uuid':
      return uuidToString(v as Buffer);
    case 'bytes':
    case 'records':
      return Buffer.from(v as Uint8Array).toString('base64');
    default:
      return v as Json;
  }
}

/** A tagged field at its default is not written (the generator's non-default check). */
function isDefault(f: Field, v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (f.default !== undefined) return v === f.default || (typeof v === 'bigint' && BigInt(f.default as bigint) === v);
  if (v === null) return true;
  if (typeof v === 'bigint') return v === 0n;
  return v === 0 || v === '' || v === false;
}
