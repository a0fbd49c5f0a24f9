/**
 * The records of KRaft's `__cluster_metadata` log and snapshots. A data record has no key; its
 * value is a frame of unsigned varints (frame version 1, record type, record version; Kafka
 * `MetadataRecordSerde`) then the metadata record of that type and version. KRaft's own control
 * records (SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters) carry their message at the
 * schema's current version (`ControlRecordUtils`).
 */
import { InvalidArgumentError, KafkaliteError } from '../errors.js';
import { ByteReader, VarintError, sizeOfUnsignedVarint, writeUnsignedVarint } from '../bytes/varint.js';
import { decodeMessage, encodeMessage } from '../protocol/codec.js';
import type { MessageSchema } from '../protocol/schema.js';
import { METADATA_RECORD_SCHEMAS } from '../protocol/schemas/internal/metadata.js';
import { KRaftVersionRecord, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord } from '../protocol/schemas/internal/raft.js';
import { undecodable } from './version-prefixed.js';

/** MetadataRecordSerde.DEFAULT_FRAME_VERSION */
const FRAME_VERSION = 1;

/** A decoded record: its schema, the version it was read at, and the message. */
export interface DecodedMessage {
  schema: MessageSchema;
  version: number;
  value: { [k: string]: unknown };
}

/** MetadataRecordType's constant name: the record name in UPPER_SNAKE (`FeatureLevelRecord` → `FEATURE_LEVEL_RECORD`). */
export function metadataRecordTypeName(schema: MessageSchema): string {
  return schema.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** A `__cluster_metadata` data record's value; an InvalidRecordError naming the value byte when it does not decode. */
export function decodeMetadataRecord(value: Buffer): DecodedMessage {
  const r = new ByteReader(value, 0, value.length);
  let frameVersion: number;
  let apiKey: number;
  let version: number;
  try {
    frameVersion = r.readUnsignedVarint();
    apiKey = r.readUnsignedVarint();
    version = r.readUnsignedVarint();
  } catch (e) {
    return undecodable('__cluster_metadata record frame', e instanceof VarintError ? new KafkaliteError('INVALID_RECORD', e.message, { position: e.position }) : e);
  }
  if (frameVersion !== FRAME_VERSION) undecodable('__cluster_metadata record frame', new Error(`unknown frame version ${frameVersion}`));
  const schema = METADATA_RECORD_SCHEMAS.get(apiKey);
  if (schema === undefined) undecodable('__cluster_metadata record', new Error(`unknown metadata record type ${apiKey}`));
  try {
    return { schema, version, value: decodeMessage(schema, version, value, r.pos).value as { [k: string]: unknown } };
  } catch (e) {
    return undecodable(`__cluster_metadata ${schema.name} v${version}`, e);
  }
}

/**
 * A metadata record the broker made: the message it encoded (applied to the image as it is, as
 * Kafka's controller replays the `ApiMessageAndVersion` it generated rather than the bytes read
 * back) and its value bytes (`bytes`, what the log and snapshots hold).
 */
export interface MetadataRecord extends DecodedMessage {
  readonly bytes: Buffer;
}

/** A metadata record of `schema` at `version`, encoded once ({@link encodeMetadataRecord}). */
export function metadataRecord(schema: MessageSchema, version: number, value: { [k: string]: unknown }): MetadataRecord {
  return { schema, version, value, bytes: encodeMetadataRecord(schema, version, value) };
}

/**
 * A `__cluster_metadata` data record's value (Kafka `MetadataRecordSerde.write`): the frame
 * (version 1, the record type, the record version) then the record at that version.
 */
export function encodeMetadataRecord(schema: MessageSchema, version: number, value: object): Buffer {
  const apiKey = schema.apiKey;
  if (apiKey === undefined || METADATA_RECORD_SCHEMAS.get(apiKey) !== schema) throw new InvalidArgumentError(`${schema.name} is not a metadata record`);
  const body = encodeMessage(schema, version, value);
  const frame = Buffer.allocUnsafe(sizeOfUnsignedVarint(FRAME_VERSION) + sizeOfUnsignedVarint(apiKey) + sizeOfUnsignedVarint(version));
  let pos = writeUnsignedVarint(frame, 0, FRAME_VERSION);
  pos = writeUnsignedVarint(frame, pos, apiKey);
  writeUnsignedVarint(frame, pos, version);
  return Buffer.concat([frame, ...body]);
}

/** The control record types with a schema, and the names DumpLogSegments prints before their JSON. */
const KRAFT_CONTROL: { [type: string]: [label: string, schema: MessageSchema] } = {
  SNAPSHOT_HEADER: ['SnapshotHeader', SnapshotHeaderRecord],
  SNAPSHOT_FOOTER: ['SnapshotFooter', SnapshotFooterRecord],
  KRAFT_VERSION: ['KRaftVersion', KRaftVersionRecord],
  KRAFT_VOTERS: ['KRaftVoters', VotersRecord],
};

/**
 * A KRaft control record's value (read at the schema's current version) with its label, or
 * undefined for control types without one (transaction markers, LEADER_CHANGE, unknown).
 */
export function decodeKRaftControlRecord(type: string, value: Buffer | null): (DecodedMessage & { label: string }) | undefined {
  const entry = KRAFT_CONTROL[type];
  if (entry === undefined) return undefined;
  const [label, schema] = entry;
  const version = schema.validVersions[1];
  try {
    return { label, schema, version, value: decodeMessage(schema, version, value ?? Buffer.alloc(0), 0).value as { [k: string]: unknown } };
  } catch (e) {
    return undecodable(`${schema.name} control record value`, e);
  }
}
