/**
 * `kafkalite dump-log` on segments holding legacy message sets (magic 0 and 1) mixed with v2
 * batches, against an independent reader: every set is built by kafka-python
 * (LegacyRecordBatchBuilder / DefaultRecordBatchBuilder; LogAppendTime as the broker's in-place
 * rewrite, done in Python), the whole segment is decoded by kafka-python (MemoryRecords), and every
 * line of the CLI's kafka-dump-log.sh text (`DumpLogSegments.dumpLog`: the legacy batch line, legacy record
 * lines ending ` isValid: <bool> crc: <crc>}` with Kafka's stray `}`, v2 lines) and every field of
 * its `--json` objects must equal kafka-python's view of the same bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  CODEC_NAME_OF,
  type KpLegacyBatch,
  type KpStream,
  kpTsType,
  type KpV2Batch,
  type LegacyCase,
  type LegacyCodec,
  legacyToWire,
} from '../helpers/legacy-gen.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { runPython } from '../helpers/python-peer.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, 'dump-log', ...args], { encoding: 'utf8' });
}

const ascii = (s: string) => Buffer.from(s, 'utf8').toString('hex');

/** The segment's units in order: legacy sets (magic, codec, count, LogAppendTime?) and v2 batches. */
type Unit = { kind: 'legacy'; magic: 0 | 1; codec: LegacyCodec; n: number; lat?: bigint } | { kind: 'v2'; codec: 'none' | 'gzip' | 'zstd'; n: number };
const UNITS: Unit[] = [
  { kind: 'legacy', magic: 0, codec: 'none', n: 3 },
  { kind: 'legacy', magic: 0, codec: 'gzip', n: 3 },
  { kind: 'legacy', magic: 0, codec: 'lz4', n: 2 },
  { kind: 'legacy', magic: 0, codec: 'snappy', n: 2 },
  { kind: 'legacy', magic: 1, codec: 'none', n: 3 },
  { kind: 'legacy', magic: 1, codec: 'snappy', n: 3 },
  { kind: 'legacy', magic: 1, codec: 'gzip', n: 2, lat: 1_700_000_009_999n },
  { kind: 'legacy', magic: 1, codec: 'lz4', n: 4 },
  { kind: 'legacy', magic: 1, codec: 'none', n: 2, lat: 1_700_000_008_888n },
  { kind: 'v2', codec: 'none', n: 3 },
  { kind: 'v2', codec: 'gzip', n: 4 },
  { kind: 'legacy', magic: 1, codec: 'gzip', n: 2 },
  { kind: 'v2', codec: 'zstd', n: 2 },
];

function keyOf(u: number, j: number): string | null {
  return j % 3 === 1 ? null : `key-${u}-${j}`;
}
function valueOf(u: number, j: number): string | null {
  if (j % 4 === 2) return null;
  if (j % 5 === 3) return '';
  return `value ${u}.${j} `.repeat(1 + ((u + j) % 6));
}

/** kafka-python builds every unit; returns the segment bytes. */
function buildSegment(): Buffer {
  let offset = 0n;
  const legacyCases: LegacyCase[] = [];
  const v2Cases: unknown[] = [];
  const order: ('legacy' | 'v2')[] = [];
  UNITS.forEach((u, ui) => {
    const records = Array.from({ length: u.n }, (_, j) => ({
      offsetDelta: j,
      timestamp: 1_700_000_000_000n + BigInt(ui * 100 + j),
      key: keyOf(ui, j),
      value: valueOf(ui, j),
    }));
    if (u.kind === 'legacy') {
      legacyCases.push({ magic: u.magic, codec: u.codec, baseOffset: offset, logAppendTime: u.lat ?? null, records });
    } else {
      v2Cases.push({
        codec: u.codec,
        producerId: '-1',
        producerEpoch: -1,
        baseSequence: -1,
        transactional: false,
        baseOffset: String(offset),
        partitionLeaderEpoch: 3,
        records: records.map((r) => ({
          offsetDelta: r.offsetDelta,
          timestamp: String(r.timestamp),
          key: r.key === null ? null : ascii(r.key),
          value: r.value === null ? null : ascii(r.value),
          headers: r.offsetDelta === 1 ? [['h', ascii('x')]] : [],
        })),
      });
    }
    order.push(u.kind);
    offset += BigInt(u.n);
  });
  const legacy = runPython<{ sets: { hex: string }[] }>('kp_legacy_build.py', { cases: legacyCases.map(legacyToWire) }).sets;
  const v2 = runPython<{ batches: { hex: string }[] }>('kp_build.py', { cases: v2Cases }).batches;
  let li = 0;
  let vi = 0;
  return Buffer.concat(order.map((k) => Buffer.from(k === 'legacy' ? legacy[li++]!.hex : v2[vi++]!.hex, 'hex')));
}

function decode(segment: Buffer): (KpLegacyBatch | KpV2Batch)[] {
  const [r] = runPython<{ results: KpStream[] }>('kp_legacy_decode.py', { streams: [segment.toString('hex')] }).results;
  if (!r!.ok) assert.fail(`kafka-python cannot read the segment: ${r!.error}`);
  return r!.batches;
}

const text = (h: string | null) => (h === null ? null : Buffer.from(h, 'hex').toString('utf8'));
const size = (h: string | null) => (h === null ? -1 : h.length / 2);

/** kafka-dump-log.sh lines (DumpLogSegments.dumpLog) for kafka-python's view of one batch. */
function expectedLines(b: KpLegacyBatch | KpV2Batch, opts: { data: boolean; skipMetadata?: boolean }): string[] {
  const data = (key: string | null, value: string | null, prefix: string) => {
    let s = '';
    if (key !== null) {
      s += `${prefix}key: ${text(key)}`;
    }
    if (value !== null) s += ` payload: ${text(value)}`;
    return s;
  };
  if (b.kind === 'legacy') {
    const type = kpTsType(b.timestampType);
    const lines = [
      `offset: ${b.offset} position: ${b.position} ${type}: ${b.timestamp} size: ${b.size} magic: ${b.magic} ` +
        `compresscodec: ${CODEC_NAME_OF[b.compressionType]} crc: ${b.crc} isvalid: ${b.crcValid}`,
    ];
    for (const r of b.records) {
      if (opts.skipMetadata) {
        lines.push(data(r.key, r.value, '| '));
        continue;
      }
      let line = `| offset: ${r.offset} ${type}: ${r.timestamp} keySize: ${size(r.key)} valueSize: ${size(r.value)} isValid: ${r.crcValid} crc: ${r.crc}}`;
      if (opts.data) line += data(r.key, r.value, ' ');
      lines.push(line);
    }
    return lines;
  }
  const h = b.header;
  const base = BigInt(h.baseOffset);
  const type = h.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
  const lines = [
    `baseOffset: ${base} lastOffset: ${base + BigInt(h.lastOffsetDelta)} count: ${h.count} ` +
      `baseSequence: ${h.baseSequence} lastSequence: -1 producerId: ${h.producerId} ` +
      `producerEpoch: ${h.producerEpoch} partitionLeaderEpoch: ${h.partitionLeaderEpoch} ` +
      `isTransactional: ${h.isTransactional} isControl: ${h.isControl} deleteHorizonMs: OptionalLong.empty ` +
      `position: ${b.position} ${type}: ${h.maxTimestamp} size: ${b.size} magic: 2 ` +
      `compresscodec: ${CODEC_NAME_OF[h.compressionType]} crc: ${h.crc >>> 0} isvalid: ${b.crcValid}`,
  ];
  for (const r of b.records) {
    if (opts.skipMetadata) {
      lines.push(data(r.key, r.value, '| '));
      continue;
    }
    let line =
      `| offset: ${r.offset} ${type}: ${r.timestamp} keySize: ${size(r.key)} valueSize: ${size(r.value)} ` +
      `sequence: -1 headerKeys: [${r.headers.map(([k]) => k).join(',')}]`;
    if (opts.data) line += data(r.key, r.value, ' ');
    lines.push(line);
  }
  return lines;
}

describe('kafkalite dump-log on legacy (magic 0/1) + v2 segments, against kafka-python', () => {
  let dir: string;
  let segment: Buffer;
  let logFile: string;
  let decoded: (KpLegacyBatch | KpV2Batch)[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafkalite-dump-legacy-'));
    segment = buildSegment();
    decoded = decode(segment);
    logFile = join(dir, '00000000000000000000.log');
    writeFileSync(logFile, segment);
    // the segment is what it should be, by kafka-python's reading
    const wrappers = decoded.filter((b) => b.kind === 'legacy' && b.compressionType !== 0);
    assert.deepEqual(
      wrappers.map((b) => [(b as KpLegacyBatch).magic, (b as KpLegacyBatch).compressionType]),
      [
        [0, 1],
        [0, 3],
        [0, 2],
        [1, 2],
        [1, 1],
        [1, 3],
        [1, 1],
      ],
    );
    const offsets = decoded.flatMap((b) => b.records.map((r) => BigInt(r.offset)));
    assert.deepEqual(offsets, Array.from({ length: UNITS.reduce((n, u) => n + u.n, 0) }, (_, i) => BigInt(i)));
    for (const b of decoded) assert.ok(b.crcValid);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--deep-iteration --print-data-log: every batch and record line as kafka-dump-log.sh prints it', () => {
    const res = run(['--deep-iteration', '--print-data-log', '--files', logFile]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '', 'offsets are consecutive: no stderr report');
    const lines = res.stdout.replace(/\n$/, '').split('\n');
    assert.deepEqual(lines, [`Dumping ${logFile}`, 'Log starting offset: 0', ...decoded.flatMap((b) => expectedLines(b, { data: true }))]);
  });

  it('batch lines only (no deep iteration)', () => {
    const res = run(['--files', logFile]);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(res.stdout.replace(/\n$/, '').split('\n'), [`Dumping ${logFile}`, 'Log starting offset: 0', ...decoded.map((b) => expectedLines(b, { data: false })[0]!)]);
  });

  it('--deep-iteration without data, and --skip-record-metadata with data', () => {
    const deep = run(['--deep-iteration', '--files', logFile]);
    assert.equal(deep.status, 0, deep.stderr);
    assert.deepEqual(deep.stdout.replace(/\n$/, '').split('\n').slice(2), decoded.flatMap((b) => expectedLines(b, { data: false })));
    const skip = run(['--print-data-log', '--skip-record-metadata', '--files', logFile]);
    assert.equal(skip.status, 0, skip.stderr);
    assert.deepEqual(skip.stdout.replace(/\n$/, '').split('\n').slice(2), decoded.flatMap((b) => expectedLines(b, { data: true, skipMetadata: true })));
  });

  it('--json --print-data-log: every legacy object field equals kafka-python\'s view; v2 objects too', () => {
    const res = run(['--json', '--print-data-log', '--files', logFile]);
    assert.equal(res.status, 0, res.stderr);
    const objs = res.stdout.replace(/\n$/, '').split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(objs.length, decoded.length);
    decoded.forEach((b, i) => {
      const o = objs[i]!;
      if (b.kind === 'legacy') {
        assert.deepStrictEqual(
          o,
          {
            file: logFile,
            offset: Number(b.offset),
            position: b.position,
            timestampType: kpTsType(b.timestampType),
            maxTimestamp: Number(b.timestamp),
            size: b.size,
            magic: b.magic,
            compresscodec: CODEC_NAME_OF[b.compressionType],
            crc: b.crc,
            isvalid: b.crcValid,
            records: b.records.map((r) => ({
              offset: Number(r.offset),
              timestamp: Number(r.timestamp),
              keySize: size(r.key),
              valueSize: size(r.value),
              isValid: r.crcValid,
              crc: r.crc,
              key: text(r.key),
              keyEncoding: r.key === null ? null : 'utf8',
              payload: text(r.value),
              payloadEncoding: r.value === null ? null : 'utf8',
            })),
          },
          `batch ${i}`,
        );
      } else {
        assert.equal(o.magic, 2);
        assert.equal(String(o.baseOffset), b.header.baseOffset);
        assert.equal(o.position, b.position);
        assert.equal(o.size, b.size);
        assert.equal(o.crc, b.header.crc >>> 0);
        assert.equal(o.compresscodec, CODEC_NAME_OF[b.header.compressionType]);
        const recs = o.records as Record<string, unknown>[];
        assert.deepEqual(
          recs.map((r) => [String(r.offset), String(r.timestamp), r.key, r.payload]),
          b.records.map((r) => [r.offset, r.timestamp, text(r.key), text(r.value)]),
        );
      }
    });
  });

  it('a legacy entry with a bad CRC shows isvalid: false (batch and record) and still lists its record', () => {
    // first unit: three plain magic-0 entries; corrupt the second one's value
    const [, second] = decoded as KpLegacyBatch[];
    const bad = Buffer.from(segment);
    const at = second!.position + second!.size - 2;
    bad[at]! ^= 0x01;
    const file = join(dir, '00000000000000000100.log');
    writeFileSync(file, bad);
    const kp = decode(bad);
    assert.equal((kp[1] as KpLegacyBatch).crcValid, false);
    const res = run(['--deep-iteration', '--print-data-log', '--files', file]);
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.replace(/\n$/, '').split('\n');
    assert.deepEqual(lines.slice(2), kp.flatMap((b) => expectedLines(b, { data: true })));
    assert.ok(lines.some((l) => l.endsWith('isvalid: false')));
    assert.ok(lines.some((l) => / isValid: false crc: \d+\}/.test(l)));
  });

  it('a torn legacy tail is reported as invalid bytes; a wrapper offset gap is listed on stderr', () => {
    const legacyUnits = decoded.filter((b) => b.kind === 'legacy') as KpLegacyBatch[];
    const wrapper = legacyUnits.find((b) => b.magic === 1 && b.compressionType === 1)!;
    const first = legacyUnits[0]!;
    const partial = segment.subarray(wrapper.position, wrapper.position + wrapper.size - 5);
    const torn = join(dir, '00000000000000000200.log');
    writeFileSync(torn, Buffer.concat([segment.subarray(first.position, first.position + first.size), partial]));
    const res = run(['--files', torn]);
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.replace(/\n$/, '').split('\n');
    assert.equal(lines[1], 'Log starting offset: 200');
    assert.equal(lines.length, 4);
    assert.equal(lines[3], `Found ${partial.length} invalid bytes at the end of 00000000000000000200.log`);

    // the first entry (offset 0) followed directly by the magic-1 gzip wrapper (offsets 18..19)
    const gap = join(dir, '00000000000000000300.log');
    writeFileSync(gap, Buffer.concat([segment.subarray(first.position, first.position + first.size), segment.subarray(wrapper.position, wrapper.position + wrapper.size)]));
    const g = run(['--deep-iteration', '--files', gap]);
    assert.equal(g.status, 0, g.stderr);
    assert.equal(g.stderr, `Non-consecutive offsets in ${gap}\n  ${first.records[0]!.offset} is followed by ${wrapper.records[0]!.offset}\n`);
  });
});
