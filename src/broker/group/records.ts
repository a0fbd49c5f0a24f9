/**
 * The records of `__consumer_offsets` in Kafka's format (`GroupCoordinatorRecordSerde` /
 * `GroupMetadataManager`): key and value are each an int16 schema version followed by the
 * message of that version. Offset commits use OffsetCommitKey v1 (Kafka writes 1; 0 reads the
 * same) and OffsetCommitValue v3, or v1 when the commit carries an explicit expire timestamp
 * (OffsetCommit v2-4 retentionTimeMs); group metadata uses GroupMetadataKey v2 and
 * GroupMetadataValue v3. A null value is a tombstone (deleted offset or group) for compaction.
 */
import { InvalidRecordError } from '../../errors.js';
import { decodeMessage, encodeMessageToBuffer } from '../../protocol/codec.js';
import { GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue } from '../../protocol/schemas/internal/group-coordinator.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

const OFFSET_KEY_VERSION = 1;
const GROUP_KEY_VERSION = 2;
const GROUP_VALUE_VERSION = 3;
const OFFSET_VALUE_VERSION = 3;
const OFFSET_VALUE_VERSION_WITH_EXPIRE = 1;

/** Java's String.hashCode over UTF-16 code units (Kafka hashes the group id with it). */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** `GroupMetadataManager.partitionFor`: Utils.abs(groupId.hashCode) % partitions (abs(MIN_VALUE) is 0). */
export function partitionForGroup(groupId: string, partitions: number): number {
  const h = javaStringHashCode(groupId);
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}

export interface OffsetAndMetadata {
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: bigint;
  /** -1 unless the commit asked for its own retention (OffsetCommit v2-4). */
  expireTimestamp: bigint;
}

export interface StoredMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeout: number;
  sessionTimeout: number;
  subscription: Buffer;
  assignment: Buffer;
}

export interface StoredGroup {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: bigint;
  members: StoredMember[];
}

function versioned(version: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

export function offsetCommitKey(group: string, topic: string, partition: number): Buffer {
  return versioned(OFFSET_KEY_VERSION, encodeMessageToBuffer(OffsetCommitKey, OFFSET_KEY_VERSION, { group, topic, partition }));
}

export function offsetCommitValue(o: OffsetAndMetadata): Buffer {
  const version = o.expireTimestamp >= 0n ? OFFSET_VALUE_VERSION_WITH_EXPIRE : OFFSET_VALUE_VERSION;
  return versioned(version, encodeMessageToBuffer(OffsetCommitValue, version, o));
}

export function groupMetadataKey(group: string): Buffer {
  return versioned(GROUP_KEY_VERSION, encodeMessageToBuffer(GroupMetadataKey, GROUP_KEY_VERSION, { group }));
}

export function groupMetadataValue(g: StoredGroup): Buffer {
  return versioned(GROUP_VALUE_VERSION, encodeMessageToBuffer(GroupMetadataValue, GROUP_VALUE_VERSION, g));
}

export type OffsetsTopicRecord =
  | { type: 'offset'; group: string; topic: string; partition: number; value: OffsetAndMetadata | null }
  | { type: 'group'; group: string; value: StoredGroup | null };

function schemaVersion(buf: Buffer, what: string): number {
  if (buf.length < 2) throw new InvalidRecordError(`${OFFSETS_TOPIC} ${what} of ${buf.length} bytes has no version`);
  return buf.readInt16BE(0);
}

/**
 * Decodes one `__consumer_offsets` record (`GroupCoordinatorRecordSerde.deserialize`). Key
 * versions 0-1 are offset commits, 2 group metadata; any other key (3+ are the new consumer
 * protocol's records, which kafkalite does not write) yields undefined.
 */
export function decodeOffsetsTopicRecord(key: Buffer, value: Buffer | null): OffsetsTopicRecord | undefined {
  const keyVersion = schemaVersion(key, 'key');
  if (keyVersion === 0 || keyVersion === 1) {
    const k = decodeMessage<{ group: string; topic: string; partition: number }>(OffsetCommitKey, keyVersion, key, 2).value;
    if (value === null) return { type: 'offset', ...k, value: null };
    const v = decodeMessage<OffsetAndMetadata>(OffsetCommitValue, schemaVersion(value, 'value'), value, 2).value;
    return { type: 'offset', ...k, value: { ...v, expireTimestamp: v.expireTimestamp ?? -1n, leaderEpoch: v.leaderEpoch ?? -1 } };
  }
  if (keyVersion === 2) {
    const k = decodeMessage<{ group: string }>(GroupMetadataKey, keyVersion, key, 2).value;
    if (value === null) return { type: 'group', group: k.group, value: null };
    return { type: 'group', group: k.group, value: decodeMessage<StoredGroup>(GroupMetadataValue, schemaVersion(value, 'value'), value, 2).value };
  }
  return undefined;
}
