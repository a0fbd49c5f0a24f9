/**
 * Interop with kafkajs 2.2.4, an independent implementation of record batch v2.
 *
 *  - kafkajs encodes (none, gzip) -> kafkalite decodes, CRC verified, every field equal to the input;
 *  - kafkalite encodes (none, gzip) -> kafkajs decodes, every field equal to the input;
 *  - byte identity of uncompressed batches, where it must hold, and the documented places where the
 *    two writers legitimately (or, for kafkajs, buggily) differ.
 *
 * kafkajs limits the generated inputs in a few ways (all kafkajs properties, not kafkalite's):
 *  - it cannot encode a null header value (`Buffer.byteLength(null)` throws in its size computation);
 *  - its encoder takes headers as an object, so the header order it writes is `Object.keys` order
 *    (integer-like keys first) and repeated keys are grouped;
 *  - its decoder folds headers into a plain object with `obj[key] === undefined`, so a header key that
 *    names an `Object.prototype` member (`constructor`, `__proto__`, `toString`...) decodes wrongly:
 *    such keys are left out of the generated headers;
 *  - it never writes the control or LogAppendTime bits, and it does not verify CRCs when decoding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CompressionType,
  encodeRecordBatch,
  readRecordBatches,
  type HeaderInput,
  type Record as KlRecord,
  type RecordBatch,
  type RecordBatchOptions,
  type RecordInput,
} from '../../src/record/index.js';
import {
  flattenKHeaders,
  groupAsKafkajs,
  KCompression,
  kjsDecodeBatch,
  kjsProduceV3,
  kjsRecord,
  kjsRecordBatch,
  KTimestampTypes,
  Long,
  registerKafkajsSnappyAndZstd,
  type KHeaders,
} from '../helpers/kafkajs.js';
import { parseProduceRequest } from '../helpers/protocol.js';
import { v2 } from '../helpers/v2.js';
import { tierCount } from '../helpers/tier.js';

/**
 * Runs per property (KAFKALITE_FC_RUNS; 200, and 60 in the unit tier, test/tiers.ts); KAFKALITE_FC_SEED
 * replays a failure fast-check reported.
 */
const NUM_RUNS = Number(process.env.KAFKALITE_FC_RUNS ?? tierCount(200, 60));
const HALF_RUNS = Math.max(20, NUM_RUNS / 2);
const QUARTER_RUNS = Math.max(20, NUM_RUNS / 4);
const SEED = process.env.KAFKALITE_FC_SEED === undefined ? {} : { seed: Number(process.env.KAFKALITE_FC_SEED) };
const INT32_MAX = 0x7fffffff;
const INT64_MAX = (1n << 63n) - 1n;

// ---------------------------------------------------------------------------------------------
// arbitraries

const bytes = (maxLength = 48) => fc.uint8Array({ maxLength }).map((u) => Buffer.from(u));
const nullableBytes = fc.option(bytes(), { nil: null, freq: 5 });
/** Full-Unicode header keys (valid scalar values only, so UTF-8 round-trips), minus kafkajs's blind spot. */
const headerKey = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 10 }), fc.constantFrom('0', '7', '42', 'a', 'b', 'trace-id'))
  .filter((k) => !(k in Object.prototype));
const kHeaders: fc.Arbitrary<KHeaders> = fc.dictionary(
  headerKey,
  fc.oneof(bytes(16), fc.array(bytes(16), { minLength: 1, maxLength: 3 })),
  { maxKeys: 4, noNullPrototype: true },
);
const klHeaders: fc.Arbitrary<HeaderInput[]> = fc.array(
  fc.record({ key: headerKey, value: fc.option(bytes(16), { nil: null, freq: 4 }) }),
  { maxLength: 5 },
);
/** Offset deltas: strictly increasing from 0, with gaps (as compaction leaves them). */
const offsetGap = fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 1000 }) });
const int64Id = fc.bigInt({ min: 0n, max: INT64_MAX });
const baseOffsetArb = fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 1n << 62n }));
/** Realistic epoch-ms timestamps up to year ~3000, plus small ones. */
const timestampArb = fc.oneof(fc.bigInt({ min: 0n, max: 1n << 45n }), fc.bigInt({ min: 0n, max: 5000n }));
type Codec = 'none' | 'gzip' | 'snappy' | 'zstd';
const compressionArb = fc.constantFrom<Codec>('none', 'gzip');
const K_CODEC = { none: KCompression.None, gzip: KCompression.GZIP, snappy: KCompression.Snappy, zstd: KCompression.ZSTD };
const kCodec = (c: Codec) => K_CODEC[c];

/** Producer fields kafkalite's encoder accepts (Kafka's `validateProducerState`). */
const producerArb = fc.oneof(
  fc.record({
    producerId: fc.constant(-1n),
    producerEpoch: fc.constant(-1),
    baseSequence: fc.constant(-1),
    isTransactional: fc.constant(false),
  }),
  fc.record({
    producerId: int64Id,
    producerEpoch: fc.integer({ min: 0, max: 32767 }),
    baseSequence: fc.integer({ min: 0, max: INT32_MAX }),
    isTransactional: fc.boolean(),
  }),
);

// ---------------------------------------------------------------------------------------------
// helpers

function onlyBatch(buf: Buffer): RecordBatch {
  const reader = readRecordBatches(buf); // verifies each batch's CRC as it is yielded
  const batches = [...reader];
  assert.equal(batches.length, 1, 'exactly one batch');
  assert.equal(reader.incompleteBytes, 0);
  const batch = batches[0]!;
  assert.equal(batch.sizeInBytes, buf.length);
  assert.equal(batch.magic, 2);
  assert.ok(batch.isValid(), 'CRC-32C valid');
  assert.equal(batch.computeChecksum(), batch.crc);
  return v2(batch);
}

function viewOf(r: KlRecord) {
  return {
    offset: r.offset,
    offsetDelta: r.offsetDelta,
    timestamp: r.timestamp,
    key: r.key,
    value: r.value,
    headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
  };
}

const big = (x: bigint | number) => BigInt(x);
const bmax = (xs: readonly bigint[]) => xs.reduce((a, b) => (b > a ? b : a), -1n);

// ---------------------------------------------------------------------------------------------

interface KjsBatchSpec {
  compression: Codec;
  firstOffset: bigint;
  firstTimestamp: bigint;
  partitionLeaderEpoch: number;
  transactional: boolean;
  producerId: bigint;
  producerEpoch: number;
  firstSequence: number;
  records: { gap: number; timestampDelta: number; key: Buffer | null; value: Buffer | null; headers: KHeaders }[];
}

const kjsBatchSpec: fc.Arbitrary<KjsBatchSpec> = fc.record({
  compression: compressionArb,
  firstOffset: baseOffsetArb,
  firstTimestamp: timestampArb,
  partitionLeaderEpoch: fc.integer({ min: -1, max: INT32_MAX }),
  transactional: fc.boolean(),
  producerId: fc.oneof(fc.constant(-1n), int64Id),
  producerEpoch: fc.integer({ min: -1, max: 32767 }),
  firstSequence: fc.integer({ min: -1, max: INT32_MAX }),
  records: fc.array(
    fc.record({
      gap: offsetGap,
      timestampDelta: fc.oneof(fc.constant(0), fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 0, max: 2 ** 40 })),
      key: nullableBytes,
      value: nullableBytes,
      headers: kHeaders,
    }),
    { minLength: 1, maxLength: 20 },
  ),
});

function offsetDeltas(gaps: readonly number[]): number[] {
  let d = -1;
  return gaps.map((g, i) => (d = i === 0 ? 0 : d + g));
}

async function encodeWithKafkajs(spec: KjsBatchSpec): Promise<{ buf: Buffer; deltas: number[]; maxTimestamp: bigint }> {
  const deltas = offsetDeltas(spec.records.map((r) => r.gap));
  const maxTimestamp = bmax(spec.records.map((r) => spec.firstTimestamp + big(r.timestampDelta)));
  const enc = await kjsRecordBatch({
    compression: kCodec(spec.compression),
    firstOffset: Long.fromValue(spec.firstOffset),
    firstTimestamp: Long.fromValue(spec.firstTimestamp),
    maxTimestamp: Long.fromValue(maxTimestamp),
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    lastOffsetDelta: deltas[deltas.length - 1]!,
    transactional: spec.transactional,
    producerId: Long.fromValue(spec.producerId),
    producerEpoch: spec.producerEpoch,
    firstSequence: spec.firstSequence,
    records: spec.records.map((r, i) =>
      kjsRecord({ offsetDelta: deltas[i]!, timestampDelta: r.timestampDelta, key: r.key, value: r.value, headers: r.headers }),
    ),
  });
  return { buf: Buffer.from(enc.buffer), deltas, maxTimestamp };
}

async function kafkajsToKafkalite(spec: KjsBatchSpec): Promise<void> {
  const { buf, deltas, maxTimestamp } = await encodeWithKafkajs(spec);
  const batch = onlyBatch(buf);
  assert.equal(batch.baseOffset, spec.firstOffset);
  assert.equal(batch.partitionLeaderEpoch, spec.partitionLeaderEpoch);
  assert.equal(batch.compressionType, CompressionType[spec.compression]);
  assert.equal(batch.attributes, CompressionType[spec.compression] | (spec.transactional ? 0x10 : 0));
  assert.equal(batch.timestampType, 'CreateTime');
  assert.equal(batch.isTransactional, spec.transactional);
  assert.equal(batch.isControl, false);
  assert.equal(batch.hasDeleteHorizon, false);
  assert.equal(batch.lastOffsetDelta, deltas[deltas.length - 1]);
  assert.equal(batch.baseTimestamp, spec.firstTimestamp);
  assert.equal(batch.maxTimestamp, maxTimestamp);
  assert.equal(batch.producerId, spec.producerId);
  assert.equal(batch.producerEpoch, spec.producerEpoch);
  assert.equal(batch.baseSequence, spec.firstSequence);
  assert.equal(batch.recordsCount, spec.records.length);
  const got = batch.records().map(viewOf);
  const want = spec.records.map((r, i) => ({
    offset: spec.firstOffset + big(deltas[i]!),
    offsetDelta: deltas[i]!,
    timestamp: spec.firstTimestamp + big(r.timestampDelta),
    key: r.key,
    value: r.value,
    headers: flattenKHeaders(r.headers),
  }));
  assert.deepStrictEqual(got, want);
}

describe('kafkajs encodes -> kafkalite decodes', () => {
  it(`decodes random kafkajs batches (none, gzip) with valid CRCs and every field equal (${NUM_RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(kjsBatchSpec, kafkajsToKafkalite), { numRuns: NUM_RUNS, ...SEED });
  });
});

// ---------------------------------------------------------------------------------------------

interface KlBatchSpec {
  compression: Codec;
  baseOffset: bigint;
  partitionLeaderEpoch: number;
  logAppendTime: bigint | null;
  isControl: boolean;
  deleteHorizonMs: bigint | null;
  producer: { producerId: bigint; producerEpoch: number; baseSequence: number; isTransactional: boolean };
  records: { gap: number; timestamp: bigint; key: Buffer | null; value: Buffer | null; headers: HeaderInput[] }[];
}

const klBatchSpec: fc.Arbitrary<KlBatchSpec> = fc.record({
  compression: compressionArb,
  baseOffset: baseOffsetArb,
  partitionLeaderEpoch: fc.integer({ min: -1, max: INT32_MAX }),
  logAppendTime: fc.option(timestampArb, { nil: null, freq: 3 }),
  isControl: fc.boolean(),
  deleteHorizonMs: fc.option(timestampArb, { nil: null, freq: 6 }),
  producer: producerArb,
  records: fc.array(
    fc.record({ gap: offsetGap, timestamp: timestampArb, key: nullableBytes, value: nullableBytes, headers: klHeaders }),
    { minLength: 1, maxLength: 20 },
  ),
});

function klOptions(spec: KlBatchSpec): RecordBatchOptions {
  const o: RecordBatchOptions = {
    baseOffset: spec.baseOffset,
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    compression: spec.compression,
    isControl: spec.isControl,
    ...spec.producer,
  };
  if (spec.logAppendTime !== null) {
    o.timestampType = 'LogAppendTime';
    o.logAppendTime = spec.logAppendTime;
  }
  if (spec.deleteHorizonMs !== null) o.deleteHorizonMs = spec.deleteHorizonMs;
  return o;
}

async function kafkaliteToKafkajs(spec: KlBatchSpec): Promise<void> {
  const deltas = offsetDeltas(spec.records.map((r) => r.gap));
  const inputs: RecordInput[] = spec.records.map((r, i) => ({
    offsetDelta: deltas[i]!,
    timestamp: r.timestamp,
    key: r.key,
    value: r.value,
    headers: r.headers,
  }));
  const buf = encodeRecordBatch(inputs, klOptions(spec));
  // kafkalite itself must accept what it wrote
  onlyBatch(buf);

  const decoded = await kjsDecodeBatch(buf);
  const baseTimestamp = spec.deleteHorizonMs ?? spec.records[0]!.timestamp;
  const maxTimestamp = spec.logAppendTime ?? bmax(spec.records.map((r) => r.timestamp));
  assert.equal(decoded.firstOffset, spec.baseOffset.toString());
  assert.equal(decoded.partitionLeaderEpoch, spec.partitionLeaderEpoch);
  assert.equal(decoded.inTransaction, spec.producer.isTransactional);
  assert.equal(decoded.isControlBatch, spec.isControl);
  assert.equal(
    decoded.timestampType,
    spec.logAppendTime === null ? KTimestampTypes.CREATE_TIME : KTimestampTypes.LOG_APPEND_TIME,
  );
  assert.equal(decoded.lastOffsetDelta, deltas[deltas.length - 1]);
  assert.equal(decoded.firstTimestamp, baseTimestamp.toString());
  assert.equal(decoded.maxTimestamp, maxTimestamp.toString());
  assert.equal(decoded.producerId, spec.producer.producerId.toString());
  assert.equal(decoded.producerEpoch, spec.producer.producerEpoch);
  assert.equal(decoded.firstSequence, spec.producer.baseSequence);
  assert.equal(decoded.records.length, spec.records.length);
  const got = decoded.records.map((r) => ({
    attributes: r.attributes,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key,
    value: r.value,
    headers: r.headers,
    isControlRecord: r.isControlRecord,
  }));
  const want = spec.records.map((r, i) => ({
    attributes: 0,
    offset: (spec.baseOffset + big(deltas[i]!)).toString(),
    // Kafka's (and kafkajs's) LogAppendTime rule: every record reports maxTimestamp
    timestamp: (spec.logAppendTime ?? r.timestamp).toString(),
    key: r.key,
    value: r.value,
    headers: groupAsKafkajs(r.headers.map((h) => ({ key: h.key, value: (h.value as Buffer | null | undefined) ?? null }))),
    isControlRecord: spec.isControl,
  }));
  assert.deepStrictEqual(got, want);
}

describe('kafkalite encodes -> kafkajs decodes', () => {
  it(`kafkajs decodes random kafkalite batches (none, gzip) to the input fields (${NUM_RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(klBatchSpec, kafkaliteToKafkajs), { numRuns: NUM_RUNS, ...SEED });
  });
});

describe('snappy and zstd, with stand-in kafkajs codecs (kafkajs itself ships only gzip)', () => {
  registerKafkajsSnappyAndZstd();
  const codec = fc.constantFrom<Codec>('snappy', 'zstd');
  it(`kafkajs encodes snappy (raw block) / zstd -> kafkalite decodes (${HALF_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(kjsBatchSpec, codec, (spec, c) => kafkajsToKafkalite({ ...spec, compression: c })),
      { numRuns: HALF_RUNS, ...SEED },
    );
  });
  it(`kafkalite encodes snappy (xerial) / zstd -> kafkajs decodes (${HALF_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(klBatchSpec, codec, (spec, c) => kafkaliteToKafkajs({ ...spec, compression: c })),
      { numRuns: HALF_RUNS, ...SEED },
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('byte identity of uncompressed batches', () => {
  /**
   * Same inputs, both writers: identical bytes. "Same inputs" means what kafkalite's (Kafka's)
   * builder model can express: baseTimestamp is the first record's timestamp (kafkajs delta 0 for
   * record 0), maxTimestamp the largest record timestamp, timestamps non-negative, producer fields
   * consistent, header values non-null, headers in kafkajs's Object.keys order.
   */
  it(`kafkajs RecordBatch and kafkalite encodeRecordBatch write the same bytes (${NUM_RUNS} runs)`, async () => {
    const spec = fc
      .record({
        base: kjsBatchSpec,
        producer: producerArb,
      })
      .map(({ base, producer }) => ({
        ...base,
        compression: 'none' as const,
        transactional: producer.isTransactional,
        producerId: producer.producerId,
        producerEpoch: producer.producerEpoch,
        firstSequence: producer.baseSequence,
        records: base.records.map((r, i) => ({ ...r, timestampDelta: i === 0 ? 0 : r.timestampDelta })),
      }))
      .filter((s) => s.records.every((r) => s.firstTimestamp + big(r.timestampDelta) >= 0n));
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        const { buf: kjs, deltas } = await encodeWithKafkajs(s);
        const kl = encodeRecordBatch(
          s.records.map((r, i) => ({
            offsetDelta: deltas[i]!,
            timestamp: s.firstTimestamp + big(r.timestampDelta),
            key: r.key,
            value: r.value,
            headers: flattenKHeaders(r.headers),
          })),
          {
            baseOffset: s.firstOffset,
            partitionLeaderEpoch: s.partitionLeaderEpoch,
            compression: 'none',
            isTransactional: s.transactional,
            producerId: s.producerId,
            producerEpoch: s.producerEpoch,
            baseSequence: s.firstSequence,
          },
        );
        assert.deepStrictEqual(kl, kjs);
      }),
      { numRuns: NUM_RUNS, ...SEED },
    );
  });

  /** Extract the one batch kafkajs's Produce v3 request path builds for one partition. */
  async function kafkajsProducerBatch(messages: { key: Buffer | null; value: Buffer | null; headers: KHeaders; timestamp: number }[]) {
    const req = kjsProduceV3({
      acks: -1,
      timeout: 30000,
      topicData: [{ topic: 't', partitions: [{ partition: 0, messages }] }],
    });
    const body = Buffer.from((await req.encode()).buffer);
    const parts = parseProduceRequest(body, 3);
    assert.equal(parts.length, 1);
    return parts[0]!.records!;
  }

  /**
   * The kafkajs *producer* path (Produce v3 request) writes partitionLeaderEpoch 0, producerEpoch 0
   * and baseSequence 0 for a non-idempotent batch where the Java producer (and kafkalite's default)
   * write -1/-1/-1; with those passed explicitly, the bytes are identical as long as the first
   * message carries the smallest timestamp (see the next test for why).
   */
  it(`kafkajs producer path == kafkalite when the first message has the smallest timestamp (${QUARTER_RUNS} runs)`, async () => {
    const msgs = fc
      .array(
        fc.record({ key: nullableBytes, value: nullableBytes, headers: kHeaders, timestamp: fc.integer({ min: 1e12, max: 9e12 }) }),
        { minLength: 1, maxLength: 12 },
      )
      .map((ms) => {
        const min = Math.min(...ms.map((m) => m.timestamp));
        return ms.map((m, i) => (i === 0 ? { ...m, timestamp: min } : m));
      });
    await fc.assert(
      fc.asyncProperty(msgs, async (ms) => {
        const kjs = await kafkajsProducerBatch(ms);
        const kl = encodeRecordBatch(
          ms.map((m) => ({ key: m.key, value: m.value, headers: flattenKHeaders(m.headers), timestamp: m.timestamp })),
          { partitionLeaderEpoch: 0, producerEpoch: 0, baseSequence: 0 },
        );
        assert.deepStrictEqual(kl, kjs);
      }),
      { numRuns: QUARTER_RUNS, ...SEED },
    );
  });

  /**
   * Where the writers differ, and why (both decode to the same records):
   * kafkajs takes baseTimestamp = the smallest message timestamp (deltas >= 0), Kafka's
   * MemoryRecordsBuilder and kafkalite take the first record's timestamp (deltas may be negative).
   */
  it('differs when the first message is not the earliest: baseTimestamp min (kafkajs) vs first (Kafka, kafkalite)', async () => {
    const ms = [
      { key: null, value: Buffer.from('late'), headers: {}, timestamp: 1_700_000_002_000 },
      { key: null, value: Buffer.from('early'), headers: {}, timestamp: 1_700_000_001_000 },
    ];
    const kjs = await kafkajsProducerBatch(ms);
    const kl = encodeRecordBatch(
      ms.map((m) => ({ key: m.key, value: m.value, timestamp: m.timestamp })),
      { partitionLeaderEpoch: 0, producerEpoch: 0, baseSequence: 0 },
    );
    assert.notDeepStrictEqual(kl, kjs);
    const a = onlyBatch(kjs);
    const b = onlyBatch(kl);
    assert.equal(a.baseTimestamp, 1_700_000_001_000n);
    assert.equal(b.baseTimestamp, 1_700_000_002_000n);
    assert.deepEqual(a.records().map((r) => r.timestampDelta), [1000, 0]);
    assert.deepEqual(b.records().map((r) => r.timestampDelta), [0, -1000]);
    assert.equal(a.maxTimestamp, b.maxTimestamp);
    assert.deepStrictEqual(a.records().map(viewOf), b.records().map(viewOf));
    // kafkajs reads kafkalite's negative delta back correctly too
    const viaKjs = await kjsDecodeBatch(kl);
    assert.deepEqual(viaKjs.records.map((r) => r.timestamp), ['1700000002000', '1700000001000']);
  });

  /**
   * A kafkajs bug kafkalite must simply read faithfully: kafkajs's producer sorts timestamps with
   * `Array.prototype.sort()` (string order), so for 999 and 1000 it takes 1000 as the first and 999
   * as the max timestamp. The batch is still valid; its maxTimestamp field is just wrong.
   */
  it('reads a kafkajs batch whose maxTimestamp is wrong (kafkajs sorts timestamps as strings)', async () => {
    const kjs = await kafkajsProducerBatch([
      { key: null, value: Buffer.from('a'), headers: {}, timestamp: 999 },
      { key: null, value: Buffer.from('b'), headers: {}, timestamp: 1000 },
    ]);
    const batch = onlyBatch(kjs);
    assert.equal(batch.baseTimestamp, 1000n);
    assert.equal(batch.maxTimestamp, 999n);
    assert.deepEqual(batch.records().map((r) => r.timestamp), [999n, 1000n]);
  });

  it('gzip batches from both writers decode to the same records (compressed bytes need not match)', async () => {
    const spec: KjsBatchSpec = {
      compression: 'gzip',
      firstOffset: 5n,
      firstTimestamp: 1_600_000_000_000n,
      partitionLeaderEpoch: 3,
      transactional: false,
      producerId: -1n,
      producerEpoch: -1,
      firstSequence: -1,
      records: [0, 1, 2, 3].map((i) => ({
        gap: 1,
        timestampDelta: i * 10,
        key: Buffer.from(`k${i}`),
        value: Buffer.alloc(200, i),
        headers: { h: Buffer.from([i]) },
      })),
    };
    const { buf: kjs } = await encodeWithKafkajs(spec);
    const kl = encodeRecordBatch(
      spec.records.map((r) => ({
        key: r.key,
        value: r.value,
        headers: flattenKHeaders(r.headers),
        timestamp: spec.firstTimestamp + big(r.timestampDelta),
      })),
      { baseOffset: 5n, partitionLeaderEpoch: 3, compression: 'gzip' },
    );
    const a = onlyBatch(kjs);
    const b = onlyBatch(kl);
    assert.equal(a.compression, 'gzip');
    assert.equal(b.compression, 'gzip');
    assert.deepStrictEqual(a.records().map(viewOf), b.records().map(viewOf));
    // the 61-byte headers differ only by length and CRC (and compressed bytes may differ)
  });
});
