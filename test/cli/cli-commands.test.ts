/**
 * The kafkalite binary as a user runs it: `--help` for every command, `--version`, `stats` on a
 * directory whose content the test wrote (expected figures come from the inputs, not from
 * kafkalite), KRaft `.checkpoint` dumps against lines written by hand from the raw bytes of the
 * kafka-tester corpus (`DumpLogSegments.dumpLog`), the foo-0 segment spelled out the same way, one-line
 * errors for bad input, and the progress bar (drawn only on a terminal).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/index.js';
import { ProgressBar } from '../../src/cli/progress.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const E856 = join(CORPORA, 'kafka-tester/@e856b9a/internal/test_helpers/pass_all/kraft-combined-logs');

function run(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}
const lines = (s: string) => s.replace(/\n$/, '').split('\n');

describe('kafkalite: help and version', () => {
  it('--help for every command, exit 0, on stdout', () => {
    const top = run('--help');
    assert.equal(top.status, 0);
    for (const cmd of ['dump-log', 'verify', 'recover', 'stats']) {
      assert.match(top.stdout, new RegExp(`^  ${cmd} `, 'm'));
      const res = run(cmd, '--help');
      assert.equal(res.status, 0, cmd);
      assert.match(res.stdout, new RegExp(`^Usage: kafkalite ${cmd} `), cmd);
      assert.equal(res.stderr, '');
    }
  });
  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const res = run('--version');
    assert.equal(res.status, 0);
    assert.equal(res.stdout, `kafkalite ${pkg.version}\n`);
  });
  it('no command exits 2; an unknown one exits 2 on stderr', () => {
    assert.equal(run().status, 2);
    const res = run('frobnicate');
    assert.equal(res.status, 2);
    assert.match(res.stderr, /^Unknown command: frobnicate/);
  });
});

describe('kafkalite dump-log: real Kafka files, expected lines written from the raw bytes', () => {
  it('foo-0 segment (e856b9a) with --print-data-log: idempotent batches, null keys, payloads', () => {
    const file = join(E856, 'foo-0/00000000000000000000.log');
    // batch 0 @0: length 0x44 (size 80), crc 0x591ef58f, lastOffsetDelta 1, base/max ts
    // 0x191b23a23db/0x191b23a25f8, pid 0 epoch 0 seq 0, 2 records (the 2nd has tsDelta varint ba 08 = 541);
    // batch 1 @80: baseOffset 2, length 0x3a (size 70), crc 0xcedf1477, ts 0x191b23a29cc, seq 2
    const expected = [
      `Dumping ${file}`,
      'Log starting offset: 0',
      'baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 lastSequence: 1 producerId: 0 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1725272040952 size: 80 magic: 2 compresscodec: none crc: 1495201167 isvalid: true',
      '| offset: 0 CreateTime: 1725272040411 keySize: -1 valueSize: 2 sequence: 0 headerKeys: [] payload: m1',
      '| offset: 1 CreateTime: 1725272040952 keySize: -1 valueSize: 2 sequence: 1 headerKeys: [] payload: m2',
      'baseOffset: 2 lastOffset: 2 count: 1 baseSequence: 2 lastSequence: 2 producerId: 0 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 80 CreateTime: 1725272041932 size: 70 magic: 2 compresscodec: none crc: 3470726263 isvalid: true',
      '| offset: 2 CreateTime: 1725272041932 keySize: -1 valueSize: 2 sequence: 2 headerKeys: [] payload: m3',
    ];
    const res = run('dump-log', '--print-data-log', '--files', file);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    assert.deepEqual(lines(res.stdout), expected);
  });

  // bootstrap.checkpoint (249 B): three batches, attributes 0x0020 (control) on the first and last.
  // Control keys 00 00 00 03 (SNAPSHOT_HEADER) and 00 00 00 04 (SNAPSHOT_FOOTER); the header value is
  // int16 version 0, int64 lastContainedLogTimestamp 0, no tagged fields; the footer's int16 0 + 0.
  const bootstrapLines = (file: string, second: string) => [
    `Dumping ${file}`,
    second,
    'baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: true deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1725272012705 size: 83 magic: 2 compresscodec: none crc: 1824482311 isvalid: true',
    '| offset: 0 CreateTime: 1725272012705 keySize: 4 valueSize: 11 sequence: -1 headerKeys: [] SnapshotHeader {"version":0,"lastContainedLogTimestamp":0}',
    'baseOffset: 1 lastOffset: 1 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 83 CreateTime: 1725272012715 size: 91 magic: 2 compresscodec: none crc: 3925847331 isvalid: true',
    '| offset: 1 CreateTime: 1725272012715 keySize: -1 valueSize: 23 sequence: -1 headerKeys: []',
    'baseOffset: 2 lastOffset: 2 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: true deleteHorizonMs: OptionalLong.empty position: 174 CreateTime: 1725272012716 size: 75 magic: 2 compresscodec: none crc: 1623382867 isvalid: true',
    '| offset: 2 CreateTime: 1725272012716 keySize: 4 valueSize: 3 sequence: -1 headerKeys: [] SnapshotFooter {"version":0}',
  ];

  it('bootstrap.checkpoint: "KRaft bootstrap snapshot", SnapshotHeader/SnapshotFooter as JSON', () => {
    const file = join(E856, 'bootstrap.checkpoint');
    const res = run('dump-log', '--deep-iteration', '--files', file);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(lines(res.stdout), bootstrapLines(file, 'KRaft bootstrap snapshot'));
  });

  describe('named KRaft snapshots', () => {
    let tmp: { dir: string; cleanup: () => void };
    before(() => (tmp = tempDir('kraft-snap')));
    after(() => tmp.cleanup());
    it('<offset>-<epoch>.checkpoint prints its end offset and epoch', () => {
      const file = join(tmp.dir, '00000000000000000003-0000000001.checkpoint');
      copyFileSync(join(E856, 'bootstrap.checkpoint'), file);
      const res = run('dump-log', '--deep-iteration', '--files', file);
      assert.equal(res.status, 0, res.stderr);
      assert.deepEqual(lines(res.stdout), bootstrapLines(file, 'Snapshot end offset: 3, epoch: 1'));
    });
    it('--json carries the decoded control values', () => {
      const res = run('dump-log', '--deep-iteration', '--json', '--files', join(E856, 'bootstrap.checkpoint'));
      const objs = lines(res.stdout).map((l) => JSON.parse(l) as { records: { [k: string]: unknown }[] });
      assert.deepEqual(objs[0]!.records[0]!.SnapshotHeader, { version: 0, lastContainedLogTimestamp: 0 });
      assert.deepEqual(objs[2]!.records[0]!.SnapshotFooter, { version: 0 });
    });
    it('a .checkpoint that is not a snapshot name: one line, no stack; a header of another Version still decodes', () => {
      const bad = join(tmp.dir, 'junk.checkpoint');
      copyFileSync(join(E856, 'bootstrap.checkpoint'), bad);
      let res = run('dump-log', '--files', bad);
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^Error: .*junk\.checkpoint.*not a KRaft snapshot name.*\[STORAGE_ERROR\]\n$/);
      // the SnapshotHeader value starts at byte 71 (record: length@61 attrs ts offset keyLen@65 key@66-69
      // valueLen@70): its int16 Version field becomes 1. Kafka reads the value at the schema's current
      // version (ControlRecordUtils), so the field just shows 1
      const bytes = readFileSync(join(E856, 'bootstrap.checkpoint'));
      bytes[72] = 1;
      const v1 = join(tmp.dir, '00000000000000000003-0000000002.checkpoint');
      writeFileSync(v1, bytes);
      res = run('dump-log', '--deep-iteration', '--files', v1);
      assert.equal(res.status, 0, res.stderr);
      assert.ok(lines(res.stdout).includes('| offset: 0 CreateTime: 1725272012705 keySize: 4 valueSize: 11 sequence: -1 headerKeys: [] SnapshotHeader {"version":1,"lastContainedLogTimestamp":0}'));
    });
  });
});

describe('kafkalite stats on a directory the test wrote', () => {
  let tmp: { dir: string; cleanup: () => void };
  const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
  const t0 = 1_700_000_000_000;
  let recordCount = 0;
  let minTs = Infinity;
  let maxTs = -Infinity;
  before(() => {
    tmp = tempDir('stats');
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 3000 };
    mkdirSync(join(tmp.dir, 'orders-3'));
    const log = PartitionLog.open(join(tmp.dir, 'orders-3'), 'orders', 3, { config, time: () => t0 });
    for (let i = 0; i < 10; i++) {
      // timestamps out of order inside a batch: the smallest is not the batch's first
      const stamps = Array.from({ length: i + 1 }, (_, j) => t0 + i * 100 + ((j * 7) % (i + 1)) - (j === 1 ? 50 : 0));
      for (const t of stamps) {
        minTs = Math.min(minTs, t);
        maxTs = Math.max(maxTs, t);
      }
      recordCount += stamps.length;
      const records = stamps.map((t, j) => ({ key: `k${j}`, value: 'abcdefgh'.repeat(40), timestamp: t }));
      const producer = i === 3 ? { producerId: 7n, producerEpoch: 0, baseSequence: 0 } : i === 6 ? { producerId: 8n, producerEpoch: 0, baseSequence: 0 } : {};
      log.append(encodeRecordBatch(records, { compression: codecs[i % 5], ...producer }), { leaderEpoch: 0 });
    }
    log.close();
  });
  after(() => tmp.cleanup());

  it('--json: segments, bytes, offsets, timestamps, counts, codecs, ratio, producers', () => {
    const dir = join(tmp.dir, 'orders-3');
    const res = run('stats', '--json', dir);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const [s] = lines(res.stdout).map((l) => JSON.parse(l) as { [k: string]: unknown });
    const logs = readdirSync(dir).filter((n) => n.endsWith('.log'));
    assert.ok(logs.length >= 2, 'rolled');
    assert.equal(s!.partition, 'orders-3');
    assert.equal(s!.segments, logs.length);
    assert.equal(s!.bytes, logs.reduce((n, f) => n + statSync(join(dir, f)).size, 0));
    assert.equal(s!.firstOffset, 0);
    assert.equal(s!.lastOffset, recordCount - 1);
    assert.equal(s!.minTimestamp, minTs);
    assert.equal(s!.maxTimestamp, maxTs);
    assert.equal(s!.batches, 10);
    assert.equal(s!.records, recordCount);
    assert.deepEqual(s!.codecs, { none: 2, gzip: 2, snappy: 2, lz4: 2, zstd: 2 });
    assert.ok((s!.compressionRatio as number) > 3, `repetitive values compress (${String(s!.compressionRatio)})`);
    assert.equal(s!.producers, 2);
    assert.deepEqual(s!.unreadable, []);
  });

  it('the table has one row per partition under a data dir', () => {
    const res = run('stats', tmp.dir);
    assert.equal(res.status, 0, res.stderr);
    const out = lines(res.stdout);
    assert.match(out[0]!, /^PARTITION\s+SEGMENTS\s+BYTES\s+OFFSETS\s+TIMESTAMPS\s+BATCHES\s+RECORDS\s+CODECS\s+RATIO\s+PRODUCERS$/);
    assert.equal(out.length, 2);
    assert.match(out[1]!, new RegExp(`^orders-3\\s+\\d+\\s+.*\\s0\\.\\.${recordCount - 1}\\s+${minTs}\\.\\.${maxTs}\\s+10\\s+${recordCount}\\s+none:2,gzip:2`));
  });

  it('the kafka-tester data dir: both partitions, counts from the corpus notes', () => {
    const res = run('stats', '--json', E856);
    const rows = lines(res.stdout).map((l) => JSON.parse(l) as { partition: string; batches: number; records: number; producers: number });
    const meta = rows.find((r) => r.partition === '__cluster_metadata-0')!;
    const foo = rows.find((r) => r.partition === 'foo-0')!;
    // SOURCES.md: metadata log 109 batches / 116 records; foo-0 2 batches / 3 records, producerId 0
    assert.deepEqual([meta.batches, meta.records], [109, 116]);
    assert.deepEqual([foo.batches, foo.records, foo.producers], [2, 3, 1]);
  });
});

describe('progress bar', () => {
  it('draws on a terminal stream, throttled, and clears its line', () => {
    const writes: string[] = [];
    let now = 0;
    const bar = new ProgressBar({ write: (s: string) => (writes.push(s), true), columns: 100 } as never, () => now);
    bar.update(0, 1000, 'a.log');
    bar.update(10, 1000, 'a.log'); // within 100 ms: not redrawn
    now = 150;
    bar.update(500, 1000, 'a.log');
    bar.update(1000, 1000, 'a.log'); // completion always drawn
    bar.clear();
    assert.equal(writes.length, 4);
    assert.match(writes[1]!, /^\r\[#{15} {15}\]  50% 500 B\/1000 B a\.log\x1b\[K$/);
    assert.match(writes[2]!, /100%/);
    assert.equal(writes[3], '\r\x1b[K');
  });
  it('on a terminal (util-linux script gives the command a pty) the bar is drawn, then cleared before the result', () => {
    const res = spawnSync('script', ['-qec', `${process.execPath} ${CLI} verify ${E856}`, '/dev/null'], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /\r\[#* *\] +\d+% /, 'a bar was drawn');
    const clearAt = res.stdout.lastIndexOf('\r\x1b[K');
    assert.ok(clearAt >= 0 && res.stdout.indexOf('OK ', clearAt) > clearAt, 'cleared, then the result line');
  });
  it('nothing extra on stderr when it is not a terminal (verify, stats, dump-log)', () => {
    for (const args of [['verify', E856], ['stats', E856], ['dump-log', '--deep-iteration', '--files', join(E856, '__cluster_metadata-0/00000000000000000000.log')]]) {
      const res = run(...args);
      assert.equal(res.status, 0);
      assert.equal(res.stderr, '', args[0]);
    }
  });
});
