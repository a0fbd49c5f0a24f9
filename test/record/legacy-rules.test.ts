/**
 * Kafka's rules for legacy message sets (`LegacyRecord`, `AbstractLegacyRecordBatch`), on entries
 * written here byte by byte (LegacyRecord layout, reference CRC-32 from helpers/ref.ts, gzip from node:zlib), independent of src/:
 * wrapper inheritance of timestamp type and LogAppendTime, the inner-offset rules, and the typed
 * errors Kafka raises for malformed wrappers.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { CorruptRecordError, InvalidRecordError, KafkaliteError } from '../../src/errors.js';
import { LegacyRecordBatch, readRecordBatches } from '../../src/record/index.js';
import { refCrc32 } from '../helpers/ref.js';

interface Msg {
  offset: bigint;
  magic: 0 | 1;
  attributes?: number;
  timestamp?: bigint;
  key: string | null;
  value: Buffer | string | null;
}

function entry(m: Msg): Buffer {
  const key = m.key === null ? null : Buffer.from(m.key);
  const value = m.value === null ? null : Buffer.isBuffer(m.value) ? m.value : Buffer.from(m.value);
  const parts: Buffer[] = [Buffer.from([m.magic, m.attributes ?? 0])];
  if (m.magic === 1) {
    const ts = Buffer.alloc(8);
    ts.writeBigInt64BE(m.timestamp ?? -1n);
    parts.push(ts);
  }
  for (const b of [key, value]) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(b === null ? -1 : b.length);
    parts.push(len);
    if (b) parts.push(b);
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(16);
  head.writeBigInt64BE(m.offset, 0);
  head.writeInt32BE(body.length + 4, 8);
  head.writeUInt32BE(refCrc32(body), 12);
  return Buffer.concat([head, body]);
}

function gzipWrapper(offset: bigint, magic: 0 | 1, inner: Buffer[], opts: { attributes?: number; timestamp?: bigint; value?: null } = {}): Buffer {
  return entry({
    offset,
    magic,
    attributes: opts.attributes ?? 1,
    timestamp: opts.timestamp ?? -1n,
    key: null,
    value: opts.value === null ? null : gzipSync(Buffer.concat(inner)),
  });
}

function typed(Cls: typeof CorruptRecordError | typeof InvalidRecordError, kafkaCode: number, message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof KafkaliteError, `a KafkaliteError, not ${String(err)}`);
    assert.ok(err instanceof Cls, `${Cls.name}, not ${err.constructor.name}: ${err.message}`);
    assert.equal(err.kafkaErrorCode, kafkaCode);
    if (message) assert.match(err.message, message);
    return true;
  };
}

describe('legacy wrappers: AbstractLegacyRecordBatch inheritance and offsets', () => {
  it('magic-1 wrapper, LogAppendTime: inner messages report the wrapper timestamp and type', () => {
    const inner = [0, 1, 2].map((i) => entry({ offset: BigInt(i), magic: 1, timestamp: 100n + BigInt(i), key: null, value: `v${i}` }));
    const b = new LegacyRecordBatch(gzipWrapper(42n, 1, inner, { attributes: 1 | 0x08, timestamp: 999n }));
    assert.deepEqual(
      b.records().map((r) => [r.offset, r.timestamp, r.timestampType]),
      [
        [40n, 999n, 'LogAppendTime'],
        [41n, 999n, 'LogAppendTime'],
        [42n, 999n, 'LogAppendTime'],
      ],
    );
  });

  it('magic-1 wrapper, CreateTime: inner messages keep their own timestamps, with the wrapper type (even if their own bit says LogAppendTime)', () => {
    const inner = [0, 1].map((i) => entry({ offset: BigInt(i), magic: 1, attributes: i === 1 ? 0x08 : 0, timestamp: 100n + BigInt(i), key: null, value: `v${i}` }));
    const b = new LegacyRecordBatch(gzipWrapper(8n, 1, inner, { timestamp: 101n }));
    assert.deepEqual(
      b.records().map((r) => [r.offset, r.timestamp, r.timestampType]),
      [
        [7n, 100n, 'CreateTime'],
        [8n, 101n, 'CreateTime'],
      ],
    );
  });

  it('magic-0 wrapper holding magic-1 messages: their own timestamps, with the wrapper timestamp type (NoTimestampType)', () => {
    // AbstractLegacyRecordBatch: otherwise their own timestamps, with the wrapper's timestamp type; a magic-0
    // wrapper's type is NO_TIMESTAMP_TYPE (Kafka: LegacyRecord.timestampType(magic, wrapperType, ...)
    // returns the wrapper's type whenever one is given)
    const inner = [0, 1].map((i) => entry({ offset: 10n + BigInt(i), magic: 1, attributes: i === 1 ? 0x08 : 0, timestamp: 500n + BigInt(i), key: null, value: `v${i}` }));
    const b = new LegacyRecordBatch(gzipWrapper(11n, 0, inner));
    assert.equal(b.timestampType, 'NoTimestampType');
    assert.deepEqual(
      b.records().map((r) => [r.offset, r.timestamp, r.timestampType]),
      [
        [10n, 500n, 'NoTimestampType'],
        [11n, 501n, 'NoTimestampType'],
      ],
    );
  });

  it('magic 0 inner offsets are absolute; magic 1 relative (absolute = wrapper - lastInner + inner), wrapper offset 0 = base 0', () => {
    const abs = [5, 6, 9].map((o) => entry({ offset: BigInt(o), magic: 0, key: 'k', value: 'v' }));
    assert.deepEqual(
      new LegacyRecordBatch(gzipWrapper(9n, 0, abs)).records().map((r) => r.offset),
      [5n, 6n, 9n],
    );
    const rel = [0, 1, 4].map((o) => entry({ offset: BigInt(o), magic: 1, timestamp: 1n, key: 'k', value: 'v' }));
    assert.deepEqual(
      new LegacyRecordBatch(gzipWrapper(104n, 1, rel)).records().map((r) => r.offset),
      [100n, 101n, 104n],
    );
    assert.deepEqual(
      new LegacyRecordBatch(gzipWrapper(0n, 1, rel)).records().map((r) => r.offset),
      [0n, 1n, 4n],
    );
    const w = new LegacyRecordBatch(gzipWrapper(104n, 1, rel));
    assert.equal(w.baseOffset, 100n);
    assert.equal(w.lastOffset, 104n);
    assert.equal(w.nextOffset, 105n);
  });
});

describe('legacy wrappers: typed errors', () => {
  const rel = [0, 1, 4].map((o) => entry({ offset: BigInt(o), magic: 1, timestamp: 1n, key: 'k', value: 'v' }));

  it('wrapper offset below the last inner offset (and not 0): InvalidRecordError (87)', () => {
    assert.throws(() => new LegacyRecordBatch(gzipWrapper(3n, 1, rel)).records(), typed(InvalidRecordError, 87, /wrapper offset/));
  });

  it('zstd (codec 4) wrapper below magic 2: InvalidRecordError', () => {
    const w = gzipWrapper(4n, 1, rel, { attributes: 4 });
    assert.throws(() => new LegacyRecordBatch(w).records(), typed(InvalidRecordError, 87, /Invalid wrapper compressionType/));
  });

  it('compressed inner message: InvalidRecordError "Inner messages must not be compressed"', () => {
    const inner = [entry({ offset: 0n, magic: 1, attributes: 1, timestamp: 1n, key: null, value: 'x' })];
    assert.throws(() => new LegacyRecordBatch(gzipWrapper(0n, 1, inner)).records(), typed(InvalidRecordError, 87, /Inner messages must not be compressed/));
  });

  it('null wrapper value and empty inner set: InvalidRecordError', () => {
    assert.throws(() => new LegacyRecordBatch(gzipWrapper(0n, 1, [], { value: null })).records(), typed(InvalidRecordError, 87, /null value/));
    assert.throws(() => new LegacyRecordBatch(gzipWrapper(0n, 1, [])).records(), typed(InvalidRecordError, 87, /no inner records/));
  });

  it('inner entry size below 14: CorruptRecordError', () => {
    const bad = Buffer.from(rel[1]!);
    bad.writeInt32BE(13, 8);
    assert.throws(() => new LegacyRecordBatch(gzipWrapper(4n, 1, [rel[0]!, bad, rel[2]!])).records(), typed(CorruptRecordError, 2));
  });

  it('CRC mismatch: CorruptRecordError from ensureValid and from the reader; records still readable without the check', () => {
    const e = entry({ offset: 7n, magic: 1, timestamp: 5n, key: 'key', value: 'value' });
    e[e.length - 1] ^= 0x01;
    assert.throws(() => [...readRecordBatches(e)], typed(CorruptRecordError, 2, /stored crc = \d+, computed crc = \d+/));
    const b = new LegacyRecordBatch(e);
    assert.equal(b.isValid(), false);
    assert.throws(() => b.records(), typed(CorruptRecordError, 2));
    const [r] = b.records({ verifyCrc: false });
    assert.equal(r!.value!.toString(), 'valud');
    assert.equal(r!.isValid(), false);
  });

  it('entry size below 14 in a stream: CorruptRecordError at the entry', () => {
    const e = Buffer.concat([entry({ offset: 0n, magic: 0, key: null, value: 'a' }), entry({ offset: 1n, magic: 0, key: null, value: 'b' })]);
    const second = e.length / 2;
    e.writeInt32BE(13, second + 8);
    const reader = readRecordBatches(e);
    assert.throws(
      () => [...reader],
      (err: unknown) => typed(CorruptRecordError, 2, /minimum record overhead/)(err) && (err as KafkaliteError).position === second,
    );
  });
});
