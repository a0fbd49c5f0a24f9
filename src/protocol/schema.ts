/**
 * kafkalite's schema language for Kafka protocol messages: a typed form of the JSON message
 * definitions Kafka keeps under `clients/src/main/resources/common/message` (see that folder's
 * README: versions, nullableVersions, taggedVersions, flexibleVersions, defaults, ignorable).
 *
 * One `MessageSchema` describes every version of a message; the generic codec (codec.ts) compiles
 * a (schema, version) pair into a reader and a writer. The schema modules under `schemas/` are
 * generated from Kafka's JSON by `scripts/gen-protocol-schemas.mjs`.
 *
 * Version ranges keep the JSON's spelling: `'3+'` (3 and later), `'0-2'`, `'5'`, or `'none'`.
 */

export type PrimitiveType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'float64'
  | 'uuid'
  | 'string'
  | 'bytes'
  | 'records';

/** A nested structure: inline in the JSON or one of its `commonStructs`. */
export interface StructType {
  readonly struct: string;
  readonly fields: readonly Field[];
}

/** `[]T` in the JSON: an array of a primitive or of a struct. */
export interface ArrayType {
  readonly array: PrimitiveType | StructType;
}

export type FieldType = PrimitiveType | ArrayType | StructType;

/** A version range as written in Kafka's JSON: `'N+'`, `'A-B'`, `'N'` or `'none'`. */
export type Versions = string;

/** A field's default as the JSON gives it, normalised to the field's JS type (int64 as bigint). */
export type FieldDefault = number | bigint | boolean | string | null;

export interface Field {
  /** camelCase of the JSON name (`ThrottleTimeMs` -> `throttleTimeMs`). */
  readonly name: string;
  readonly type: FieldType;
  readonly versions: Versions;
  readonly nullableVersions?: Versions;
  /** Tagged fields live in the struct's tag buffer in `taggedVersions` (flexible versions only). */
  readonly tag?: number;
  readonly taggedVersions?: Versions;
  /** Per-field override of the message's flexible versions (RequestHeader ClientId: `'none'`). */
  readonly flexibleVersions?: Versions;
  readonly default?: FieldDefault;
  /** A non-default value in a version without the field is dropped silently instead of refused. */
  readonly ignorable?: boolean;
}

export interface MessageSchema {
  readonly name: string;
  readonly apiKey?: number;
  readonly type: 'request' | 'response' | 'data' | 'header' | 'metadata';
  /** Inclusive [min, max]. */
  readonly validVersions: readonly [number, number];
  /** First flexible version; null when no version is flexible. */
  readonly flexibleVersions: number | null;
  readonly fields: readonly Field[];
}

/** One API key's request and response, as each `schemas/<api>.ts` module exports it. */
export interface ApiSchemaPair {
  readonly apiKey: number;
  readonly name: string;
  readonly request: MessageSchema;
  readonly response: MessageSchema;
}

const rangeCache = new Map<string, readonly [number, number]>();

/**
 * `[min, max]` of a version range (`max` is Infinity for `'N+'`); `'none'` gives `[1, 0]`, an
 * empty range. Malformed ranges throw: schemas are code, not input.
 */
export function parseVersions(v: Versions): readonly [number, number] {
  let r = rangeCache.get(v);
  if (r) return r;
  const s = v.trim();
  let m: RegExpMatchArray | null;
  if (s === 'none') r = [1, 0];
  else if ((m = /^(\d+)\+$/.exec(s))) r = [Number(m[1]), Infinity];
  else if ((m = /^(\d+)-(\d+)$/.exec(s))) r = [Number(m[1]), Number(m[2])];
  else if ((m = /^(\d+)$/.exec(s))) r = [Number(m[1]), Number(m[1])];
  else throw new Error(`malformed version range '${v}'`);
  rangeCache.set(v, r);
  return r;
}

/** Whether `version` lies in the range; an absent range contains nothing. */
export function inVersions(v: Versions | undefined, version: number): boolean {
  if (v === undefined) return false;
  const [min, max] = parseVersions(v);
  return version >= min && version <= max;
}

export function isFlexibleVersion(schema: MessageSchema, version: number): boolean {
  return schema.flexibleVersions !== null && version >= schema.flexibleVersions;
}

export function isValidVersion(schema: MessageSchema, version: number): boolean {
  return Number.isInteger(version) && version >= schema.validVersions[0] && version <= schema.validVersions[1];
}

export function isArrayType(t: FieldType): t is ArrayType {
  return typeof t === 'object' && 'array' in t;
}

export function isStructType(t: FieldType | PrimitiveType | StructType): t is StructType {
  return typeof t === 'object' && 'struct' in t;
}
