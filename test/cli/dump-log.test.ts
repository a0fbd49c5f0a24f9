/**
 * `kafkalite dump-log` against an independent reader: segment files are built by kafka-python
 * (plus a kafkalite transaction marker), each batch is decoded by kafka-python, and every field of
 * the CLI's kafka-dump-log.sh-format lines (`DumpLogSegments.dumpLog`) and of its `--json` objects must
 * equal kafka-python's view of the same bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeEndTransactionMarker } from '../../src/index.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { runPython } from '../helpers/python-peer.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

interface KpRecord {
  offset: string;
  timestamp: string;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}
interface KpBatch {
  ok: boolean;
  crcValid: boolean;
  header: {
    baseOffset: string;
    partitionLeaderEpoch: number;
    crc: number;
    compressionType: number;
    timestampType: number;
    isTransactional: boolean;
    isControl: boolean;
    lastOffsetDelta: number;
    maxTimestamp: string;
    producerId: string;
    producerEpoch: number;
    baseSequence: number;
    count: number;
  };
  records: KpRecord[];
}

const ascii = (s: string) => Buffer.from(s, 'utf8').toString('hex');

function cases() {
  let base = 0;
  const out = [];
  for (const [i, codec] of CODEC_NAMES.entries()) {
    const n = 3 + i;
    const idempotent = i % 2 === 1;
    out.push({
      codec,
      producerId: idempotent ? String(1000 + i) : '-1',
      producerEpoch: idempotent ? 2 : -1,
      baseSequence: idempotent ? 2147483646 - i : -1, // crosses Kafka's sequence wrap-around
      transactional: false,
      baseOffset: String(base),
      partitionLeaderEpoch: 5,
      records: Array.from({ length: n }, (_, j) => ({
        offsetDelta: j,
        timestamp: String(1_700_000_000_000 + i * 100 + j),
        key: j === 1 ? null : ascii(`key-${i}-${j}`),
        value: j === 2 ? null : ascii(`value ${i}.${j} `.repeat(40)),
        headers: j === 0 ? [] : [['h1', ascii('x')], ['trace', null]],
      })),
    });
    base += n;
  }
  return out;
}

function sequenceAt(base: number, delta: number): number {
  if (base < 0) return -1;
  return base > 0x7fffffff - delta ? delta - (0x7fffffff - base) - 1 : base + delta;
}

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, 'dump-log', ...args], { encoding: 'utf8' });
}

describe('kafkalite dump-log (.log) against kafka-python', () => {
  let dir: string;
  let logFile: string;
  let batches: Buffer[];
  let decoded: KpBatch[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafkalite-dump-'));
    const built = runPython<{ batches: { hex: string; compressed: boolean }[] }>('kp_build.py', { cases: cases() });
    batches = built.batches.map((b) => Buffer.from(b.hex, 'hex'));
    const nextOffset = cases().reduce((a, c) => a + c.records.length, 0);
    batches.push(
      encodeEndTransactionMarker({
        type: 'COMMIT',
        producerId: 77n,
        producerEpoch: 3,
        coordinatorEpoch: 9,
        baseOffset: nextOffset,
        partitionLeaderEpoch: 5,
        timestamp: 1_700_000_001_000,
      }),
    );
    decoded = runPython<{ results: KpBatch[] }>('kp_decode.py', { batches: batches.map((b) => b.toString('hex')) }).results;
    for (const d of decoded) assert.ok(d.ok && d.crcValid, 'kafka-python must accept every batch');
    assert.ok(built.batches.slice(1).some((b) => b.compressed), 'some batches must really be compressed');
    logFile = join(dir, '00000000000000000000.log');
    writeFileSync(logFile, Buffer.concat(batches));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every batch and record line as kafka-dump-log.sh does', () => {
    const res = run(['--deep-iteration', '--print-data-log', '--files', logFile]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const lines = res.stdout.trimEnd().split('\n');
    assert.equal(lines.shift(), `Dumping ${logFile}`);
    assert.equal(lines.shift(), 'Log starting offset: 0');
    let position = 0;
    for (const [i, d] of decoded.entries()) {
      const h = d.header;
      const base = BigInt(h.baseOffset);
      const tsType = h.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
      const lastSeq = sequenceAt(h.baseSequence, h.lastOffsetDelta);
      const expectedBatch =
        `baseOffset: ${base} lastOffset: ${base + BigInt(h.lastOffsetDelta)} count: ${h.count} ` +
        `baseSequence: ${h.baseSequence} lastSequence: ${lastSeq} producerId: ${h.producerId} ` +
        `producerEpoch: ${h.producerEpoch} partitionLeaderEpoch: ${h.partitionLeaderEpoch} ` +
        `isTransactional: ${h.isTransactional} isControl: ${h.isControl} deleteHorizonMs: OptionalLong.empty ` +
        `position: ${position} ${tsType}: ${h.maxTimestamp} size: ${batches[i]!.length} magic: 2 ` +
        `compresscodec: ${CODEC_NAMES[h.compressionType]} crc: ${h.crc >>> 0} isvalid: true`;
      assert.equal(lines.shift(), expectedBatch);
      for (const [j, r] of d.records.entries()) {
        const key = r.key === null ? null : Buffer.from(r.key, 'hex');
        const value = r.value === null ? null : Buffer.from(r.value, 'hex');
        let line =
          `| offset: ${r.offset} ${tsType}: ${r.timestamp} keySize: ${key?.length ?? -1} valueSize: ${value?.length ?? -1} ` +
          `sequence: ${sequenceAt(h.baseSequence, j)} headerKeys: [${r.headers.map(([k]) => k).join(',')}]`;
        if (h.isControl) {
          // control key: int16 version, int16 type; marker value: int16 version, int32 coordinatorEpoch
          const type = key!.readInt16BE(2) === 1 ? 'COMMIT' : 'ABORT';
          line += ` endTxnMarker: ${type} coordinatorEpoch: ${value!.readInt32BE(2)}`;
        } else {
          if (key !== null) line += ` key: ${key.toString('utf8')}`;
          if (value !== null) line += ` payload: ${value.toString('utf8')}`;
        }
        assert.equal(lines.shift(), line);
      }
      position += batches[i]!.length;
    }
    assert.deepEqual(lines, []);
  });

  it('--json prints one object per batch with the same fields', () => {
    const res = run(['--json', '--print-data-log', '--files', logFile]);
    assert.equal(res.status, 0, res.stderr);
    const objs = res.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(objs.length, decoded.length);
    for (const [i, d] of decoded.entries()) {
      const o = objs[i]!;
      assert.equal(String(o.baseOffset), d.header.baseOffset);
      assert.equal(o.count, d.header.count);
      assert.equal(o.crc, d.header.crc >>> 0);
      assert.equal(o.isvalid, true);
      assert.equal(o.compresscodec, CODEC_NAMES[d.header.compressionType]);
      assert.equal(String(o.producerId), d.header.producerId);
      const recs = o.records as Record<string, unknown>[];
      assert.equal(recs.length, d.records.length);
      for (const [j, r] of d.records.entries()) {
        assert.equal(String(recs[j]!.offset), r.offset);
        assert.equal(String(recs[j]!.timestamp), r.timestamp);
        if (!d.header.isControl) {
          assert.equal(recs[j]!.payload, r.value === null ? null : Buffer.from(r.value, 'hex').toString('utf8'));
          assert.equal(recs[j]!.key, r.key === null ? null : Buffer.from(r.key, 'hex').toString('utf8'));
        }
      }
    }
  });

  it('reports a torn tail as invalid bytes, and --max-bytes suppresses that line', () => {
    const torn = join(dir, '00000000000000000100.log');
    const partial = batches[1]!.subarray(0, 40);
    writeFileSync(torn, Buffer.concat([batches[0]!, partial]));
    const res = run(['--files', torn]);
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.trimEnd().split('\n');
    assert.equal(lines[1], 'Log starting offset: 100');
    assert.equal(lines.length, 4);
    assert.equal(lines[3], `Found ${partial.length} invalid bytes at the end of 00000000000000000100.log`);
    const limited = run(['--max-bytes', String(batches[0]!.length + 10), '--files', torn]);
    assert.equal(limited.stdout.trimEnd().split('\n').length, 3);
  });

  it('flags a batch with a bad CRC as isvalid: false and still lists its records', () => {
    const bad = Buffer.from(batches[0]!);
    bad[bad.length - 3]! ^= 0x01; // inside the last record's value
    const file = join(dir, '00000000000000000200.log');
    writeFileSync(file, bad);
    const res = run(['--deep-iteration', '--files', file]);
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.trimEnd().split('\n');
    assert.match(lines[2]!, / isvalid: false$/);
    assert.equal(lines.length, 3 + decoded[0]!.records.length);
  });

  it('lists non-consecutive offsets on stderr, and ignores unknown files', () => {
    const gap = Buffer.from(batches[1]!);
    gap.writeBigInt64BE(500n, 0); // baseOffset is outside the CRC
    const file = join(dir, '00000000000000000300.log');
    writeFileSync(file, Buffer.concat([batches[0]!, gap]));
    const other = join(dir, 'notes.txt');
    writeFileSync(other, 'x');
    const res = run(['--deep-iteration', '--files', `${file},${other}`]);
    assert.equal(res.status, 0, res.stderr);
    const last = decoded[0]!.records.at(-1)!.offset;
    assert.equal(
      res.stderr,
      `Ignoring unknown file ${other}\nNon-consecutive offsets in ${file}\n  ${last} is followed by 500\n`,
    );
  });

  it('exits 2 on usage errors and 1 on a corrupt size field', () => {
    assert.equal(run([]).status, 2);
    assert.equal(run(['--files', logFile, '--bogus']).status, 2);
    const file = join(dir, '00000000000000000400.log');
    const corrupt = Buffer.from(batches[0]!);
    corrupt.writeInt32BE(3, 8);
    writeFileSync(file, corrupt);
    const res = run(['--files', file]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /Found record size 3 smaller than minimum record overhead \(14\).*\[CORRUPT_RECORD\]/);
  });
});
