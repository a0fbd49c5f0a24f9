/**
 * Interop with kafka-python 2.0.2 (Debian python3-kafka), a from-scratch Python implementation of
 * the v2 record batch: its DefaultRecordBatchBuilder and DefaultRecordBatch, with its own codecs
 * (gzip module, python-snappy with xerial framing, lz4.frame, zstandard) and crc32c.
 *
 * (a) kafka-python writes randomized batches in every codec; kafkalite must read back every field.
 * (b) kafkalite writes randomized batches in every codec; kafka-python must validate the CRC and
 *     read back every field.
 *
 * Inputs come from fast-check under a fixed seed (KAFKALITE_INTEROP_SEED overrides it); a failure
 * names the seed, codec and case index. Many cases go through one Python process per codec.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  encodeEndTransactionMarker,
  encodeRecordBatch,
  RecordBatch,
  RecordBatchEncoder,
  readRecordBatches,
  type RecordInput,
} from '../../src/record/index.js';
import {
  bigValueArb,
  CODEC_IDS,
  CODECS,
  type CodecName,
  describeBatch,
  expectedSequence,
  type GenBatch,
  type GenBytes,
  hexOf,
  maxTimestampOf,
  optionsOf,
  sampleBatches,
  SEED,
  toWire,
} from '../helpers/interop-gen.js';
import { hex, runPython } from '../helpers/python-peer.js';

const CASES_PER_CODEC = Number(process.env.KAFKALITE_INTEROP_CASES ?? 200);
const LARGE_CASES_PER_CODEC = 12;

interface PyBuilt {
  batches: { hex: string; compressed: boolean }[];
}

interface PyDecoded {
  results: (
    | {
        ok: true;
        crcValid: boolean;
        header: {
          baseOffset: string;
          length: number;
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
        records: {
          offset: string;
          timestamp: string;
          timestampType: number;
          key: string | null;
          value: string | null;
          headers: [string, string | null][];
        }[];
      }
    | { ok: false; error: string }
  )[];
}

function where(codec: CodecName, seed: number, i: number, b: GenBatch): string {
  return `[seed ${seed}, codec ${codec}, case ${i}: ${describeBatch(b)}] (rerun with KAFKALITE_INTEROP_SEED=${SEED})`;
}

/** What kafkalite's view of a batch must say, as plain data. */
function viewOf(batch: RecordBatch) {
  return {
    magic: batch.magic,
    baseOffset: batch.baseOffset,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    compression: batch.compression,
    timestampType: batch.timestampType,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    lastSequence: batch.lastSequence,
    lastOffsetDelta: batch.lastOffsetDelta,
    lastOffset: batch.lastOffset,
    recordsCount: batch.recordsCount,
    baseTimestamp: batch.baseTimestamp,
    maxTimestamp: batch.maxTimestamp,
    isValid: batch.isValid(),
    crcMatches: batch.computeChecksum() === batch.crc,
    records: batch.records().map((r) => ({
      offset: r.offset,
      timestamp: r.timestamp,
      sequence: r.sequence,
      key: hex(r.key),
      value: hex(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: hex(h.value) })),
    })),
  };
}

function expectedView(b: GenBatch, compression: CodecName) {
  const last = b.records[b.records.length - 1]!;
  return {
    magic: 2,
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    compression,
    timestampType: 'CreateTime',
    isTransactional: b.transactional,
    isControl: false,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    lastSequence: expectedSequence(b.baseSequence, last.offsetDelta),
    lastOffsetDelta: last.offsetDelta,
    lastOffset: b.baseOffset + BigInt(last.offsetDelta),
    recordsCount: b.records.length,
    baseTimestamp: b.records[0]!.timestamp,
    maxTimestamp: maxTimestampOf(b.records),
    isValid: true,
    crcMatches: true,
    records: b.records.map((r) => ({
      offset: b.baseOffset + BigInt(r.offsetDelta),
      timestamp: r.timestamp,
      sequence: expectedSequence(b.baseSequence, r.offsetDelta),
      key: hexOf(r.key),
      value: hexOf(r.value),
      headers: r.headers.map((h) => ({ key: h.key, value: hexOf(h.value) })),
    })),
  };
}

function pythonWritesKafkaliteReads(codec: CodecName, seed: number, cases: GenBatch[], minCompressedShare: number): void {
  const out = runPython<PyBuilt>('kp_build.py', { cases: cases.map((c) => toWire(c, codec)) });
  assert.equal(out.batches.length, cases.length);

  let compressedCount = 0;
  const all: Buffer[] = [];
  cases.forEach((c, i) => {
    const built = out.batches[i]!;
    const bytes = Buffer.from(built.hex, 'hex');
    all.push(bytes);
    if (built.compressed) compressedCount++;
    // kafka-python sends uncompressed when compression does not pay off
    const codecWritten: CodecName = built.compressed ? codec : 'none';
    const batch = new RecordBatch(bytes);
    assert.equal(batch.sizeInBytes, bytes.length, where(codec, seed, i, c));
    assert.deepStrictEqual(viewOf(batch), expectedView(c, codecWritten), where(codec, seed, i, c));
  });
  if (codec !== 'none') {
    // the generator favours compressible payloads: most batches must really be compressed
    assert.ok(
      compressedCount >= cases.length * minCompressedShare,
      `only ${compressedCount}/${cases.length} ${codec} batches were compressed by kafka-python (seed ${seed})`,
    );
  }

  // The same batches back to back, as a Fetch response or a segment holds them.
  const stream = Buffer.concat(all);
  const reader = readRecordBatches(stream);
  let n = 0;
  let position = 0;
  for (const batch of reader) {
    const c = cases[n]!;
    assert.equal(batch.position, position, where(codec, seed, n, c));
    assert.equal(batch.lastOffset, c.baseOffset + BigInt(c.records[c.records.length - 1]!.offsetDelta));
    assert.equal(batch.records().length, c.records.length, where(codec, seed, n, c));
    position += all[n]!.length;
    n++;
  }
  assert.equal(n, cases.length);
  assert.equal(reader.incompleteBytes, 0);
}

describe('kafka-python writes, kafkalite reads', () => {
  CODECS.forEach((codec, codecIndex) => {
    test(`${codec}: ${CASES_PER_CODEC} randomized batches`, () => {
      const seed = SEED + codecIndex;
      pythonWritesKafkaliteReads(codec, seed, sampleBatches(CASES_PER_CODEC, seed, { logAppendTime: false }), 0.5);
    });
  });
  CODECS.forEach((codec, codecIndex) => {
    test(`${codec}: ${LARGE_CASES_PER_CODEC} large batches (multi-block framing)`, () => {
      const seed = SEED + 50 + codecIndex;
      const cases = sampleBatches(LARGE_CASES_PER_CODEC, seed, { logAppendTime: false, maxRecords: 20, valueArb: bigValueArb });
      pythonWritesKafkaliteReads(codec, seed, cases, 0.5);
    });
  });
});

/** int64 inputs go in as bigint, or as number where that is exact (the encoder takes both). */
function int64Input(v: bigint, asNumber: boolean): bigint | number {
  return asNumber && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function toRecordInput(r: GenBatch['records'][number], asBuffer: boolean, asNumber: boolean): RecordInput {
  // Bytes go in as plain Uint8Arrays or as Buffers (strings, where generated, as strings).
  const conv = (v: GenBytes): GenBytes => (asBuffer && v instanceof Uint8Array ? Buffer.from(v) : v);
  return {
    offsetDelta: r.offsetDelta,
    timestamp: int64Input(r.timestamp, asNumber),
    key: conv(r.key),
    value: conv(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: conv(h.value) })),
  };
}

function kafkaliteWritesPythonReads(codec: CodecName, seed: number, cases: GenBatch[]): void {
  const encoder = new RecordBatchEncoder(1024); // small: exercises its growth path too
  const encoded = cases.map((c, i) => {
    // numbers for all int64s in some batches, for every other record's timestamp in others
    const allNumbers = i % 4 === 1;
    const records = c.records.map((r, j) => toRecordInput(r, i % 3 === 0, allNumbers || (i % 4 === 2 && j % 2 === 1)));
    const options = optionsOf(c, codec);
    if (allNumbers) {
      options.baseOffset = int64Input(c.baseOffset, true);
      if (options.producerId !== undefined) options.producerId = int64Input(c.producerId, true);
      if (options.logAppendTime !== undefined) options.logAppendTime = int64Input(c.logAppendTime, true);
    }
    // half through the shared-buffer encoder (copied: its view dies at the next encode)
    return i % 2 === 0 ? encodeRecordBatch(records, options) : Buffer.from(encoder.encode(records, options));
  });
  const out = runPython<PyDecoded>('kp_decode.py', { batches: encoded.map((b) => b.toString('hex')) });
  assert.equal(out.results.length, cases.length);

  cases.forEach((c, i) => {
    const res = out.results[i]!;
    const msg = where(codec, seed, i, c);
    if (!res.ok) assert.fail(`kafka-python could not read kafkalite's batch: ${res.error} ${msg}`);
    const bytes = encoded[i]!;
    const last = c.records[c.records.length - 1]!;
    const appendTime = c.timestampType === 'LogAppendTime';
    const attributes = CODEC_IDS[codec] | (appendTime ? 0x08 : 0) | (c.transactional ? 0x10 : 0);
    assert.equal(res.crcValid, true, `kafka-python says the CRC is wrong ${msg}`);
    assert.deepStrictEqual(
      res.header,
      {
        baseOffset: c.baseOffset.toString(),
        length: bytes.length - 12,
        partitionLeaderEpoch: c.partitionLeaderEpoch,
        magic: 2,
        crc: bytes.readUInt32BE(17),
        attributes,
        compressionType: CODEC_IDS[codec],
        timestampType: appendTime ? 1 : 0,
        isTransactional: c.transactional,
        isControl: false,
        lastOffsetDelta: last.offsetDelta,
        firstTimestamp: c.records[0]!.timestamp.toString(),
        maxTimestamp: (appendTime ? c.logAppendTime : maxTimestampOf(c.records)).toString(),
        producerId: c.producerId.toString(),
        producerEpoch: c.producerEpoch,
        baseSequence: c.baseSequence,
        count: c.records.length,
      },
      msg,
    );
    assert.deepStrictEqual(
      res.records,
      c.records.map((r) => ({
        offset: (c.baseOffset + BigInt(r.offsetDelta)).toString(),
        timestamp: (appendTime ? c.logAppendTime : r.timestamp).toString(),
        timestampType: appendTime ? 1 : 0,
        key: hexOf(r.key),
        value: hexOf(r.value),
        headers: r.headers.map((h) => [h.key, hexOf(h.value)]),
      })),
      msg,
    );
  });
}

describe('kafkalite writes, kafka-python reads', () => {
  CODECS.forEach((codec, codecIndex) => {
    test(`${codec}: ${CASES_PER_CODEC} randomized batches`, () => {
      const seed = SEED + 100 + codecIndex;
      kafkaliteWritesPythonReads(codec, seed, sampleBatches(CASES_PER_CODEC, seed, { logAppendTime: true }));
    });
  });
  CODECS.forEach((codec, codecIndex) => {
    test(`${codec}: ${LARGE_CASES_PER_CODEC} large batches (multi-block framing)`, () => {
      const seed = SEED + 150 + codecIndex;
      const cases = sampleBatches(LARGE_CASES_PER_CODEC, seed, { logAppendTime: true, maxRecords: 20, valueArb: bigValueArb });
      kafkaliteWritesPythonReads(codec, seed, cases);
    });
  });
});

describe('kafkalite transaction markers, read by kafka-python', () => {
  test('COMMIT and ABORT markers (encodeEndTransactionMarker)', () => {
    const markers = [
      { type: 'COMMIT' as const, producerId: 77n, producerEpoch: 5, coordinatorEpoch: 9, baseOffset: 1234n, timestamp: 1_700_000_000_123n },
      { type: 'ABORT' as const, producerId: (1n << 62n) + 3n, producerEpoch: 32767, coordinatorEpoch: 0x7fffffff, baseOffset: 0n, timestamp: 0n },
    ];
    const encoded = markers.map((m) => encodeEndTransactionMarker(m));
    const out = runPython<PyDecoded>('kp_decode.py', { batches: encoded.map((b) => b.toString('hex')) });
    markers.forEach((m, i) => {
      const res = out.results[i]!;
      if (!res.ok) assert.fail(`kafka-python could not read the ${m.type} marker: ${res.error}`);
      assert.equal(encoded[i]!.length, 78);
      assert.equal(res.crcValid, true);
      assert.equal(res.header.isControl, true);
      assert.equal(res.header.isTransactional, true);
      assert.equal(res.header.compressionType, 0);
      assert.equal(res.header.producerId, m.producerId.toString());
      assert.equal(res.header.producerEpoch, m.producerEpoch);
      assert.equal(res.header.baseSequence, -1);
      assert.equal(res.header.baseOffset, m.baseOffset.toString());
      assert.equal(res.header.count, 1);
      const key = Buffer.alloc(4);
      key.writeInt16BE(0, 0);
      key.writeInt16BE(m.type === 'COMMIT' ? 1 : 0, 2);
      const value = Buffer.alloc(6);
      value.writeInt16BE(0, 0);
      value.writeInt32BE(m.coordinatorEpoch, 2);
      assert.deepStrictEqual(res.records, [
        {
          offset: m.baseOffset.toString(),
          timestamp: m.timestamp.toString(),
          timestampType: 0,
          key: key.toString('hex'),
          value: value.toString('hex'),
          headers: [],
        },
      ]);
    });
  });
});
