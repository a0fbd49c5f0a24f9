/**
 * The records of `__consumer_offsets` in Kafka's format (`GroupCoordinatorRecordSerde` /
 * `GroupMetadataManager`): key and value are each an int16 schema version followed by the
 * message of that version. Offset commits use OffsetCommitKey v1 (Kafka writes 1; 0 reads the
 * same) and OffsetCommitValue v3, or v1 when the commit carries an explicit expire timestamp
 * (OffsetCommit v2-4 retentionTimeMs); group metadata uses GroupMetadataKey v2 and
 * GroupMetadataValue v3. Key versions 3-8 are the KIP-848 consumer groups' records
 * (consumer-group-records.ts). A null value is a tombstone (deleted offset or group) for compaction.
 */
import type { MessageSchema } from '../protocol/schema.js';
import { GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue } from '../protocol/schemas/internal/group-coordinator.js';
import { decodeVersionPrefixed, encodeVersionPrefixed, prefixedVersion } from './version-prefixed.js';
import {
  CONSUMER_GROUP_RECORD_FORMATS,
  consumerGroupRecordKind,
  type ConsumerGroupRecord,
  type ConsumerGroupRecordKind,
  type StoredCurrentAssignment,
  type StoredMemberMetadata,
  type StoredTopicMetadata,
  type StoredTopicPartitions,
} from './consumer-group-records.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

const OFFSET_KEY_VERSION = 1;
const GROUP_KEY_VERSION = 2;
const GROUP_VALUE_VERSION = 3;
const OFFSET_VALUE_VERSION = 3;
const OFFSET_VALUE_VERSION_WITH_EXPIRE = 1;

/** Java's String.hashCode over UTF-16 code units (Kafka hashes the group id with it). */
function javaStringHashCode(s: string): number {
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

/** Longest string a non-flexible int16-length string field carries (Kafka `Short.MAX_VALUE`). */
const MAX_INT16_STRING_BYTES = 0x7fff;

/**
 * OffsetCommitKey v1 (int16 version, group, topic, int32 partition), written directly: every
 * offset commit, transactional or not, writes one per partition, and the schema codec's walk and
 * copy cost more than the record. Anything the direct form does not cover (a string past an int16
 * length, a partition that is not an int32) goes to the codec, which reports it as before.
 */
export function offsetCommitKey(group: string, topic: string, partition: number): Buffer {
  const g = Buffer.byteLength(group, 'utf8');
  const t = Buffer.byteLength(topic, 'utf8');
  if (g > MAX_INT16_STRING_BYTES || t > MAX_INT16_STRING_BYTES || partition !== (partition | 0)) {
    return encodeVersionPrefixed(OffsetCommitKey, OFFSET_KEY_VERSION, { group, topic, partition });
  }
  const b = Buffer.allocUnsafe(2 + 2 + g + 2 + t + 4);
  b.writeInt16BE(OFFSET_KEY_VERSION, 0);
  b.writeInt16BE(g, 2);
  let pos = 4 + b.write(group, 4, 'utf8');
  b.writeInt16BE(t, pos);
  pos += 2 + b.write(topic, pos + 2, 'utf8');
  b.writeInt32BE(partition, pos);
  return b;
}

/** OffsetCommitValue v3 (offset, leader epoch, metadata, commit timestamp), written directly as the key is; v1 (an expire timestamp) by the codec. */
export function offsetCommitValue(o: OffsetAndMetadata): Buffer {
  if (o.expireTimestamp >= 0n) return encodeVersionPrefixed(OffsetCommitValue, OFFSET_VALUE_VERSION_WITH_EXPIRE, o);
  const m = Buffer.byteLength(o.metadata, 'utf8');
  if (m > MAX_INT16_STRING_BYTES || o.leaderEpoch !== (o.leaderEpoch | 0) || BigInt.asIntN(64, o.offset) !== o.offset || BigInt.asIntN(64, o.commitTimestamp) !== o.commitTimestamp) {
    return encodeVersionPrefixed(OffsetCommitValue, OFFSET_VALUE_VERSION, o);
  }
  const b = Buffer.allocUnsafe(2 + 8 + 4 + 2 + m + 8);
  b.writeInt16BE(OFFSET_VALUE_VERSION, 0);
  b.writeBigInt64BE(o.offset, 2);
  b.writeInt32BE(o.leaderEpoch, 10);
  b.writeInt16BE(m, 14);
  const pos = 16 + b.write(o.metadata, 16, 'utf8');
  b.writeBigInt64BE(o.commitTimestamp, pos);
  return b;
}

export function groupMetadataKey(group: string): Buffer {
  return encodeVersionPrefixed(GroupMetadataKey, GROUP_KEY_VERSION, { group });
}

export function groupMetadataValue(g: StoredGroup): Buffer {
  return encodeVersionPrefixed(GroupMetadataValue, GROUP_VALUE_VERSION, g);
}

export type OffsetsTopicRecord =
  | { type: 'offset'; group: string; topic: string; partition: number; value: OffsetAndMetadata | null }
  | { type: 'group'; group: string; value: StoredGroup | null }
  | { type: 'consumerGroup'; group: string; record: ConsumerGroupRecord };

/** A decoded key: which record it is, and the message as its schema read it. */
export type OffsetsTopicKey =
  | { type: 'offset'; schema: MessageSchema; version: number; value: { group: string; topic: string; partition: number } }
  | { type: 'group'; schema: MessageSchema; version: number; value: { group: string } }
  | { type: 'consumerGroup'; kind: ConsumerGroupRecordKind; schema: MessageSchema; version: number; value: { groupId: string; memberId?: string } };

/** A `__consumer_offsets` key, by its version; undefined for versions decodeOffsetsTopicRecord skips. */
export function decodeOffsetsTopicKey(key: Buffer): OffsetsTopicKey | undefined {
  const version = prefixedVersion(key, `${OFFSETS_TOPIC} key`);
  if (version === 0 || version === 1) return { type: 'offset', schema: OffsetCommitKey, ...decodeVersionPrefixed<{ group: string; topic: string; partition: number }>(OffsetCommitKey, key, `${OFFSETS_TOPIC} key`) };
  if (version === 2) return { type: 'group', schema: GroupMetadataKey, ...decodeVersionPrefixed<{ group: string }>(GroupMetadataKey, key, `${OFFSETS_TOPIC} key`) };
  const kind = consumerGroupRecordKind(version);
  if (kind === undefined) return undefined;
  const schema = CONSUMER_GROUP_RECORD_FORMATS[kind].key;
  return { type: 'consumerGroup', kind, schema, ...decodeVersionPrefixed<{ groupId: string; memberId?: string }>(schema, key, `${OFFSETS_TOPIC} key`) };
}

/** The schema of the value that goes with this key. */
export function offsetsTopicValueSchema(k: OffsetsTopicKey): MessageSchema {
  if (k.type === 'consumerGroup') return CONSUMER_GROUP_RECORD_FORMATS[k.kind].value;
  return k.type === 'offset' ? OffsetCommitValue : GroupMetadataValue;
}

/** A consumer-group record from its decoded key and its value (null: tombstone), read by the kind's value schema. */
function consumerGroupRecord(kind: ConsumerGroupRecordKind, memberId: string, value: Buffer | null): ConsumerGroupRecord {
  const read = <T>(): T | null => (value === null ? null : decodeVersionPrefixed<T>(CONSUMER_GROUP_RECORD_FORMATS[kind].value, value, `${OFFSETS_TOPIC} value`).value);
  switch (kind) {
    case 'groupEpoch':
      return { kind, value: read<{ epoch: number }>() };
    case 'partitionMetadata':
      return { kind, value: read<{ topics: StoredTopicMetadata[] }>() };
    case 'targetEpoch':
      return { kind, value: read<{ assignmentEpoch: number }>() };
    case 'memberMetadata':
      return { kind, memberId, value: read<StoredMemberMetadata>() };
    case 'targetMember':
      return { kind, memberId, value: read<{ topicPartitions: StoredTopicPartitions[] }>() };
    case 'currentAssignment':
      return { kind, memberId, value: read<StoredCurrentAssignment>() };
  }
}

/**
 * Decodes one `__consumer_offsets` record (`GroupCoordinatorRecordSerde.deserialize`). Key
 * versions 0-1 are offset commits, 2 group metadata, 3-8 consumer-group records; any other key
 * (share groups, 9+) yields undefined.
 */
export function decodeOffsetsTopicRecord(key: Buffer, value: Buffer | null): OffsetsTopicRecord | undefined {
  const k = decodeOffsetsTopicKey(key);
  if (k === undefined) return undefined;
  if (k.type === 'consumerGroup') return { type: 'consumerGroup', group: k.value.groupId, record: consumerGroupRecord(k.kind, k.value.memberId ?? '', value) };
  if (k.type === 'offset') {
    if (value === null) return { type: 'offset', ...k.value, value: null };
    const v = decodeVersionPrefixed<OffsetAndMetadata>(OffsetCommitValue, value, `${OFFSETS_TOPIC} value`).value;
    // fields of versions that lack them: no explicit expiry, no leader epoch
    return { type: 'offset', ...k.value, value: { ...v, expireTimestamp: v.expireTimestamp ?? -1n, leaderEpoch: v.leaderEpoch ?? -1 } };
  }
  if (value === null) return { type: 'group', group: k.value.group, value: null };
  return { type: 'group', group: k.value.group, value: decodeVersionPrefixed<StoredGroup>(GroupMetadataValue, value, `${OFFSETS_TOPIC} value`).value };
}
