/**
 * Typed access to kafkajs 2.2.4's record-batch codec (CJS internals, reached by deep requires).
 * kafkajs is an independent implementation of the v2 batch format, which is what makes it useful
 * as an interop oracle. Only the shapes these tests use are typed.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface KLong {
  toString(): string;
}
interface LongStatic {
  fromString(s: string): KLong;
  fromValue(v: bigint | number | string): KLong;
}
export const Long = require('kafkajs/src/utils/long') as LongStatic;

export interface KEncoder {
  readonly buffer: Buffer;
  size(): number;
}

/** kafkajs record headers: a key maps to one value, or to an array when the key repeats. */
export type KHeaders = { [key: string]: Buffer | Buffer[] };

export interface KRecordInput {
  offsetDelta?: number;
  timestampDelta?: number | KLong;
  key?: Buffer | null;
  value?: Buffer | null;
  headers?: KHeaders;
}
/** `recordBatch/record/v0`: encodes one record (length-prefixed) into an Encoder. */
export const kjsRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: KRecordInput) => KEncoder;

export interface KBatchInput {
  compression?: number;
  firstOffset?: KLong;
  firstTimestamp?: number | KLong;
  maxTimestamp?: number | KLong;
  partitionLeaderEpoch?: number;
  lastOffsetDelta?: number;
  transactional?: boolean;
  producerId?: KLong;
  producerEpoch?: number;
  firstSequence?: number;
  records?: KEncoder[];
}
export const kjsRecordBatch = (
  require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (b: KBatchInput) => Promise<KEncoder> }
).RecordBatch;

export interface KDecodedRecord {
  attributes: number;
  timestamp: string;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: { [key: string]: Buffer | null | (Buffer | null)[] };
  isControlRecord: boolean;
}
export interface KDecodedBatch {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
  records: KDecodedRecord[];
}

const KDecoder = require('kafkajs/src/protocol/decoder') as new (buf: Buffer) => unknown;
const decodeBatchImpl = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (d: unknown) => Promise<KDecodedBatch>;

/** Decode one v2 batch with kafkajs (which does not check the CRC). */
export function kjsDecodeBatch(buf: Buffer): Promise<KDecodedBatch> {
  return decodeBatchImpl(new KDecoder(buf));
}

export const KCompression = (
  require('kafkajs/src/protocol/message/compression') as { Types: { None: 0; GZIP: 1; Snappy: 2; LZ4: 3; ZSTD: 4 } }
).Types;

export const KTimestampTypes = require('kafkajs/src/protocol/timestampTypes') as {
  CREATE_TIME: number;
  LOG_APPEND_TIME: number;
};

export interface KProduceMessage {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  headers?: KHeaders;
  timestamp?: number;
}
interface KProduceRequestV3 {
  encode(): Promise<KEncoder>;
}
/** kafkajs's Produce v3 request builder: the path its producer really uses to make batches. */
export const kjsProduceV3 = require('kafkajs/src/protocol/requests/produce/v3/request') as (args: {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: KLong;
  producerEpoch?: number;
  compression?: number;
  topicData: { topic: string; partitions: { partition: number; firstSequence?: number; messages: KProduceMessage[] }[] }[];
}) => KProduceRequestV3;

/** The header list kafkajs writes for a headers object: Object.keys order, arrays flattened. */
export function flattenKHeaders(headers: KHeaders): { key: string; value: Buffer }[] {
  return Object.keys(headers).flatMap((key) => {
    const v = headers[key]!;
    return Array.isArray(v) ? v.map((value) => ({ key, value })) : [{ key, value: v }];
  });
}

/** The headers object kafkajs's decoder builds from a header list (same reduce as kafkajs). */
export function groupAsKafkajs(list: readonly { key: string; value: Buffer | null }[]): KDecodedRecord['headers'] {
  const out: KDecodedRecord['headers'] = {};
  for (const { key, value } of list) {
    const prev = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/**
 * kafkajs ships only gzip; snappy and zstd come from plug-in packages (kafkajs-snappy,
 * @kafkajs/zstd). These stand-ins do what those plug-ins do, on the `snappy` and `zstd-napi` packages
 * directly (none of kafkalite's code): snappy writes one raw block and reads raw or xerial-framed
 * input (as kafkajs-snappy), zstd writes/reads one standard frame. No new package is installed.
 */
interface KCodec {
  compress(encoder: KEncoder): Promise<Buffer>;
  decompress(buf: Buffer): Promise<Buffer>;
}
const kCodecs = (require('kafkajs/src/protocol/message/compression') as { Codecs: { [id: number]: () => KCodec } }).Codecs;

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

export function registerKafkajsSnappyAndZstd(): void {
  const snappy = require('snappy') as { compressSync(b: Buffer): Buffer; uncompressSync(b: Buffer, o: { asBuffer: true }): Buffer };
  const zstd = require('zstd-napi') as { compress(b: Uint8Array): Buffer; decompress(b: Uint8Array): Buffer };
  const snappyCodec: KCodec = {
    compress: async (enc) => snappy.compressSync(enc.buffer),
    decompress: async (buf) => {
      if (buf.length < 16 || !buf.subarray(0, 8).equals(XERIAL_MAGIC)) return snappy.uncompressSync(buf, { asBuffer: true });
      const chunks: Buffer[] = [];
      for (let pos = 16; pos < buf.length; ) {
        const n = buf.readInt32BE(pos);
        chunks.push(snappy.uncompressSync(buf.subarray(pos + 4, pos + 4 + n), { asBuffer: true }));
        pos += 4 + n;
      }
      return Buffer.concat(chunks);
    },
  };
  const zstdCodec: KCodec = {
    compress: async (enc) => zstd.compress(enc.buffer),
    decompress: async (buf) => zstd.decompress(buf),
  };
  kCodecs[KCompression.Snappy] = () => snappyCodec;
  kCodecs[KCompression.ZSTD] = () => zstdCodec;
}
