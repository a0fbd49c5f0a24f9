/**
 * Real record batches written by real brokers and clients (see ../shared/corpora/SOURCES.md),
 * read in place:
 *  (a) kafka-tester: a Kafka 4.0-SNAPSHOT KRaft data directory (segment files, bootstrap.checkpoint);
 *  (b) kafkajs fixtures: Fetch v0..v11 responses, Produce v2..v7 requests, bare batches and bare
 *      legacy message sets (magic 0 and 1, plain and gzip wrappers, a topic upgraded 0.10 -> 0.11);
 *  (c) kafka-go fixtures: Fetch v10 responses as hex (v1 and v2 interleaved);
 *  (d) ruby-kafka: one magic-0 entry; a constructed Kafka 0.7 message (older than offsets) that must
 *      be refused with a typed error.
 *
 * Legacy streams are also decoded by kafka-python (test/interop/py/kp_legacy_decode.py), an
 * independent reader: kafkalite must report exactly its batches, records, CRCs and valid bytes.
 *
 * Every batch must be CRC-valid and fully decodable; every UNCOMPRESSED batch, re-encoded by
 * kafkalite from its decoded fields, must be byte-identical to the original. Compressed batches are
 * re-encoded too and must decode to the same fields (compressed bytes are not reproducible across
 * compressor implementations). The same holds for legacy entries (encodeLegacyMessageSet).
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import {
  type AnyRecordBatch,
  type CompressionId,
  CorruptRecordError,
  encodeLegacyMessageSet,
  KafkaliteError,
  LegacyRecordBatch,
  parseControlRecordKey,
  readRecordBatches,
  RecordBatch,
  type Record as KlRecord,
} from '../../src/index.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { kafkaliteLegacyView, type KpLegacyBatch, kpLegacyView, type KpStream, type KpV2Batch } from '../helpers/legacy-gen.js';
import { CORPORA } from '../helpers/paths.js';
import { hex, runPython } from '../helpers/python-peer.js';
import { loadBufferJson, loadHex, parseFetchResponse, parseProduceRequest, splitResponseFrame } from '../helpers/protocol.js';
import { reencode } from '../helpers/reencode.js';
import { refCrc32, Rng } from '../helpers/ref.js';
import { v2 } from '../helpers/v2.js';

// ---------------------------------------------------------------------------------------------
// shared checks

interface StreamSummary {
  batches: RecordBatch[];
  records: number;
  codecs: string[];
  /** Control record types, one per control record, in order. */
  controlTypes: string[];
  incompleteBytes: number;
}

function recordView(r: KlRecord) {
  return {
    offset: r.offset,
    offsetDelta: r.offsetDelta,
    timestamp: r.timestamp,
    timestampDelta: r.timestampDelta,
    attributes: r.attributes,
    key: r.key,
    value: r.value,
    headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
  };
}

function headerView(b: RecordBatch) {
  return {
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    magic: b.magic,
    attributes: b.attributes,
    lastOffsetDelta: b.lastOffsetDelta,
    baseTimestamp: b.baseTimestamp,
    maxTimestamp: b.maxTimestamp,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    recordsCount: b.recordsCount,
  };
}

/** In-depth checks of one v2 batch (CRC, records, re-encoding); returns its records. */
function checkV2Batch(where: string, batch: RecordBatch): KlRecord[] {
  assert.equal(batch.magic, 2, where);
  assert.ok(batch.isValid(), `${where}: CRC-32C valid`);
  assert.equal(batch.computeChecksum(), batch.crc, where);
  assert.ok(batch.compressionType <= 4, `${where}: known codec`);

  const rs = batch.records();
  assert.equal(rs.length, batch.recordsCount, `${where}: record count`);
  let lastDelta = -1;
  for (const r of rs) {
    assert.ok(r.offsetDelta > lastDelta, `${where}: offset deltas increase`);
    lastDelta = r.offsetDelta;
    assert.equal(r.offset, batch.baseOffset + BigInt(r.offsetDelta));
  }
  if (rs.length > 0) assert.equal(lastDelta, batch.lastOffsetDelta, `${where}: lastOffsetDelta`);

  const again = reencode(batch);
  if (batch.compressionType === 0) {
    assert.deepStrictEqual(again, batch.bytes, `${where}: re-encoding the decoded fields gives the original bytes`);
  } else {
    const copy = new RecordBatch(again);
    copy.ensureValid();
    assert.deepStrictEqual(headerView(copy), { ...headerView(batch) }, `${where}: re-encoded header fields`);
    assert.deepStrictEqual(copy.records().map(recordView), rs.map(recordView), `${where}: re-encoded records`);
  }
  return rs;
}

/** Decode every batch of a record stream (CRC verified) and check each one in depth. */
function checkStream(what: string, buf: Buffer): StreamSummary {
  const reader = readRecordBatches(buf); // verifyCrc defaults to true
  const batches: RecordBatch[] = [];
  let records = 0;
  const codecs: string[] = [];
  const controlTypes: string[] = [];
  let expectedPos = 0;
  for (const anyBatch of reader) {
    const batch = v2(anyBatch);
    const where = `${what} batch #${batches.length} at byte ${batch.position}`;
    assert.equal(batch.position, expectedPos, `${where}: batches are back to back`);
    expectedPos += batch.sizeInBytes;
    const rs = checkV2Batch(where, batch);
    records += rs.length;
    codecs.push(batch.compression);
    if (batch.isControl) for (const r of rs) controlTypes.push(parseControlRecordKey(r.key).type);
    batches.push(batch);
  }
  return { batches, records, codecs, controlTypes, incompleteBytes: reader.incompleteBytes };
}

/**
 * A Fetch response may end with a partial batch (the broker cuts at max_bytes). Truncate a real
 * record set at every length: the reader must yield exactly the batches that fit, report the rest
 * as incompleteBytes, and never throw.
 */
function checkEveryTruncation(what: string, records: Buffer): void {
  const ends: number[] = [];
  for (const b of readRecordBatches(records)) ends.push(b.position + b.sizeInBytes);
  for (let len = 0; len <= records.length; len++) {
    const reader = readRecordBatches(records.subarray(0, len));
    let n = 0;
    try {
      for (const b of reader) {
        b.ensureValid();
        n++;
      }
    } catch (err) {
      assert.fail(`${what} truncated to ${len} bytes: ${(err as Error).message}`);
    }
    const fit = ends.filter((e) => e <= len).length;
    assert.equal(n, fit, `${what} truncated to ${len}: complete batches`);
    assert.equal(reader.incompleteBytes, len - (fit === 0 ? 0 : ends[fit - 1]!), `${what} truncated to ${len}: incompleteBytes`);
  }
}

// ---------------------------------------------------------------------------------------------
// legacy (magic 0/1) and mixed streams

/** kafkalite's encoding of a legacy entry's decoded fields (same magic, codec, offsets, timestamps). */
function reencodeLegacy(b: LegacyRecordBatch): Buffer {
  const rs = b.records();
  const base = rs[0]!.offset;
  const logAppend = b.timestampType === 'LogAppendTime';
  return encodeLegacyMessageSet(
    rs.map((r) => ({ offsetDelta: Number(r.offset - base), timestamp: r.timestamp, key: r.key, value: r.value })),
    {
      magic: b.magic as 0 | 1,
      baseOffset: base,
      compression: b.compressionType as CompressionId,
      timestampType: logAppend ? 'LogAppendTime' : 'CreateTime',
      ...(logAppend ? { logAppendTime: b.maxTimestamp } : {}),
    },
  );
}

function legacyRecordView(b: LegacyRecordBatch) {
  return b.records().map((r) => ({ offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType, key: r.key, value: r.value }));
}

/** In-depth checks of one legacy entry (CRC, records, re-encoding); returns its records' offsets. */
function checkLegacyBatch(where: string, b: LegacyRecordBatch): bigint[] {
  assert.ok(b.magic === 0 || b.magic === 1, where);
  assert.ok(b.isValid(), `${where}: CRC-32 valid`);
  assert.equal(b.computeChecksum(), b.crc, where);
  assert.ok(b.compressionType <= 3, `${where}: a legacy codec`);
  const rs = b.records();
  assert.ok(rs.length > 0, where);
  for (const r of rs) {
    assert.ok(r.isValid(), `${where}: inner message CRC at offset ${r.offset}`);
    assert.equal(r.magic, b.magic, `${where}: inner magic`);
    assert.equal(r.compressionType, 0, `${where}: inner messages are uncompressed`);
    assert.equal(r.keySize, r.key === null ? -1 : r.key.length);
    assert.equal(r.valueSize, r.value === null ? -1 : r.value.length);
  }
  assert.equal(b.baseOffset, rs[0]!.offset, `${where}: baseOffset = first record`);
  // a producer's magic-1 wrapper may carry offset 0 (the broker assigns it): inner offsets from 0
  const zeroWrapper = b.magic === 1 && b.isCompressed && b.offset === 0n;
  if (zeroWrapper) assert.ok(consecutive(rs.map((r) => r.offset), 0n), `${where}: zero wrapper offset reads as base 0`);
  else assert.equal(b.lastOffset, rs[rs.length - 1]!.offset, `${where}: entry offset = last record`);
  assert.equal(b.sizeInBytes, b.bytes.length);
  const again = reencodeLegacy(b);
  if (b.compressionType === 0) {
    assert.deepStrictEqual(again, b.bytes, `${where}: re-encoding the decoded fields gives the original bytes`);
  } else {
    const copy = new LegacyRecordBatch(again);
    copy.ensureValid();
    assert.equal(copy.sizeInBytes, again.length);
    assert.deepStrictEqual(
      [copy.magic, copy.compressionType, copy.lastOffset, copy.timestampType],
      [b.magic, b.compressionType, rs[rs.length - 1]!.offset, b.timestampType],
      `${where}: re-encoded wrapper`,
    );
    assert.deepStrictEqual(legacyRecordView(copy), legacyRecordView(b), `${where}: re-encoded records`);
  }
  return rs.map((r) => r.offset);
}

interface AnySummary {
  /** One token per batch: `m0:<codec>`, `m1:<codec>` or `v2:<codec>`. */
  units: string[];
  offsets: bigint[];
  incompleteBytes: number;
  batches: AnyRecordBatch[];
}

/**
 * Decode a stream of any magics with CRCs verified, check every batch in depth, and compare it with
 * kafka-python's decode of the same bytes (batches, records, CRCs, valid bytes).
 */
function checkAnyStream(what: string, buf: Buffer, kp: KpStream): AnySummary {
  if (!kp.ok) assert.fail(`${what}: kafka-python cannot read it: ${kp.error}`);
  const reader = readRecordBatches(buf);
  const units: string[] = [];
  const offsets: bigint[] = [];
  const batches: AnyRecordBatch[] = [];
  let expectedPos = 0;
  for (const b of reader) {
    const i = batches.length;
    const where = `${what} batch #${i} at byte ${b.position}`;
    assert.equal(b.position, expectedPos, `${where}: batches are back to back`);
    expectedPos += b.sizeInBytes;
    const k: KpLegacyBatch | KpV2Batch | undefined = kp.batches[i];
    assert.ok(k, `${where}: kafka-python found fewer batches`);
    assert.equal(k.position, b.position, where);
    assert.equal(k.size, b.sizeInBytes, where);
    if (b.kind === 'legacy') {
      assert.equal(k.kind, 'legacy', `${where}: kafka-python sees magic ${b.magic} too`);
      offsets.push(...checkLegacyBatch(where, b));
      assert.deepStrictEqual(kafkaliteLegacyView(b), kpLegacyView(k as KpLegacyBatch), `${where}: as kafka-python reads it`);
    } else {
      assert.equal(k.kind, 'v2', where);
      const kv = k as KpV2Batch;
      const rs = checkV2Batch(where, b);
      offsets.push(...rs.map((r) => r.offset));
      assert.ok(kv.ok && kv.crcValid, where);
      assert.equal(b.baseOffset, BigInt(kv.header.baseOffset), where);
      assert.equal(b.crc, kv.header.crc >>> 0, where);
      assert.deepStrictEqual(
        rs.map((r) => [r.offset, r.timestamp, hex(r.key), hex(r.value)]),
        kv.records.map((r) => [BigInt(r.offset), BigInt(r.timestamp), r.key, r.value]),
        `${where}: records as kafka-python reads them`,
      );
    }
    units.push(`${b.kind === 'v2' ? 'v2' : `m${b.magic}`}:${b.compression}`);
    batches.push(b);
  }
  assert.equal(batches.length, kp.batches.length, `${what}: kafka-python's batch count`);
  assert.equal(reader.incompleteBytes, buf.length - kp.validBytes, `${what}: incomplete bytes = what kafka-python leaves unread`);
  return { units, offsets, incompleteBytes: reader.incompleteBytes, batches };
}

function consecutive(offsets: bigint[], from: bigint): boolean {
  return offsets.every((o, i) => o === from + BigInt(i));
}

/** Truncations at a sample of positions (the every-byte check is quadratic in the stream size). */
function checkSampledTruncation(what: string, records: Buffer, samples: number): void {
  const ends: number[] = [];
  for (const b of readRecordBatches(records)) ends.push(b.position + b.sizeInBytes);
  for (let s = 0; s <= samples; s++) {
    const len = Math.floor((records.length * s) / samples) - (s % 3);
    if (len < 0) continue;
    const reader = readRecordBatches(records.subarray(0, len));
    let n = 0;
    for (const b of reader) {
      b.ensureValid();
      n++;
    }
    const fit = ends.filter((e) => e <= len).length;
    assert.equal(n, fit, `${what} truncated to ${len}: complete batches`);
    assert.equal(reader.incompleteBytes, len - (fit === 0 ? 0 : ends[fit - 1]!), `${what} truncated to ${len}`);
  }
}

/** kafka-python's decode of many streams in one Python process. */
function kafkaPythonDecode(streams: Buffer[]): KpStream[] {
  const out = runPython<{ results: KpStream[] }>('kp_legacy_decode.py', { streams: streams.map((s) => s.toString('hex')) });
  assert.equal(out.results.length, streams.length);
  return out.results;
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}

function count<T>(xs: readonly T[], x: T): number {
  return xs.filter((y) => y === x).length;
}

// ---------------------------------------------------------------------------------------------
// (a) kafka-tester

const TESTER = join(CORPORA, 'kafka-tester');
const LOGS = 'internal/test_helpers/pass_all/kraft-combined-logs';

interface SegmentExpectation {
  bytes: number;
  batches: number;
  /** Stated in SOURCES.md; undefined where SOURCES.md gives no figure. */
  records?: number;
  leaderChanges?: number;
  /** First-to-last offset continuity holds (not for the hand-trimmed HEAD copy). */
  contiguous: boolean;
}

const SEGMENTS: { [relPath: string]: SegmentExpectation } = {
  [`@e856b9a/${LOGS}/__cluster_metadata-0/00000000000000000000.log`]: {
    bytes: 8630,
    batches: 109,
    records: 116,
    leaderChanges: 2,
    contiguous: true,
  },
  [`@e856b9a/${LOGS}/foo-0/00000000000000000000.log`]: { bytes: 150, batches: 2, records: 3, contiguous: true },
  [`@510714e/${LOGS}/__cluster_metadata-0/00000000000000000000.log`]: {
    bytes: 9333,
    batches: 123,
    leaderChanges: 1,
    contiguous: true,
  },
  [`@510714e/${LOGS}/foo-0/00000000000000000000.log`]: { bytes: 80, batches: 1, contiguous: true },
  [`@HEAD-018f9bc/${LOGS}/__cluster_metadata-0/00000000000000000000.log`]: {
    bytes: 311,
    batches: 2,
    records: 6,
    contiguous: false,
  },
  [`@HEAD-018f9bc/${LOGS}/foo-0/00000000000000000000.log`]: { bytes: 80, batches: 1, contiguous: true },
};

describe('corpora (a): kafka-tester KRaft data directory', () => {
  const logFiles = walk(TESTER).filter((p) => p.endsWith('.log'));

  it('finds exactly the six segment files SOURCES.md describes', () => {
    assert.deepEqual(logFiles.map((p) => relative(TESTER, p)).sort(), Object.keys(SEGMENTS).sort());
  });

  for (const [rel, want] of Object.entries(SEGMENTS)) {
    it(`${rel}: ${want.batches} CRC-valid batches, uncompressed ones re-encode byte for byte`, () => {
      const buf = readFileSync(join(TESTER, rel));
      assert.equal(buf.length, want.bytes);
      const s = checkStream(rel, buf);
      assert.equal(s.incompleteBytes, 0, 'a clean segment has no trailing partial batch');
      assert.equal(s.batches.length, want.batches);
      if (want.records !== undefined) assert.equal(s.records, want.records);
      assert.deepEqual([...new Set(s.codecs)], ['none']);
      if (want.leaderChanges !== undefined) {
        assert.equal(count(s.controlTypes, 'LEADER_CHANGE'), want.leaderChanges);
        assert.equal(s.batches.filter((b) => b.isControl).length, want.leaderChanges, 'only LEADER_CHANGE control batches');
      }
      if (want.contiguous) {
        assert.equal(s.batches[0]!.baseOffset, 0n);
        for (let i = 1; i < s.batches.length; i++) {
          assert.equal(s.batches[i]!.baseOffset, s.batches[i - 1]!.nextOffset, `batch ${i} continues the previous one`);
        }
      }
    });
  }

  it('@e856b9a __cluster_metadata: LEADER_CHANGE control batches look as Kafka writes them', () => {
    const buf = readFileSync(join(TESTER, `@e856b9a/${LOGS}/__cluster_metadata-0/00000000000000000000.log`));
    const control = [...readRecordBatches(buf)].filter((b) => b.isControl);
    assert.equal(control.length, 2);
    for (const b of control) {
      assert.equal(b.isTransactional, false);
      assert.equal(b.producerId, -1n);
      assert.equal(b.recordsCount, 1);
      const [r] = b.records();
      assert.deepEqual(parseControlRecordKey(r!.key), { version: 0, typeId: 2, type: 'LEADER_CHANGE' });
      assert.ok(r!.value !== null && r!.value.length > 0, 'LeaderChangeMessage value');
    }
  });

  it('@e856b9a foo-0: idempotent producer batches (producerId 0, epoch 0, baseSequence 0 and 2)', () => {
    const buf = readFileSync(join(TESTER, `@e856b9a/${LOGS}/foo-0/00000000000000000000.log`));
    const batches = [...readRecordBatches(buf)].map(v2);
    assert.deepEqual(
      batches.map((b) => [b.producerId, b.producerEpoch, b.baseSequence, b.lastSequence, b.hasProducerId, b.isTransactional]),
      [
        [0n, 0, 0, 1, true, false],
        [0n, 0, 2, 2, true, false],
      ],
    );
    const records = batches.flatMap((b) => b.records());
    assert.deepEqual(
      records.map((r) => [r.offset, r.sequence, r.value?.toString()]),
      [
        [0n, 0, 'm1'],
        [1n, 1, 'm2'],
        [2n, 2, 'm3'],
      ],
    );
  });

  it('@510714e foo-0: one idempotent batch', () => {
    const buf = readFileSync(join(TESTER, `@510714e/${LOGS}/foo-0/00000000000000000000.log`));
    const [b] = [...readRecordBatches(buf)];
    assert.equal(b!.producerId, 0n);
    assert.ok(b!.hasProducerId);
    assert.equal(b!.baseSequence, 0);
  });

  it('@e856b9a bootstrap.checkpoint: SnapshotHeader, one data batch, SnapshotFooter', () => {
    const rel = `@e856b9a/${LOGS}/bootstrap.checkpoint`;
    const buf = readFileSync(join(TESTER, rel));
    assert.equal(buf.length, 249);
    const s = checkStream(rel, buf);
    assert.equal(s.incompleteBytes, 0);
    assert.deepEqual(
      s.batches.map((b) => b.isControl),
      [true, false, true],
    );
    assert.deepEqual(s.controlTypes, ['SNAPSHOT_HEADER', 'SNAPSHOT_FOOTER']);
    assert.ok(s.batches[1]!.recordsCount > 0);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) kafkajs fixtures

const KJS = join(CORPORA, 'kafkajs/src/protocol');

interface WireCase {
  file: string;
  kind: 'fetch' | 'produce';
  version: number;
  batches: number;
  records: number;
  codecs: string[];
}

const FETCH = 'requests/fetch/fixtures';
const PRODUCE = 'requests/produce/fixtures';
const WIRE_CASES: WireCase[] = [
  ...[4, 5, 6, 7, 8, 9, 10, 11].map(
    (v): WireCase => ({ file: `${FETCH}/v${v}_response.json`, kind: 'fetch', version: v, batches: 1, records: 3, codecs: ['none'] }),
  ),
  { file: `${FETCH}/v4_response_gzip.json`, kind: 'fetch', version: 4, batches: 2, records: 6, codecs: ['gzip', 'gzip'] },
  { file: `${FETCH}/v4_response_snappy.json`, kind: 'fetch', version: 4, batches: 1, records: 1, codecs: ['snappy'] },
  {
    file: `${FETCH}/v4_from_scala_producer_response.json`,
    kind: 'fetch',
    version: 4,
    batches: 6,
    records: 6,
    codecs: Array<string>(6).fill('none'),
  },
  { file: `${PRODUCE}/v3_request.json`, kind: 'produce', version: 3, batches: 1, records: 3, codecs: ['none'] },
  { file: `${PRODUCE}/v4_request.json`, kind: 'produce', version: 4, batches: 1, records: 3, codecs: ['none'] },
  { file: `${PRODUCE}/v5_request.json`, kind: 'produce', version: 5, batches: 1, records: 3, codecs: ['none'] },
  { file: `${PRODUCE}/v6_request.json`, kind: 'produce', version: 6, batches: 1, records: 10, codecs: ['none'] },
  { file: `${PRODUCE}/v7_request.json`, kind: 'produce', version: 7, batches: 1, records: 10, codecs: ['none'] },
];

function wireRecordSets(c: WireCase) {
  const body = loadBufferJson(join(KJS, c.file));
  return c.kind === 'fetch' ? parseFetchResponse(body, c.version) : parseProduceRequest(body, c.version);
}

describe('corpora (b): kafkajs fixtures', () => {
  for (const c of WIRE_CASES) {
    it(`${c.file}: ${c.batches} batch(es), ${c.records} record(s), ${c.codecs.join('/')}`, () => {
      const parts = wireRecordSets(c);
      assert.ok(parts.length > 0);
      let batches = 0;
      let records = 0;
      const codecs: string[] = [];
      for (const p of parts) {
        assert.equal(errorName(p.errorCode), 'NONE');
        if (p.records === null) continue;
        const s = checkStream(`${c.file} ${p.topic}/${p.partition}`, p.records);
        assert.equal(s.incompleteBytes, 0);
        batches += s.batches.length;
        records += s.records;
        codecs.push(...s.codecs);
      }
      assert.equal(batches, c.batches);
      assert.equal(records, c.records);
      assert.deepEqual(codecs, c.codecs);
    });
  }

  it('Fetch record sets truncated at every byte: partial trailing batches are incompleteBytes, never errors', () => {
    for (const c of WIRE_CASES.filter((w) => w.kind === 'fetch')) {
      for (const p of wireRecordSets(c)) if (p.records) checkEveryTruncation(`${c.file} ${p.topic}/${p.partition}`, p.records);
    }
  });

  it('v4_response_snappy: a raw (unframed) snappy block decodes', () => {
    const [withData] = wireRecordSets(WIRE_CASES.find((c) => c.file.endsWith('v4_response_snappy.json'))!).filter(
      (p) => p.records !== null && p.records.length > 0,
    );
    const [batch] = [...readRecordBatches(withData!.records!)];
    const raw = batch!.bytes.subarray(61);
    assert.notDeepEqual(raw.subarray(0, 8), Buffer.from('82534e4150505900', 'hex'), 'not xerial-framed');
    const [r] = batch!.records();
    assert.equal(r!.key?.toString(), 'key-149');
    assert.match(r!.value!.toString(), /^value-/);
  });

  it('v7_request: the idempotent produce batch carries its producer id', () => {
    const [p] = wireRecordSets(WIRE_CASES.find((c) => c.file.endsWith('v7_request.json'))!);
    const [b] = [...readRecordBatches(p!.records!)].map(v2);
    assert.ok(b!.hasProducerId);
    assert.ok(b!.producerId >= 0n);
  });

  it('recordBatch/fixtures/v0_recordbatch.json: a bare gzip batch (LogAppendTime)', () => {
    const buf = loadBufferJson(join(KJS, 'recordBatch/fixtures/v0_recordbatch.json'));
    const s = checkStream('v0_recordbatch', buf);
    assert.equal(s.incompleteBytes, 0);
    assert.equal(s.batches.length, 1);
    assert.deepEqual(s.codecs, ['gzip']);
    const b = s.batches[0]!;
    assert.equal(b.timestampType, 'LogAppendTime');
    for (const r of b.records()) assert.equal(r.timestamp, b.maxTimestamp, 'LogAppendTime: records report maxTimestamp');
  });

  it('recordBatch/fixtures/v0_recordbatch_zstd.json: CRC-valid, says "none", holds zstd: typed error on records', () => {
    const buf = loadBufferJson(join(KJS, 'recordBatch/fixtures/v0_recordbatch_zstd.json'));
    const reader = readRecordBatches(buf);
    const batches = [...reader];
    assert.equal(batches.length, 1);
    assert.equal(reader.incompleteBytes, 0);
    const b = v2(batches[0]!);
    assert.ok(b.isValid(), 'the CRC covers the bytes as they are');
    assert.equal(b.compression, 'none');
    assert.deepEqual(b.bytes.subarray(61, 65), Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), 'zstd frame magic');
    const typed = (err: unknown) => {
      assert.ok(err instanceof KafkaliteError, `a KafkaliteError, not ${String(err)}`);
      assert.equal(err.code, 'INVALID_RECORD');
      assert.equal(errorName(err.kafkaErrorCode), 'INVALID_RECORD');
      return true;
    };
    assert.throws(() => b.records(), typed);
    assert.throws(() => b.records({ verifyCrc: false }), typed);
    assert.throws(() => {
      for (const _ of b.recordIterator()) {
        // drain lazily
      }
    }, typed);
  });
});

// kafkajs legacy fixtures (magic 0 and 1). Units and counts: SOURCES.md, checked byte for byte
// against kafka-python's reading of the same record sets (checkAnyStream). Where SOURCES.md and the
// bytes disagree, the bytes win and the note says so.

interface LegacyWireCase {
  file: string;
  kind: 'fetch' | 'produce' | 'messageSet';
  version: number;
  /** Per partition with records: `m0:<codec>`, `m1:<codec>`, `v2:<codec>` per batch. */
  units: string[][];
  records: number;
  /** All record offsets, consecutive from this one (undefined: not consecutive). */
  firstOffset?: bigint;
  /** Per partition: bytes of a trailing partial message. */
  incomplete?: number[];
  note?: string;
}

const rep = (n: number, unit: string): string[] => Array<string>(n).fill(unit);

const LEGACY_WIRE: LegacyWireCase[] = [
  { file: `${FETCH}/v0_response.json`, kind: 'fetch', version: 0, units: [['m0:none']], records: 1, firstOffset: 0n },
  {
    file: `${FETCH}/v0_response_gzip.json`,
    kind: 'fetch',
    version: 0,
    units: [rep(3, 'm0:none')],
    records: 3,
    firstOffset: 0n,
    note: 'SOURCES.md calls it a gzip wrapper; its bytes hold three uncompressed magic-0 entries (kafka-python agrees)',
  },
  { file: `${FETCH}/v1_response.json`, kind: 'fetch', version: 1, units: [['m0:none']], records: 1, firstOffset: 0n },
  { file: `${FETCH}/v1_response_gzip.json`, kind: 'fetch', version: 1, units: [['m0:gzip']], records: 3, firstOffset: 0n },
  { file: `${FETCH}/v2_response.json`, kind: 'fetch', version: 2, units: [rep(3, 'm1:none')], records: 3, firstOffset: 0n },
  { file: `${FETCH}/v2_response_gzip.json`, kind: 'fetch', version: 2, units: [['m1:gzip']], records: 3, firstOffset: 0n },
  { file: `${FETCH}/v3_response.json`, kind: 'fetch', version: 3, units: [rep(3, 'm1:none')], records: 3, firstOffset: 0n },
  { file: `${FETCH}/v3_response_gzip.json`, kind: 'fetch', version: 3, units: [['m1:gzip']], records: 3, firstOffset: 0n },
  {
    file: `${FETCH}/v2_response_index_out_of_range.json`,
    kind: 'fetch',
    version: 2,
    units: [rep(3, 'm0:none')],
    records: 3,
    firstOffset: 15733908n,
    incomplete: [9],
  },
  {
    file: `${FETCH}/v2_response_partial_messages_many_partitions.json`,
    kind: 'fetch',
    version: 2,
    units: [[], [], [], []],
    records: 0,
    incomplete: [1024, 1024, 1024, 1024],
    note: 'each partition holds only the start of a magic-1 gzip wrapper cut at max_bytes',
  },
  { file: `${FETCH}/v4_response_010_format.json`, kind: 'fetch', version: 4, units: [['m1:none']], records: 1, firstOffset: 0n },
  {
    file: `${FETCH}/v4_response_mixed_formats.json`,
    kind: 'fetch',
    version: 4,
    units: [[...rep(1611, 'm1:none'), ...rep(3, 'v2:none')]],
    records: 2425,
    firstOffset: 0n,
  },
  {
    file: `${PRODUCE}/v2_request.json`,
    kind: 'produce',
    version: 2,
    units: [rep(3, 'm1:none')],
    records: 3,
    note: 'the producer leaves every entry offset at -1 (the broker assigns offsets)',
  },
  { file: `${PRODUCE}/v2_request_gzip_darwin.json`, kind: 'produce', version: 2, units: [['m1:gzip']], records: 3, firstOffset: 0n },
  { file: `${PRODUCE}/v2_request_gzip_linux.json`, kind: 'produce', version: 2, units: [['m1:gzip']], records: 3, firstOffset: 0n },
  { file: 'messageSet/fixtures/messages_v0_GZIP.json', kind: 'messageSet', version: 0, units: [['m0:gzip']], records: 3, firstOffset: 0n },
  {
    file: 'messageSet/fixtures/messages_v0_uncompressed.json.json',
    kind: 'messageSet',
    version: 0,
    units: [rep(3, 'm0:none')],
    records: 3,
    firstOffset: 0n,
  },
];

/** The record sets of a legacy wire case; a bare message set carries an int32 size prefix. */
function legacyRecordSets(c: LegacyWireCase): { name: string; records: Buffer }[] {
  const buf = loadBufferJson(join(KJS, c.file));
  if (c.kind === 'messageSet') {
    assert.equal(buf.readInt32BE(0), buf.length - 4, `${c.file}: int32 size prefix`);
    return [{ name: c.file, records: buf.subarray(4) }];
  }
  const parts = c.kind === 'fetch' ? parseFetchResponse(buf, c.version) : parseProduceRequest(buf, c.version);
  return parts.map((p) => {
    assert.equal(errorName(p.errorCode), 'NONE', `${c.file} ${p.topic}/${p.partition}`);
    assert.ok(p.records !== null, `${c.file} ${p.topic}/${p.partition}: records`);
    return { name: `${c.file} ${p.topic}/${p.partition}`, records: p.records };
  });
}

describe('corpora (b): kafkajs legacy fixtures (magic 0/1), against kafka-python', () => {
  const sets = LEGACY_WIRE.map((c) => ({ c, parts: legacyRecordSets(c) }));
  let kp: Map<string, KpStream>;
  before(() => {
    const all = sets.flatMap((s) => s.parts);
    const res = kafkaPythonDecode(all.map((p) => p.records));
    kp = new Map(all.map((p, i) => [p.name, res[i]!]));
  });

  for (const { c, parts } of sets) {
    const shape = c.units.map((u) => (u.length > 6 ? `${u.length} batches` : u.join('/') || 'partial only')).join(' | ');
    it(`${c.file}: ${shape}, ${c.records} record(s)${c.note ? ` (${c.note})` : ''}`, () => {
      assert.equal(parts.length, c.units.length, 'partitions with records');
      const offsets: bigint[] = [];
      parts.forEach((p, i) => {
        const s = checkAnyStream(p.name, p.records, kp.get(p.name)!);
        assert.deepEqual(s.units, c.units[i], `${p.name}: batches`);
        assert.equal(s.incompleteBytes, c.incomplete?.[i] ?? 0, `${p.name}: incompleteBytes`);
        offsets.push(...s.offsets);
        if (p.records.length <= 20_000) checkEveryTruncation(p.name, p.records);
        else checkSampledTruncation(p.name, p.records, 300);
      });
      assert.equal(offsets.length, c.records);
      if (c.firstOffset !== undefined) assert.ok(consecutive(offsets, c.firstOffset), `${c.file}: offsets consecutive from ${c.firstOffset}: ${offsets.slice(0, 20).join(',')}`);
    });
  }

  it('v4_response_mixed_formats: 1,611 magic-1 messages then 3 v2 batches, offsets 0..2424 in order; the same as a segment file', () => {
    const [p] = sets.find((s) => s.c.file.endsWith('v4_response_mixed_formats.json'))!.parts;
    const batches = [...readRecordBatches(p!.records)];
    const firstV2 = batches.findIndex((b) => b.kind === 'v2');
    assert.equal(firstV2, 1611);
    assert.ok(batches.slice(0, 1611).every((b) => b.kind === 'legacy' && b.magic === 1));
    assert.ok(batches.slice(1611).every((b) => b.kind === 'v2'));
    assert.equal(batches.slice(1611).reduce((n, b) => n + b.records().length, 0), 2425 - 1611);
    const all = batches.flatMap((b) => b.records().map((r) => r.offset));
    assert.ok(consecutive(all, 0n));
    // the legacy part ends where the v2 part begins
    assert.equal(batches[1610]!.nextOffset, batches[1611]!.baseOffset);

    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-corpora-'));
    try {
      const file = join(dir, '00000000000000000000.log');
      writeFileSync(file, p!.records);
      const fr = FileRecords.open(file);
      try {
        const seen: string[] = [];
        const offsets: bigint[] = [];
        for (const fb of fr.batches()) {
          fb.batch.ensureValid();
          seen.push(`${fb.magic}@${fb.position}`);
          offsets.push(...fb.batch.records().map((r) => r.offset));
        }
        assert.deepEqual(seen, batches.map((b) => `${b.magic}@${b.position}`));
        assert.ok(consecutive(offsets, 0n));
      } finally {
        fr.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('produce v2_request_gzip darwin and linux: same records, gzip streams differ only in the header OS byte', () => {
    const [d] = sets.find((s) => s.c.file.endsWith('gzip_darwin.json'))!.parts;
    const [l] = sets.find((s) => s.c.file.endsWith('gzip_linux.json'))!.parts;
    const view = (buf: Buffer) => [...readRecordBatches(buf)].flatMap((b) => b.records().map((r) => [r.offset, r.timestamp, hex(r.key), hex(r.value)]));
    assert.deepStrictEqual(view(d!.records), view(l!.records));
    assert.notDeepEqual(d!.records, l!.records);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) kafka-go hex fixtures (Fetch v10 responses, with size and correlation id)

const KGO = join(CORPORA, 'kafka-go/fixtures');

const KGO_V2: { file: string; codecs: string[]; records: number }[] = [
  { file: 'v2-v2.hex', codecs: ['none', 'none'], records: 4 },
  { file: 'v2c-v2c.hex', codecs: ['gzip', 'gzip'], records: 4 },
  { file: 'v2c-v2-v2c.hex', codecs: ['gzip', 'none', 'gzip'], records: 6 },
];

/** Files with magic-1 messages (v1 and v2 interleaved); units as kafka-python reads them. */
const KGO_LEGACY: { file: string; units: string[]; records: number }[] = [
  { file: 'v1-v1.hex', units: rep(4, 'm1:none'), records: 4 },
  { file: 'v1c-v1c.hex', units: rep(3, 'm1:gzip'), records: 4 },
  { file: 'v1c-v1-v1c.hex', units: ['m1:gzip', 'm1:none', 'm1:none', 'm1:gzip', 'm1:gzip'], records: 6 },
  { file: 'v2b-v1.hex', units: ['v2:none', 'm1:none', 'm1:none'], records: 4 },
  { file: 'v2bc-v1.hex', units: ['v2:gzip', 'm1:none', 'm1:none'], records: 4 },
  { file: 'v2bc-v1c.hex', units: ['v2:gzip', 'm1:gzip'], records: 4 },
  { file: 'v2bc-v1-v1c.hex', units: ['v2:gzip', 'm1:none', 'm1:none', 'm1:gzip'], records: 6 },
  {
    file: 'v1-v1c-v2-v2c-v2b-v2b-v2b-v2bc-v1b-v1bc.hex',
    units: [...rep(2, 'm1:none'), ...rep(2, 'm1:gzip'), 'v2:none', 'v2:none', 'v2:gzip', 'v2:gzip', 'v2:none', 'v2:gzip', 'v2:none', 'v2:gzip', 'm1:none', 'm1:none', 'm1:gzip'],
    records: 20,
  },
];

function kafkaGoRecordSets(file: string) {
  const { body } = splitResponseFrame(loadHex(join(KGO, file)));
  const parts = parseFetchResponse(body, 10);
  assert.equal(parts.length, 1, 'one partition');
  assert.equal(errorName(parts[0]!.errorCode), 'NONE');
  return parts[0]!.records!;
}

describe('corpora (c): kafka-go Fetch v10 hex fixtures', () => {
  it('covers every .hex file (v2-only here, the rest as legacy)', () => {
    const all = readdirSync(KGO).filter((f) => f.endsWith('.hex')).sort();
    assert.deepEqual(all, [...KGO_V2.map((c) => c.file), ...KGO_LEGACY.map((c) => c.file)].sort());
  });

  for (const c of KGO_V2) {
    it(`${c.file}: ${c.codecs.join(', ')}`, () => {
      const records = kafkaGoRecordSets(c.file);
      const s = checkStream(c.file, records);
      assert.equal(s.incompleteBytes, 0);
      assert.deepEqual(s.codecs, c.codecs);
      assert.equal(s.records, c.records);
      for (let i = 1; i < s.batches.length; i++) assert.equal(s.batches[i]!.baseOffset, s.batches[i - 1]!.nextOffset);
      checkEveryTruncation(c.file, records);
    });
  }

  describe('legacy and mixed files, against kafka-python', () => {
    let kp: KpStream[];
    before(() => {
      kp = kafkaPythonDecode(KGO_LEGACY.map((c) => kafkaGoRecordSets(c.file)));
    });
    KGO_LEGACY.forEach((c, i) => {
      it(`${c.file}: ${c.units.length} units, ${c.records} records, offsets consecutive from 0, every CRC valid`, () => {
        const records = kafkaGoRecordSets(c.file);
        const s = checkAnyStream(c.file, records, kp[i]!);
        assert.equal(s.incompleteBytes, 0);
        assert.deepEqual(s.units, c.units);
        assert.equal(s.offsets.length, c.records);
        assert.ok(consecutive(s.offsets, 0n), `offsets ${s.offsets.join(',')}`);
        for (let j = 1; j < s.batches.length; j++) assert.equal(s.batches[j]!.baseOffset, s.batches[j - 1]!.nextOffset, `unit ${j} continues`);
        checkEveryTruncation(c.file, records);
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// (d) ruby-kafka's magic-0 entry; Kafka 0.7 messages (no offsets) must be refused

describe('corpora (d): ruby-kafka message-0.9-format and Kafka 0.7 messages', () => {
  it('ruby-kafka spec/fixtures/message-0.9-format: one magic-0 entry, offset -1, key "xx", value "yolo", CRC valid', () => {
    const buf = readFileSync(join(CORPORA, 'ruby-kafka/spec/fixtures/message-0.9-format'));
    assert.equal(buf.length, 32);
    const [kp] = kafkaPythonDecode([buf]);
    const s = checkAnyStream('message-0.9-format', buf, kp!);
    assert.deepEqual(s.units, ['m0:none']);
    assert.equal(s.incompleteBytes, 0);
    const b = s.batches[0] as LegacyRecordBatch;
    assert.equal(b.offset, -1n);
    assert.equal(b.timestampType, 'NoTimestampType');
    assert.equal(b.maxTimestamp, -1n);
    const [r] = b.records();
    assert.deepEqual([r!.offset, r!.timestamp, r!.key?.toString(), r!.value?.toString()], [-1n, -1n, 'xx', 'yolo']);
    assert.equal(r!.crc, 0xae4bcb9c, 'the stored CRC (bytes 12..15)');
    assert.ok(r!.isValid());
  });

  /**
   * Kafka 0.7 wrote messages without offsets: int32 size, magic (0, or 1 + attributes), CRC-32 of the
   * payload, payload. Read as a 0.8+ log entry, its first 8 bytes are taken for an offset and bytes
   * 8..11 (CRC and payload bytes) for the size. By Kafka's ByteBufferLogInputStream rules the in-memory reader then either finds
   * a corrupt size/magic/CRC (a typed CorruptRecordError) or a size that runs past the input (no
   * batch; every byte reported as incomplete). The expected outcome is derived here from those rules
   * alone; whichever it is, no batch may come out and nothing but a KafkaliteError may be thrown.
   */
  function kafka07Message(magic: 0 | 1, payload: Buffer, attributes = 0): Buffer {
    const head = magic === 0 ? Buffer.from([0]) : Buffer.from([1, attributes]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(refCrc32(payload));
    const body = Buffer.concat([head, crc, payload]);
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    return Buffer.concat([size, body]);
  }

  /** What Kafka's ByteBufferLogInputStream makes of the first entry. */
  function expectedInMemory(buf: Buffer): 'error' | 'incomplete' {
    if (buf.length < 12) return 'incomplete';
    const size = buf.readInt32BE(8);
    if (size < 14) return 'error';
    if (buf.length < 17) return 'incomplete';
    const magic = buf.readInt8(16);
    if (magic < 0 || magic > 2) return 'error';
    if (buf.length < size + 12) return 'incomplete';
    return 'error'; // a whole "entry": its CRC (or v2 minimum size) cannot hold
  }

  /** What Kafka's FileLogInputStream makes of the first entry. */
  function expectedInFile(buf: Buffer): 'error' | 'nothing' {
    if (buf.length <= 17) return 'nothing';
    const size = buf.readInt32BE(8);
    if (size < 14) return 'error';
    if (size + 12 > buf.length) return 'nothing';
    return 'error';
  }

  function kafka07Logs(): { name: string; buf: Buffer }[] {
    const rng = new Rng(0x070707);
    const logs: { name: string; buf: Buffer }[] = [];
    const text = (i: number) => Buffer.from(`message ${i} from a Kafka 0.7 producer`);
    logs.push({ name: 'one magic-0 message "hello"', buf: kafka07Message(0, Buffer.from('hello')) });
    logs.push({ name: 'one magic-1 message "hello"', buf: kafka07Message(1, Buffer.from('hello')) });
    logs.push({ name: '20 magic-0 text messages', buf: Buffer.concat(Array.from({ length: 20 }, (_, i) => kafka07Message(0, text(i)))) });
    logs.push({ name: '20 magic-1 text messages', buf: Buffer.concat(Array.from({ length: 20 }, (_, i) => kafka07Message(1, text(i)))) });
    for (let i = 0; i < 400; i++) {
      const n = rng.range(1, 6);
      const parts = Array.from({ length: n }, () => kafka07Message(rng.bool() ? 0 : 1, rng.bool() ? rng.bytes(rng.int(40)) : text(rng.int(1000)), rng.int(3)));
      logs.push({ name: `random 0.7 log #${i}`, buf: Buffer.concat(parts) });
    }
    return logs;
  }

  it('readRecordBatches: a typed CorruptRecordError or no batch at all (Kafka\'s LogInputStream rules decide which), never a batch or another exception', () => {
    const outcomes = { error: 0, incomplete: 0 };
    for (const { name, buf } of kafka07Logs()) {
      const want = expectedInMemory(buf);
      const reader = readRecordBatches(buf);
      let got: 'error' | 'incomplete';
      try {
        const batches = [...reader];
        for (const b of batches) b.records();
        assert.equal(batches.length, 0, `${name}: no batch may decode`);
        assert.equal(reader.incompleteBytes, buf.length, `${name}: every byte unread`);
        got = 'incomplete';
      } catch (err) {
        assert.ok(err instanceof KafkaliteError, `${name}: ${String(err)}`);
        assert.ok(err instanceof CorruptRecordError, `${name}: ${err.code}: ${err.message}`);
        assert.equal(errorName(err.kafkaErrorCode), 'CORRUPT_MESSAGE');
        assert.equal(err.position !== undefined && err.position <= buf.length, true, `${name}: position ${err.position}`);
        got = 'error';
      }
      assert.equal(got, want, `${name}: ${buf.subarray(0, 24).toString('hex')}`);
      outcomes[got]++;
    }
    assert.ok(outcomes.error > 50 && outcomes.incomplete > 10, `both outcomes exercised: ${JSON.stringify(outcomes)}`);
  });

  it('FileRecords: a typed error (or nothing readable) for a 0.7 segment, never a batch or another exception', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-07-'));
    const outcomes = { error: 0, nothing: 0 };
    try {
      kafka07Logs().forEach(({ name, buf }, i) => {
        const file = join(dir, `${String(i).padStart(20, '0')}.log`);
        writeFileSync(file, buf);
        const want = expectedInFile(buf);
        const fr = FileRecords.open(file);
        let got: 'error' | 'nothing';
        try {
          let n = 0;
          for (const fb of fr.batches()) {
            fb.batch.ensureValid();
            fb.batch.records();
            n++;
          }
          assert.equal(n, 0, `${name}: no batch may decode`);
          got = 'nothing';
        } catch (err) {
          assert.ok(err instanceof KafkaliteError, `${name}: ${String(err)}`);
          assert.ok(err.code === 'CORRUPT_RECORD', `${name}: ${err.code}: ${err.message}`);
          got = 'error';
        } finally {
          fr.close();
        }
        assert.equal(got, want, `${name}: ${buf.subarray(0, 24).toString('hex')}`);
        outcomes[got]++;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(outcomes.error > 50 && outcomes.nothing > 10, `both outcomes exercised: ${JSON.stringify(outcomes)}`);
  });
});
