/**
 * `kafkalite dump-log` for the non-`.log` segment files (Kafka `DumpLogSegments.dumpIndex`, `dumpTimeIndex`,
 * `dumpProducerIdSnapshot`, `dumpTxnIndex`): `.snapshot`,
 * `.txnindex`, `.index`, `.timeindex`, `--index-sanity-check`, `--verify-index-only`, `--json`.
 *
 * The real files of the kafka-tester corpus (written by a Kafka 4.0 broker) are decoded here
 * independently from their raw bytes using Kafka's layouts (OffsetIndex, TimeIndex, ProducerSnapshot.json), and every printed
 * line must equal the one built from those values. The error reports are checked on doctored
 * indexes and logs built in a temp dir.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/index.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const TESTER = join(CORPORA, 'kafka-tester');
const INT32_MAX = 0x7fffffff;

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, 'dump-log', ...args], { encoding: 'utf8' });
}

function findFiles(dir: string, suffix: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findFiles(p, suffix, out);
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

const baseOf = (file: string) => BigInt(basename(file).split('.')[0]!);

/** `OptionalLong.toString()`. */
const optionalLong = (v: bigint) => (v >= 0n ? `OptionalLong[${v}]` : 'OptionalLong.empty');

/** `DefaultRecordBatch.decrementSequence` with Java int wrap-around. */
function firstSeq(lastSeq: number, offsetDelta: number): number {
  return lastSeq < offsetDelta ? (INT32_MAX - (offsetDelta - lastSeq) + 1) | 0 : (lastSeq - offsetDelta) | 0;
}

/** ProducerSnapshot.json decoded by hand, as the expected dump lines and JSON objects. */
function expectedSnapshot(bytes: Buffer): { lines: string[]; json: object[] } {
  const lines: string[] = [];
  const json: object[] = [];
  for (let i = 0, n = bytes.readInt32BE(6); i < n; i++) {
    const b = 10 + 46 * i;
    const pid = bytes.readBigInt64BE(b);
    const epoch = bytes.readInt16BE(b + 8);
    const lastSeq = bytes.readInt32BE(b + 10);
    const lastOffset = bytes.readBigInt64BE(b + 14);
    const delta = bytes.readInt32BE(b + 22);
    const ts = bytes.readBigInt64BE(b + 26);
    const coord = bytes.readInt32BE(b + 34);
    const txn = bytes.readBigInt64BE(b + 38);
    let line = `producerId: ${pid} producerEpoch: ${epoch} coordinatorEpoch: ${coord} currentTxnFirstOffset: ${optionalLong(txn)} lastTimestamp: ${ts} `;
    const obj: Record<string, unknown> = {
      producerId: String(pid),
      producerEpoch: epoch,
      coordinatorEpoch: coord,
      currentTxnFirstOffset: txn >= 0n ? String(txn) : null,
      lastTimestamp: String(ts),
    };
    if (lastOffset >= 0n) {
      line += `firstSequence: ${firstSeq(lastSeq, delta)} lastSequence: ${lastSeq} lastOffset: ${lastOffset} offsetDelta: ${delta} timestamp: ${ts}`;
      Object.assign(obj, {
        firstSequence: firstSeq(lastSeq, delta),
        lastSequence: lastSeq,
        lastOffset: String(lastOffset),
        offsetDelta: delta,
        timestamp: String(ts),
      });
    }
    lines.push(line);
    json.push(obj);
  }
  return { lines, json };
}

/** OffsetIndex / TimeIndex entries up to the zero-padding stop (entry i > 0 whose offset is the base offset). */
function rawIndexEntries(bytes: Buffer, base: bigint, kind: 'index' | 'timeindex'): { a: bigint; b: bigint }[] {
  const size = kind === 'index' ? 8 : 12;
  const out: { a: bigint; b: bigint }[] = [];
  for (let i = 0; i < Math.floor(bytes.length / size); i++) {
    const at = i * size;
    const offset = base + BigInt(bytes.readInt32BE(kind === 'index' ? at : at + 8));
    if (i > 0 && offset === base) break;
    out.push(kind === 'index' ? { a: offset, b: BigInt(bytes.readInt32BE(at + 4)) } : { a: bytes.readBigInt64BE(at), b: offset });
  }
  return out;
}

/** JSON lines with int64s kept exact: parse numbers as strings where they may exceed 2^53. */
function parseNdjson(text: string): Record<string, unknown>[] {
  return text
    .trimEnd()
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l.replace(/:(-?\d{10,})/g, ':"$1"')) as Record<string, unknown>);
}

/** Compare JSON objects whose bigint fields may come back as numbers or strings. */
function normalise(o: Record<string, unknown>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) r[k] = typeof v === 'number' && !['producerEpoch', 'coordinatorEpoch', 'firstSequence', 'lastSequence', 'offsetDelta', 'position', 'version'].includes(k) ? String(v) : v;
  return r;
}

describe('dump-log .snapshot: real Kafka producer snapshots', () => {
  const files = findFiles(TESTER, '.snapshot');

  it('the corpus holds 1-producer and empty snapshots', () => {
    assert.ok(files.some((f) => statSync(f).size === 56));
    assert.ok(files.some((f) => statSync(f).size === 10));
  });

  it('prints one line per producer exactly as DumpLogSegments.dumpProducerIdSnapshot', () => {
    const res = run(['--files', files.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const expected = files.flatMap((f) => [`Dumping ${f}`, ...expectedSnapshot(readFileSync(f)).lines]);
    assert.equal(res.stdout, expected.join('\n') + '\n');
  });

  it('the foo-0 producer line, spelled out (trailing space kept when there is no batch)', () => {
    const f = files.find((x) => x.includes('@e856b9a') && x.endsWith('foo-0/00000000000000000003.snapshot'))!;
    const ts = readFileSync(f).readBigInt64BE(36);
    const res = run(['--files', f]);
    assert.equal(
      res.stdout.split('\n')[1],
      `producerId: 0 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: ${ts} firstSequence: 2 lastSequence: 2 lastOffset: 2 offsetDelta: 0 timestamp: ${ts}`,
    );
  });

  it('--json gives one object per producer with the same field names', () => {
    const res = run(['--json', '--files', files.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    const got = parseNdjson(res.stdout).map(normalise);
    const expected = files.flatMap((f) => expectedSnapshot(readFileSync(f)).json.map((o) => ({ file: f, ...o })));
    assert.deepEqual(got, expected.map((o) => normalise(o as Record<string, unknown>)));
  });
});

describe('dump-log .snapshot and .txnindex: generated files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafkalite-dumpfiles-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A hand-computed snapshot: pid 1000, epoch 5, lastSeq 9, lastOffset 42, offsetDelta 9. */
  function snapshotBytes(): Buffer {
    const spaced =
      '0001 90643924 00000001 00000000000003e8 0005 00000009 000000000000002a 00000009 0000018bcfe56800 ffffffff ffffffffffffffff';
    return Buffer.from(spaced.replace(/ /g, ''), 'hex');
  }

  it('prints a one-producer snapshot with firstSequence = lastSequence − offsetDelta', () => {
    const f = join(dir, '00000000000000000042.snapshot');
    writeFileSync(f, snapshotBytes());
    const res = run(['--files', f]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(
      res.stdout,
      `Dumping ${f}\nproducerId: 1000 producerEpoch: 5 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1700000000000 firstSequence: 0 lastSequence: 9 lastOffset: 42 offsetDelta: 9 timestamp: 1700000000000\n`,
    );
  });

  it('a corrupt snapshot is reported on stderr and the dump goes on', () => {
    const bad = join(dir, '00000000000000000043.snapshot');
    const b = snapshotBytes();
    b[20]! ^= 1;
    writeFileSync(bad, b);
    const good = join(dir, '00000000000000000042.snapshot');
    const res = run(['--files', `${bad},${good}`]);
    assert.equal(res.status, 0);
    assert.match(res.stderr, /^Snapshot is corrupt \(CRC is no longer valid\)\. Stored crc: 2422487332\. Computed crc: \d+/);
    assert.equal(res.stdout.split('\n').length, 4); // 2 Dumping lines, 1 producer line, final newline
    const short = join(dir, '00000000000000000044.snapshot');
    writeFileSync(short, b.subarray(0, 7));
    assert.match(run(['--files', short]).stderr, /Snapshot failed schema validation/);
  });

  it('a producer with an open transaction and no batch metadata', () => {
    const b = snapshotBytes();
    b.writeBigInt64BE(-1n, 10 + 14); // lastOffset -1: no batch metadata
    b.writeBigInt64BE(37n, 10 + 38); // currentTxnFirstOffset 37
    b.writeInt32BE(3, 10 + 34);
    // recompute the CRC-32C over [6, end) with a tiny independent implementation
    b.writeUInt32BE(crc32cRef(b.subarray(6)), 2);
    const f = join(dir, '00000000000000000045.snapshot');
    writeFileSync(f, b);
    const res = run(['--files', f]);
    assert.equal(res.stderr, '');
    assert.equal(
      res.stdout.split('\n')[1],
      'producerId: 1000 producerEpoch: 5 coordinatorEpoch: 3 currentTxnFirstOffset: OptionalLong[37] lastTimestamp: 1700000000000 ',
    );
    const json = parseNdjson(run(['--json', '--files', f]).stdout);
    assert.deepEqual(json, [
      { file: f, producerId: 1000, producerEpoch: 5, coordinatorEpoch: 3, currentTxnFirstOffset: 37, lastTimestamp: '1700000000000' },
    ]);
  });

  it('firstSequence wraps like Kafka when lastSequence < offsetDelta', () => {
    const b = snapshotBytes();
    b.writeInt32BE(1, 10 + 10); // lastSeq 1, offsetDelta 9: first = Int.MAX - 8 + 1
    b.writeUInt32BE(crc32cRef(b.subarray(6)), 2);
    const f = join(dir, '00000000000000000046.snapshot');
    writeFileSync(f, b);
    assert.match(run(['--files', f]).stdout, / firstSequence: 2147483640 lastSequence: 1 /);
  });

  /** .txnindex bytes straight from the AbortedTxn layout. */
  function txnBytes(entries: [number, bigint, bigint, bigint, bigint][]): Buffer {
    return Buffer.concat(
      entries.map(([v, pid, first, last, lso]) => {
        const b = Buffer.alloc(34);
        b.writeInt16BE(v, 0);
        b.writeBigInt64BE(pid, 2);
        b.writeBigInt64BE(first, 10);
        b.writeBigInt64BE(last, 18);
        b.writeBigInt64BE(lso, 26);
        return b;
      }),
    );
  }

  it('.txnindex: one line per aborted transaction; a partial tail is ignored', () => {
    const entries: [number, bigint, bigint, bigint, bigint][] = [
      [0, 7n, 100n, 105n, 106n],
      [0, 8n, 101n, 110n, 111n],
      [0, (1n << 62n) + 3n, 120n, 130n, 121n],
    ];
    const f = join(dir, '00000000000000000100.txnindex');
    writeFileSync(f, Buffer.concat([txnBytes(entries), Buffer.alloc(10, 0xee)]));
    const res = run(['--files', f]);
    assert.equal(res.status, 0, res.stderr);
    const lines = entries.map(
      ([v, p, a, l, s]) => `version: ${v} producerId: ${p} firstOffset: ${a} lastOffset: ${l} lastStableOffset: ${s}`,
    );
    assert.equal(res.stdout, [`Dumping ${f}`, ...lines].join('\n') + '\n');
    const json = parseNdjson(run(['--json', '--files', f]).stdout).map(normalise);
    assert.deepEqual(
      json,
      entries.map(([v, p, a, l, s]) =>
        normalise({ file: f, version: v, producerId: String(p), firstOffset: String(a), lastOffset: String(l), lastStableOffset: String(s) }),
      ),
    );
    assert.equal(statSync(f).size, 3 * 34 + 10, 'the dump does not modify the file');
  });

  it('.txnindex: a missing or empty file prints nothing and is not created', () => {
    const missing = join(dir, '00000000000000000200.txnindex');
    const res = run(['--files', missing]);
    assert.equal(res.status, 0);
    assert.equal(res.stdout, `Dumping ${missing}\n`);
    assert.equal(existsSync(missing), false);
  });

  it('.txnindex: a version above 0 (first byte) stops the dump with an error', () => {
    const f = join(dir, '00000000000000000300.txnindex');
    writeFileSync(f, txnBytes([[0x0100, 1n, 300n, 301n, 302n]]));
    const res = run(['--files', f]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /Unexpected aborted transaction version 1 .*\[STORAGE_ERROR\]/);
    // int16 0x00ff has first byte 0: read as version 0
    writeFileSync(f, txnBytes([[0x00ff, 1n, 300n, 301n, 302n]]));
    assert.match(run(['--files', f]).stdout, /^version: 0 producerId: 1 /m);
  });
});

describe('dump-log .index / .timeindex: real Kafka segment indexes', () => {
  const indexes = findFiles(TESTER, '.index');
  const timeIndexes = findFiles(TESTER, '.timeindex');

  it('the corpus has non-empty and empty offset indexes', () => {
    assert.ok(indexes.some((f) => statSync(f).size === 0));
    assert.ok(indexes.some((f) => statSync(f).size >= 16));
    assert.ok(timeIndexes.length >= 4);
  });

  it('.index: `offset: <o> position: <p>` per raw entry, `<file> is empty.`, no mismatches', () => {
    const res = run(['--files', indexes.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const expected = indexes.flatMap((f) => {
      const bytes = readFileSync(f);
      if (bytes.length < 8) return [`Dumping ${f}`, `${f} is empty.`];
      return [`Dumping ${f}`, ...rawIndexEntries(bytes, baseOf(f), 'index').map((e) => `offset: ${e.a} position: ${e.b}`)];
    });
    assert.equal(res.stdout, expected.join('\n') + '\n');
  });

  it('.index entries point at batches whose lastOffset is the entry offset (independent log scan)', () => {
    for (const f of indexes) {
      const log = readFileSync(join(dirname(f), basename(f).split('.')[0] + '.log'));
      for (const e of rawIndexEntries(readFileSync(f), baseOf(f), 'index')) {
        const pos = Number(e.b);
        const base = log.readBigInt64BE(pos);
        const lastDelta = log.readInt32BE(pos + 23);
        assert.equal(base + BigInt(lastDelta), e.a);
      }
    }
  });

  it('.timeindex: `timestamp: <t> offset: <o>` per raw entry, no error sections', () => {
    const res = run(['--files', timeIndexes.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const expected = timeIndexes.flatMap((f) => [
      `Dumping ${f}`,
      ...rawIndexEntries(readFileSync(f), baseOf(f), 'timeindex').map((e) => `timestamp: ${e.a} offset: ${e.b}`),
    ]);
    assert.equal(res.stdout, expected.join('\n') + '\n');
  });

  it('--index-sanity-check prints `<file> passed sanity check.` (empty .index: `is empty.` first)', () => {
    const files = [...indexes, ...timeIndexes];
    const res = run(['--index-sanity-check', '--files', files.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    const expected = files.flatMap((f) => [
      `Dumping ${f}`,
      f.endsWith('.index') && statSync(f).size === 0 ? `${f} is empty.` : `${f} passed sanity check.`,
    ]);
    assert.equal(res.stdout, expected.join('\n') + '\n');
  });

  it('--verify-index-only prints no entries', () => {
    const files = [...indexes, ...timeIndexes];
    const res = run(['--verify-index-only', '--files', files.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const expected = files.flatMap((f) => [`Dumping ${f}`, ...(f.endsWith('.index') && statSync(f).size === 0 ? [`${f} is empty.`] : [])]);
    assert.equal(res.stdout, expected.join('\n') + '\n');
  });

  it('--json: one object per entry with the same field names', () => {
    const files = [...indexes, ...timeIndexes];
    const res = run(['--json', '--files', files.join(',')]);
    assert.equal(res.status, 0, res.stderr);
    const expected = files.flatMap((f): Record<string, unknown>[] => {
      const bytes = readFileSync(f);
      if (f.endsWith('.index')) {
        if (bytes.length === 0) return [{ file: f, isEmpty: true }];
        return rawIndexEntries(bytes, baseOf(f), 'index').map((e) => ({ file: f, offset: String(e.a), position: Number(e.b) }));
      }
      return rawIndexEntries(bytes, baseOf(f), 'timeindex').map((e) => ({ file: f, timestamp: String(e.a), offset: String(e.b) }));
    });
    const got = parseNdjson(res.stdout).map((o) => {
      const r = { ...o };
      if (typeof r.offset === 'number') r.offset = String(r.offset);
      if (typeof r.timestamp === 'number') r.timestamp = String(r.timestamp);
      return r;
    });
    assert.deepEqual(got, expected);
  });

  it('a .index without its .log is an error, as in Kafka', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-dumpnolog-'));
    try {
      const f = join(dir, '00000000000000000000.index');
      writeFileSync(f, Buffer.alloc(8));
      const res = run(['--files', f]);
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^Error: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('dump-log .index / .timeindex: doctored files', () => {
  let dir: string;
  let positions: number[];
  const BASE = 100n;
  const logName = '00000000000000000100';

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafkalite-dumpidx-'));
    // batches: offsets 100-102 (ts 1000..1002), 103-104 (ts 2000, 2001), 105-109 (ts 3000..3004)
    const specs: [bigint, number, number][] = [
      [100n, 3, 1000],
      [103n, 2, 2000],
      [105n, 5, 3000],
    ];
    const batches = specs.map(([base, n, ts]) =>
      encodeRecordBatch(
        Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: BigInt(ts + i) })),
        { baseOffset: base, compression: base === 103n ? 'gzip' : 'none' },
      ),
    );
    positions = [];
    let at = 0;
    for (const b of batches) {
      positions.push(at);
      at += b.length;
    }
    writeFileSync(join(dir, `${logName}.log`), Buffer.concat(batches));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function offsetIndex(entries: [bigint, number][], zeroSlots = 0): Buffer {
    const b = Buffer.alloc((entries.length + zeroSlots) * 8);
    entries.forEach(([o, p], i) => {
      b.writeInt32BE(Number(o - BASE), i * 8);
      b.writeInt32BE(p, i * 8 + 4);
    });
    return b;
  }

  function timeIndex(entries: [bigint, bigint][], zeroSlots = 0): Buffer {
    const b = Buffer.alloc((entries.length + zeroSlots) * 12);
    entries.forEach(([t, o], i) => {
      b.writeBigInt64BE(t, i * 12);
      b.writeInt32BE(Number(o - BASE), i * 12 + 8);
    });
    return b;
  }

  it('.index: mismatches on stderr (newest first, as Kafka prepends), zero padding stops the dump', () => {
    const f = join(dir, `${logName}.index`);
    const [, p1, p2] = positions as [number, number, number];
    writeFileSync(
      f,
      offsetIndex(
        [
          [104n, p1], // right
          [106n, p2], // batch at p2 ends at 109
          [109n, p2], // right
          [112n, p1], // batch at p1 ends at 104
          [113n, 1_000_000], // no batch there at all
        ],
        3,
      ),
    );
    const res = run(['--files', f]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(
      res.stdout,
      [
        `Dumping ${f}`,
        `offset: 104 position: ${p1}`,
        `offset: 106 position: ${p2}`,
        `offset: 109 position: ${p2}`,
        `offset: 112 position: ${p1}`,
        'offset: 113 position: 1000000',
      ].join('\n') + '\n',
    );
    assert.equal(
      res.stderr,
      `Mismatches in :${resolve(f)}\n  Index offset: 113, log offset: -1\n  Index offset: 112, log offset: 104\n  Index offset: 106, log offset: 109\n`,
    );
    const verify = run(['--verify-index-only', '--files', f]);
    assert.equal(verify.stdout, `Dumping ${f}\n`);
    assert.equal(verify.stderr, res.stderr);
  });

  it('.index: a ragged length fails --index-sanity-check; an all-zero index passes it', () => {
    const f = join(dir, `${logName}.index`);
    writeFileSync(f, Buffer.alloc(12));
    const res = run(['--index-sanity-check', '--files', f]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /\[STORAGE_ERROR\]/);
    writeFileSync(f, Buffer.alloc(16));
    assert.equal(run(['--index-sanity-check', '--files', f]).stdout, `Dumping ${f}\n${f} passed sanity check.\n`);
    // the dump itself: entry 0 is (base, 0), then zero padding stops it
    assert.equal(run(['--files', f]).stdout, `Dumping ${f}\noffset: 100 position: 0\n`);
  });

  it('.timeindex: timestamp mismatches, out-of-order timestamps and offsets not found', () => {
    const f = join(dir, `${logName}.timeindex`);
    rmSync(join(dir, `${logName}.index`), { force: true });
    writeFileSync(
      f,
      timeIndex(
        [
          [1002n, 102n], // right
          [9999n, 104n], // batch max is 2001
          [1500n, 109n], // batch max is 3004, and 1500 <= 9999
          [4000n, 107n], // inside the batch ending at 109
          [5000n, 120n], // past the log
        ],
        2,
      ),
    );
    const expectedErr =
      `Found timestamp mismatch in :${resolve(f)}\n` +
      '  Index timestamp: 9999, log timestamp: 2001\n' +
      '  Index timestamp: 1500, log timestamp: 3004\n' +
      `Found out of order timestamp in :${resolve(f)}\n` +
      '  Index timestamp: 1500, Previously indexed timestamp: 9999\n' +
      'The following indexed offsets are not found in the log.\n' +
      'Indexed offset: 107, found log offset: 109\n' +
      'Indexed offset: 120, found log offset: -1\n';
    const res = run(['--files', f]);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(
      res.stdout,
      [
        `Dumping ${f}`,
        'timestamp: 1002 offset: 102',
        'timestamp: 9999 offset: 104',
        'timestamp: 1500 offset: 109',
        'timestamp: 4000 offset: 107',
        'timestamp: 5000 offset: 120',
      ].join('\n') + '\n',
    );
    assert.equal(res.stderr, expectedErr);
    assert.equal(existsSync(join(dir, `${logName}.index`)), false, 'a missing .index is not created');

    // with an .index to start the scan from, the same findings
    writeFileSync(join(dir, `${logName}.index`), offsetIndex([[104n, positions[1]!]]));
    const withIndex = run(['--verify-index-only', '--files', f]);
    assert.equal(withIndex.stdout, `Dumping ${f}\n`);
    assert.equal(withIndex.stderr, expectedErr);

    // the sanity check sees every slot: the zero padding makes the last timestamp 0 < first 1002
    const padded = run(['--index-sanity-check', '--files', f]);
    assert.equal(padded.status, 1);
    assert.match(padded.stderr, /last timestamp is 0 which is less than the first timestamp 1002.*\[STORAGE_ERROR\]/);
    writeFileSync(f, readFileSync(f).subarray(0, 5 * 12));
    assert.equal(run(['--index-sanity-check', '--files', f]).stdout, `Dumping ${f}\n${f} passed sanity check.\n`);
  });

  it('stderr sections come after all files in Kafka order: index mismatches, then time-index errors', () => {
    const idx = join(dir, `${logName}.index`);
    writeFileSync(idx, offsetIndex([[103n, positions[1]!]]));
    const tix = join(dir, `${logName}.timeindex`);
    writeFileSync(tix, timeIndex([[7n, 102n]]));
    const res = run(['--files', `${tix},${idx}`]);
    assert.equal(
      res.stderr,
      `Mismatches in :${resolve(idx)}\n  Index offset: 103, log offset: 104\n` +
        `Found timestamp mismatch in :${resolve(tix)}\n  Index timestamp: 7, log timestamp: 1002\n`,
    );
  });

  it('the usage text lists the new options', () => {
    const res = run(['--help']);
    for (const opt of ['--verify-index-only', '--index-sanity-check', '--max-message-size', '.snapshot', '.txnindex', '.timeindex']) {
      assert.ok(res.stdout.includes(opt), opt);
    }
  });
});

/** Bitwise CRC-32C (Castagnoli, reflected 0x82F63B78): an independent check of the snapshot CRC. */
function crc32cRef(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
