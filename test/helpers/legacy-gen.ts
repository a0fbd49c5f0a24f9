/**
 * Randomized legacy message sets (magic 0 and 1) for the interop, conversion and dump-log tests,
 * plus the expectations they imply, written from Kafka's `LegacyRecord` / `AbstractLegacyRecordBatch` rules (never from src/).
 *
 * Inputs are drawn with `fc.sample` under a fixed seed (helpers/interop-gen.ts SEED), so a run is
 * reproducible; failure messages carry the seed and the case index.
 */
import fc from 'fast-check';
import type { LegacyRecordBatch } from '../../src/index.js';
import { bytesArb, type GenBytes, hexOf } from './interop-gen.js';
import { hex } from './python-peer.js';

export type LegacyCodec = 'none' | 'gzip' | 'snappy' | 'lz4';
export const LEGACY_CODECS: readonly LegacyCodec[] = ['none', 'gzip', 'snappy', 'lz4'];
export const LEGACY_CODEC_IDS: Record<LegacyCodec, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3 };

export interface LegacyGenRecord {
  offsetDelta: number;
  /** Ignored (written as -1) under magic 0. Never below -1. */
  timestamp: bigint;
  key: GenBytes;
  value: GenBytes;
}

export interface LegacyCase {
  magic: 0 | 1;
  codec: LegacyCodec;
  baseOffset: bigint;
  /** Magic 1 only: the broker's LogAppendTime (null = CreateTime). */
  logAppendTime: bigint | null;
  records: LegacyGenRecord[];
}

export interface LegacyArbOptions {
  magic: 0 | 1;
  codec: LegacyCodec;
  maxRecords?: number;
  maxValueLength?: number;
  /** Allow LogAppendTime (magic 1 only). */
  logAppendTime?: boolean;
  /** Allow offset gaps (compaction leaves them). */
  gaps?: boolean;
  /**
   * Timestamps whose pairwise differences fit an int64 (for tests that up-convert to v2, where
   * kafka-python does not wrap the timestamp delta as Java does).
   */
  deltaSafeTimestamps?: boolean;
}

const deltaSafeTimestampArb: fc.Arbitrary<bigint> = fc.oneof(
  fc.constant(-1n),
  fc.bigInt(1_500_000_000_000n, 1_800_000_000_000n),
  fc.bigInt(0n, 1n << 62n),
  fc.constantFrom(0n, 1n << 62n, 1n << 53n),
);

const timestampArb: fc.Arbitrary<bigint> = fc.oneof(
  fc.constant(-1n),
  fc.bigInt(1_500_000_000_000n, 1_800_000_000_000n),
  fc.bigInt(0n, (1n << 63n) - 1n),
  fc.constantFrom(0n, (1n << 63n) - 1n, 1n << 53n),
);

export function legacyCaseArb(o: LegacyArbOptions): fc.Arbitrary<LegacyCase> {
  const maxRecords = o.maxRecords ?? 100;
  const gap = o.gaps === false ? fc.constant(1) : fc.oneof({ weight: 15, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 50 }) });
  const row = fc.record({ key: bytesArb(48), value: bytesArb(o.maxValueLength ?? 300), timestamp: o.deltaSafeTimestamps ? deltaSafeTimestampArb : timestampArb, gap });
  return fc
    .record({
      n: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: maxRecords })),
      baseOffset: fc.oneof(fc.constant(0n), fc.bigInt(0n, 1n << 40n), fc.bigInt(0n, 1n << 62n)),
      lat:
        o.magic === 1 && o.logAppendTime
          ? fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.bigInt(0n, 1n << 50n) })
          : fc.constant(null),
    })
    .chain((h) =>
      fc.array(row, { minLength: h.n, maxLength: h.n }).map((rows): LegacyCase => {
        let delta = -1;
        return {
          magic: o.magic,
          codec: o.codec,
          baseOffset: h.baseOffset,
          logAppendTime: h.lat,
          records: rows.map((r) => {
            delta += r.gap;
            return { offsetDelta: delta, timestamp: r.timestamp, key: r.key, value: r.value };
          }),
        };
      }),
    );
}

export function sampleLegacy(n: number, seed: number, o: LegacyArbOptions): LegacyCase[] {
  return fc.sample(legacyCaseArb(o), { seed, numRuns: n });
}

/** JSON form for kp_legacy_build.py. */
export function legacyToWire(c: LegacyCase): unknown {
  return {
    magic: c.magic,
    codec: c.codec,
    baseOffset: c.baseOffset.toString(),
    logAppendTime: c.logAppendTime === null ? null : c.logAppendTime.toString(),
    records: c.records.map((r) => ({
      offsetDelta: r.offsetDelta,
      timestamp: r.timestamp.toString(),
      key: hexOf(r.key),
      value: hexOf(r.value),
    })),
  };
}

export type LegacyTsType = 'NoTimestampType' | 'CreateTime' | 'LogAppendTime';

export function tsTypeOf(c: LegacyCase): LegacyTsType {
  if (c.magic === 0) return 'NoTimestampType';
  return c.logAppendTime === null ? 'CreateTime' : 'LogAppendTime';
}

/** The records any reader must report (`AbstractLegacyRecordBatch`'s deep iterator): absolute offsets, inherited timestamps. */
export function expectedLegacyRecords(c: LegacyCase) {
  const type = tsTypeOf(c);
  return c.records.map((r) => ({
    offset: c.baseOffset + BigInt(r.offsetDelta),
    timestamp: c.magic === 0 ? -1n : c.logAppendTime ?? r.timestamp,
    timestampType: type,
    key: hexOf(r.key),
    value: hexOf(r.value),
  }));
}

export function describeLegacy(c: LegacyCase): string {
  return `magic ${c.magic}, ${c.codec}, ${c.records.length} records, baseOffset ${c.baseOffset}, ${tsTypeOf(c)}`;
}

// ---- kafka-python's decode (kp_legacy_decode.py) ----------------------------------------------

export interface KpLegacyRecord {
  offset: string;
  timestamp: string;
  timestampType: number | null;
  key: string | null;
  value: string | null;
  crc: number;
  crcValid: boolean;
}

export interface KpLegacyBatch {
  kind: 'legacy';
  position: number;
  size: number;
  magic: number;
  offset: string;
  crc: number;
  crcValid: boolean;
  attributes: number;
  compressionType: number;
  timestamp: string;
  timestampType: number | null;
  lz4: { stored: number; correct: number; broken: number } | null;
  records: KpLegacyRecord[];
}

export interface KpV2Batch {
  kind: 'v2';
  position: number;
  size: number;
  ok: boolean;
  crcValid: boolean;
  header: {
    baseOffset: string;
    partitionLeaderEpoch: number;
    magic: number;
    crc: number;
    attributes: number;
    compressionType: number;
    timestampType: number;
    isTransactional: boolean;
    isControl: boolean;
    lastOffsetDelta: number;
    firstTimestamp: string;
    maxTimestamp: string;
    producerId: string;
    producerEpoch: number;
    baseSequence: number;
    count: number;
  };
  records: { offset: string; timestamp: string; timestampType: number; key: string | null; value: string | null; headers: [string, string | null][] }[];
}

export type KpStream = { ok: true; validBytes: number; batches: (KpLegacyBatch | KpV2Batch)[] } | { ok: false; error: string };

/** kafka-python's timestamp type number as Kafka's name (null = magic 0). */
export function kpTsType(t: number | null): LegacyTsType {
  return t === null ? 'NoTimestampType' : t === 1 ? 'LogAppendTime' : 'CreateTime';
}

export const CODEC_NAME_OF = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** kafkalite's view of a legacy batch, as plain data. */
export function kafkaliteLegacyView(b: LegacyRecordBatch) {
  return {
    magic: b.magic,
    lastOffset: b.lastOffset,
    compressionType: b.compressionType,
    timestampType: b.timestampType,
    maxTimestamp: b.maxTimestamp,
    crc: b.crc,
    isValid: b.isValid(),
    records: b.records().map((r) => ({
      offset: r.offset,
      timestamp: r.timestamp,
      timestampType: r.timestampType,
      key: hex(r.key),
      value: hex(r.value),
      crc: r.crc,
      isValid: r.isValid(),
    })),
  };
}

/** kafka-python's view of the same batch, in kafkalite's vocabulary. */
export function kpLegacyView(k: KpLegacyBatch) {
  return {
    magic: k.magic,
    lastOffset: BigInt(k.offset),
    compressionType: k.compressionType,
    timestampType: kpTsType(k.timestampType),
    maxTimestamp: BigInt(k.timestamp),
    crc: k.crc,
    isValid: k.crcValid,
    records: k.records.map((r) => ({
      offset: BigInt(r.offset),
      timestamp: BigInt(r.timestamp),
      timestampType: kpTsType(r.timestampType),
      key: r.key,
      value: r.value,
      crc: r.crc,
      isValid: r.crcValid,
    })),
  };
}

