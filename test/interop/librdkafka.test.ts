/**
 * Interop with librdkafka (Debian python3-confluent-kafka over librdkafka 2.0.2), the C client
 * most non-Java Kafka clients wrap, through its built-in mock cluster (`test.mock.num.brokers`).
 *
 * librdkafka → kafkalite: a confluent_kafka.Producer writes known messages in every codec (plain,
 * idempotent, transactional); the raw record bytes are fetched back with a Fetch v4 request over
 * a plain socket (kafka-python's protocol classes) and decoded with kafkalite.
 *
 * kafkalite → librdkafka: kafkalite-encoded batches are sent in raw Produce v3 requests to the mock
 * cluster, then read with a confluent_kafka.Consumer (with `check.crcs`).
 *
 * The mock broker keeps produced batches as received (it only assigns the base offset), so what
 * Fetch returns is librdkafka's own encoding, and what the consumer reads is kafkalite's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { encodeEndTransactionMarker, encodeRecordBatch, parseEndTransactionMarker, readRecordBatches, type RecordBatch } from '../../src/record/index.js';
import {
  CODECS,
  type CodecName,
  describeBatch,
  type GenBatch,
  type GenBytes,
  headerKeyArb,
  hexOf,
  maxTimestampOf,
  optionsOf,
  sampleBatches,
  SEED,
} from '../helpers/interop-gen.js';
import { hex, runPython } from '../helpers/python-peer.js';
import { v2 } from '../helpers/v2.js';

// ---------------------------------------------------------------------------------------------
// librdkafka writes, kafkalite reads
// ---------------------------------------------------------------------------------------------

interface Message {
  key: GenBytes;
  value: GenBytes;
  /** null: produced without a headers argument. */
  headers: { key: string; value: GenBytes }[] | null;
  timestamp: bigint;
}

/** confluent_kafka hands header names to librdkafka as C strings: a NUL would cut them short. */
const rdHeaderKeyArb = headerKeyArb.filter((k) => !k.includes('\0'));

const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';

const messageArb: fc.Arbitrary<Message> = fc.record({
  key: fc.oneof(
    fc.constant(null),
    fc.constant(new Uint8Array(0)),
    fc.nat(10_000).map((n) => `key-${n}`),
    fc.uint8Array({ minLength: 1, maxLength: 32 }),
  ),
  value: fc.oneof(
    // mostly compressible text, so that librdkafka really compresses every batch
    { weight: 8, arbitrary: fc.tuple(fc.integer({ min: 1, max: 12 }), fc.string({ maxLength: 20 })).map(([n, s]) => LOREM.repeat(n) + s) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(new Uint8Array(0)) },
    { weight: 2, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 100 }) },
  ),
  headers: fc.oneof(
    fc.constant(null),
    fc.array(
      fc.record({ key: rdHeaderKeyArb, value: fc.oneof(fc.constant(null), fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 24 })) }),
      { minLength: 1, maxLength: 4 },
    ),
  ),
  // librdkafka reads timestamp 0 as "now", so explicit ones start at 1
  timestamp: fc.oneof(
    { weight: 6, arbitrary: fc.bigInt(1_600_000_000_000n, 1_800_000_000_000n) },
    { weight: 1, arbitrary: fc.bigInt(1n, (1n << 62n) - 1n) },
  ),
});

/** Up to ~200 KB values (compressible, with random runs): batches past lz4's 64 KiB blocks. */
const largeMessageArb: fc.Arbitrary<Message> = fc.record({
  key: fc.nat(10_000).map((n) => `large-${n}`),
  value: fc
    .tuple(fc.integer({ min: 1, max: 2000 }), fc.uint8Array({ minLength: 0, maxLength: 2000 }))
    .map(([n, noise]) => Buffer.concat([Buffer.from(LOREM.repeat(n)), noise])),
  headers: fc.constant(null),
  timestamp: fc.bigInt(1_600_000_000_000n, 1_800_000_000_000n),
});

interface ProduceCase {
  name: string;
  topic: string;
  config: { [k: string]: string | number | boolean };
  flushEvery: number;
  messages: Message[];
}

interface FetchedResult {
  name: string;
  chunks: string[];
  highWatermark: number;
  deliveryErrors: string[];
}

function wireMessages(ms: Message[]) {
  return ms.map((m) => ({
    key: hexOf(m.key),
    value: hexOf(m.value),
    headers: m.headers === null ? null : m.headers.map((h) => [h.key, hexOf(h.value)]),
    timestamp: m.timestamp.toString(),
  }));
}

function decodeChunks(chunks: string[]): RecordBatch[] {
  const batches: RecordBatch[] = [];
  for (const h of chunks) {
    const reader = readRecordBatches(Buffer.from(h, 'hex'));
    for (const b of reader) batches.push(v2(b));
    assert.equal(reader.incompleteBytes, 0, 'a Fetch from the mock broker ended in a partial batch');
  }
  return batches;
}

function recordsOf(batches: RecordBatch[]) {
  return batches.flatMap((b) =>
    b.records().map((r) => ({
      offset: r.offset,
      timestamp: r.timestamp,
      key: hex(r.key),
      value: hex(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: hex(h.value) })),
    })),
  );
}

function expectedRecords(ms: Message[]) {
  return ms.map((m, i) => ({
    offset: BigInt(i),
    timestamp: m.timestamp,
    key: hexOf(m.key),
    value: hexOf(m.value),
    headers: (m.headers ?? []).map((h) => ({ key: h.key, value: hexOf(h.value) })),
  }));
}

const MESSAGES_PER_CASE = 300;

function produceCases(): ProduceCase[] {
  const cases: ProduceCase[] = [];
  CODECS.forEach((codec, i) => {
    cases.push({
      name: `plain-${codec}`,
      topic: `plain-${codec}`,
      config: { 'compression.codec': codec },
      flushEvery: 100,
      messages: fc.sample(messageArb, { seed: SEED + 200 + i, numRuns: MESSAGES_PER_CASE }),
    });
  });
  CODECS.forEach((codec, i) => {
    cases.push({
      name: `idempotent-${codec}`,
      topic: `idempotent-${codec}`,
      config: { 'compression.codec': codec, 'enable.idempotence': true },
      flushEvery: 60,
      messages: fc.sample(messageArb, { seed: SEED + 300 + i, numRuns: MESSAGES_PER_CASE }),
    });
  });
  CODECS.forEach((codec, i) => {
    cases.push({
      name: `large-${codec}`,
      topic: `large-${codec}`,
      config: { 'compression.codec': codec, 'linger.ms': 50 },
      flushEvery: 0,
      messages: fc.sample(largeMessageArb, { seed: SEED + 600 + i, numRuns: 40 }),
    });
  });
  for (const codec of ['none', 'lz4'] as const) {
    cases.push({
      name: `transactional-${codec}`,
      topic: `transactional-${codec}`,
      config: { 'compression.codec': codec, 'transactional.id': `kafkalite-interop-${codec}` },
      flushEvery: 100,
      messages: fc.sample(messageArb, { seed: SEED + 400 + (codec === 'none' ? 0 : 1), numRuns: MESSAGES_PER_CASE }),
    });
  }
  return cases;
}

describe('librdkafka writes (mock cluster), kafkalite reads the fetched bytes', () => {
  const cases = produceCases();
  let results: Map<string, FetchedResult> | undefined;
  let librdkafkaVersion = '';
  let failure: unknown;
  // One Python run serves every test below; a failure of that run fails each of them (once).
  const fetched = (name: string): FetchedResult => {
    if (failure) throw failure;
    if (!results) {
      try {
        const out = runPython<{ results: FetchedResult[]; librdkafka: string }>(
          'rdkafka_produce_fetch.py',
          { cases: cases.map((c) => ({ ...c, messages: wireMessages(c.messages) })) },
          { timeoutMs: 180_000 },
        );
        results = new Map(out.results.map((r) => [r.name, r]));
        librdkafkaVersion = out.librdkafka;
      } catch (err) {
        failure = err;
        throw err;
      }
    }
    const r = results.get(name);
    assert.ok(r, `no result for ${name}`);
    return r;
  };

  for (const c of cases) {
    const codec = c.config['compression.codec'] as CodecName;
    const transactional = c.config['transactional.id'] !== undefined;
    const idempotent = c.config['enable.idempotence'] === true || transactional;
    test(`${c.name}: ${c.messages.length} messages`, () => {
      const r = fetched(c.name);
      const ctx = `[${c.name}, librdkafka ${librdkafkaVersion}, seed ${SEED}]`;
      assert.deepStrictEqual(r.deliveryErrors, [], ctx);
      const all = decodeChunks(r.chunks);
      // A real broker appends a COMMIT marker after a transaction (librdkafka 2.0.2's mock writes
      // none); whatever control batches appear must be well-formed transaction markers.
      const markers = all.filter((b) => b.isControl);
      for (const m of markers) {
        assert.equal(transactional, true, `${ctx} control batch in a non-transactional log`);
        assert.equal(m.isValid(), true, ctx);
        const [rec] = m.records();
        assert.equal(parseEndTransactionMarker(rec!.key, rec!.value).type, 'COMMIT', ctx);
      }
      const batches = all.filter((b) => !b.isControl);
      assert.equal(r.highWatermark, c.messages.length + markers.length, ctx);
      // flushEvery forces several batches
      if (c.flushEvery > 0) assert.ok(batches.length >= Math.ceil(c.messages.length / c.flushEvery), `${ctx} only ${batches.length} batches`);

      let expectedBase = 0n;
      let expectedSeq = 0;
      for (const b of batches) {
        assert.equal(b.magic, 2, ctx);
        assert.equal(b.isValid(), true, `${ctx} CRC of batch at offset ${b.baseOffset}`);
        assert.equal(b.compression, codec, `${ctx} librdkafka was asked for ${codec}; batch at offset ${b.baseOffset} says ${b.compression}`);
        assert.equal(b.timestampType, 'CreateTime', ctx);
        assert.equal(b.isControl, false, ctx);
        assert.equal(b.isTransactional, transactional, ctx);
        assert.equal(b.baseOffset, expectedBase, ctx);
        assert.equal(b.recordsCount, b.lastOffsetDelta + 1, ctx);
        const recs = b.records();
        assert.equal(recs.length, b.recordsCount, ctx);
        assert.equal(b.maxTimestamp, maxTimestampOf(c.messages.slice(Number(b.baseOffset), Number(b.nextOffset))), ctx);
        assert.equal(b.baseTimestamp, c.messages[Number(b.baseOffset)]!.timestamp, ctx);
        if (idempotent) {
          assert.ok(b.producerId >= 0n, `${ctx} producerId ${b.producerId}`);
          assert.ok(b.producerEpoch >= 0, `${ctx} producerEpoch ${b.producerEpoch}`);
          assert.equal(b.hasProducerId, true, ctx);
          assert.equal(b.producerId, batches[0]!.producerId, `${ctx} one producer id across batches`);
          // sequences continue batch after batch: base = previous lastSequence + 1
          assert.equal(b.baseSequence, expectedSeq, `${ctx} baseSequence of batch at offset ${b.baseOffset}`);
          assert.equal(b.lastSequence, expectedSeq + b.lastOffsetDelta, ctx);
          recs.forEach((rec, j) => assert.equal(rec.sequence, expectedSeq + j, ctx));
          expectedSeq = b.lastSequence + 1;
        } else {
          assert.equal(b.producerId, -1n, ctx);
          assert.equal(b.producerEpoch, -1, ctx);
          assert.equal(b.baseSequence, -1, ctx);
          assert.equal(b.hasProducerId, false, ctx);
          recs.forEach((rec) => assert.equal(rec.sequence, -1, ctx));
        }
        expectedBase = b.nextOffset;
      }
      assert.deepStrictEqual(recordsOf(batches), expectedRecords(c.messages), ctx);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// kafkalite writes, librdkafka reads (raw Produce to the mock cluster, then a Consumer)
// ---------------------------------------------------------------------------------------------

const RAW_CASES_PER_CODEC = 24;

interface RawResult {
  name: string;
  ok: boolean;
  produceErrors: string[];
  baseOffsets: string[];
  messages: {
    offset: string;
    timestampType: number;
    timestamp: string;
    key: string | null;
    value: string | null;
    headers: [string, string | null][] | null;
  }[];
  errors: string[];
  position: number | null;
  chunks: string[];
}

/** confluent_kafka reads header names as C strings; keep NULs out of them for this peer. */
function withoutNulKeys(b: GenBatch): GenBatch {
  return {
    ...b,
    records: b.records.map((r) => ({ ...r, headers: r.headers.map((h) => ({ ...h, key: h.key.replaceAll('\0', '0') })) })),
  };
}

interface RawCase {
  name: string;
  codec: CodecName;
  batch: GenBatch;
  /** Produced in order; the first holds `batch`, any others are control batches. */
  sent: Buffer[];
}

const TXN_PRODUCER_ID = 4242n;

function rawCases(): RawCase[] {
  const cases: RawCase[] = CODECS.flatMap((codec, ci) =>
    sampleBatches(RAW_CASES_PER_CODEC, SEED + 500 + ci, { logAppendTime: true, maxRecords: 100 }).map((b, i) => {
      const batch = withoutNulKeys(b);
      return { name: `${codec}-${i}`, codec, batch, sent: [encodeRecordBatch(batch.records, optionsOf(batch, codec))] };
    }),
  );
  // A transaction as a broker would log it: a transactional batch, then kafkalite's COMMIT marker.
  // librdkafka must deliver the records, swallow the control record, and move its position past it.
  CODECS.forEach((codec, ci) => {
    const batch: GenBatch = {
      ...sampleBatches(1, SEED + 700 + ci, { logAppendTime: false, gaps: false, maxRecords: 30 }).map(withoutNulKeys)[0]!,
      producerId: TXN_PRODUCER_ID + BigInt(ci),
      producerEpoch: 3,
      baseSequence: 0,
      transactional: true,
      timestampType: 'CreateTime',
    };
    const data = encodeRecordBatch(batch.records, optionsOf(batch, codec));
    const marker = encodeEndTransactionMarker({
      type: 'COMMIT',
      producerId: batch.producerId,
      producerEpoch: 3,
      coordinatorEpoch: 17,
      timestamp: 1_700_000_000_000,
    });
    cases.push({ name: `txn-commit-${codec}`, codec, batch, sent: [data, marker] });
  });
  return cases;
}

describe('kafkalite writes (raw Produce to the mock cluster), librdkafka consumes', () => {
  const cases = rawCases();
  let results: Map<string, RawResult> | undefined;
  let librdkafkaVersion = '';
  let failure: unknown;
  const result = (name: string): RawResult => {
    if (failure) throw failure;
    if (!results) {
      try {
        const out = runPython<{ results: RawResult[]; librdkafka: string }>(
          'rdkafka_produce_raw.py',
          {
            cases: cases.map((c) => ({ name: c.name, batches: c.sent.map((b) => b.toString('hex')), count: c.batch.records.length })),
          },
          { timeoutMs: 180_000 },
        );
        results = new Map(out.results.map((r) => [r.name, r]));
        librdkafkaVersion = out.librdkafka;
      } catch (err) {
        failure = err;
        throw err;
      }
    }
    const r = results.get(name);
    assert.ok(r, `no result for ${name}`);
    return r;
  };

  function check(c: RawCase): void {
    const r = result(c.name);
    const b = c.batch;
    const ctx = `[${c.name}: ${describeBatch(b)}, librdkafka ${librdkafkaVersion}, seed ${SEED}]`;
    assert.deepStrictEqual(r.produceErrors, c.sent.map(() => 'NONE'), `mock broker refused kafkalite's batch ${ctx}`);
    assert.deepStrictEqual(r.errors, [], `librdkafka consumer errors ${ctx}`);
    const base = BigInt(r.baseOffsets[0]!);
    const appendTime = b.timestampType === 'LogAppendTime';
    assert.deepStrictEqual(
      r.messages.map((m) => ({ ...m, headers: m.headers ?? [] })),
      b.records.map((rec) => ({
        offset: (base + BigInt(rec.offsetDelta)).toString(),
        timestampType: appendTime ? 2 : 1,
        timestamp: (appendTime ? b.logAppendTime : rec.timestamp).toString(),
        key: hexOf(rec.key),
        value: hexOf(rec.value),
        headers: rec.headers.map((h) => [h.key, hexOf(h.value)]),
      })),
      ctx,
    );
    // The mock stored the batches as sent, with only their base offsets assigned.
    const stored = [...readRecordBatches(Buffer.concat(r.chunks.map((h) => Buffer.from(h, 'hex'))))];
    assert.equal(stored.length, c.sent.length, ctx);
    stored.forEach((s, i) => {
      assert.equal(s.baseOffset, BigInt(r.baseOffsets[i]!), ctx);
      assert.ok(s.bytes.subarray(16).equals(c.sent[i]!.subarray(16)), `stored batch ${i} differs from what was sent ${ctx}`);
    });
  }

  for (const codec of CODECS) {
    test(`${codec}: ${RAW_CASES_PER_CODEC} randomized batches`, () => {
      for (const c of cases.filter((x) => x.codec === codec && !x.name.startsWith('txn-'))) check(c);
    });
  }

  for (const codec of CODECS) {
    test(`${codec}: transactional batch + kafkalite COMMIT marker (encodeEndTransactionMarker)`, () => {
      const c = cases.find((x) => x.name === `txn-commit-${codec}`)!;
      check(c);
      const r = result(c.name);
      const markerOffset = BigInt(r.baseOffsets[1]!);
      assert.equal(markerOffset, BigInt(r.baseOffsets[0]!) + BigInt(c.batch.records.length), 'marker follows the batch');
      // the consumer read past the control record without delivering it
      assert.equal(BigInt(r.position ?? -1), markerOffset + 1n, `consumer position after the marker [${c.name}]`);
    });
  }
});
