/**
 * Control records (Kafka `ControlRecordType`, `EndTransactionMarker`).
 *
 * A control record's key is int16 version + int16 type. Transaction markers (ABORT, COMMIT) carry an
 * EndTransactionMarker value: int16 version + int32 coordinatorEpoch. Types 2-6 are KRaft's.
 */
import { InvalidRecordError } from '../errors.js';
import { readInt16BE } from '../bytes/big-endian.js';

export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
  LEADER_CHANGE: 2,
  SNAPSHOT_HEADER: 3,
  SNAPSHOT_FOOTER: 4,
  KRAFT_VERSION: 5,
  KRAFT_VOTERS: 6,
  UNKNOWN: -1,
} as const;

export type ControlRecordTypeName = keyof typeof ControlRecordType;

const TYPE_NAMES = new Map<number, ControlRecordTypeName>(
  (Object.entries(ControlRecordType) as [ControlRecordTypeName, number][]).map(([k, v]) => [v, k]),
);

export interface ControlRecordKey {
  version: number;
  /** The raw type id as stored. */
  typeId: number;
  /** Kafka's name for the type; UNKNOWN for ids it does not define. */
  type: ControlRecordTypeName;
}

export const CONTROL_KEY_SIZE = 4;
export const END_TXN_MARKER_VALUE_SIZE = 6;
export const END_TXN_MARKER_CURRENT_VERSION = 0;

/** Parse a control record key; a newer (positive) version is read as version 0, as Kafka does. */
export function parseControlRecordKey(key: Uint8Array | null): ControlRecordKey {
  if (key === null || key.length < CONTROL_KEY_SIZE) {
    throw new InvalidRecordError(
      `Invalid value size found for end control record key. Must have at least ${CONTROL_KEY_SIZE} bytes, but found only ${key?.length ?? -1}`,
    );
  }
  // two big-endian int16s read by index: no DataView per key (every marker appended is parsed here)
  const version = readInt16BE(key, 0);
  if (version < 0) throw new InvalidRecordError(`Invalid version found for control record: ${version}. May indicate data corruption`);
  const typeId = readInt16BE(key, 2);
  return { version, typeId, type: TYPE_NAMES.get(typeId) ?? 'UNKNOWN' };
}

export function encodeControlRecordKey(type: number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(CONTROL_KEY_SIZE);
  b.writeInt16BE(version, 0);
  b.writeInt16BE(type, 2);
  return b;
}

export interface EndTransactionMarker {
  type: 'ABORT' | 'COMMIT';
  coordinatorEpoch: number;
  version: number;
}

/** Parse a transaction marker's value; newer versions are accepted and read by their first 6 bytes. */
export function parseEndTransactionMarker(key: Uint8Array | null, value: Uint8Array | null): EndTransactionMarker {
  const { type } = parseControlRecordKey(key);
  if (type !== 'ABORT' && type !== 'COMMIT') {
    throw new InvalidRecordError(`Invalid control record type for end transaction marker: ${type}`);
  }
  if (value === null || value.length < END_TXN_MARKER_VALUE_SIZE) {
    throw new InvalidRecordError(
      `Invalid value size found for end transaction marker. Must have at least ${END_TXN_MARKER_VALUE_SIZE} bytes, but found only ${value?.length ?? -1}`,
    );
  }
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const version = view.getInt16(0);
  if (version < 0) throw new InvalidRecordError(`Invalid version found for end transaction marker: ${version}. May indicate data corruption`);
  return { type, coordinatorEpoch: view.getInt32(2), version };
}

export function encodeEndTransactionMarkerValue(coordinatorEpoch: number): Buffer {
  const b = Buffer.allocUnsafe(END_TXN_MARKER_VALUE_SIZE);
  b.writeInt16BE(END_TXN_MARKER_CURRENT_VERSION, 0);
  b.writeInt32BE(coordinatorEpoch, 2);
  return b;
}
