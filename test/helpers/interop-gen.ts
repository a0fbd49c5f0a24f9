/**
 * Randomized record batches for the interop tests (fast-check arbitraries), plus the plain-data
 * expectations they imply. Inputs are drawn with `fc.sample` under a fixed seed, so a run is
 * reproducible: every failure message carries the seed and the case index.
 *
 * Seed: KAFKALITE_INTEROP_SEED (an integer) overrides the default.
 */
import fc from 'fast-check';
import type { RecordBatchOptions } from '../../src/record/index.js';

export const DEFAULT_SEED = 20240611;
export const SEED = process.env.KAFKALITE_INTEROP_SEED ? Number(process.env.KAFKALITE_INTEROP_SEED) : DEFAULT_SEED;

export type CodecName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const CODECS: readonly CodecName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
export const CODEC_IDS: Record<CodecName, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

export type GenBytes = Uint8Array | string | null;

export interface GenHeader {
  key: string;
  value: GenBytes;
}

export interface GenRecord {
  offsetDelta: number;
  timestamp: bigint;
  key: GenBytes;
  value: GenBytes;
  headers: GenHeader[];
}

export interface GenBatch {
  baseOffset: bigint;
  partitionLeaderEpoch: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
  timestampType: 'CreateTime' | 'LogAppendTime';
  logAppendTime: bigint;
  records: GenRecord[];
}

const INT64_MAX = (1n << 63n) - 1n;
const INT32_MAX = 0x7fffffff;

/** Short, repetitive payloads: make sure the codecs actually get something to compress. */
const compressible = fc
  .tuple(fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.integer({ min: 2, max: 120 }))
  .map(([unit, n]) => {
    const out = new Uint8Array(unit.length * n);
    for (let i = 0; i < n; i++) out.set(unit, i * unit.length);
    return out;
  });

export function bytesArb(maxLength: number): fc.Arbitrary<GenBytes> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: Math.min(64, maxLength) }) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: Math.min(64, maxLength), maxLength }) },
    { weight: 4, arbitrary: compressible },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  );
}

export const headerKeyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary-ascii', maxLength: 10 }),
);

export const headersArb: fc.Arbitrary<GenHeader[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<GenHeader[]>([]) },
  { weight: 2, arbitrary: fc.array(fc.record({ key: headerKeyArb, value: bytesArb(48) }), { minLength: 1, maxLength: 5 }) },
);

type TsMode = 'now' | 'full' | 'small';
function timestampArb(mode: TsMode): fc.Arbitrary<bigint> {
  switch (mode) {
    case 'now':
      return fc.bigInt(1_500_000_000_000n, 1_800_000_000_000n);
    case 'full': // any pair's difference still fits an int64
      return fc.oneof(fc.bigInt(0n, INT64_MAX), fc.constantFrom(0n, INT64_MAX, 1n << 53n, (1n << 53n) + 1n));
    case 'small': // includes NO_TIMESTAMP (-1)
      return fc.oneof(fc.constant(-1n), fc.bigInt(0n, 1n << 40n));
  }
}

const gapArb = fc.oneof({ weight: 12, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 1000 }) });

export interface BatchArbOptions {
  maxRecords?: number;
  maxValueLength?: number;
  /** Allow LogAppendTime batches (kafka-python's builder only writes CreateTime). */
  logAppendTime?: boolean;
  /** Allow offset-delta gaps and a first delta above 0 (as compaction leaves them). */
  gaps?: boolean;
  /** Allow producer ids / transactional batches. */
  producer?: boolean;
  /** Values from this arbitrary instead of the default mix. */
  valueArb?: fc.Arbitrary<GenBytes>;
}

/**
 * Big values (up to ~300 KB), mostly compressible: batches well past lz4's 64 KiB blocks and
 * snappy-java's 32 KiB chunks, so multi-block framing is exercised.
 */
export const bigValueArb: fc.Arbitrary<GenBytes> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 500, max: 5000 })).map(([unit, n]) => Buffer.concat(Array.from({ length: n }, () => unit))) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1000, maxLength: 70_000 }) },
  { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ minLength: 100, maxLength: 5000 }), fc.integer({ min: 2, max: 40 })).map(([unit, n]) => Buffer.concat(Array.from({ length: n }, () => unit))) },
  { weight: 1, arbitrary: fc.constant(null) },
);

export function batchArb(options: BatchArbOptions = {}): fc.Arbitrary<GenBatch> {
  const maxRecords = options.maxRecords ?? 200;
  const maxValue = options.maxValueLength ?? 1024;
  const countArb = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: maxRecords }));
  const bodyArb = fc.record({ key: bytesArb(64), value: options.valueArb ?? bytesArb(maxValue), headers: headersArb });
  const producerArb = options.producer === false
    ? fc.constant({ producerId: -1n, producerEpoch: -1, baseSequence: -1, transactional: false })
    : fc.oneof(
        fc.constant({ producerId: -1n, producerEpoch: -1, baseSequence: -1, transactional: false }),
        fc.record({
          producerId: fc.oneof(fc.bigInt(0n, 1000n), fc.bigInt(0n, INT64_MAX)),
          producerEpoch: fc.integer({ min: 0, max: 32767 }),
          baseSequence: fc.oneof(fc.integer({ min: 0, max: INT32_MAX }), fc.integer({ min: INT32_MAX - 300, max: INT32_MAX })),
          transactional: fc.boolean(),
        }),
      );
  return fc
    .record({
      count: countArb,
      tsMode: fc.constantFrom<TsMode>('now', 'full', 'small'),
      baseOffset: fc.oneof(fc.constant(0n), fc.bigInt(0n, 1n << 62n)),
      partitionLeaderEpoch: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: INT32_MAX })),
      producer: producerArb,
      timestampType: options.logAppendTime
        ? fc.oneof({ weight: 4, arbitrary: fc.constant('CreateTime' as const) }, { weight: 1, arbitrary: fc.constant('LogAppendTime' as const) })
        : fc.constant('CreateTime' as const),
      logAppendTime: fc.bigInt(0n, 1n << 50n),
    })
    .chain((h) =>
      fc
        .array(fc.tuple(bodyArb, options.gaps === false ? fc.constant(1) : gapArb, timestampArb(h.tsMode)), {
          minLength: h.count,
          maxLength: h.count,
        })
        .map((rows): GenBatch => {
          let delta = -1;
          const records = rows.map(([body, gap, timestamp]) => {
            delta += gap;
            return { offsetDelta: delta, timestamp, key: body.key, value: body.value, headers: body.headers };
          });
          return {
            baseOffset: h.baseOffset,
            partitionLeaderEpoch: h.partitionLeaderEpoch,
            ...h.producer,
            timestampType: h.timestampType,
            logAppendTime: h.logAppendTime,
            records,
          };
        }),
    );
}

/** Draw `n` batches with the given seed. */
export function sampleBatches(n: number, seed: number, options?: BatchArbOptions): GenBatch[] {
  return fc.sample(batchArb(options), { seed, numRuns: n });
}

/** The bytes a generated key/value/header value stands for (strings are UTF-8). */
export function bytesOf(v: GenBytes): Buffer | null {
  if (v === null) return null;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function hexOf(v: GenBytes): string | null {
  const b = bytesOf(v);
  return b === null ? null : b.toString('hex');
}

/** Kafka's `incrementSequence`, written out independently of src/. */
export function expectedSequence(baseSequence: number, offsetDelta: number): number {
  if (baseSequence < 0) return -1;
  const sum = baseSequence + offsetDelta;
  return sum > INT32_MAX ? sum - INT32_MAX - 1 : sum;
}

export function maxTimestampOf(records: readonly { timestamp: bigint }[]): bigint {
  let max = -1n;
  for (const r of records) if (r.timestamp > max) max = r.timestamp;
  return max;
}

/** JSON-safe form of a batch for the Python side (bytes as hex, int64s as strings). */
export function toWire(b: GenBatch, codec: CodecName): unknown {
  return {
    codec,
    baseOffset: b.baseOffset.toString(),
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    producerId: b.producerId.toString(),
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    transactional: b.transactional,
    records: b.records.map((r) => ({
      offsetDelta: r.offsetDelta,
      timestamp: r.timestamp.toString(),
      key: hexOf(r.key),
      value: hexOf(r.value),
      headers: r.headers.map((h) => [h.key, hexOf(h.value)]),
    })),
  };
}

/** A short description of a batch for failure messages. */
export function describeBatch(b: GenBatch): string {
  return `${b.records.length} records, producerId ${b.producerId}, epoch ${b.producerEpoch}, baseSequence ${b.baseSequence}, transactional ${b.transactional}, ${b.timestampType}`;
}

/** kafkalite encoder options for a generated batch. */
export function optionsOf(b: GenBatch, codec: CodecName): RecordBatchOptions {
  const o: RecordBatchOptions = {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression: codec,
    timestampType: b.timestampType,
    isTransactional: b.transactional,
  };
  if (b.producerId >= 0n) {
    o.producerId = b.producerId;
    o.producerEpoch = b.producerEpoch;
    o.baseSequence = b.baseSequence;
  }
  if (b.timestampType === 'LogAppendTime') o.logAppendTime = b.logAppendTime;
  return o;
}
