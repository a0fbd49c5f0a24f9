/**
 * Values of KRaft's control records (storage spec §2.8, §14.2; Kafka `ControlRecordUtils` and the
 * message schemas SnapshotHeaderRecord.json, SnapshotFooterRecord.json, KRaftVersionRecord.json,
 * VotersRecord.json): each value is the record's message serialization in its flexible encoding
 * (fields in schema order, compact strings/arrays, a tagged-field section closing every struct).
 * The first field of each is its own int16 `Version`, the version the rest is read at.
 *
 * Errors name the byte inside the record value (`value byte N`): the value's place in a file is
 * the caller's to add, so no file position is claimed.
 *
 * The decoded objects use the names Kafka's generated `*JsonConverter.write` prints: the schema
 * names with the first letter lowercased, in schema order; uuids as `Uuid.toString()`; unknown
 * tagged fields dropped. Rendered as JSON, they are kafka-dump-log.sh's text for these records.
 */
import { InvalidRecordError } from '../errors.js';
import { uuidToString } from '../storage/uuid.js';

/** Bounds-checked reader of the flexible-version primitives; errors name the byte inside the value. */
class SchemaReader {
  pos = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Buffer) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  private need(n: number, what: string): number {
    if (this.pos + n > this.buf.length) {
      throw new InvalidRecordError(`KRaft control record value ends inside ${what} at value byte ${this.pos} (needs ${n} bytes, ${this.buf.length - this.pos} left)`);
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }
  int16(what: string): number {
    return this.view.getInt16(this.need(2, what));
  }
  uint16(what: string): number {
    return this.view.getUint16(this.need(2, what));
  }
  int32(what: string): number {
    return this.view.getInt32(this.need(4, what));
  }
  int64(what: string): bigint {
    return this.view.getBigInt64(this.need(8, what));
  }
  uuid(what: string): string {
    const at = this.need(16, what);
    return uuidToString(this.buf.subarray(at, at + 16));
  }
  unsignedVarint(what: string): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.buf[this.need(1, what)]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new InvalidRecordError(`Unsigned varint for ${what} is longer than 5 bytes at value byte ${this.pos}`);
  }
  /** Compact array length (N+1 encoding); null arrays are not allowed in these schemas. */
  compactArrayLength(what: string): number {
    const at = this.pos;
    const n = this.unsignedVarint(what) - 1;
    // every element is at least one byte: a larger count is corrupt, never an allocation size
    if (n < 0 || n > this.buf.length - this.pos) {
      throw new InvalidRecordError(`Invalid compact array length ${n} for ${what} at value byte ${at}`);
    }
    return n;
  }
  compactString(what: string): string {
    const at = this.pos;
    const n = this.unsignedVarint(what) - 1;
    if (n < 0) throw new InvalidRecordError(`Null string for non-nullable ${what} at value byte ${at}`);
    const start = this.need(n, what);
    return this.buf.toString('utf8', start, start + n);
  }
  /** Skips a struct's tagged fields (none of these schemas defines one). */
  taggedFields(): void {
    const count = this.unsignedVarint('tagged field count');
    for (let i = 0; i < count; i++) {
      this.unsignedVarint('tag');
      this.need(this.unsignedVarint('tagged field size'), 'tagged field');
    }
  }
}

export interface SnapshotHeaderRecord {
  version: number;
  lastContainedLogTimestamp: bigint;
}
export interface SnapshotFooterRecord {
  version: number;
}
export interface KRaftVersionRecord {
  version: number;
  kRaftVersion: number;
}
export interface VotersRecord {
  version: number;
  voters: {
    voterId: number;
    voterDirectoryId: string;
    endpoints: { name: string; host: string; port: number }[];
    kRaftVersionFeature: { minSupportedVersion: number; maxSupportedVersion: number };
  }[];
}

function checkVersion(version: number, name: string): void {
  // every one of these schemas has validVersions "0"
  if (version !== 0) throw new InvalidRecordError(`Unsupported ${name} version ${version} at value byte 0`);
}

export function parseSnapshotHeaderRecord(value: Buffer): SnapshotHeaderRecord {
  const r = new SchemaReader(value);
  const version = r.int16('Version');
  checkVersion(version, 'SnapshotHeaderRecord');
  const lastContainedLogTimestamp = r.int64('LastContainedLogTimestamp');
  r.taggedFields();
  return { version, lastContainedLogTimestamp };
}

export function parseSnapshotFooterRecord(value: Buffer): SnapshotFooterRecord {
  const r = new SchemaReader(value);
  const version = r.int16('Version');
  checkVersion(version, 'SnapshotFooterRecord');
  r.taggedFields();
  return { version };
}

export function parseKRaftVersionRecord(value: Buffer): KRaftVersionRecord {
  const r = new SchemaReader(value);
  const version = r.int16('Version');
  checkVersion(version, 'KRaftVersionRecord');
  const kRaftVersion = r.int16('KRaftVersion');
  r.taggedFields();
  return { version, kRaftVersion };
}

export function parseVotersRecord(value: Buffer): VotersRecord {
  const r = new SchemaReader(value);
  const version = r.int16('Version');
  checkVersion(version, 'VotersRecord');
  const voters: VotersRecord['voters'] = [];
  for (let i = 0, n = r.compactArrayLength('Voters'); i < n; i++) {
    const voterId = r.int32('VoterId');
    const voterDirectoryId = r.uuid('VoterDirectoryId');
    const endpoints: VotersRecord['voters'][number]['endpoints'] = [];
    for (let j = 0, m = r.compactArrayLength('Endpoints'); j < m; j++) {
      const name = r.compactString('Name');
      const host = r.compactString('Host');
      const port = r.uint16('Port');
      r.taggedFields();
      endpoints.push({ name, host, port });
    }
    const minSupportedVersion = r.int16('MinSupportedVersion');
    const maxSupportedVersion = r.int16('MaxSupportedVersion');
    r.taggedFields();
    r.taggedFields();
    voters.push({ voterId, voterDirectoryId, endpoints, kRaftVersionFeature: { minSupportedVersion, maxSupportedVersion } });
  }
  r.taggedFields();
  return { version, voters };
}

/**
 * The decoded value of a KRaft control record of type `type` (a ControlRecordType name), or
 * undefined for the types that have no schema here (transaction markers, LEADER_CHANGE).
 */
export function kraftControlValue(type: string, value: Buffer | null): object | undefined {
  const v = value ?? Buffer.alloc(0);
  switch (type) {
    case 'SNAPSHOT_HEADER':
      return parseSnapshotHeaderRecord(v);
    case 'SNAPSHOT_FOOTER':
      return parseSnapshotFooterRecord(v);
    case 'KRAFT_VERSION':
      return parseKRaftVersionRecord(v);
    case 'KRAFT_VOTERS':
      return parseVotersRecord(v);
    default:
      return undefined;
  }
}
