/**
 * Random message values driven by a MessageSchema, for round-trip and fuzz tests.
 *
 * The generator works from the schema and Kafka's README rules alone (it does not call the codec):
 * fields present in the version get random values (nulls where nullable, tagged fields sometimes
 * left at their default), fields absent from the version get the README default, so a correct
 * decoder must give back exactly the generated object.
 */
import { Rng } from '../helpers/ref.js';
import {
  inVersions,
  isArrayType,
  isFlexibleVersion,
  isStructType,
  type Field,
  type FieldType,
  type MessageSchema,
  type PrimitiveType,
  type StructType,
} from '../../src/protocol/schema.js';

export interface GenOptions {
  /** Chance of a large `records`/`bytes` value (>= 512 bytes, a zero-copy chunk). */
  largeBytes?: number;
}

/** The README default of a field ("Deserializing Messages"), or its JSON default. */
export function expectedDefault(f: Field): unknown {
  const t = f.type;
  if (isArrayType(t)) return f.default === null ? null : [];
  if (isStructType(t)) return f.default === null ? null : structOfDefaults(t);
  switch (t) {
    case 'int64':
      return f.default === undefined ? 0n : BigInt(f.default as bigint);
    case 'bool':
      return f.default === undefined ? false : f.default;
    case 'string':
      return f.default === undefined ? '' : f.default;
    case 'bytes':
      return f.default === null ? null : Buffer.alloc(0);
    case 'records':
      return null;
    case 'uuid':
      return Buffer.alloc(16);
    default:
      return f.default === undefined ? 0 : Number(f.default);
  }
}

function structOfDefaults(s: StructType): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of s.fields) o[f.name] = expectedDefault(f);
  return o;
}

const WORDS = ['topic', 'a', 'kafkalite', 'Ωmega', '日本', 'consumer-1', '', 'x.y_z', '🙂'];

function randomString(rng: Rng): string {
  if (rng.bool(0.5)) return rng.pick(WORDS);
  let s = '';
  const n = rng.int(24);
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x20 + rng.int(0x5f));
  return s;
}

function randomPrimitive(t: PrimitiveType, rng: Rng, opt: GenOptions): unknown {
  switch (t) {
    case 'bool':
      return rng.bool();
    case 'int8':
      return rng.range(-128, 127);
    case 'int16':
      return rng.pick([0, -1, 32767, -32768, rng.range(-32768, 32767)]);
    case 'uint16':
      return rng.pick([0, 65535, rng.int(65536)]);
    case 'int32':
      return rng.pick([0, -1, 2147483647, -2147483648, rng.range(-1000, 1000), (rng.int(2 ** 32) | 0)]);
    case 'uint32':
      return rng.pick([0, 4294967295, rng.int(2 ** 32)]);
    case 'int64':
      return rng.pick([0n, -1n, 9223372036854775807n, -9223372036854775808n, BigInt(rng.range(-1e6, 1e6)), BigInt.asIntN(64, rng.bytes(8).readBigUInt64BE())]);
    case 'float64':
      return rng.pick([0, 1.5, -2.25e10, rng.float() * 1000]);
    case 'uuid':
      return rng.bytes(16);
    case 'string':
      return randomString(rng);
    case 'bytes':
    case 'records':
      return rng.bytes(rng.bool(opt.largeBytes ?? 0.05) ? 512 + rng.int(2048) : rng.int(40));
  }
}

function randomOfType(t: FieldType, version: number, flexible: boolean, rng: Rng, opt: GenOptions, depth: number): unknown {
  if (isArrayType(t)) {
    const n = depth > 3 ? rng.int(2) : rng.int(4);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      out.push(isStructType(t.array) ? randomStruct(t.array.fields, version, flexible, rng, opt, depth + 1) : randomPrimitive(t.array, rng, opt));
    }
    return out;
  }
  if (isStructType(t)) return randomStruct(t.fields, version, flexible, rng, opt, depth + 1);
  return randomPrimitive(t, rng, opt);
}

function randomStruct(fields: readonly Field[], version: number, flexible: boolean, rng: Rng, opt: GenOptions, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of fields) {
    const tagged = flexible && inVersions(f.taggedVersions, version);
    const present = inVersions(f.versions, version);
    if (!present && !tagged) {
      o[f.name] = expectedDefault(f);
    } else if (tagged && rng.bool(0.4)) {
      o[f.name] = expectedDefault(f);
    } else if (inVersions(f.nullableVersions, version) && f.type !== 'uuid' && rng.bool(0.15)) {
      o[f.name] = null;
    } else {
      o[f.name] = randomOfType(f.type, version, flexible, rng, opt, depth);
    }
  }
  return o;
}

/** A random value of `schema` at `version`, with every field (absent ones at their defaults). */
export function randomMessage(schema: MessageSchema, version: number, rng: Rng, opt: GenOptions = {}): Record<string, unknown> {
  return randomStruct(schema.fields, version, isFlexibleVersion(schema, version), rng, opt, 0);
}

/**
 * A copy of `schema` whose every struct (and the body) carries extra tagged `bytes` fields with
 * tags the real schema does not know: encoded with it, a message has unknown tags the real
 * schema's decoder must skip.
 */
export function withUnknownTags(schema: MessageSchema): MessageSchema {
  const memo = new Map<StructType, StructType>();
  const extra = (fields: readonly Field[]): Field[] => {
    const known = fields.filter((f) => f.tag !== undefined).map((f) => f.tag!);
    const base = known.length ? Math.max(...known) + 1 : 0;
    return [
      ...fields.map(mapField),
      { name: '__unknownA', type: 'bytes', versions: '0+', tag: base + 7, taggedVersions: '0+' },
      { name: '__unknownB', type: 'string', versions: '0+', tag: base + 200, taggedVersions: '0+' },
    ];
  };
  const mapType = (t: FieldType): FieldType => {
    if (isArrayType(t)) return { array: isStructType(t.array) ? mapStruct(t.array) : t.array };
    if (isStructType(t)) return mapStruct(t);
    return t;
  };
  const mapStruct = (s: StructType): StructType => {
    let m = memo.get(s);
    if (!m) {
      const out: { struct: string; fields: Field[] } = { struct: s.struct, fields: [] };
      memo.set(s, out);
      out.fields = extra(s.fields);
      m = out;
    }
    return m;
  };
  // Ignorable: a struct absent from the version may carry unknown-tag values; they are dropped.
  function mapField(f: Field): Field {
    return { ...f, type: mapType(f.type), ignorable: true };
  }
  return { ...schema, fields: extra(schema.fields) };
}

/** Adds random values for the `__unknown*` fields (always at the top level) to a value, in place, recursively. */
export function fillUnknownTags(value: unknown, rng: Rng, top = true): void {
  if (Array.isArray(value)) {
    for (const v of value) fillUnknownTags(v, rng, false);
    return;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return;
  const o = value as Record<string, unknown>;
  for (const v of Object.values(o)) fillUnknownTags(v, rng, false);
  if (top || rng.bool(0.7)) o.__unknownA = rng.bytes(1 + rng.int(300));
  if (rng.bool(0.5)) o.__unknownB = randomString(rng) + 'u';
}

/** A deep copy without the `__unknown*` fields. */
export function withoutUnknownTags(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnknownTags);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith('__unknown')) o[k] = withoutUnknownTags(v);
  return o;
}

/** A deep copy that keeps Buffers as Buffers (structuredClone turns them into Uint8Arrays). */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) o[k] = cloneValue(v);
  return o as T;
}
