/**
 * `kafkalite dump-log --deep-iteration --print-data-log` on segments written by kafkalite's
 * PartitionLog (several codecs, leader epochs, a roll) and on real Kafka segments: every batch and
 * record line must carry the fields kafka-python decodes from the same file (Kafka `DumpLogSegments.dumpLog`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/index.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { runPython } from '../helpers/python-peer.js';
import { frameLog, tempDir } from '../helpers/storage.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

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
  records: { offset: string; timestamp: string; key: string | null; value: string | null; headers: [string, string | null][] }[];
}

function sequenceAt(base: number, delta: number): number {
  if (base < 0) return -1;
  return base > 0x7fffffff - delta ? delta - (0x7fffffff - base) - 1 : base + delta;
}

/** The dump lines kafka-dump-log.sh prints for `file`, built from kafka-python's decode of its batches. */
function expectedLines(file: string): string[] {
  const framed = frameLog(readFileSync(file));
  const decoded = runPython<{ results: KpBatch[] }>('kp_decode.py', { batches: framed.map((b) => b.bytes.toString('hex')) }).results;
  const base = BigInt(file.split('/').at(-1)!.slice(0, 20));
  const lines = [`Dumping ${file}`, `Log starting offset: ${base}`];
  for (const [i, d] of decoded.entries()) {
    assert.ok(d.ok && d.crcValid, `kafka-python accepts batch ${i}`);
    const h = d.header;
    const b = BigInt(h.baseOffset);
    const tsType = h.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
    lines.push(
      `baseOffset: ${b} lastOffset: ${b + BigInt(h.lastOffsetDelta)} count: ${h.count} ` +
        `baseSequence: ${h.baseSequence} lastSequence: ${sequenceAt(h.baseSequence, h.lastOffsetDelta)} producerId: ${h.producerId} ` +
        `producerEpoch: ${h.producerEpoch} partitionLeaderEpoch: ${h.partitionLeaderEpoch} ` +
        `isTransactional: ${h.isTransactional} isControl: ${h.isControl} deleteHorizonMs: OptionalLong.empty ` +
        `position: ${framed[i]!.position} ${tsType}: ${h.maxTimestamp} size: ${framed[i]!.size} magic: 2 ` +
        `compresscodec: ${CODEC_NAMES[h.compressionType]} crc: ${h.crc >>> 0} isvalid: true`,
    );
    for (const [j, r] of d.records.entries()) {
      const key = r.key === null ? null : Buffer.from(r.key, 'hex');
      const value = r.value === null ? null : Buffer.from(r.value, 'hex');
      let line =
        `| offset: ${r.offset} ${tsType}: ${r.timestamp} keySize: ${key?.length ?? -1} valueSize: ${value?.length ?? -1} ` +
        `sequence: ${sequenceAt(h.baseSequence, j)} headerKeys: [${r.headers.map(([k]) => k).join(',')}]`;
      if (!h.isControl) {
        if (key !== null) line += ` key: ${key.toString('utf8')}`;
        if (value !== null) line += ` payload: ${value.toString('utf8')}`;
      }
      lines.push(line);
    }
  }
  return lines;
}

function dump(file: string): string[] {
  const res = spawnSync(process.execPath, [CLI, 'dump-log', '--deep-iteration', '--print-data-log', '--files', file], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.equal(res.stderr, '');
  return res.stdout.replace(/\n$/, '').split('\n');
}

describe('kafkalite dump-log on kafkalite-written segments, against kafka-python', () => {
  let tmp: { dir: string; cleanup: () => void };
  let segments: string[];

  before(() => {
    tmp = tempDir('dump-seg');
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 3000, indexIntervalBytes: 500, compressionType: 'producer' as const };
    const now = 1_700_000_000_000;
    const log = PartitionLog.open(tmp.dir, 'dump', 0, { config, time: () => now });
    for (let i = 0; i < 20; i++) {
      const codec = CODEC_NAMES[i % 5] as 'none';
      const records = Array.from({ length: 1 + (i % 4) }, (_, j) => ({
        key: j === 1 ? null : `key-${i}-${j}`,
        value: j === 2 ? null : `value ${i}.${j} `.repeat(5 + i),
        headers: j === 0 ? [] : [{ key: 'h', value: 'x' }],
        timestamp: now - 1000 + i * 10 + j,
      }));
      log.append(encodeRecordBatch(records, { compression: codec }), { leaderEpoch: i < 10 ? 1 : 4 });
    }
    assert.ok(log.segmentCount >= 2, 'rolled at least once');
    segments = log.segmentList().map((s) => s.log.path);
    log.close();
  });
  after(() => tmp.cleanup());

  it('every segment dumps with the fields kafka-python reads', () => {
    for (const seg of segments) assert.deepEqual(dump(seg), expectedLines(seg), seg);
  });
});

describe('kafkalite dump-log on real Kafka segments, against kafka-python', () => {
  for (const file of [
    join(CORPORA, 'kafka-tester', '@e856b9a', 'internal', 'test_helpers', 'pass_all', 'kraft-combined-logs', 'foo-0', '00000000000000000000.log'),
    join(CORPORA, 'kafka-tester', '@510714e', 'internal', 'test_helpers', 'pass_all', 'kraft-combined-logs', 'foo-0', '00000000000000000000.log'),
  ]) {
    it(file.split('/').slice(-5, -3).join('/'), () => {
      assert.deepEqual(dump(file), expectedLines(file));
    });
  }
});
