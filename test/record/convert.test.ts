/**
 * Message-format conversion (Kafka LogValidator / RecordsUtil rules):
 *
 * - convertToV2: legacy sets written by kafka-python (both magics, every legacy codec, CreateTime and
 *   LogAppendTime) become v2 batches that kafka-python decodes with the same offsets, keys, values
 *   and timestamps (magic 0 -> -1), LogAppendTime carried (type bit and maxTimestamp);
 * - convertToLegacy: v2 batches written by kafka-python become magic 0/1 sets that kafka-python
 *   decodes with the same offsets (gaps kept), keys, values and timestamps;
 * - policies: 'reject' refuses transactional, idempotent, header-carrying and control batches with
 *   UNSUPPORTED_FOR_MESSAGE_FORMAT (Kafka error 43); 'drop' skips control batches (null) and drops
 *   headers; zstd has no legacy form: UNSUPPORTED_COMPRESSION (76);
 * - round trips: uncompressed legacy -> v2 -> legacy gives the original bytes.
 *
 * Expected values come from the generated inputs and kafka-python's decoding, never from kafkalite.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { describe, test } from 'node:test';
import {
  convertToLegacy,
  convertToV2,
  CorruptRecordError,
  encodeEmptyBatch,
  encodeEndTransactionMarker,
  encodeLegacyMessageSet,
  encodeRecordBatch,
  KafkaliteError,
  LegacyRecordBatch,
  readRecordBatches,
  RecordBatch,
} from '../../src/index.js';
import { type CodecName, hexOf, maxTimestampOf, sampleBatches, SEED, toWire } from '../helpers/interop-gen.js';
import {
  expectedLegacyRecords,
  type KpLegacyBatch,
  type KpStream,
  type KpV2Batch,
  kpTsType,
  LEGACY_CODEC_IDS,
  LEGACY_CODECS,
  type LegacyCase,
  legacyToWire,
  sampleLegacy,
} from '../helpers/legacy-gen.js';
import { runPython } from '../helpers/python-peer.js';

const CASES = 12;

function kpDecode(streams: Buffer[]): KpStream[] {
  const out = runPython<{ results: KpStream[] }>('kp_legacy_decode.py', { streams: streams.map((s) => s.toString('hex')) });
  assert.equal(out.results.length, streams.length);
  return out.results;
}

function kpBuildLegacy(cases: LegacyCase[]): Buffer[] {
  return runPython<{ sets: { hex: string }[] }>('kp_legacy_build.py', { cases: cases.map(legacyToWire) }).sets.map((s) => Buffer.from(s.hex, 'hex'));
}

function kpBuildV2(cases: unknown[]): Buffer[] {
  return runPython<{ batches: { hex: string }[] }>('kp_build.py', { cases }).batches.map((b) => Buffer.from(b.hex, 'hex'));
}

function legacyBatches(buf: Buffer): LegacyRecordBatch[] {
  return [...readRecordBatches(buf)].map((b) => {
    assert.equal(b.kind, 'legacy');
    return b as LegacyRecordBatch;
  });
}

function v2Of(buf: Buffer): RecordBatch {
  const [b, ...rest] = [...readRecordBatches(buf)];
  assert.equal(rest.length, 0);
  assert.equal(b!.kind, 'v2');
  return b as RecordBatch;
}

function expectTyped(code: 'UNSUPPORTED_FOR_MESSAGE_FORMAT' | 'UNSUPPORTED_COMPRESSION', kafkaCode: number) {
  return (err: unknown) => {
    assert.ok(err instanceof KafkaliteError, `a KafkaliteError, not ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.kafkaErrorCode, kafkaCode);
    return true;
  };
}
const UNSUPPORTED_FORMAT = expectTyped('UNSUPPORTED_FOR_MESSAGE_FORMAT', 43);
const UNSUPPORTED_ZSTD = expectTyped('UNSUPPORTED_COMPRESSION', 76);

// ---------------------------------------------------------------------------------------------

describe('convertToV2 (legacy -> v2), verified by kafka-python', () => {
  for (const magic of [0, 1] as const) {
    test(`magic ${magic}, every legacy codec${magic === 1 ? ', CreateTime and LogAppendTime' : ''}: offsets, timestamps, keys and values carried`, () => {
      const cases = LEGACY_CODECS.flatMap((codec, ci) => sampleLegacy(CASES, SEED + 300 + magic * 10 + ci, { magic, codec, logAppendTime: magic === 1, deltaSafeTimestamps: true }));
      const sets = kpBuildLegacy(cases);
      // one v2 batch per legacy entry or wrapper
      const converted = sets.map((s) => legacyBatches(s).map((b) => convertToV2(b)));
      const flat = converted.flat();
      const kp = kpDecode(flat);
      let k = 0;
      cases.forEach((c, i) => {
        const msg = `case ${i} (magic ${magic}, ${c.codec}, ${c.records.length} records, seed ${SEED})`;
        const want = expectedLegacyRecords(c);
        const lat = c.logAppendTime;
        const got: unknown[] = [];
        for (const bytes of converted[i]!) {
          const r = kp[k++]!;
          if (!r.ok) assert.fail(`kafka-python cannot read the converted batch: ${r.error} ${msg}`);
          const [b] = r.batches as KpV2Batch[];
          assert.equal(r.batches.length, 1, msg);
          assert.equal(r.validBytes, bytes.length, msg);
          assert.ok(b!.ok && b!.crcValid, msg);
          const h = b!.header;
          assert.equal(h.magic, 2, msg);
          assert.equal(h.compressionType, LEGACY_CODEC_IDS[c.codec], `${msg}: the legacy codec is kept by default`);
          assert.equal(h.timestampType, lat === null ? 0 : 1, `${msg}: timestamp type`);
          if (lat !== null) assert.equal(h.maxTimestamp, lat.toString(), `${msg}: LogAppendTime carried as maxTimestamp`);
          assert.equal(h.producerId, '-1', msg);
          assert.equal(h.isTransactional, false, msg);
          assert.equal(h.isControl, false, msg);
          assert.equal(h.partitionLeaderEpoch, -1, msg);
          assert.equal(h.baseOffset, b!.records[0]!.offset, `${msg}: baseOffset = first offset`);
          for (const rec of b!.records) {
            assert.deepEqual(rec.headers, []);
            got.push({
              offset: BigInt(rec.offset),
              timestamp: BigInt(rec.timestamp),
              timestampType: kpTsType(magic === 0 ? null : rec.timestampType),
              key: rec.key,
              value: rec.value,
            });
          }
          if (magic === 0) assert.equal(h.timestampType, 0, `${msg}: magic 0 up-converts to CreateTime`);
        }
        assert.deepStrictEqual(got, want, msg);
      });
    });
  }

  test('a target codec can be chosen (zstd, none); the source CRC is verified unless told otherwise', () => {
    const [c] = sampleLegacy(1, SEED + 320, { magic: 1, codec: 'gzip', maxRecords: 20, deltaSafeTimestamps: true });
    const [set] = kpBuildLegacy([c!]);
    const [b] = legacyBatches(set!);
    const outs = [convertToV2(b!, { compression: 'zstd' }), convertToV2(b!, { compression: 'none' })];
    const kp = kpDecode(outs);
    for (const [i, codec] of [4, 0].entries()) {
      const r = kp[i]!;
      if (!r.ok) assert.fail(r.error);
      const v = r.batches[0] as KpV2Batch;
      assert.equal(v.header.compressionType, codec);
      assert.deepEqual(
        v.records.map((x) => [x.offset, x.timestamp, x.key, x.value]),
        expectedLegacyRecords(c!).map((x) => [String(x.offset), String(x.timestamp), x.key, x.value]),
      );
    }
    const bad = Buffer.from(set!);
    bad[bad.length - 1]! ^= 0xff; // inside the compressed value: the wrapper CRC no longer matches
    assert.throws(() => convertToV2(new LegacyRecordBatch(bad)), (e: unknown) => e instanceof CorruptRecordError && errorName(e.kafkaErrorCode) === 'CORRUPT_MESSAGE');
    // an uncompressed entry with a flipped value byte converts as stored when the CRC check is off
    const plain = encodeLegacyMessageSet([{ key: 'k', value: 'value', timestamp: 5n }], { magic: 1, baseOffset: 3n });
    plain[plain.length - 1] = 0x21; // 'value' -> 'valu!'
    assert.throws(() => convertToV2(new LegacyRecordBatch(plain)), CorruptRecordError);
    const [r2] = kpDecode([convertToV2(new LegacyRecordBatch(plain), { verifyCrc: false })]);
    if (!r2!.ok) assert.fail(r2!.error);
    assert.deepEqual(
      (r2!.batches[0] as KpV2Batch).records.map((x) => [x.offset, x.timestamp, x.value]),
      [['3', '5', Buffer.from('valu!').toString('hex')]],
    );
  });
});

// ---------------------------------------------------------------------------------------------

interface V2Case {
  codec: CodecName;
  wire: ReturnType<typeof toWire>;
  records: { offsetDelta: number; timestamp: bigint; key: string | null; value: string | null }[];
  baseOffset: bigint;
}

function v2Cases(codecs: readonly CodecName[], seed: number, opts: { headers: boolean; producer: boolean }): V2Case[] {
  return codecs.flatMap((codec, ci) =>
    sampleBatches(CASES, seed + ci, { logAppendTime: false, producer: opts.producer, maxRecords: 60, maxValueLength: 200 }).map((b) => {
      if (!opts.headers) for (const r of b.records) r.headers = [];
      return {
        codec,
        wire: toWire(b, codec),
        baseOffset: b.baseOffset,
        records: b.records.map((r) => ({ offsetDelta: r.offsetDelta, timestamp: r.timestamp, key: hexOf(r.key), value: hexOf(r.value) })),
      };
    }),
  );
}

describe('convertToLegacy (v2 -> magic 0/1), verified by kafka-python', () => {
  for (const magic of [0, 1] as const) {
    test(`magic ${magic}: kafka-python v2 batches (none/gzip/snappy/lz4, gaps, headers dropped by 'drop') decode with the same offsets and records`, () => {
      const cases = v2Cases(['none', 'gzip', 'snappy', 'lz4'], SEED + 400 + magic * 10, { headers: true, producer: true });
      const built = kpBuildV2(cases.map((c) => c.wire));
      const out = built.map((bytes) => convertToLegacy(v2Of(bytes), magic, { policy: 'drop' }));
      const kp = kpDecode(out.map((o) => o!));
      cases.forEach((c, i) => {
        const msg = `case ${i} (${c.codec}, ${c.records.length} records, seed ${SEED})`;
        const src = v2Of(built[i]!);
        const r = kp[i]!;
        if (!r.ok) assert.fail(`kafka-python cannot read the converted set: ${r.error} ${msg}`);
        assert.equal(r.validBytes, out[i]!.length, msg);
        const bs = r.batches as KpLegacyBatch[];
        const codec = src.compressionType;
        assert.equal(bs.length, codec === 0 ? c.records.length : 1, msg);
        for (const b of bs) {
          assert.equal(b.kind, 'legacy', msg);
          assert.equal(b.magic, magic, msg);
          assert.equal(b.crcValid, true, msg);
          assert.equal(b.compressionType, codec, `${msg}: codec kept`);
          for (const rec of b.records) assert.equal(rec.crcValid, true, msg);
        }
        assert.deepStrictEqual(
          bs.flatMap((b) => b.records.map((x) => [BigInt(x.offset), BigInt(x.timestamp), x.timestampType, x.key, x.value])),
          c.records.map((x) => [c.baseOffset + BigInt(x.offsetDelta), magic === 0 ? -1n : x.timestamp, magic === 0 ? null : 0, x.key, x.value]),
          msg,
        );
      });
    });
  }

  test('LogAppendTime v2 -> magic 1 LogAppendTime: wrapper (or every entry) carries the append time; -> magic 0: no timestamps', () => {
    const lat = 1_650_000_000_123n;
    for (const codec of ['none', 'gzip', 'lz4'] as const) {
      const records = [0, 1, 5].map((d) => ({ offsetDelta: d, timestamp: 1_600_000_000_000n + BigInt(d), key: `k${d}`, value: `v${d}` }));
      const v2 = encodeRecordBatch(records, { baseOffset: 100n, compression: codec, timestampType: 'LogAppendTime', logAppendTime: lat });
      const outs = [convertToLegacy(v2Of(v2), 1, { policy: 'reject' })!, convertToLegacy(v2Of(v2), 0, { policy: 'reject' })!];
      const [m1, m0] = kpDecode(outs);
      if (!m1!.ok || !m0!.ok) assert.fail('kafka-python cannot read the converted sets');
      for (const b of m1!.batches as KpLegacyBatch[]) {
        assert.equal(b.timestampType, 1, codec);
        assert.equal(b.timestamp, lat.toString(), codec);
        assert.equal(b.attributes & 0x08, 0x08);
      }
      assert.deepEqual(
        (m1!.batches as KpLegacyBatch[]).flatMap((b) => b.records.map((r) => [r.offset, r.timestamp, r.timestampType])),
        [100n, 101n, 105n].map((o) => [String(o), String(lat), 1]),
      );
      assert.deepEqual(
        (m0!.batches as KpLegacyBatch[]).flatMap((b) => b.records.map((r) => [r.offset, r.timestamp, r.timestampType, r.key])),
        [0, 1, 5].map((d) => [String(100 + d), '-1', null, Buffer.from(`k${d}`).toString('hex')]),
      );
    }
  });

  test('a target codec can be chosen; zstd (the batch\'s own or asked for) is refused with UNSUPPORTED_COMPRESSION (76)', () => {
    const records = [{ key: 'a', value: 'b', timestamp: 1_700_000_000_000n }];
    const zstd = v2Of(encodeRecordBatch(records, { compression: 'zstd', baseOffset: 7n }));
    const plain = v2Of(encodeRecordBatch(records, { compression: 'none', baseOffset: 7n }));
    for (const magic of [0, 1] as const) {
      for (const policy of ['reject', 'drop'] as const) {
        assert.throws(() => convertToLegacy(zstd, magic, { policy }), UNSUPPORTED_ZSTD);
        assert.throws(() => convertToLegacy(plain, magic, { policy, compression: 'zstd' }), UNSUPPORTED_ZSTD);
        assert.throws(() => convertToLegacy(plain, magic, { policy, compression: 4 }), UNSUPPORTED_ZSTD);
      }
      assert.throws(() => encodeLegacyMessageSet(records, { magic, compression: 'zstd' }), UNSUPPORTED_ZSTD);
    }
    const recompressed = convertToLegacy(zstd, 1, { policy: 'reject', compression: 'snappy' })!;
    const [r] = kpDecode([recompressed]);
    if (!r!.ok) assert.fail(r!.error);
    const [b] = r!.batches as KpLegacyBatch[];
    assert.equal(b!.compressionType, 2);
    assert.deepEqual(
      b!.records.map((x) => [x.offset, x.key, x.value]),
      [['7', '61', '62']],
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe("down-conversion policies ('reject' for produce, 'drop' for fetch)", () => {
  const plainRecords = [
    { key: 'k0', value: 'v0', timestamp: 1_700_000_000_000n },
    { key: null, value: 'v1', timestamp: 1_700_000_000_001n },
  ];
  const withHeaders = [{ key: 'k', value: 'v', timestamp: 1_700_000_000_000n, headers: [{ key: 'trace', value: 'x' }] }, plainRecords[1]!];
  const transactional = encodeRecordBatch(plainRecords, { baseOffset: 10n, producerId: 5n, producerEpoch: 1, baseSequence: 0, isTransactional: true });
  const idempotent = encodeRecordBatch(plainRecords, { baseOffset: 10n, producerId: 5n, producerEpoch: 1, baseSequence: 0 });
  const headers = encodeRecordBatch(withHeaders, { baseOffset: 10n });
  const commit = encodeEndTransactionMarker({ type: 'COMMIT', producerId: 5n, producerEpoch: 1, coordinatorEpoch: 3, baseOffset: 12n });
  const leaderChange = encodeRecordBatch([{ key: Buffer.from([0, 0, 0, 2]), value: Buffer.from([0, 0]), timestamp: 1_700_000_000_000n }], {
    baseOffset: 13n,
    isControl: true,
  });

  for (const magic of [0, 1] as const) {
    test(`magic ${magic} 'reject': transactional, idempotent, header and control batches -> UNSUPPORTED_FOR_MESSAGE_FORMAT (43)`, () => {
      for (const [name, bytes] of [
        ['transactional', transactional],
        ['idempotent', idempotent],
        ['headers', headers],
        ['COMMIT marker', commit],
        ['non-transactional control batch', leaderChange],
      ] as const) {
        assert.throws(() => convertToLegacy(v2Of(bytes), magic, { policy: 'reject' }), UNSUPPORTED_FORMAT, name);
        for (const codec of ['gzip', 'lz4'] as const) {
          assert.throws(() => convertToLegacy(v2Of(bytes), magic, { policy: 'reject', compression: codec }), UNSUPPORTED_FORMAT, `${name} ${codec}`);
        }
      }
      // headers are refused by the legacy writer too
      assert.throws(() => encodeLegacyMessageSet(withHeaders, { magic }), UNSUPPORTED_FORMAT);
      // a plain batch passes
      assert.ok(convertToLegacy(v2Of(encodeRecordBatch(plainRecords, { baseOffset: 10n })), magic, { policy: 'reject' }));
    });

    test(`magic ${magic} 'drop': control batches are skipped (null), headers dropped, producer state ignored`, () => {
      assert.equal(convertToLegacy(v2Of(commit), magic, { policy: 'drop' }), null);
      assert.equal(convertToLegacy(v2Of(leaderChange), magic, { policy: 'drop' }), null);
      const outs = [transactional, idempotent, headers].map((b) => convertToLegacy(v2Of(b), magic, { policy: 'drop' })!);
      const kp = kpDecode(outs);
      const wantKeys = [
        [Buffer.from('k0').toString('hex'), null],
        [Buffer.from('k0').toString('hex'), null],
        [Buffer.from('k').toString('hex'), null],
      ];
      kp.forEach((r, i) => {
        if (!r.ok) assert.fail(r.error);
        const recs = (r.batches as KpLegacyBatch[]).flatMap((b) => b.records);
        assert.deepEqual(
          recs.map((x) => x.offset),
          ['10', '11'],
        );
        assert.deepEqual(
          recs.map((x) => x.key),
          wantKeys[i],
        );
        for (const b of r.batches as KpLegacyBatch[]) assert.equal(b.crcValid, true);
      });
    });
  }

  test('an empty v2 batch (left by the cleaner) has nothing to convert: null', () => {
    const empty = encodeEmptyBatch({ baseOffset: 50n, lastOffsetDelta: 3, maxTimestamp: 1_700_000_000_000n, producerId: 9n, producerEpoch: 0, baseSequence: 4 });
    assert.equal(convertToLegacy(v2Of(empty), 1, { policy: 'drop' }), null);
  });
});

// ---------------------------------------------------------------------------------------------

describe('round trips', () => {
  for (const magic of [0, 1] as const) {
    test(`uncompressed magic ${magic} (kafka-python) -> v2 -> magic ${magic}: the original bytes`, () => {
      const cases = sampleLegacy(CASES * 2, SEED + 500 + magic, { magic, codec: 'none', logAppendTime: magic === 1 });
      const sets = kpBuildLegacy(cases);
      sets.forEach((set, i) => {
        for (const b of legacyBatches(set)) {
          const v2 = v2Of(convertToV2(b));
          const back = convertToLegacy(v2, magic, { policy: 'reject' });
          assert.deepStrictEqual(back, b.bytes, `case ${i} entry at ${b.position} (seed ${SEED})`);
        }
      });
    });
  }

  test('compressed legacy (kafka-python) -> v2 -> legacy: same records as kafka-python reads the original', () => {
    const cases = [0, 1].flatMap((m) =>
      (['gzip', 'snappy', 'lz4'] as const).flatMap((codec, ci) => sampleLegacy(4, SEED + 520 + m * 10 + ci, { magic: m as 0 | 1, codec, logAppendTime: m === 1 })),
    );
    const sets = kpBuildLegacy(cases);
    const back = sets.map((set, i) => {
      const [b] = legacyBatches(set);
      return convertToLegacy(v2Of(convertToV2(b!)), cases[i]!.magic, { policy: 'reject' })!;
    });
    const kp = kpDecode([...sets, ...back]);
    cases.forEach((c, i) => {
      const a = kp[i]!;
      const z = kp[sets.length + i]!;
      if (!a.ok || !z.ok) assert.fail('kafka-python cannot read a set');
      const view = (s: KpStream & { ok: true }) =>
        (s.batches as KpLegacyBatch[]).flatMap((b) => b.records.map((r) => [r.offset, r.timestamp, r.timestampType, r.key, r.value, r.crcValid]));
      assert.deepStrictEqual(view(z), view(a), `case ${i} (${c.codec}, magic ${c.magic})`);
      const [wa] = a.batches as KpLegacyBatch[];
      const [wz] = z.batches as KpLegacyBatch[];
      assert.deepStrictEqual([wz!.offset, wz!.compressionType, wz!.timestampType], [wa!.offset, wa!.compressionType, wa!.timestampType]);
    });
  });

  test('v2 (kafka-python, every legacy codec, no headers) -> magic 1 -> v2: kafka-python reads the same records', () => {
    const cases = v2Cases(['none', 'gzip', 'snappy', 'lz4'], SEED + 540, { headers: false, producer: false });
    const built = kpBuildV2(cases.map((c) => c.wire));
    const back = built.map((bytes) => {
      const legacy = convertToLegacy(v2Of(bytes), 1, { policy: 'reject' })!;
      return Buffer.concat(legacyBatches(legacy).map((e) => convertToV2(e)));
    });
    const kp = kpDecode([...built, ...back]);
    built.forEach((_, i) => {
      const a = kp[i]!;
      const z = kp[built.length + i]!;
      if (!a.ok || !z.ok) assert.fail(`case ${i}: kafka-python cannot read a stream`);
      const view = (s: KpStream & { ok: true }) =>
        (s.batches as KpV2Batch[]).flatMap((b) => b.records.map((r) => [r.offset, r.timestamp, r.timestampType, r.key, r.value]));
      assert.deepStrictEqual(view(z), view(a), `case ${i} (${cases[i]!.codec})`);
      for (const b of z.batches as KpV2Batch[]) assert.ok(b.crcValid);
      assert.equal(
        (z.batches as KpV2Batch[]).reduce((m, b) => (BigInt(b.header.maxTimestamp) > m ? BigInt(b.header.maxTimestamp) : m), -1n),
        maxTimestampOf(cases[i]!.records),
      );
    });
  });
});
