/**
 * Legacy message sets (magic 0 and 1) against kafka-python 2.0.2 (Debian python3-kafka), whose
 * kafka.record.legacy_records is an independent implementation of Kafka's LegacyRecord with its own
 * codecs (gzip module, python-snappy xerial framing, lz4.frame; magic-0 lz4 with the old broken
 * header checksum) and CRC-32.
 *
 * (a) kafka-python's LegacyRecordBatchBuilder writes randomized sets (both magics, none/gzip/snappy/
 *     lz4, 1..100 records, null/empty/binary keys and values, gaps); kafkalite must decode every
 *     batch and record exactly as the generated input says and as kafka-python itself reads them.
 *     LogAppendTime (magic 1) is the broker's in-place rewrite, done in Python.
 * (b) kafkalite's encodeLegacyMessageSet writes randomized sets in every legacy codec and both
 *     magics (CreateTime and LogAppendTime); kafka-python must validate every CRC and read back the
 *     same records; the lz4 frame header checksum must be Kafka's per-magic one.
 *
 * Seed: KAFKALITE_INTEROP_SEED; cases per magic/codec: KAFKALITE_LEGACY_CASES (default 40).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type AnyRecordBatch,
  encodeLegacyMessageSet,
  LegacyRecordBatch,
  readRecordBatches,
  type RecordInput,
} from '../../src/index.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { bytesOf, SEED } from '../helpers/interop-gen.js';
import {
  describeLegacy,
  expectedLegacyRecords,
  kafkaliteLegacyView as kafkaliteView,
  type KpLegacyBatch,
  kpLegacyView as kpView,
  type KpStream,
  kpTsType,
  LEGACY_CODEC_IDS,
  LEGACY_CODECS,
  type LegacyCase,
  legacyToWire,
  sampleLegacy,
  tsTypeOf,
} from '../helpers/legacy-gen.js';
import { hex, runPython } from '../helpers/python-peer.js';

const CASES = Number(process.env.KAFKALITE_LEGACY_CASES ?? 40);
const MAGICS = [0, 1] as const;

function where(c: LegacyCase, seed: number, i: number): string {
  return `[seed ${seed}, case ${i}: ${describeLegacy(c)}] (rerun with KAFKALITE_INTEROP_SEED=${SEED})`;
}

function legacy(b: AnyRecordBatch, msg: string): LegacyRecordBatch {
  assert.equal(b.kind, 'legacy', `${msg}: expected a legacy entry, got ${b.kind}`);
  return b as LegacyRecordBatch;
}

function decodeWithKafkaPython(streams: Buffer[]): KpStream[] {
  const out = runPython<{ results: KpStream[] }>('kp_legacy_decode.py', { streams: streams.map((s) => s.toString('hex')) });
  assert.equal(out.results.length, streams.length);
  return out.results;
}

// ---------------------------------------------------------------------------------------------
// (a) kafka-python writes, kafkalite reads

function pythonWritesKafkaliteReads(magic: 0 | 1, seed: number, cases: LegacyCase[]): void {
  const built = runPython<{ sets: { hex: string }[] }>('kp_legacy_build.py', { cases: cases.map(legacyToWire) });
  assert.equal(built.sets.length, cases.length);
  const sets = built.sets.map((s) => Buffer.from(s.hex, 'hex'));
  const kp = decodeWithKafkaPython(sets);

  cases.forEach((c, i) => {
    const msg = where(c, seed, i);
    const set = sets[i]!;
    const k = kp[i]!;
    if (!k.ok) assert.fail(`kafka-python cannot read its own set: ${k.error} ${msg}`);
    const reader = readRecordBatches(set);
    const batches = [...reader].map((b) => legacy(b, msg));
    assert.equal(reader.incompleteBytes, 0, msg);
    const compressed = c.codec !== 'none';
    assert.equal(batches.length, compressed ? 1 : c.records.length, `${msg}: entries`);

    // every batch and record as kafka-python reads the same bytes
    assert.deepStrictEqual(batches.map(kafkaliteView), (k.batches as KpLegacyBatch[]).map(kpView), msg);

    // and as the generated input says (Kafka's LegacyRecord rules)
    const want = expectedLegacyRecords(c);
    const got = batches.flatMap((b) =>
      b.records().map((r) => ({ offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType, key: hex(r.key), value: hex(r.value) })),
    );
    assert.deepStrictEqual(got, want, msg);
    for (const b of batches) {
      assert.equal(b.magic, magic, msg);
      assert.equal(b.compression, c.codec, msg);
      assert.equal(b.timestampType, tsTypeOf(c), msg);
      assert.equal(b.sizeInBytes, b.bytes.length, msg);
      const rs = b.records();
      assert.equal(b.baseOffset, rs[0]!.offset, `${msg}: baseOffset is the first record's offset`);
      assert.equal(b.lastOffset, rs[rs.length - 1]!.offset, `${msg}: the entry offset is the last record's`);
      assert.equal(b.recordsCount, null, `${msg}: legacy batches do not know their count`);
      assert.equal(b.producerId, -1n);
      if (magic === 0) assert.equal(b.maxTimestamp, -1n, msg);
      if (c.logAppendTime !== null) assert.equal(b.maxTimestamp, c.logAppendTime, msg);
      for (const r of rs) {
        assert.equal(r.keySize, bytesOf(c.records.find((x) => c.baseOffset + BigInt(x.offsetDelta) === r.offset)!.key)?.length ?? -1, msg);
        assert.equal(r.headers.length, 0);
      }
    }
  });

  // all sets back to back, as a fetch response or a segment holds them
  const stream = Buffer.concat(sets);
  const reader = readRecordBatches(stream);
  let position = 0;
  let count = 0;
  for (const b of reader) {
    assert.equal(b.position, position);
    position += b.sizeInBytes;
    count += b.records().length;
  }
  assert.equal(position, stream.length);
  assert.equal(count, cases.reduce((n, c) => n + c.records.length, 0));

  // the same stream as a segment file
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-legacy-'));
  try {
    const file = join(dir, '00000000000000000000.log');
    writeFileSync(file, stream);
    const fr = FileRecords.open(file);
    try {
      let n = 0;
      let pos = 0;
      for (const fb of fr.batches()) {
        assert.equal(fb.position, pos);
        assert.ok(fb.magic === magic);
        const b = legacy(fb.batch, `file batch at ${pos}`);
        b.ensureValid();
        n += b.records().length;
        pos += fb.sizeInBytes;
      }
      assert.equal(pos, stream.length);
      assert.equal(n, count);
    } finally {
      fr.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('kafka-python writes legacy message sets, kafkalite reads', () => {
  for (const magic of MAGICS) {
    LEGACY_CODECS.forEach((codec, ci) => {
      const seed = SEED + 100 + magic * 10 + ci;
      test(`magic ${magic} ${codec}: ${CASES} randomized sets`, () => {
        pythonWritesKafkaliteReads(magic, seed, sampleLegacy(CASES, seed, { magic, codec, logAppendTime: false }));
      });
    });
  }
  LEGACY_CODECS.forEach((codec, ci) => {
    const seed = SEED + 150 + ci;
    test(`magic 1 ${codec} with LogAppendTime (broker rewrite): wrapper timestamp and type inherited`, () => {
      const cases = sampleLegacy(Math.ceil(CASES / 2), seed, { magic: 1, codec, logAppendTime: true }).map((c, i) => ({
        ...c,
        logAppendTime: c.logAppendTime ?? 1_600_000_000_000n + BigInt(i),
      }));
      pythonWritesKafkaliteReads(1, seed, cases);
    });
  });

  test('magic 1 wrapper at offset 0 (producer-side set as kafka-python builds it): inner offsets from 0', () => {
    // kafka-python's builder writes wrapper offset 0 and relative inner offsets 0..n-1 (what a
    // producer sends); Kafka reads a zero wrapper offset as base 0 (`AbstractLegacyRecordBatch`, for librdkafka's wrappers).
    for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
      const c: LegacyCase = {
        magic: 1,
        codec,
        baseOffset: 0n,
        logAppendTime: null,
        records: [0, 1, 2].map((d) => ({ offsetDelta: d, timestamp: 1_700_000_000_000n + BigInt(d), key: null, value: `v${d}` })),
      };
      const [set] = runPython<{ sets: { hex: string }[] }>('kp_legacy_build.py', { cases: [legacyToWire(c)] }).sets;
      const buf = Buffer.from(set!.hex, 'hex');
      buf.writeBigInt64BE(0n, 0); // outside the CRC
      const b = new LegacyRecordBatch(buf);
      assert.deepEqual(
        b.records().map((r) => r.offset),
        [0n, 1n, 2n],
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------
// (b) kafkalite writes, kafka-python reads

function recordInputs(c: LegacyCase, i: number): RecordInput[] {
  return c.records.map((r, j) => ({
    offsetDelta: r.offsetDelta,
    // int64s as number where exact in some cases, bigint in others
    timestamp: i % 3 === 1 && r.timestamp <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r.timestamp) : r.timestamp,
    key: j % 2 === 0 ? bytesOf(r.key) : r.key,
    value: r.value,
  }));
}

function kafkaliteWritesPythonReads(magic: 0 | 1, seed: number, cases: LegacyCase[]): void {
  const sets = cases.map((c, i) =>
    encodeLegacyMessageSet(recordInputs(c, i), {
      magic,
      baseOffset: c.baseOffset,
      compression: c.codec,
      timestampType: c.logAppendTime === null ? 'CreateTime' : 'LogAppendTime',
      ...(c.logAppendTime === null ? {} : { logAppendTime: c.logAppendTime }),
    }),
  );
  const kp = decodeWithKafkaPython(sets);
  cases.forEach((c, i) => {
    const msg = where(c, seed, i);
    const k = kp[i]!;
    if (!k.ok) assert.fail(`kafka-python cannot read kafkalite's set: ${k.error} ${msg}`);
    assert.equal(k.validBytes, sets[i]!.length, msg);
    const batches = k.batches as KpLegacyBatch[];
    const compressed = c.codec !== 'none';
    assert.equal(batches.length, compressed ? 1 : c.records.length, msg);
    const lat = c.logAppendTime;
    for (const b of batches) {
      assert.equal(b.kind, 'legacy', msg);
      assert.equal(b.crcValid, true, `kafka-python says the CRC is wrong ${msg}`);
      assert.equal(b.magic, magic, msg);
      assert.equal(b.compressionType, LEGACY_CODEC_IDS[c.codec], msg);
      assert.equal(b.attributes, LEGACY_CODEC_IDS[c.codec] | (lat !== null ? 0x08 : 0), `${msg}: attributes`);
      assert.equal(b.offset, b.records[b.records.length - 1]!.offset, `${msg}: entry offset = last record offset`);
      for (const r of b.records) assert.equal(r.crcValid, true, `${msg}: inner message CRC`);
      if (magic === 1 && compressed) {
        // wrapper timestamp: log-append time, else the largest inner timestamp (LegacyRecord.writeCompressedRecordHeader)
        const max = c.records.reduce((m, r) => (r.timestamp > m ? r.timestamp : m), -1n);
        assert.equal(b.timestamp, String(lat ?? max), `${msg}: wrapper timestamp`);
      }
      if (c.codec === 'lz4') {
        // Lz4BlockOutputStream: magic 0 keeps Kafka's broken header checksum (over magic..BD), magic 1 the right one
        assert.ok(b.lz4, msg);
        assert.equal(b.lz4.stored, magic === 0 ? b.lz4.broken : b.lz4.correct, `${msg}: lz4 header checksum`);
        assert.notEqual(b.lz4.broken, b.lz4.correct);
      }
    }
    const want = expectedLegacyRecords(c);
    const got = batches.flatMap((b) =>
      b.records.map((r) => ({
        offset: BigInt(r.offset),
        timestamp: BigInt(r.timestamp),
        timestampType: kpTsType(r.timestampType),
        key: r.key,
        value: r.value,
      })),
    );
    assert.deepStrictEqual(got, want, msg);
  });
}

describe('kafkalite writes legacy message sets, kafka-python reads', () => {
  for (const magic of MAGICS) {
    LEGACY_CODECS.forEach((codec, ci) => {
      const seed = SEED + 200 + magic * 10 + ci;
      test(`magic ${magic} ${codec}: ${CASES} randomized sets${magic === 1 ? ' (CreateTime and LogAppendTime)' : ''}`, () => {
        kafkaliteWritesPythonReads(magic, seed, sampleLegacy(CASES, seed, { magic, codec, logAppendTime: magic === 1 }));
      });
    });
  }

  test('kafkalite output decodes in kafkalite too (same view as kafka-python)', () => {
    const seed = SEED + 250;
    const sets: Buffer[] = [];
    for (const magic of MAGICS) {
      for (const codec of LEGACY_CODECS) {
        for (const c of sampleLegacy(5, seed + sets.length, { magic, codec, logAppendTime: true })) {
          sets.push(
            encodeLegacyMessageSet(recordInputs(c, 0), {
              magic,
              baseOffset: c.baseOffset,
              compression: codec,
              timestampType: c.logAppendTime === null ? 'CreateTime' : 'LogAppendTime',
              ...(c.logAppendTime === null ? {} : { logAppendTime: c.logAppendTime }),
            }),
          );
        }
      }
    }
    const kp = decodeWithKafkaPython(sets);
    sets.forEach((s, i) => {
      const k = kp[i]!;
      if (!k.ok) assert.fail(k.error);
      const mine = [...readRecordBatches(s)].map((b) => kafkaliteView(legacy(b, `set ${i}`)));
      assert.deepStrictEqual(mine, (k.batches as KpLegacyBatch[]).map(kpView), `set ${i}`);
    });
  });
});
