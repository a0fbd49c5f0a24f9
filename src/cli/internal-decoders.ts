/**
 * kafka-dump-log.sh's decoders for Kafka's internal topics (storage spec §14.2), on top of the
 * protocol codec's schemas of those records:
 *
 * - `--offsets-decoder` (`__consumer_offsets`): the key's int16 version picks OffsetCommitKey
 *   (0, 1) or GroupMetadataKey (2); printed `{"type":"<version>","data":{…}}`. The value's int16
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
 * decoded here too, for the dump's control-record suffix.
 *
 * A record that does not decode is an InvalidRecordError naming the value byte (not a file byte).
 */
import { InvalidRecordError, KafkaliteError } from '../errors.js';
import { decodeMessage } from '../protocol/codec.js';
import type { MessageSchema } from '../protocol/schema.js';
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../protocol/schemas/internal/consumer-protocol.js';
import { GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue } from '../protocol/schemas/internal/group-coordinator.js';
import { METADATA_RECORD_SCHEMAS } from '../protocol/schemas/internal/metadata.js';
import { KRaftVersionRecord, SnapshotFooterRecord, SnapshotHeaderRecord, VotersRecord } from '../protocol/schemas/internal/raft.js';
import { TransactionLogKey, TransactionLogValue } from '../protocol/schemas/internal/transaction-coordinator.js';
import { ByteReader, VarintError } from '../bytes/varint.js';
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

function fail(what: string, e: unknown): never {
  const at = e instanceof KafkaliteError && e.position !== undefined ? ` at value byte ${e.position}` : '';
  const why = e instanceof KafkaliteError ? e.detail : (e as Error).message;
  throw new InvalidRecordError(`Cannot decode ${what}${at}: ${why}`, { cause: e });
}

/** int16 version, then the message at that version (the coordinator records' framing). */
function versioned(schema: MessageSchema, bytes: Buffer, what: string): { version: number; value: { [k: string]: unknown } } {
  if (bytes.length < 2) fail(what, new Error(`${bytes.length} bytes, no int16 version`));
  const version = bytes.readInt16BE(0);
  try {
    return { version, value: decodeMessage(schema, version, bytes, 2).value };
  } catch (e) {
    return fail(`${what} (${schema.name} v${version})`, e);
  }
}

// ---- __consumer_offsets -------------------------------------------------------------------------

/** Consumer-protocol bytes (int16 version + message) as JSON, or undefined when they do not decode. */
function consumerProtocolJson(bytes: unknown, schema: MessageSchema): unknown {
  if (!(bytes instanceof Uint8Array) || bytes.length < 2) return undefined;
  try {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const version = buf.readInt16BE(0);
    return messageJson(schema, version, decodeMessage(schema, version, buf, 2).value);
  } catch {
    return undefined; // not the consumer protocol after all: the bytes stay (base64)
  }
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
  if (key === null) fail('__consumer_offsets key', new Error('null key'));
  if (key.length < 2) fail('__consumer_offsets key', new Error(`${key.length} bytes, no int16 version`));
  const keyVersion = key.readInt16BE(0);
  const isOffsetCommit = keyVersion === 0 || keyVersion === 1;
  if (!isOffsetCommit && keyVersion !== 2) fail('__consumer_offsets key', new Error(`unknown key version ${keyVersion}`));
  const k = versioned(isOffsetCommit ? OffsetCommitKey : GroupMetadataKey, key, '__consumer_offsets key');
  const keyJson = { type: String(keyVersion), data: messageJson(isOffsetCommit ? OffsetCommitKey : GroupMetadataKey, keyVersion, k.value) };
  const out: Decoded = { key: toJson(keyJson), keyJson };
  if (value === null) return { ...out, payload: DELETE, payloadJson: DELETE };
  const schema = isOffsetCommit ? OffsetCommitValue : GroupMetadataValue;
  const v = versioned(schema, value, '__consumer_offsets value');
  const data = isOffsetCommit ? messageJson(OffsetCommitValue, v.version, v.value) : groupMetadataJson(v.version, v.value);
  const payloadJson = { version: String(v.version), data };
  return { ...out, payload: toJson(payloadJson), payloadJson };
}

// ---- __transaction_state ----------------------------------------------------------------------

/** TransactionState ids (`TransactionState.java`), as TransactionMetadata prints them. */
const TRANSACTION_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

function decodeTransactionLogRecord(key: Buffer | null, value: Buffer | null): Decoded {
  if (key === null) fail('__transaction_state key', new Error('null key'));
  const k = versioned(TransactionLogKey, key, '__transaction_state key');
  const out: Decoded = { key: `transaction_metadata::transactionalId=${k.value.transactionalId as string}` };
  out.keyJson = out.key;
  if (value === null) return { ...out, payload: DELETE, payloadJson: DELETE };
  const { value: v } = versioned(TransactionLogValue, value, '__transaction_state value');
  const status = v.transactionStatus as number;
  const state = TRANSACTION_STATES[status];
  if (state === undefined) fail('__transaction_state value', new Error(`unknown transaction status ${status}`));
  const partitions = ((v.transactionPartitions as { topic: string; partitionIds: number[] }[] | null) ?? []).flatMap((t) =>
    t.partitionIds.map((p) => `${t.topic}-${p}`),
  );
  const payload =
    `producerId:${v.producerId as bigint},producerEpoch:${v.producerEpoch as number},state=${state},` +
    `partitions=[${partitions.join(',')}],txnLastUpdateTimestamp=${v.transactionLastUpdateTimestampMs as bigint},` +
    `txnTimeoutMs=${v.transactionTimeoutMs as number}`;
  return { ...out, payload, payloadJson: payload };
}

// ---- __cluster_metadata -----------------------------------------------------------------------

/** MetadataRecordType's constant name: the record name in UPPER_SNAKE (`FeatureLevelRecord` → `FEATURE_LEVEL_RECORD`). */
export function metadataRecordTypeName(schema: MessageSchema): string {
  return schema.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function decodeClusterMetadataRecord(_key: Buffer | null, value: Buffer | null): Decoded {
  if (value === null) fail('__cluster_metadata value', new Error('null value'));
  const r = new ByteReader(value, 0, value.length);
  let frameVersion: number;
  let apiKey: number;
  let version: number;
  try {
    frameVersion = r.readUnsignedVarint();
    apiKey = r.readUnsignedVarint();
    version = r.readUnsignedVarint();
  } catch (e) {
    return fail('__cluster_metadata record frame', e instanceof VarintError ? new KafkaliteError('INVALID_RECORD', e.message, { position: e.position }) : e);
  }
  // MetadataRecordSerde.DEFAULT_FRAME_VERSION
  if (frameVersion !== 1) fail('__cluster_metadata record frame', new Error(`unknown frame version ${frameVersion}`));
  const schema = METADATA_RECORD_SCHEMAS.get(apiKey);
  if (schema === undefined) fail('__cluster_metadata record', new Error(`unknown metadata record type ${apiKey}`));
  let data;
  try {
    data = decodeMessage(schema, version, value, r.pos).value as { [k: string]: unknown };
  } catch (e) {
    return fail(`__cluster_metadata ${schema.name} v${version}`, e);
  }
  const payloadJson = { type: metadataRecordTypeName(schema), version, data: messageJson(schema, version, data) };
  return { payload: toJson(payloadJson), payloadJson };
}

// ---- KRaft control records ---------------------------------------------------------------------

/** The control record types with a schema, and the names DumpLogSegments prints before their JSON. */
const KRAFT_CONTROL: { [type: string]: [label: string, schema: MessageSchema] } = {
  SNAPSHOT_HEADER: ['SnapshotHeader', SnapshotHeaderRecord],
  SNAPSHOT_FOOTER: ['SnapshotFooter', SnapshotFooterRecord],
  KRAFT_VERSION: ['KRaftVersion', KRaftVersionRecord],
  KRAFT_VOTERS: ['KRaftVoters', VotersRecord],
};

/**
 * A KRaft control record's value (`ControlRecordUtils`: the message read at the schema's current
 * version) as its label and JSON, or undefined for types without one (transaction markers,
 * LEADER_CHANGE, unknown).
 */
export function kraftControlJson(type: string, value: Buffer | null): { label: string; json: { [k: string]: unknown } } | undefined {
  const entry = KRAFT_CONTROL[type];
  if (entry === undefined) return undefined;
  const [label, schema] = entry;
  const version = schema.validVersions[1];
  try {
    return { label, json: messageJson(schema, version, decodeMessage(schema, version, value ?? Buffer.alloc(0), 0).value) };
  } catch (e) {
    return fail(`${schema.name} control record value`, e);
  }
}

const DECODERS: { [d in InternalDecoder]: (key: Buffer | null, value: Buffer | null) => Decoded } = {
  offsets: decodeOffsetsRecord,
  'transaction-log': decodeTransactionLogRecord,
  'cluster-metadata': decodeClusterMetadataRecord,
};

export function decodeInternalRecord(decoder: InternalDecoder, key: Buffer | null, value: Buffer | null): Decoded {
  return DECODERS[decoder](key, value);
}
