/**
 * The generic codec: encodes and decodes every version of every message from its MessageSchema.
 *
 * Wire rules (Kafka's `clients/.../common/message/README.md`, `ByteUtils`):
 * - non-flexible versions: STRING int16 length (-1 = null), BYTES/RECORDS int32 length (-1 = null),
 *   ARRAY int32 count (-1 = null);
 * - flexible versions: the COMPACT forms, unsigned varint of length+1 (0 = null), and every struct
 *   (the body, each struct element, each nested struct) ends with a tag buffer: uvarint count, then
 *   per field uvarint tag, uvarint size, bytes. Tags are written in ascending order and only when
 *   the value differs from the default; unknown tags are skipped on decode;
 * - a nullable struct field is an int8 marker (-1 = null, 1 = present) before the struct;
 * - a field absent from the version decodes as its default; encoding a non-default value into a
 *   version without the field throws unless the field is `ignorable` (then it is dropped).
 *
 * Each (schema, version) is compiled once into closures (cached per schema object), so the hot
 * Produce/Fetch paths run no per-field version arithmetic.
 *
 * Decoding is defensive: every length and count is checked against the bytes that remain before
 * anything is allocated (Kafka's generated readers refuse an array count above the remaining bytes
 * too), and every failure is a ProtocolError carrying the byte position. `bytes`, `records` and
 * `uuid` values are zero-copy views of the input.
 *
 * Encoding returns chunks: the small fields are written into a reused scratch buffer and copied
 * out once, while every `records` value and every `bytes` value of ZERO_COPY_MIN bytes or more is
 * its own chunk, never copied, so a Fetch response can go to `socket.writev` as is.
 */
import { readInt64BE, writeInt64BE } from '../bytes/int64.js';
import { readInt8 as readInt8At, readInt16BE, readInt32BE, readUInt16BE, readUInt32BE, writeInt16BE, writeInt32BE, writeUInt16BE, writeUInt32BE } from '../bytes/big-endian.js';
import { InvalidArgumentError, KafkaliteError } from '../errors.js';
import { ByteReader, VarintError, sizeOfUnsignedVarint, writeUnsignedVarint } from '../bytes/varint.js';
import { ProtocolError } from './errors.js';
import {
  inVersions,
  isArrayType,
  isFlexibleVersion,
  isStructType,
  isValidVersion,
  type Field,
  type MessageSchema,
  type PrimitiveType,
  type StructType,
} from './schema.js';

/** `bytes` values at least this long are passed through as their own chunk instead of copied. */
export const ZERO_COPY_MIN = 512;

// ---- decoding --------------------------------------------------------------------------------

class Cursor extends ByteReader {
  constructor(
    public b: Buffer,
    pos: number,
    end: number,
  ) {
    super(b, pos, end);
  }
}

/**
 * The cursor decodeMessage reuses (a cursor per message was garbage on every request); a decode
 * that began while it is in use (none does today) gets its own.
 */
const sharedCursor = new Cursor(Buffer.alloc(0), 0, 0);
const NO_INPUT = sharedCursor.b;
let sharedCursorInUse = false;

type Read = (c: Cursor) => unknown;
type Write = (w: ChunkWriter, v: any) => void;

function fail(c: Cursor, message: string, position = c.pos): never {
  throw new ProtocolError(message, { position });
}

function need(c: Cursor, n: number, what: string): void {
  if (n > c.end - c.pos) fail(c, `${what} needs ${n} bytes, ${c.end - c.pos} remain`);
}

/** int64 through src/bytes/int64.ts: a double within ±2^53 (one BigInt instead of three), Buffer's beyond. */
function writeBigInt64(b: Buffer, v: unknown, p: number): void {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))) writeInt64BE(b, p, v);
  else b.writeBigInt64BE(BigInt(v as number), p);
}

/** A fixed-width big-endian read, bounds-checked first. */
function fixedReader(size: number, what: string, get: (b: Buffer, pos: number) => unknown): Read {
  return (c) => {
    need(c, size, what);
    const v = get(c.b, c.pos);
    c.pos += size;
    return v;
  };
}

const readInt8 = fixedReader(1, 'int8', readInt8At);
const readBool = fixedReader(1, 'bool', (b, p) => b[p] !== 0);
const readInt16 = fixedReader(2, 'int16', readInt16BE);
const readUint16 = fixedReader(2, 'uint16', readUInt16BE);
const readInt32 = fixedReader(4, 'int32', readInt32BE);
const readUint32 = fixedReader(4, 'uint32', readUInt32BE);
const readInt64 = fixedReader(8, 'int64', readInt64BE);
const readFloat64 = fixedReader(8, 'float64', (b, p) => b.readDoubleBE(p));
const readUuid: Read = (c) => {
  need(c, 16, 'uuid');
  c.pos += 16;
  return c.b.subarray(c.pos - 16, c.pos);
};

/**
 * A length or count prefix: int16/int32 (non-flexible) or uvarint(n+1) (flexible). Returns -1
 * for null; anything below -1 is refused.
 */
function lengthReader(flexible: boolean, width: 2 | 4, what: string): (c: Cursor) => number {
  if (flexible) return (c) => c.readUnsignedVarint() - 1;
  const read = width === 2 ? readInt16 : readInt32;
  return (c) => {
    const n = read(c) as number;
    if (n < -1) fail(c, `negative ${what} length ${n}`, c.pos - width);
    return n;
  };
}

/** Strings up to this many bytes are remembered by their field's reader (stringReader). */
const STRING_CACHE_BYTES = 64;

function stringReader(flexible: boolean, nullable: boolean, where: string): Read {
  const len = lengthReader(flexible, 2, 'string');
  // The field's last short string and its bytes: a value that repeats from message to message (a
  // topic name, a group id) is the same string again, not a new one per request. The bytes are
  // copied by a loop into a buffer made once (Buffer.copy of a range would make a view per miss).
  let last = '';
  let lastBytes: Buffer | undefined;
  let lastLength = -1;
  return (c) => {
    const start = c.pos;
    const n = len(c);
    if (n === -1) {
      if (nullable) return null;
      fail(c, `non-nullable string ${where} is null`, start);
    }
    // Kafka's readers cap strings at Short.MAX_VALUE bytes, compact ones included.
    if (n > 0x7fff) fail(c, `string ${where} of ${n} bytes is longer than 32767`, start);
    need(c, n, `string ${where}`);
    const b = c.b;
    const from = c.pos;
    c.pos += n;
    if (n !== lastLength || n > STRING_CACHE_BYTES) {
      const s = b.toString('utf8', from, from + n);
      if (n <= STRING_CACHE_BYTES) {
        lastBytes ??= Buffer.allocUnsafe(STRING_CACHE_BYTES);
        for (let i = 0; i < n; i++) lastBytes[i] = b[from + i]!;
        lastLength = n;
        last = s;
      }
      return s;
    }
    for (let i = 0; i < n; i++) {
      if (b[from + i] !== lastBytes![i]) {
        const s = b.toString('utf8', from, from + n);
        for (let k = 0; k < n; k++) lastBytes![k] = b[from + k]!;
        last = s;
        return s;
      }
    }
    return last;
  };
}

function bytesReader(flexible: boolean, nullable: boolean, where: string): Read {
  const len = lengthReader(flexible, 4, 'bytes');
  return (c) => {
    const start = c.pos;
    const n = len(c);
    if (n === -1) {
      if (nullable) return null;
      fail(c, `non-nullable bytes ${where} are null`, start);
    }
    need(c, n, `bytes ${where}`);
    c.pos += n;
    return c.b.subarray(c.pos - n, c.pos);
  };
}

// ---- encoding --------------------------------------------------------------------------------

let scratch = Buffer.allocUnsafe(64 * 1024);
/** Messages up to this size are copied out of the scratch byte by byte (ChunkWriter.finish). */
const COPY_LOOP_MAX = 256;
/** Scratch grown beyond this is dropped after use, so one huge message does not pin memory. */
const SCRATCH_KEEP = 1024 * 1024;

/** Writes into the shared scratch; zero-copy values are recorded as split points. */
class ChunkWriter {
  buf = scratch;
  pos = 0;
  /**
   * [scratch offset, buffer] pairs: the buffer goes between scratch[..offset] and the rest. Made at
   * the first zero-copy value: most messages have none, and an empty array per message is garbage.
   */
  splits: [number, Buffer][] | undefined = undefined;
  /** > 0 inside a tagged field, whose bytes must stay contiguous (its size prefix is patched). */
  contiguous = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  raw(b: Buffer): void {
    if (this.contiguous === 0 && b.length > 0) {
      (this.splits ??= []).push([this.pos, b]);
      return;
    }
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  uvarint(v: number): void {
    this.ensure(5);
    this.pos = writeUnsignedVarint(this.buf, this.pos, v);
  }

  finish(): Buffer[] {
    const out = Buffer.allocUnsafe(this.pos);
    const n = this.pos;
    if (n <= COPY_LOOP_MAX) {
      // Buffer.copy of part of a buffer (here the scratch) makes a Uint8Array view of that part
      // per call: about 100 B per small answer; a loop over a few dozen bytes makes none
      const from = this.buf;
      for (let i = 0; i < n; i++) out[i] = from[i]!;
    } else {
      this.buf.copy(out, 0, 0, n);
    }
    if (this.buf.length <= SCRATCH_KEEP) scratch = this.buf;
    if (this.splits === undefined) return [out];
    const chunks: Buffer[] = [];
    let from = 0;
    for (const [at, b] of this.splits) {
      if (at > from) chunks.push(out.subarray(from, at));
      chunks.push(b);
      from = at;
    }
    if (this.pos > from) chunks.push(out.subarray(from, this.pos));
    return chunks;
  }
}

/** The writer encodeMessage reuses, as decodeMessage its cursor. */
const sharedWriter = new ChunkWriter();
let sharedWriterInUse = false;

function fixedWriter(size: number, put: (b: Buffer, v: any, pos: number) => unknown): Write {
  return (w, v) => {
    w.ensure(size);
    put(w.buf, v, w.pos);
    w.pos += size;
  };
}

const writeInt8 = fixedWriter(1, (b, v, p) => b.writeInt8(v, p));
const writeBool = fixedWriter(1, (b, v, p) => (b[p] = v ? 1 : 0));
const writeInt16 = fixedWriter(2, (b, v, p) => writeInt16BE(b, p, v));
const writeUint16 = fixedWriter(2, (b, v, p) => writeUInt16BE(b, p, v));
const writeInt32 = fixedWriter(4, (b, v, p) => writeInt32BE(b, p, v));
const writeUint32 = fixedWriter(4, (b, v, p) => writeUInt32BE(b, p, v));
const writeInt64 = fixedWriter(8, writeBigInt64);
const writeFloat64 = fixedWriter(8, (b, v, p) => b.writeDoubleBE(v, p));
const writeUuid: Write = (w, v: Buffer) => {
  if (v.length !== 16) throw new InvalidArgumentError(`uuid of ${v.length} bytes`);
  w.ensure(16);
  v.copy(w.buf, w.pos);
  w.pos += 16;
};

function lengthWriter(flexible: boolean, width: 2 | 4): (w: ChunkWriter, n: number) => void {
  if (flexible) return (w, n) => w.uvarint(n + 1);
  return width === 2 ? (w, n) => writeInt16(w, n) : (w, n) => writeInt32(w, n);
}

function nullCheck(nullable: boolean, where: string): void {
  if (!nullable) throw new InvalidArgumentError(`${where} is not nullable in this version`);
}

function stringWriter(flexible: boolean, nullable: boolean, where: string): Write {
  const len = lengthWriter(flexible, 2);
  // The field's last short string and its UTF-8 bytes, as stringReader keeps them: the same topic
  // name or group id, answer after answer, is copied by a loop instead of Buffer.byteLength and
  // Buffer.write (two calls into C++ behind Node's argument checks: about 100 ns of the 500 ns a
  // one-partition Produce answer took, bench/codec-small.ts). It starts as the empty string, not
  // undefined: a missing value (undefined) must reach Buffer.byteLength and be refused, not match.
  let last = '';
  let lastBytes: Buffer | undefined;
  let lastLength = 0;
  return (w, v: string | null) => {
    if (v === null) {
      nullCheck(nullable, where);
      return len(w, -1);
    }
    if (v === last) {
      len(w, lastLength);
      w.ensure(lastLength);
      const buf = w.buf;
      const at = w.pos;
      for (let i = 0; i < lastLength; i++) buf[at + i] = lastBytes![i]!;
      w.pos += lastLength;
      return;
    }
    const n = Buffer.byteLength(v, 'utf8');
    if (n > 0x7fff) throw new InvalidArgumentError(`${where}: string of ${n} bytes is longer than 32767`);
    len(w, n);
    w.ensure(n);
    const buf = w.buf;
    const at = w.pos;
    buf.write(v, at, n, 'utf8');
    if (n <= STRING_CACHE_BYTES) {
      lastBytes ??= Buffer.allocUnsafe(STRING_CACHE_BYTES);
      for (let i = 0; i < n; i++) lastBytes[i] = buf[at + i]!;
      lastLength = n;
      last = v;
    }
    w.pos += n;
  };
}

function bytesWriter(flexible: boolean, nullable: boolean, where: string, alwaysZeroCopy: boolean): Write {
  const len = lengthWriter(flexible, 4);
  return (w, v: Buffer | null) => {
    if (v === null) {
      nullCheck(nullable, where);
      return len(w, -1);
    }
    len(w, v.length);
    if (alwaysZeroCopy || v.length >= ZERO_COPY_MIN) w.raw(v);
    else {
      w.ensure(v.length);
      v.copy(w.buf, w.pos);
      w.pos += v.length;
    }
  };
}

// ---- compiling ---------------------------------------------------------------------------------

interface FieldPlan {
  field: Field;
  name: string;
  read: Read;
  write: Write;
  makeDefault: () => unknown;
  isDefault: (v: unknown) => boolean;
}

interface StructCodec {
  read: (c: Cursor) => Record<string, unknown>;
  write: (w: ChunkWriter, v: Record<string, unknown> | undefined) => void;
  /** Fewest bytes one instance can take, for rejecting hostile array counts early. */
  minSize: number;
}

const ZERO_UUID = Buffer.alloc(16);

function primitiveDefault(t: PrimitiveType, d: Field['default']): () => unknown {
  switch (t) {
    case 'int64': {
      const v = d === undefined ? 0n : BigInt(d as bigint);
      return () => v;
    }
    case 'bool': {
      const v = d === undefined ? false : Boolean(d);
      return () => v;
    }
    case 'string': {
      const v = d === undefined ? '' : d;
      return () => v;
    }
    case 'bytes':
      return d === null ? () => null : () => Buffer.alloc(0);
    case 'records':
      return () => null;
    case 'uuid':
      return () => Buffer.alloc(16);
    default: {
      const v = d === undefined ? 0 : Number(d);
      return () => v;
    }
  }
}

function primitiveIsDefault(t: PrimitiveType, d: Field['default']): (v: unknown) => boolean {
  switch (t) {
    case 'int64': {
      const dv = d === undefined ? 0n : BigInt(d as bigint);
      return (v) => v === undefined || BigInt(v as bigint) === dv;
    }
    case 'bytes':
      return d === null ? (v) => v == null : (v) => v === undefined || (v !== null && (v as Buffer).length === 0);
    case 'records':
      return (v) => v == null;
    case 'uuid':
      return (v) => v === undefined || ZERO_UUID.equals(v as Buffer);
    default: {
      const dv = primitiveDefault(t, d)();
      return (v) => v === undefined || v === dv;
    }
  }
}

/** Per struct: a fresh default instance (all fields at their defaults, every version). */
const structDefaultCache = new WeakMap<StructType, () => Record<string, unknown>>();
function structDefault(s: StructType): () => Record<string, unknown> {
  let make = structDefaultCache.get(s);
  if (!make) {
    const parts = s.fields.map((f) => [f.name, defaultOf(f)] as const);
    make = () => {
      const o: Record<string, unknown> = {};
      for (const [name, d] of parts) o[name] = d();
      return o;
    };
    structDefaultCache.set(s, make);
  }
  return make;
}

function defaultOf(f: Field): () => unknown {
  const t = f.type;
  if (isArrayType(t)) return f.default === null ? () => null : () => [];
  if (isStructType(t)) return f.default === null ? () => null : structDefault(t);
  return primitiveDefault(t, f.default);
}

function isDefaultOf(f: Field, version: number, flexible: boolean): (v: unknown) => boolean {
  const t = f.type;
  if (isArrayType(t)) return f.default === null ? (v) => v == null : (v) => v === undefined || (v !== null && (v as unknown[]).length === 0);
  if (isStructType(t)) {
    if (f.default === null) return (v) => v == null;
    const inner = t.fields.map((g) => [g.name, isDefaultOf(g, version, flexible)] as const);
    return (v) => v === undefined || (v !== null && inner.every(([n, d]) => d((v as Record<string, unknown>)[n])));
  }
  return primitiveIsDefault(t, f.default);
}

const PRIMITIVE_MIN: Record<PrimitiveType, number> = {
  bool: 1, int8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, int64: 8, float64: 8, uuid: 16, string: 2, bytes: 4, records: 4,
};

function primitiveMinSize(t: PrimitiveType, flexible: boolean): number {
  if (flexible && (t === 'string' || t === 'bytes' || t === 'records')) return 1;
  return PRIMITIVE_MIN[t];
}

function primitiveCodec(t: PrimitiveType, flexible: boolean, nullable: boolean, where: string): { read: Read; write: Write } {
  switch (t) {
    case 'bool': return { read: readBool, write: writeBool };
    case 'int8': return { read: readInt8, write: writeInt8 };
    case 'int16': return { read: readInt16, write: writeInt16 };
    case 'uint16': return { read: readUint16, write: writeUint16 };
    case 'int32': return { read: readInt32, write: writeInt32 };
    case 'uint32': return { read: readUint32, write: writeUint32 };
    case 'int64': return { read: readInt64, write: writeInt64 };
    case 'float64': return { read: readFloat64, write: writeFloat64 };
    case 'uuid': return { read: readUuid, write: writeUuid };
    case 'string': return { read: stringReader(flexible, nullable, where), write: stringWriter(flexible, nullable, where) };
    case 'bytes': return { read: bytesReader(flexible, nullable, where), write: bytesWriter(flexible, nullable, where, false) };
    case 'records': return { read: bytesReader(flexible, nullable, where), write: bytesWriter(flexible, nullable, where, true) };
  }
}

function arrayCodec(
  item: { read: Read; write: Write },
  itemMin: number,
  flexible: boolean,
  nullable: boolean,
  where: string,
): { read: Read; write: Write } {
  const count = lengthReader(flexible, 4, 'array');
  const writeCount = lengthWriter(flexible, 4);
  const readItem = item.read;
  const writeItem = item.write;
  return {
    read: (c) => {
      const start = c.pos;
      const n = count(c);
      if (n === -1) {
        if (nullable) return null;
        fail(c, `non-nullable array ${where} is null`, start);
      }
      const remaining = c.end - c.pos;
      // Kafka's rule (count above the remaining bytes) plus the element's minimum size: no
      // allocation or loop is ever sized by a count the input cannot back.
      if (n > remaining || n * itemMin > remaining) fail(c, `array ${where} claims ${n} elements, ${remaining} bytes remain`, start);
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readItem(c);
      return out;
    },
    write: (w, v: unknown[] | null) => {
      if (v === null) {
        nullCheck(nullable, where);
        return writeCount(w, -1);
      }
      writeCount(w, v.length);
      for (let i = 0; i < v.length; i++) writeItem(w, v[i]);
    },
  };
}

const structCache = new WeakMap<object, Map<number, StructCodec>>();

/**
 * The codec of a struct (or a message body) at one version, compiled at the first call. The lookup
 * is its own function: compileStruct's closures make V8 allocate its context at every call, a
 * cache hit's too (two per request, about 110 B, in a heap profile of 100 B Produce round trips).
 */
function compiledStruct(owner: object, fields: readonly Field[], version: number, flexible: boolean, where: string): StructCodec {
  const cached = structCache.get(owner)?.get(flexible ? -1 - version : version);
  return cached ?? compileStruct(owner, fields, version, flexible, where);
}

function compileStruct(owner: object, fields: readonly Field[], version: number, flexible: boolean, where: string): StructCodec {
  let perVersion = structCache.get(owner);
  if (!perVersion) structCache.set(owner, (perVersion = new Map()));
  const key = flexible ? -1 - version : version;
  const cached = perVersion.get(key);
  if (cached) return cached;

  const inline: FieldPlan[] = [];
  const tagged = new Map<number, FieldPlan>();
  const absent: FieldPlan[] = [];
  const order: { plan: FieldPlan; kind: 0 | 1 | 2 }[] = [];
  let minSize = flexible ? 1 : 0;

  for (const f of fields) {
    const isTagged = flexible && inVersions(f.taggedVersions, version);
    const present = inVersions(f.versions, version);
    const fieldFlexible = flexible && (f.flexibleVersions === undefined || inVersions(f.flexibleVersions, version));
    const nullable = inVersions(f.nullableVersions, version);
    const path = `${where}.${f.name}`;
    let codec: { read: Read; write: Write } = { read: () => undefined, write: () => undefined };
    let fieldMin = 0;
    if (present || isTagged) {
      const t = f.type;
      if (isArrayType(t)) {
        let item: { read: Read; write: Write };
        let itemMin: number;
        if (isStructType(t.array)) {
          const sc = compileStruct(t.array, t.array.fields, version, flexible, path);
          item = { read: sc.read, write: sc.write };
          itemMin = sc.minSize;
        } else {
          item = primitiveCodec(t.array, fieldFlexible, false, path);
          itemMin = primitiveMinSize(t.array, fieldFlexible);
        }
        codec = arrayCodec(item, itemMin, fieldFlexible, nullable, path);
        fieldMin = fieldFlexible ? 1 : 4;
      } else if (isStructType(t)) {
        const sc = compileStruct(t, t.fields, version, flexible, path);
        if (nullable) {
          codec = {
            read: (c) => ((readInt8(c) as number) < 0 ? null : sc.read(c)),
            write: (w, v) => {
              if (v === null) return writeInt8(w, -1);
              writeInt8(w, 1);
              sc.write(w, v);
            },
          };
          fieldMin = 1;
        } else {
          codec = {
            read: sc.read,
            write: (w, v) => {
              if (v === null) throw new InvalidArgumentError(`${path} is not nullable in this version`);
              sc.write(w, v);
            },
          };
          fieldMin = sc.minSize;
        }
      } else {
        codec = primitiveCodec(t, fieldFlexible, nullable, path);
        fieldMin = primitiveMinSize(t, fieldFlexible);
      }
    }
    const plan: FieldPlan = {
      field: f,
      name: f.name,
      read: codec.read,
      write: codec.write,
      makeDefault: defaultOf(f),
      isDefault: isDefaultOf(f, version, flexible),
    };
    if (isTagged) {
      tagged.set(f.tag!, plan);
      order.push({ plan, kind: 1 });
    } else if (present) {
      inline.push(plan);
      minSize += fieldMin;
      order.push({ plan, kind: 0 });
    } else {
      absent.push(plan);
      order.push({ plan, kind: 2 });
    }
  }

  const taggedByTag = [...tagged.entries()].sort((a, b) => a[0] - b[0]);
  const readTags = flexible ? tagBufferReader(tagged, where) : undefined;

  const read = structReader(order, readTags);

  const absentError = (p: FieldPlan): never => {
    throw new InvalidArgumentError(`${where}.${p.name} has a non-default value but does not exist in version ${version}`);
  };
  const writeTags = (w: ChunkWriter, v: Record<string, unknown>): void => {
    let n = 0;
    for (let i = 0; i < taggedByTag.length; i++) if (!taggedByTag[i]![1].isDefault(v[taggedByTag[i]![1].name])) n++;
    w.uvarint(n);
    if (n === 0) return;
    for (let i = 0; i < taggedByTag.length; i++) {
      const [tag, p] = taggedByTag[i]!;
      const fv = v[p.name];
      if (p.isDefault(fv)) continue;
      w.uvarint(tag);
      writeSized(w, () => p.write(w, fv));
    }
  };
  const write = structWriter(inline, absent.filter((p) => !p.field.ignorable), absentError, flexible ? writeTags : undefined);

  const codec: StructCodec = { read, write, minSize };
  perVersion.set(key, codec);
  return codec;
}

type StructRead = (c: Cursor) => Record<string, unknown>;
const PLAIN_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * A struct's reader: every field in schema order (its default when absent or tagged), then the tag
 * buffer. It is generated per struct as one object literal, `{ "name": read0(c), ... }`: V8 then
 * allocates each object from the literal's boilerplate with its final shape, and every field store
 * is monomorphic. One shared loop doing `o[name] = ...` made each store a megamorphic keyed store
 * with a shape transition, a visible share of a small request's broker CPU (bench/small-produce.ts).
 * The source holds only field names checked against PLAIN_NAME; the readers are parameters.
 */
function structReader(order: readonly { plan: FieldPlan; kind: 0 | 1 | 2 }[], readTags: ((c: Cursor, o: Record<string, unknown>) => void) | undefined): StructRead {
  if (order.some(({ plan }) => !PLAIN_NAME.test(plan.name) || plan.name === '__proto__')) return genericStructReader(order, readTags);
  const params: string[] = [];
  const args: unknown[] = [];
  const props = order.map(({ plan, kind }, i) => {
    params.push(`f${i}`);
    args.push(kind === 0 ? plan.read : plan.makeDefault);
    return `${JSON.stringify(plan.name)}: f${i}(${kind === 0 ? 'c' : ''})`;
  });
  params.push('readTags');
  args.push(readTags);
  const body = readTags ? `const o = { ${props.join(', ')} }; readTags(c, o); return o;` : `return { ${props.join(', ')} };`;
  const make = new Function(...params, `return function readStruct(c) { ${body} };`) as (...a: unknown[]) => StructRead;
  return make(...args);
}

type StructWrite = (w: ChunkWriter, v: Record<string, unknown> | undefined) => void;

/**
 * A struct's writer: the inline fields in schema order (their default when undefined), a check
 * that the fields absent from this version hold their defaults (unless ignorable), then the tag
 * buffer. Generated per struct for the reason of structReader: each field is then a monomorphic
 * named load (`v.name`) instead of a megamorphic keyed one shared by every struct.
 */
function structWriter(inline: readonly FieldPlan[], checked: readonly FieldPlan[], absentError: (p: FieldPlan) => never, writeTags: ((w: ChunkWriter, v: Record<string, unknown>) => void) | undefined): StructWrite {
  if ([...inline, ...checked].some((p) => !PLAIN_NAME.test(p.name) || p.name === '__proto__')) return genericStructWriter(inline, checked, absentError, writeTags);
  const params: string[] = ['absentError', 'writeTags'];
  const args: unknown[] = [absentError, writeTags];
  const lines: string[] = [];
  inline.forEach((p, i) => {
    params.push(`w${i}`, `d${i}`);
    args.push(p.write, p.makeDefault);
    lines.push(`x = v.${p.name}; w${i}(w, x === undefined ? d${i}() : x);`);
  });
  checked.forEach((p, i) => {
    params.push(`a${i}`, `p${i}`);
    args.push(p.isDefault, p);
    lines.push(`if (!a${i}(v.${p.name})) absentError(p${i});`);
  });
  if (writeTags) lines.push('writeTags(w, v);');
  const make = new Function(...params, `return function writeStruct(w, v) { if (v === undefined || v === null) v = {}; let x; ${lines.join(' ')} };`) as (...a: unknown[]) => StructWrite;
  return make(...args);
}

/** The same writer as a loop, for a field name that is not a plain identifier. */
function genericStructWriter(inline: readonly FieldPlan[], checked: readonly FieldPlan[], absentError: (p: FieldPlan) => never, writeTags: ((w: ChunkWriter, v: Record<string, unknown>) => void) | undefined): StructWrite {
  return (w, v) => {
    if (v === undefined || v === null) v = {};
    for (let i = 0; i < inline.length; i++) {
      const p = inline[i]!;
      const fv = v[p.name];
      p.write(w, fv === undefined ? p.makeDefault() : fv);
    }
    for (let i = 0; i < checked.length; i++) {
      const p = checked[i]!;
      if (!p.isDefault(v[p.name])) absentError(p);
    }
    if (writeTags) writeTags(w, v);
  };
}

/** The same reader as a loop, for a field name a literal cannot hold as is. */
function genericStructReader(order: readonly { plan: FieldPlan; kind: 0 | 1 | 2 }[], readTags: ((c: Cursor, o: Record<string, unknown>) => void) | undefined): StructRead {
  return (c) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < order.length; i++) {
      const { plan, kind } = order[i]!;
      o[plan.name] = kind === 0 ? plan.read(c) : plan.makeDefault();
    }
    if (readTags) readTags(c, o);
    return o;
  };
}

/** Writes a uvarint size followed by what `body` writes (kept contiguous so it can be measured). */
function writeSized(w: ChunkWriter, body: () => void): void {
  w.ensure(1);
  const sizeAt = w.pos;
  w.pos += 1; // most tagged values are under 128 bytes: reserve one byte, move the body if not
  w.contiguous++;
  try {
    body();
  } finally {
    w.contiguous--;
  }
  const size = w.pos - sizeAt - 1;
  const extra = sizeOfUnsignedVarint(size) - 1;
  if (extra > 0) {
    w.ensure(extra);
    w.buf.copyWithin(sizeAt + 1 + extra, sizeAt + 1, w.pos);
    w.pos += extra;
  }
  writeUnsignedVarint(w.buf, sizeAt, size);
}

/** Reads a tag buffer into `o`: known tags decode within their declared size, unknown ones are skipped. */
function tagBufferReader(tagged: Map<number, FieldPlan>, where: string): (c: Cursor, o: Record<string, unknown>) => void {
  return (c, o) => {
    const start = c.pos;
    const n = c.readUnsignedVarint();
    if (n > c.end - c.pos) fail(c, `tag buffer of ${where} claims ${n} fields, ${c.end - c.pos} bytes remain`, start);
    for (let i = 0; i < n; i++) {
      const tagAt = c.pos;
      const tag = c.readUnsignedVarint();
      const size = c.readUnsignedVarint();
      need(c, size, `tagged field ${tag} of ${where}`);
      const plan = tagged.get(tag);
      const fieldEnd = c.pos + size;
      if (plan) {
        const end = c.end;
        c.end = fieldEnd;
        try {
          o[plan.name] = plan.read(c);
        } finally {
          c.end = end;
        }
        if (c.pos !== fieldEnd) fail(c, `tagged field ${tag} of ${where} used ${c.pos - (fieldEnd - size)} of its ${size} bytes`, tagAt);
      }
      c.pos = fieldEnd;
    }
  };
}

function compileMessage(schema: MessageSchema, version: number): StructCodec {
  return compiledStruct(schema, schema.fields, version, isFlexibleVersion(schema, version), schema.name);
}

// ---- public API ------------------------------------------------------------------------------

/**
 * Decodes one `schema` message of `version` starting at `offset`. Returns the value and the offset
 * just past the message. Throws ProtocolError on malformed input or a version outside the schema.
 */
export function decodeMessage<T = any>(schema: MessageSchema, version: number, buf: Buffer, offset = 0): { value: T; offset: number } {
  const value = decodeMessageValue<T>(schema, version, buf, offset);
  return { value, offset: lastDecodeEnd };
}

/** Where the last decodeMessageValue stopped (decodeMessage's `offset`). */
let lastDecodeEnd = 0;

/**
 * decodeMessage's value alone, for a caller that does not need the end offset (the connection's
 * request bodies): no result object per message.
 */
export function decodeMessageValue<T = any>(schema: MessageSchema, version: number, buf: Buffer, offset = 0): T {
  if (!isValidVersion(schema, version)) {
    throw new ProtocolError(`${schema.name} has no version ${version} (valid ${schema.validVersions[0]}-${schema.validVersions[1]})`, { position: offset });
  }
  const codec = compileMessage(schema, version);
  const shared = !sharedCursorInUse;
  let c: Cursor;
  if (shared) {
    c = sharedCursor;
    c.b = c.buf = buf;
    c.pos = offset;
    c.end = buf.length;
    sharedCursorInUse = true;
  } else {
    c = new Cursor(buf, offset, buf.length);
  }
  try {
    const value = codec.read(c) as T;
    lastDecodeEnd = c.pos;
    return value;
  } catch (err) {
    if (err instanceof VarintError) throw new ProtocolError(`${schema.name} v${version}: ${err.message}`, { position: err.position });
    throw err;
  } finally {
    if (shared) {
      // the input is not kept alive by the cursor
      c.b = c.buf = NO_INPUT;
      sharedCursorInUse = false;
    }
  }
}

/**
 * Encodes `value` as `schema` at `version` into chunks (see the module comment): concatenated, the
 * chunks are the message. Throws InvalidArgumentError for values the version cannot carry.
 */
export function encodeMessage(schema: MessageSchema, version: number, value: unknown): Buffer[] {
  return encodeMessageAfter(schema, version, value, 0);
}

/**
 * encodeMessage with `prefixBytes` unwritten bytes before the message, in its first chunk: a
 * response frame's size and header go there (header.ts encodeResponse), so a small answer is one
 * buffer, not a header buffer, the body's buffer and a copy of both into a third for the socket.
 */
export function encodeMessageAfter(schema: MessageSchema, version: number, value: unknown, prefixBytes: number): Buffer[] {
  if (!isValidVersion(schema, version)) {
    throw new InvalidArgumentError(`${schema.name} has no version ${version} (valid ${schema.validVersions[0]}-${schema.validVersions[1]})`);
  }
  const codec = compileMessage(schema, version);
  const shared = !sharedWriterInUse;
  const w = shared ? sharedWriter : new ChunkWriter();
  if (shared) {
    w.buf = scratch;
    w.splits = undefined;
    w.contiguous = 0;
    sharedWriterInUse = true;
  }
  w.pos = prefixBytes;
  try {
    codec.write(w, value as Record<string, unknown>);
  } catch (err) {
    if (w.buf.length <= SCRATCH_KEEP) scratch = w.buf;
    if (shared) releaseSharedWriter();
    if (err instanceof KafkaliteError) throw err;
    // A wrong JS type or an out-of-range number (Buffer's RangeError/TypeError).
    throw new InvalidArgumentError(`${schema.name} v${version}: ${(err as Error).message}`, { cause: err });
  }
  const chunks = w.finish();
  if (shared) releaseSharedWriter();
  return chunks;
}

/** The shared writer keeps nothing alive between messages: no zero-copy value, no grown buffer. */
function releaseSharedWriter(): void {
  sharedWriter.buf = scratch;
  sharedWriter.splits = undefined;
  sharedWriterInUse = false;
}

/** encodeMessage as one Buffer (copies the zero-copy chunks). */
export function encodeMessageToBuffer(schema: MessageSchema, version: number, value: unknown): Buffer {
  const chunks = encodeMessage(schema, version, value);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
