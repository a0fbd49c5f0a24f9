/**
 * Leader validation and offset assignment (`UnifiedLog.analyzeAndValidateRecords`,
 * `LogValidator`), after Kafka's LogValidatorTest: one named test per kind of case that applies to kafkalite.
 *
 * Outputs are checked independently where possible: CRCs with helpers/ref.ts (table-driven, no
 * kafkalite code), and whole outputs decoded by kafka-python (test/interop/py/kp_decode.py for v2
 * batches, kp_legacy_decode.py for magic 0/1 streams).
 */
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { crc32 as zlibCrc32, gzipSync } from 'node:zlib';
import {
  CorruptRecordError,
  encodeEmptyBatch,
  encodeEndTransactionMarker,
  encodeLegacyMessageSet,
  encodeRecordBatch,
  InvalidRecordError,
  InvalidTimestampError,
  RecordTooLargeError,
  UnsupportedCompressionError,
  UnsupportedForMessageFormatError,
  type RecordBatchOptions,
  type RecordInput,
} from '../../src/index.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../src/storage/log-config.js';
import {
  recordErrorsOf,
  setMaxTimestamp,
  validateAndAssignOffsets,
  type ValidationContext,
  type ValidationResult,
} from '../../src/storage/log-validator.js';
import { BatchReader } from '../../src/record/batches.js';
import { fixCrc, refCrc32, refCrc32c } from '../helpers/ref.js';
import { runPython } from '../helpers/python-peer.js';

const NOW = 1_700_000_000_000n;
const NEXT = 1234567n;

function ctx(config: Partial<LogConfig> = {}, extra: Partial<ValidationContext> = {}): ValidationContext {
  return { config: { ...DEFAULT_LOG_CONFIG, ...config }, nextOffset: NEXT, now: NOW, partitionLeaderEpoch: 7, origin: 'client', ...extra };
}

function recs(n: number, ts: bigint = NOW, keyed = true): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    key: keyed ? `k${i}` : null,
    value: `value-${i}-${'x'.repeat(20)}`,
    timestamp: ts + BigInt(i),
  }));
}

function v2(n: number, opts: RecordBatchOptions = {}, ts: bigint = NOW, keyed = true): Buffer {
  return encodeRecordBatch(recs(n, ts, keyed), opts);
}

/** A v2 batch with header fields overwritten and the CRC recomputed by the reference CRC. */
function patch(batch: Buffer, f: (b: Buffer) => void): Buffer {
  const b = Buffer.from(batch);
  f(b);
  return fixCrc(b);
}

/** One legacy entry written field by field (LegacyRecord layout), CRC-32 by node:zlib. */
function legacyEntry(offset: bigint, magic: 0 | 1, attributes: number, timestamp: bigint, key: Buffer | null, value: Buffer | null): Buffer {
  const size = (magic === 0 ? 14 : 22) + (key?.length ?? 0) + (value?.length ?? 0);
  const b = Buffer.alloc(12 + size);
  b.writeBigInt64BE(offset, 0);
  b.writeInt32BE(size, 8);
  let p = 16;
  b[p++] = magic;
  b[p++] = attributes;
  if (magic === 1) {
    b.writeBigInt64BE(timestamp, p);
    p += 8;
  }
  b.writeInt32BE(key === null ? -1 : key.length, p);
  p += 4;
  if (key) p += key.copy(b, p);
  b.writeInt32BE(value === null ? -1 : value.length, p);
  p += 4;
  if (value) value.copy(b, p);
  b.writeUInt32BE(zlibCrc32(b.subarray(16)), 12);
  return b;
}

interface KpV2 {
  ok: boolean;
  error?: string;
  crcValid: boolean;
  header: {
    baseOffset: string;
    partitionLeaderEpoch: number;
    magic: number;
    compressionType: number;
    timestampType: number;
    lastOffsetDelta: number;
    firstTimestamp: string;
    maxTimestamp: string;
    producerId: string;
    producerEpoch: number;
    baseSequence: number;
    isTransactional: boolean;
    count: number;
  };
  records: { offset: string; timestamp: string; key: string | null; value: string | null; headers: [string, string | null][] }[];
}

/** kafka-python's view of every v2 batch in `buf`. */
function kpDecode(buf: Buffer): KpV2[] {
  const hexes: string[] = [];
  for (const b of new BatchReader(buf, { verifyCrc: false })) hexes.push(b.bytes.toString('hex'));
  const out = runPython<{ results: KpV2[] }>('kp_decode.py', { batches: hexes }).results;
  for (const r of out) assert.ok(r.ok, r.error);
  return out;
}

interface KpLegacyEntry {
  kind: string;
  magic: number;
  offset: string;
  crcValid: boolean;
  compressionType: number;
  timestamp: string;
  timestampType: number | null;
  records: { offset: string; timestamp: string; key: string | null; value: string | null; crcValid: boolean }[];
}

/** kafka-python's view of a magic 0/1 stream. */
function kpDecodeLegacy(buf: Buffer): KpLegacyEntry[] {
  const res = runPython<{ results: { ok: boolean; error?: string; validBytes: number; batches: KpLegacyEntry[] }[] }>('kp_legacy_decode.py', {
    streams: [buf.toString('hex')],
  }).results[0]!;
  assert.ok(res.ok, res.error);
  assert.equal(res.validBytes, buf.length);
  return res.batches;
}

function offsets(res: ValidationResult): bigint[] {
  const out: bigint[] = [];
  for (const b of new BatchReader(res.records)) for (const r of b.records()) out.push(r.offset);
  return out;
}

function range(from: bigint, n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => from + BigInt(i));
}

function assertV2CrcValid(buf: Buffer): void {
  for (const b of new BatchReader(buf, { verifyCrc: false })) {
    assert.equal(b.crc, refCrc32c(buf, b.position + 21, b.position + b.sizeInBytes), `CRC of batch at ${b.position}`);
  }
}

function throwsWith<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E, re: RegExp, position?: number): E {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof type, `expected ${type.name}, got ${String(caught)}`);
  assert.match((caught as Error).message, re);
  if (position !== undefined) assert.equal((caught as { position?: number }).position, position);
  return caught as E;
}

describe('LogValidator: batch structure', () => {
  test('checkOnlyOneBatch: more than one v2 batch, or a compressed legacy set with two wrappers, is refused', () => {
    const one = v2(2);
    throwsWith(() => validateAndAssignOffsets(Buffer.concat([one, one]), ctx()), InvalidRecordError, /more than one batch/, one.length);
    const gz = v2(2, { compression: 'gzip' });
    throwsWith(() => validateAndAssignOffsets(Buffer.concat([gz, gz]), ctx()), InvalidRecordError, /more than one batch/, gz.length);
    const wrapper = encodeLegacyMessageSet(recs(2), { magic: 1, compression: 'gzip' });
    throwsWith(() => validateAndAssignOffsets(Buffer.concat([wrapper, wrapper]), ctx()), InvalidRecordError, /more than one batch/);
    // uncompressed legacy entries are one record each: many are fine
    const entries = encodeLegacyMessageSet(recs(3), { magic: 1 });
    assert.equal(validateAndAssignOffsets(entries, ctx()).recordCount, 3);
  });

  test('testBatchWithoutRecordsNotAllowed: an empty batch from a client, every source/target codec', () => {
    for (const source of [0, 1, 2, 3, 4]) {
      for (const target of ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
        const empty = patch(
          encodeEmptyBatch({ baseOffset: 0, lastOffsetDelta: 5, maxTimestamp: NOW, producerId: 1324, producerEpoch: 10, baseSequence: 984, isTransactional: true }),
          (b) => b.writeInt16BE(b.readInt16BE(21) | source, 21),
        );
        throwsWith(() => validateAndAssignOffsets(empty, ctx({ compressionType: target })), InvalidRecordError, /Invalid reported count for record batch: 0/, 0);
      }
    }
  });

  test('no batches at all is refused; a trailing partial batch is dropped', () => {
    throwsWith(() => validateAndAssignOffsets(Buffer.alloc(0), ctx()), InvalidRecordError, /no batches at all/);
    const batch = v2(3);
    const res = validateAndAssignOffsets(Buffer.concat([batch, batch.subarray(0, 30)]), ctx());
    assert.equal(res.records.length, batch.length);
    assert.deepEqual(offsets(res), range(NEXT, 3));
  });

  test('checkMismatchMagic: batches of different magics, and v0 messages inside a v1 wrapper', () => {
    const v1 = encodeLegacyMessageSet(recs(1), { magic: 1 });
    const b2 = v2(1);
    throwsWith(
      () => validateAndAssignOffsets(Buffer.concat([v1, b2]), ctx()),
      InvalidRecordError,
      /Batch magic 2 is not the same as the first batch's magic byte 1/,
      v1.length,
    );
    // v1 gzip wrapper around v0 inner messages
    const inner = Buffer.concat([0, 1].map((i) => legacyEntry(BigInt(i), 0, 0, -1n, Buffer.from(`k${i}`), Buffer.from(`v${i}`))));
    const wrapper = legacyEntry(1n, 1, 1, NOW, null, gzipSync(inner));
    const err = throwsWith(() => validateAndAssignOffsets(wrapper, ctx()), InvalidRecordError, /2 record errors/, 0);
    const errors = recordErrorsOf(err)!;
    assert.deepEqual(errors.map((e) => e.batchIndex), [0, 1]);
    assert.match(errors[0]!.message, /magic does not match outer magic 1/);
  });

  test('baseOffset must be 0 from clients, not from the coordinator', () => {
    const batch = patch(v2(2), (b) => b.writeBigInt64BE(100n, 0));
    throwsWith(() => validateAndAssignOffsets(batch, ctx()), InvalidRecordError, /should be 0, but it is 100/, 0);
    const res = validateAndAssignOffsets(batch, ctx({}, { origin: 'coordinator' }));
    assert.deepEqual(offsets(res), range(NEXT, 2));
  });

  test('max.message.bytes: a batch above it is refused with its position', () => {
    const small = encodeLegacyMessageSet(recs(1), { magic: 1 });
    const big = encodeLegacyMessageSet([{ key: 'k', value: 'x'.repeat(500), timestamp: NOW }], { magic: 1 });
    const err = throwsWith(
      () => validateAndAssignOffsets(Buffer.concat([small, big]), ctx({ maxMessageBytes: 200 })),
      RecordTooLargeError,
      /record batch size in the append is \d+ bytes which exceeds the maximum configured value of 200/,
      small.length,
    );
    assert.equal(errorName(err.kafkaErrorCode), 'MESSAGE_TOO_LARGE');
  });

  test('max.message.bytes is re-checked after a rebuild', () => {
    const records = [{ key: 'k', value: 'a'.repeat(5000), timestamp: NOW }];
    const gz = encodeRecordBatch(records, { compression: 'gzip' });
    assert.ok(gz.length < 1000);
    throwsWith(
      () => validateAndAssignOffsets(gz, ctx({ maxMessageBytes: 1000, compressionType: 'uncompressed' })),
      RecordTooLargeError,
      /Message batch size is \d+ bytes in append which exceeds the maximum configured size of 1000/,
      0,
    );
  });
});

describe('LogValidator: offsets and counts', () => {
  test('testRecordBatchWithCountOverrides: consistent lastOffsetDelta and count pass', () => {
    const batch = v2(3);
    const res = validateAndAssignOffsets(batch, ctx({ compressionType: 'gzip', messageTimestampType: 'LogAppendTime' }));
    assert.deepEqual(offsets(res), range(NEXT, 3));
  });

  test('testInconsistentCountAndOffset: (lastOffsetDelta, count) = (0,3), (15,3), (-3,3)', () => {
    const cases: [number, number, RegExp][] = [
      [0, 3, /Inconsistent batch offset range \[0, 0\] and count of records 3/],
      [15, 3, /Inconsistent batch offset range \[0, 15\] and count of records 3/],
      [-3, 3, /Batch has an invalid offset range: \[0, -3\]/],
    ];
    for (const [delta, count, re] of cases) {
      const batch = patch(v2(3), (b) => {
        b.writeInt32BE(count, 57);
        b.writeInt32BE(delta, 23);
      });
      throwsWith(() => validateAndAssignOffsets(batch, ctx({ compressionType: 'gzip' })), InvalidRecordError, re, 0);
    }
  });

  test('testUnmatchedNumberOfRecords: consistent header, wrong number of records, (5,6) and (1,2)', () => {
    for (const [delta, count] of [
      [5, 6],
      [1, 2],
    ] as const) {
      for (const compression of ['none', 'gzip'] as const) {
        const batch = patch(v2(3, { compression }), (b) => {
          b.writeInt32BE(count, 57);
          b.writeInt32BE(delta, 23);
        });
        throwsWith(() => validateAndAssignOffsets(batch, ctx({ compressionType: 'gzip' })), InvalidRecordError, /Incorrect declared batch size/);
      }
    }
  });

  test('testRelativeOffsetAssignment (v2, v1; compressed and not): offsets from the log end, leader epoch stamped', () => {
    for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const input = v2(4, { compression });
      const res = validateAndAssignOffsets(input, ctx());
      assert.equal(res.recompressed, false, compression);
      assert.equal(res.firstOffset, NEXT);
      assert.equal(res.lastOffset, NEXT + 3n);
      assert.equal(res.recordCount, 4);
      assert.equal(res.batchCount, 1);
      assert.equal(res.maxTimestamp, NOW + 3n);
      assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 3n);
      assert.equal(res.logAppendTime, -1n);
      // only baseOffset and the leader epoch changed: the CRC-covered bytes are the producer's
      assert.deepEqual(res.records.subarray(17), input.subarray(17));
      const [kp] = kpDecode(res.records);
      assert.ok(kp!.crcValid);
      assert.equal(kp!.header.baseOffset, String(NEXT));
      assert.equal(kp!.header.partitionLeaderEpoch, 7);
      assert.deepEqual(kp!.records.map((r) => r.offset), range(NEXT, 4).map(String));
    }
    for (const compression of ['none', 'gzip'] as const) {
      const input = encodeLegacyMessageSet(recs(3), { magic: 1, compression });
      const res = validateAndAssignOffsets(input, ctx({ messageFormatVersion: '0.10.2' }));
      assert.equal(res.recompressed, false);
      assert.equal(res.magic, 1);
      const kp = kpDecodeLegacy(res.records);
      assert.deepEqual(kp.flatMap((e) => e.records.map((r) => r.offset)), range(NEXT, 3).map(String));
      assert.ok(kp.every((e) => e.crcValid));
      assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 2n);
    }
  });

  test('testAbsoluteOffsetAssignment (v0): compressed v0 is always rebuilt', () => {
    const cfg = { messageFormatVersion: '0.9.0' };
    const plain = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 0 }), ctx(cfg));
    assert.equal(plain.recompressed, false);
    assert.deepEqual(offsets(plain), range(NEXT, 3));
    assert.equal(plain.maxTimestamp, -1n);
    assert.equal(plain.shallowOffsetOfMaxTimestamp, -1n);
    const gz = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 0, compression: 'gzip' }), ctx(cfg));
    assert.equal(gz.recompressed, true);
    const kp = kpDecodeLegacy(gz.records);
    assert.equal(kp.length, 1);
    assert.equal(kp[0]!.magic, 0);
    assert.equal(kp[0]!.offset, String(NEXT + 2n));
    assert.deepEqual(kp[0]!.records.map((r) => r.offset), range(NEXT, 3).map(String));
    assert.ok(kp[0]!.records.every((r) => r.crcValid));
  });

  test('testValidationOfBatchesWithNonSequentialInnerOffsets: v1 is rewritten, v2 refused', () => {
    const inputs = recs(5).map((r, i) => ({ ...r, offsetDelta: i * 2 }));
    const v1 = encodeLegacyMessageSet(inputs, { magic: 1, compression: 'gzip' });
    const res = validateAndAssignOffsets(v1, ctx({ messageFormatVersion: '0.10.2' }));
    assert.equal(res.recompressed, true);
    assert.deepEqual(offsets(res), range(NEXT, 5));
    const b2 = encodeRecordBatch(inputs, { compression: 'gzip' });
    throwsWith(() => validateAndAssignOffsets(b2, ctx()), InvalidRecordError, /Inconsistent batch offset range \[0, 8\] and count of records 5/);
  });

  test('the caller\'s buffer is never modified', () => {
    for (const input of [v2(3), v2(3, { compression: 'gzip' }), encodeLegacyMessageSet(recs(3), { magic: 1 })]) {
      const copy = Buffer.from(input);
      validateAndAssignOffsets(input, ctx({ messageTimestampType: 'LogAppendTime' }));
      assert.deepEqual(input, copy);
    }
  });

  test('a handed-over buffer (mutateInput) is validated in place: the output is its own bytes, as a copy would have become', () => {
    // in-place paths only: v2 into a v2 topic, v1 into a v1 topic (0.10.2)
    const cases: [Buffer, Partial<LogConfig>][] = [
      [v2(3), {}],
      [v2(3, { compression: 'gzip' }), {}],
      [encodeLegacyMessageSet(recs(3), { magic: 1 }), { messageFormatVersion: '0.10.2' }],
    ];
    for (const [input, config] of cases) {
      for (const messageTimestampType of ['CreateTime', 'LogAppendTime'] as const) {
        const viaCopy = validateAndAssignOffsets(Buffer.from(input), ctx({ ...config, messageTimestampType }));
        assert.equal(viaCopy.recompressed, false);
        const handed = Buffer.from(input);
        const res = validateAndAssignOffsets(handed, ctx({ ...config, messageTimestampType }, { mutateInput: true }));
        assert.equal(res.records.buffer, handed.buffer, 'the output is a view of the handed-over buffer');
        assert.equal(res.records.byteOffset, handed.byteOffset);
        assert.deepEqual(handed, viaCopy.records);
        // the rewritten header fields are what Kafka writes (checked without kafkalite's reader)
        if (input[16] === 2) {
          assert.equal(handed.readBigInt64BE(0), NEXT);
          assert.equal(handed.readInt32BE(12), 7);
          assert.equal(handed.readUInt32BE(17), refCrc32c(handed.subarray(21)));
        } else {
          assert.equal(handed.readUInt32BE(12), refCrc32(handed.subarray(16, 12 + handed.readInt32BE(8))));
        }
      }
    }
  });
});

describe('LogValidator: format conversion', () => {
  test('testOffsetAssignmentAfterUpConversionV0ToV2 (compressed and not)', () => {
    for (const compression of ['none', 'gzip'] as const) {
      const res = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 0, compression }), ctx());
      assert.equal(res.recompressed, true);
      assert.equal(res.magic, 2);
      assert.equal(res.batchCount, 1);
      assert.equal(res.maxTimestamp, -1n);
      assert.equal(res.shallowOffsetOfMaxTimestamp, -1n);
      const [kp] = kpDecode(res.records);
      assert.ok(kp!.crcValid);
      assert.equal(kp!.header.magic, 2);
      assert.equal(kp!.header.compressionType, compression === 'gzip' ? 1 : 0);
      assert.equal(kp!.header.partitionLeaderEpoch, 7);
      assert.equal(kp!.header.producerId, '-1');
      assert.deepEqual(kp!.records.map((r) => r.offset), range(NEXT, 3).map(String));
      assert.deepEqual(kp!.records.map((r) => r.timestamp), ['-1', '-1', '-1']);
      assert.deepEqual(kp!.records.map((r) => r.key), ['k0', 'k1', 'k2'].map((k) => Buffer.from(k).toString('hex')));
    }
  });

  test('testCreateTimeUpConversionV1ToV2 / testOffsetAssignmentAfterUpConversionV1ToV2 (compressed and not)', () => {
    for (const compression of ['none', 'gzip', 'snappy', 'lz4'] as const) {
      const res = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 1, compression }), ctx());
      assert.equal(res.recompressed, true);
      assert.equal(res.maxTimestamp, NOW + 2n);
      assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 2n);
      const [kp] = kpDecode(res.records);
      assert.ok(kp!.crcValid);
      assert.equal(kp!.header.timestampType, 0);
      assert.equal(kp!.header.maxTimestamp, String(NOW + 2n));
      assert.deepEqual(kp!.records.map((r) => r.offset), range(NEXT, 3).map(String));
      assert.deepEqual(kp!.records.map((r) => r.timestamp), range(NOW, 3).map(String));
    }
  });

  test('testOffsetAssignmentAfterDownConversionV2ToV1 / V2ToV0 (compressed and not), message.format.version pinned', () => {
    for (const [version, magic] of [
      ['0.10.2', 1],
      ['0.9.0', 0],
      ['0.8.2.2', 0],
    ] as const) {
      for (const compression of ['none', 'gzip'] as const) {
        const res = validateAndAssignOffsets(v2(3, { compression }), ctx({ messageFormatVersion: version }));
        assert.equal(res.magic, magic);
        assert.equal(res.recompressed, true);
        const kp = kpDecodeLegacy(res.records);
        assert.ok(kp.every((e) => e.kind === 'legacy' && e.magic === magic && e.crcValid));
        assert.equal(kp.length, compression === 'none' ? 3 : 1);
        assert.deepEqual(kp.flatMap((e) => e.records.map((r) => r.offset)), range(NEXT, 3).map(String));
        assert.ok(kp.every((e) => e.records.every((r) => r.crcValid)));
        const ts = kp.flatMap((e) => e.records.map((r) => r.timestamp));
        assert.deepEqual(ts, magic === 1 ? range(NOW, 3).map(String) : ['-1', '-1', '-1']);
        if (magic === 1) {
          assert.equal(res.maxTimestamp, NOW + 2n);
          // uncompressed v1 entries: the offset of the record with the max timestamp; a wrapper: its last offset
          assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 2n);
        } else {
          assert.equal(res.maxTimestamp, -1n);
        }
      }
    }
  });

  test('testDownConversionOfTransactionalRecordsNotPermitted / IdempotentRecords / headers', () => {
    const cfg = { messageFormatVersion: '0.10.2' };
    const txn = v2(2, { producerId: 1344, producerEpoch: 16, baseSequence: 0, isTransactional: true });
    throwsWith(() => validateAndAssignOffsets(txn, ctx(cfg)), UnsupportedForMessageFormatError, /Transactional records cannot be used with magic version 1/, 0);
    const idem = v2(2, { producerId: 1344, producerEpoch: 16, baseSequence: 0, compression: 'gzip' });
    throwsWith(() => validateAndAssignOffsets(idem, ctx(cfg)), UnsupportedForMessageFormatError, /Idempotent records cannot be used with magic version 1/, 0);
    const headers = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: NOW, headers: [{ key: 'h', value: 'x' }] }]);
    const err = throwsWith(() => validateAndAssignOffsets(headers, ctx({ messageFormatVersion: '0.9.0' })), UnsupportedForMessageFormatError, /Magic v0 does not support record headers/, 0);
    assert.equal(errorName(err.kafkaErrorCode), 'UNSUPPORTED_FOR_MESSAGE_FORMAT');
  });

  test('zstd cannot be written below magic 2; errors name the topic partition when given', () => {
    const zstd = v2(2, { compression: 'zstd' });
    const err = throwsWith(
      () => validateAndAssignOffsets(zstd, ctx({ messageFormatVersion: '0.10.2' }, { topicPartition: 'orders-3' })),
      UnsupportedCompressionError,
      /ZStandard compression is not supported for magic 1/,
      0,
    );
    assert.equal(errorName(err.kafkaErrorCode), 'UNSUPPORTED_COMPRESSION_TYPE');
    throwsWith(
      () => validateAndAssignOffsets(v2(1, {}, NOW, false), ctx({ cleanupPolicy: 'compact' }, { topicPartition: 'orders-3' })),
      InvalidRecordError,
      /message='Compacted topic cannot accept message without key in topic partition orders-3'/,
    );
  });

  test('testOffsetAssignmentAfterDownConversionV1ToV0 and UpConversionV0ToV1 (compressed and not)', () => {
    for (const compression of ['none', 'gzip'] as const) {
      const down = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 1, compression }), ctx({ messageFormatVersion: '0.9.0' }));
      assert.equal(down.magic, 0);
      assert.deepEqual(offsets(down), range(NEXT, 3));
      const up = validateAndAssignOffsets(encodeLegacyMessageSet(recs(3), { magic: 0, compression }), ctx({ messageFormatVersion: '0.10.0' }));
      assert.equal(up.magic, 1);
      const kp = kpDecodeLegacy(up.records);
      assert.ok(kp.every((e) => e.magic === 1 && e.crcValid));
      assert.deepEqual(kp.flatMap((e) => e.records.map((r) => r.offset)), range(NEXT, 3).map(String));
    }
  });
});

describe('LogValidator: compression', () => {
  test('testDifferentLevelDoesNotCauseRecompression', () => {
    const input = v2(5, { compression: 'gzip', compressionLevel: 1 });
    const res = validateAndAssignOffsets(input, ctx({ compressionType: 'gzip', compressionGzipLevel: 9 }));
    assert.equal(res.recompressed, false);
    assert.equal(res.sourceCompression, 1);
    assert.equal(res.targetCompression, 1);
    assert.deepEqual(res.records.subarray(17), input.subarray(17));
  });

  test('testDifferentCodecCausesRecompression (and uncompressed -> compressed, compressed -> uncompressed)', () => {
    const pairs: [RecordBatchOptions['compression'], LogConfig['compressionType'], number][] = [
      ['gzip', 'lz4', 3],
      ['snappy', 'zstd', 4],
      ['none', 'gzip', 1],
      ['zstd', 'uncompressed', 0],
    ];
    for (const [from, to, id] of pairs) {
      const input = v2(5, { compression: from, producerId: 99, producerEpoch: 3, baseSequence: 42 });
      const res = validateAndAssignOffsets(input, ctx({ compressionType: to }));
      assert.equal(res.recompressed, true, `${from} -> ${to}`);
      assert.equal(res.targetCompression, id);
      assert.equal(res.maxTimestamp, NOW + 4n);
      assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 4n);
      const [kp] = kpDecode(res.records);
      assert.ok(kp!.crcValid);
      assert.equal(kp!.header.compressionType, id);
      // producer state carried over from the first batch
      assert.equal(kp!.header.producerId, '99');
      assert.equal(kp!.header.producerEpoch, 3);
      assert.equal(kp!.header.baseSequence, 42);
      assert.equal(kp!.header.partitionLeaderEpoch, 7);
      assert.deepEqual(kp!.records.map((r) => r.offset), range(NEXT, 5).map(String));
      assert.deepEqual(kp!.records.map((r) => r.timestamp), range(NOW, 5).map(String));
    }
  });

  test('transactional flag survives recompression', () => {
    const input = v2(2, { compression: 'gzip', producerId: 5, producerEpoch: 1, baseSequence: 0, isTransactional: true });
    const res = validateAndAssignOffsets(input, ctx({ compressionType: 'snappy' }));
    const [kp] = kpDecode(res.records);
    assert.equal(kp!.header.isTransactional, true);
  });
});

describe('LogValidator: timestamps', () => {
  const window = { messageTimestampBeforeMaxMs: 1000n, messageTimestampAfterMaxMs: 1000n };

  test('testInvalidCreateTime (v1, v2; compressed and not): past and future bounds', () => {
    for (const compression of ['none', 'gzip'] as const) {
      for (const ts of [NOW - 1001n, NOW + 1001n]) {
        const b2 = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: ts }], { compression });
        const err = throwsWith(() => validateAndAssignOffsets(b2, ctx(window)), InvalidTimestampError, /rejected due to invalid timestamp/, 0);
        assert.equal(errorName(err.kafkaErrorCode), 'INVALID_TIMESTAMP');
        const [re] = recordErrorsOf(err)!;
        assert.equal(re!.batchIndex, 0);
        assert.match(re!.message, new RegExp(`Timestamp ${ts} of message with offset 0 is out of range. The timestamp should be within \\[${NOW - 1000n}, ${NOW + 1000n}\\]`));
        const b1 = encodeLegacyMessageSet([{ key: 'k', value: 'v', timestamp: ts }], { magic: 1, compression });
        throwsWith(() => validateAndAssignOffsets(b1, ctx(window)), InvalidTimestampError, /invalid timestamp/);
      }
      // the bounds themselves are inside the window
      const ok = encodeRecordBatch(
        [
          { key: 'a', value: 'v', timestamp: NOW - 1000n },
          { key: 'b', value: 'v', timestamp: NOW + 1000n },
        ],
        { compression },
      );
      assert.equal(validateAndAssignOffsets(ok, ctx(window)).maxTimestamp, NOW + 1000n);
    }
  });

  test('testRecordWithPastTimestampIsRejected / FutureTimestamp: per-record error indexes, -1 is never checked', () => {
    const batch = encodeRecordBatch([
      { key: 'a', value: 'v', timestamp: NOW },
      { key: 'b', value: 'v', timestamp: NOW - 5000n },
      { key: 'c', value: 'v', timestamp: -1n },
      { key: 'd', value: 'v', timestamp: NOW + 5000n },
    ]);
    const err = throwsWith(() => validateAndAssignOffsets(batch, ctx(window)), InvalidTimestampError, /invalid timestamp/);
    assert.deepEqual(recordErrorsOf(err)!.map((e) => e.batchIndex), [1, 3]);
  });

  test('message.timestamp.after.max.ms defaults to one hour (Kafka 4.0)', () => {
    const future = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: NOW + 3_600_001n }]);
    const err = throwsWith(() => validateAndAssignOffsets(future, ctx()), InvalidTimestampError, /invalid timestamp/);
    assert.match(recordErrorsOf(err)![0]!.message, new RegExp(`should be within \\[-?\\d+, ${NOW + 3_600_000n}\\]`));
    const old = encodeRecordBatch([{ key: 'k', value: 'v', timestamp: 1n }]);
    assert.equal(validateAndAssignOffsets(old, ctx()).maxTimestamp, 1n);
  });

  test('a producer batch with the LogAppendTime bit is refused on a LogAppendTime topic', () => {
    const lat = encodeRecordBatch(recs(2), { timestampType: 'LogAppendTime', logAppendTime: NOW });
    throwsWith(
      () => validateAndAssignOffsets(lat, ctx({ messageTimestampType: 'LogAppendTime' })),
      InvalidTimestampError,
      /invalid timestamp/,
      0,
    );
    const err = throwsWith(() => validateAndAssignOffsets(lat, ctx({ messageTimestampType: 'LogAppendTime' })), InvalidTimestampError, /./);
    assert.match(recordErrorsOf(err)![0]!.message, /Producer should not set timestamp type to LogAppendTime/);
  });

  test('checkLogAppendTimeWithoutRecompression (v1, v2): in place, max timestamp = now, base timestamp kept', () => {
    const input = v2(3, { compression: 'gzip' }, 1234n);
    const res = validateAndAssignOffsets(input, ctx({ messageTimestampType: 'LogAppendTime', messageTimestampBeforeMaxMs: 1000n }));
    assert.equal(res.recompressed, false);
    assert.equal(res.records.length, input.length);
    assert.equal(res.maxTimestamp, NOW);
    assert.equal(res.logAppendTime, NOW);
    assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 2n);
    assertV2CrcValid(res.records);
    const [kp] = kpDecode(res.records);
    assert.ok(kp!.crcValid);
    assert.equal(kp!.header.timestampType, 1);
    assert.equal(kp!.header.maxTimestamp, String(NOW));
    assert.equal(kp!.header.firstTimestamp, '1234');
    assert.deepEqual(kp!.records.map((r) => r.timestamp), [NOW, NOW, NOW].map(String));

    const v1 = encodeLegacyMessageSet(recs(3, 1234n), { magic: 1, compression: 'gzip' });
    const r1 = validateAndAssignOffsets(v1, ctx({ messageTimestampType: 'LogAppendTime', messageFormatVersion: '0.10.2' }));
    assert.equal(r1.recompressed, false);
    assert.equal(r1.shallowOffsetOfMaxTimestamp, NEXT + 2n);
    const [e] = kpDecodeLegacy(r1.records);
    assert.ok(e!.crcValid);
    assert.equal(e!.timestampType, 1);
    assert.equal(e!.timestamp, String(NOW));
    assert.deepEqual(e!.records.map((r) => r.timestamp), [NOW, NOW, NOW].map(String));
    // and the wrapper CRC, independently
    assert.equal(r1.records.readUInt32BE(12), refCrc32(r1.records, 16, r1.records.length));
  });

  test('checkLogAppendTimeWithRecompression (v0 gzip -> v1, v2)', () => {
    for (const [version, magic] of [
      ['0.10.2', 1],
      ['3.0-IV1', 2],
    ] as const) {
      const input = encodeLegacyMessageSet(recs(3), { magic: 0, compression: 'gzip' });
      const res = validateAndAssignOffsets(input, ctx({ messageTimestampType: 'LogAppendTime', messageFormatVersion: version }));
      assert.equal(res.recompressed, true);
      assert.equal(res.magic, magic);
      assert.equal(res.maxTimestamp, NOW);
      assert.equal(res.shallowOffsetOfMaxTimestamp, NEXT + 2n);
      if (magic === 2) {
        const [kp] = kpDecode(res.records);
        assert.ok(kp!.crcValid);
        assert.equal(kp!.header.timestampType, 1);
        assert.equal(kp!.header.firstTimestamp, '-1');
        assert.deepEqual(kp!.records.map((r) => r.timestamp), [NOW, NOW, NOW].map(String));
      } else {
        const [e] = kpDecodeLegacy(res.records);
        assert.ok(e!.crcValid && e!.timestampType === 1 && e!.timestamp === String(NOW));
        assert.deepEqual(e!.records.map((r) => r.timestamp), [NOW, NOW, NOW].map(String));
      }
    }
  });

  test('checkLogAppendTimeNonCompressed (v0, v1, v2): shallow offset -1, first, last', () => {
    const cases = [
      ['0.9.0', encodeLegacyMessageSet(recs(3, 1234n), { magic: 0 }), -1n, -1n],
      ['0.10.2', encodeLegacyMessageSet(recs(3, 1234n), { magic: 1 }), NOW, NEXT],
      ['3.0', v2(3, {}, 1234n), NOW, NEXT + 2n],
    ] as const;
    for (const [version, input, max, shallow] of cases) {
      const res = validateAndAssignOffsets(input, ctx({ messageTimestampType: 'LogAppendTime', messageFormatVersion: version }));
      assert.equal(res.recompressed, false, version);
      assert.equal(res.maxTimestamp, max, version);
      assert.equal(res.shallowOffsetOfMaxTimestamp, shallow, version);
      assert.deepEqual(offsets(res), range(NEXT, 3));
      if (version === '0.10.2') {
        const kp = kpDecodeLegacy(res.records);
        assert.ok(kp.every((e) => e.crcValid && e.timestampType === 1 && e.timestamp === String(NOW)));
      }
      if (version === '3.0') {
        const [kp] = kpDecode(res.records);
        assert.ok(kp!.crcValid);
        assert.equal(kp!.header.firstTimestamp, '1234');
      }
    }
  });

  test('setMaxTimestamp recomputes the CRC only when type or value change (DefaultRecordBatch.setMaxTimestamp)', () => {
    const input = v2(3);
    const unchanged = validateAndAssignOffsets(input, ctx());
    assert.equal(unchanged.records.readUInt32BE(17), input.readUInt32BE(17));
    const copy = Buffer.from(input);
    const [batch] = [...new BatchReader(copy)];
    assert.equal(setMaxTimestamp(batch!, 'CreateTime', NOW + 2n), false);
    assert.equal(setMaxTimestamp(batch!, 'LogAppendTime', 42n), true);
    assert.equal(copy.readBigInt64BE(35), 42n);
    assert.equal(copy[22]! & 0x08, 0x08);
    assert.equal(copy.readUInt32BE(17), refCrc32c(copy, 21, copy.length));
  });
});

describe('LogValidator: records and producers', () => {
  test('checkInvalidChecksum (v0, v1, v2; compressed and not): CorruptRecordError at the batch', () => {
    const inputs = [
      encodeLegacyMessageSet(recs(2), { magic: 0 }),
      encodeLegacyMessageSet(recs(2), { magic: 1, compression: 'gzip' }),
      v2(2),
      v2(2, { compression: 'lz4' }),
    ];
    for (const input of inputs) {
      const bad = Buffer.from(input);
      bad[bad.length - 1]! ^= 0xff;
      const at = input[16] === 0 ? input.length - (input.length / 2) : 0; // two v0 entries: the second is damaged
      const err = throwsWith(() => validateAndAssignOffsets(bad, ctx()), CorruptRecordError, /Record is corrupt \(stored crc = \d+\)/, at);
      assert.equal(errorName(err.kafkaErrorCode), 'CORRUPT_MESSAGE');
    }
  });

  test('a corrupt inner message of a compressed v1 wrapper is CorruptRecordError', () => {
    const inner = Buffer.concat([0, 1].map((i) => legacyEntry(BigInt(i), 1, 0, NOW, Buffer.from('k'), Buffer.from(`v${i}`))));
    inner[inner.length - 1]! ^= 0xff; // the wrapper CRC covers the compressed bytes, not this CRC
    const wrapper = legacyEntry(1n, 1, 1, NOW, null, gzipSync(inner));
    throwsWith(() => validateAndAssignOffsets(wrapper, ctx()), CorruptRecordError, /Record is corrupt/, 0);
  });

  test('checkInvalidSequence: a producer id with a negative base sequence from a client', () => {
    for (const compression of ['none', 'gzip'] as const) {
      const batch = patch(v2(2, { compression }), (b) => {
        b.writeBigInt64BE(1324n, 43);
        b.writeInt16BE(10, 51);
        b.writeInt32BE(-1, 53);
      });
      throwsWith(() => validateAndAssignOffsets(batch, ctx()), InvalidRecordError, /Invalid sequence number -1 in record batch with producerId 1324/, 0);
      assert.equal(validateAndAssignOffsets(batch, ctx({}, { origin: 'replication' })).recordCount, 2);
    }
  });

  test('checkNoKeyCompactedTopic (v1, v2; compressed and not)', () => {
    for (const policy of ['compact', 'compact,delete'] as const) {
      for (const input of [
        v2(2, {}, NOW, false),
        v2(2, { compression: 'gzip' }, NOW, false),
        encodeLegacyMessageSet(recs(2, NOW, false), { magic: 1 }),
        encodeLegacyMessageSet(recs(2, NOW, false), { magic: 1, compression: 'snappy' }),
      ]) {
        const err = throwsWith(() => validateAndAssignOffsets(input, ctx({ cleanupPolicy: policy })), InvalidRecordError, /Compacted topic cannot accept message without key/, 0);
        assert.equal(recordErrorsOf(err)![0]!.batchIndex, 0);
      }
    }
    assert.equal(validateAndAssignOffsets(v2(2, {}, NOW, false), ctx()).recordCount, 2);
    assert.equal(validateAndAssignOffsets(v2(2), ctx({ cleanupPolicy: 'compact' })).recordCount, 2);
  });

  test('testControlRecordsNotAllowedFromClients', () => {
    const marker = encodeEndTransactionMarker({ type: 'COMMIT', producerId: 23423, producerEpoch: 5, coordinatorEpoch: 0, timestamp: NOW });
    throwsWith(() => validateAndAssignOffsets(marker, ctx()), InvalidRecordError, /Clients are not allowed to write control records/, 0);
  });

  test('testControlRecordsNotCompressed: a coordinator marker stays uncompressed on a snappy topic', () => {
    const marker = encodeEndTransactionMarker({ type: 'COMMIT', producerId: 23423, producerEpoch: 5, coordinatorEpoch: 0, timestamp: NOW });
    const res = validateAndAssignOffsets(marker, ctx({ compressionType: 'snappy' }, { origin: 'coordinator' }));
    assert.equal(res.recompressed, false);
    assert.equal(res.batchCount, 1);
    assert.equal(res.records[22]! & 0x07, 0);
    assert.equal(res.records[22]! & 0x20, 0x20);
    assert.equal(res.firstOffset, NEXT);
    assert.equal(res.lastOffset, NEXT);
    assertV2CrcValid(res.records);
  });

  test('idempotent and transactional batches keep their producer fields in place', () => {
    const input = v2(3, { producerId: 77, producerEpoch: 2, baseSequence: 10, isTransactional: true });
    const res = validateAndAssignOffsets(input, ctx());
    const [kp] = kpDecode(res.records);
    assert.equal(kp!.header.producerId, '77');
    assert.equal(kp!.header.baseSequence, 10);
    assert.equal(kp!.header.isTransactional, true);
    assert.ok(kp!.crcValid);
  });
});
