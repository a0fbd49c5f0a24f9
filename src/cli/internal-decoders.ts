/**
 * kafka-dump-log.sh's decoders for Kafka's internal topics (`DumpLogSegments`' parsers): the
 * records are read by src/internal-topics/ (their formats, shared with the broker); this module
 * prints them:
 *
 * - `--offsets-decoder` (`__consumer_offsets`): the key's int16 version picks OffsetCommitKey
 *   (0, 1), GroupMetadataKey (2) or a KIP-848 consumer-group record (3-8); printed `{"type":"<version>","data":{…}}`. The value's int16
 *   version is read with the matching value schema, printed `{"version":"<version>","data":{…}}`,
 *   or `<DELETE>` for a tombstone. A group of protocol type "consumer" has each member's
 *   subscription and assignment bytes decoded as ConsumerProtocolSubscription/Assignment (kept as
 *   base64 when they do not decode), as DumpLogSegments' offsets parser does.
 * - `--transaction-log-decoder` (`__transaction_state`): key
 *   `transaction_metadata::transactionalId=<id>`, value
 *   `producerId:<p>,producerEpoch:<e>,state=<State>,partitions=[<topic>-<p>,…],txnLastUpdateTimestamp=<ms>,txnTimeoutMs=<ms>`
 *   or `<DELETE>`.
 * - `--cluster-metadata-decoder` (`__cluster_metadata`): no key; the value's frame (unsigned
 *   varints: frame version 1, record type, record version; `MetadataRecordSerde`) then the record,
 *   printed `{"type":"<RECORD_TYPE>","version":<n>,"data":{…}}`.
 *
 * KRaft's own control records (SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters) are
 * printed here too, for the dump's control-record suffix.
 *
 * A record that does not decode is an InvalidRecordError naming the value byte (not a file byte).
 */
import type { MessageSchema } from '../protocol/schema.js';
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../protocol/schemas/internal/consumer-protocol.js';
import { GroupMetadataValue } from '../protocol/schemas/internal/group-coordinator.js';
import { decodeKRaftControlRecord, decodeMetadataRecord, metadataRecordTypeName } from '../internal-topics/cluster-metadata.js';
import { decodeConsumerProtocol } from '../internal-topics/consumer-protocol.js';
import { decodeOffsetsTopicKey, OFFSETS_TOPIC, offsetsTopicValueSchema } from '../internal-topics/offsets.js';
import { decodeTransactionLogKey, decodeTransactionLogValue } from '../internal-topics/transaction-log.js';
import { decodeVersionPrefixed, prefixedVersion, undecodable } from '../internal-topics/version-prefixed.js';
import { toJson } from './json.js';
import { messageJson } from './json-converter.js';

export type InternalDecoder = 'offsets' | 'transaction-log' | 'cluster-metadata';

/** What a decoder prints for one record: the key (absent for none) and the payload text, plus their JSON forms. */
export interface Decoded {
  key?: string;
  payload?: string;
  keyJson?: unknown;
  payloadJson?: unknown;
}

const DELETE = '<DELETE>';

// ---- __consumer_offsets -------------------------------------------------------------------------

/** Consumer-protocol bytes (int16 version + message) as JSON, or undefined when they do not decode (the bytes stay, base64). */
function consumerProtocolJson(bytes: unknown, schema: MessageSchema): unknown {
  if (!(bytes instanceof Uint8Array)) return undefined;
  const decoded = decodeConsumerProtocol(schema, bytes, 'refuse');
  return decoded === undefined ? undefined : messageJson(schema, decoded.version, decoded.value);
}

function groupMetadataJson(version: number, value: { [k: string]: unknown }): unknown {
  const json = messageJson(GroupMetadataValue, version, value) as { protocolType?: string; members?: { [k: string]: unknown }[] };
  if (json.protocolType !== 'consumer') return json;
  for (const [i, m] of (value.members as { [k: string]: unknown }[]).entries()) {
    const subscription = consumerProtocolJson(m.subscription, ConsumerProtocolSubscription);
    const assignment = consumerProtocolJson(m.assignment, ConsumerProtocolAssignment);
    if (subscription !== undefined) json.members![i]!.subscription = subscription;
    if (assignment !== undefined) json.members![i]!.assignment = assignment;
  }
  return json;
}

function decodeOffsetsRecord(key: Buffer | null, value: Buffer | null): Decoded {
  if (key === null) undecodable(`${OFFSETS_TOPIC} key`, new Error('null key'));
  const k = decodeOffsetsTopicKey(key);
  if (k === undefined) undecodable(`${OFFSETS_TOPIC} key`, new Error(`unknown key version ${prefixedVersion(key, `${OFFSETS_TOPIC} key`)}`));
  const keyJson = { type: String(k.version), data: messageJson(k.schema, k.version, k.value) };
  const out: Decoded = { key: toJson(keyJson), keyJson };
  if (value === null) return { ...out, payload: DELETE, payloadJson: DELETE };
  const schema = offsetsTopicValueSchema(k);
  const v = decodeVersionPrefixed(schema, value, `${OFFSETS_TOPIC} value`);
  const data = k.type === 'group' ? groupMetadataJson(v.version, v.value) : messageJson(schema, v.version, v.value);
  const payloadJson = { version: String(v.version), data };
  return { ...out, payload: toJson(payloadJson), payloadJson };
}

// ---- __transaction_state ----------------------------------------------------------------------

function decodeTransactionLogRecord(key: Buffer | null, value: Buffer | null): Decoded {
  if (key === null) undecodable('__transaction_state key', new Error('null key'));
  const out: Decoded = { key: `transaction_metadata::transactionalId=${decodeTransactionLogKey(key)}` };
  out.keyJson = out.key;
  if (value === null) return { ...out, payload: DELETE, payloadJson: DELETE };
  const v = decodeTransactionLogValue(value);
  const partitions = v.partitions.flatMap((t) => t.partitionIds.map((p) => `${t.topic}-${p}`));
  const payload =
    `producerId:${v.producerId},producerEpoch:${v.producerEpoch},state=${v.state},` +
    `partitions=[${partitions.join(',')}],txnLastUpdateTimestamp=${v.lastUpdateTimestampMs},` +
    `txnTimeoutMs=${v.timeoutMs}`;
  return { ...out, payload, payloadJson: payload };
}

// ---- __cluster_metadata -----------------------------------------------------------------------

function decodeClusterMetadataRecord(_key: Buffer | null, value: Buffer | null): Decoded {
  if (value === null) undecodable('__cluster_metadata value', new Error('null value'));
  const r = decodeMetadataRecord(value);
  const payloadJson = { type: metadataRecordTypeName(r.schema), version: r.version, data: messageJson(r.schema, r.version, r.value) };
  return { payload: toJson(payloadJson), payloadJson };
}

// ---- KRaft control records ---------------------------------------------------------------------

/**
 * A KRaft control record's value as its label and JSON, or undefined for types without one
 * (transaction markers, LEADER_CHANGE, unknown).
 */
export function kraftControlJson(type: string, value: Buffer | null): { label: string; json: { [k: string]: unknown } } | undefined {
  const r = decodeKRaftControlRecord(type, value);
  if (r === undefined) return undefined;
  return { label: r.label, json: messageJson(r.schema, r.version, r.value) as { [k: string]: unknown } };
}

const DECODERS: { [d in InternalDecoder]: (key: Buffer | null, value: Buffer | null) => Decoded } = {
  offsets: decodeOffsetsRecord,
  'transaction-log': decodeTransactionLogRecord,
  'cluster-metadata': decodeClusterMetadataRecord,
};

export function decodeInternalRecord(decoder: InternalDecoder, key: Buffer | null, value: Buffer | null): Decoded {
  return DECODERS[decoder](key, value);
}
