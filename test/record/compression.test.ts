/**
 * Compression framings (Kafka's `compress` package; Kafka's Lz4CompressionTest and the Gzip/Snappy/Zstd
 * compression tests), cross-checked against independent implementations run in /usr/bin/python3:
 * python3-lz4 (lz4.frame), python3-snappy + kafka-python's xerial `kafka.codec` functions,
 * python3-zstandard and the stdlib gzip module. Also the decompression cap against 100 MB bombs.
 */
import { describe, test, before } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompressionType,
  CorruptRecordError,
  ErrorCodes,
  KafkaliteError,
  RecordBatch,
  RecordTooLargeError,
  compress,
  decompress,
} from '../../src/index.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { py, py1, pyAll, type PyOp } from '../helpers/python.js';
import { Rng, fixCrc, rawBatch, toHex } from '../helpers/ref.js';

const MiB = 1 << 20;
const BIG = 256 * MiB;
const CODECS = [
  ['gzip', CompressionType.gzip],
  ['snappy', CompressionType.snappy],
  ['lz4', CompressionType.lz4],
  ['zstd', CompressionType.zstd],
] as const;

const rng = new Rng(0xc0ffee);
function text(n: number): Buffer {
  const words = ['kafka', 'record', 'batch', 'offset', 'lz4', 'snappy', 'zstd', 'gzip', 'log', 'segment', '\n'];
  const parts: string[] = [];
  let len = 0;
  while (len < n) {
    const w = rng.pick(words) + (rng.bool(0.1) ? String(rng.int(100000)) : '') + ' ';
    parts.push(w);
    len += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}
function mixed(n: number): Buffer {
  const b = text(n);
  for (let i = 0; i < n; i += 4096) rng.bytes(Math.min(512, n - i)).copy(b, i);
  return b;
}

/** Inputs: empty, tiny, block boundaries of both lz4 (64 KiB) and xerial snappy (32 KiB), > 64 KiB. */
const INPUTS: [string, Buffer][] = [
  ['empty', Buffer.alloc(0)],
  ['1 byte', Buffer.from([7])],
  ['hello', Buffer.from('hello')],
  ['random 1000', rng.bytes(1000)],
  ['32768 text', text(32768)],
  ['32769 text', text(32769)],
  ['65536 text', text(65536)],
  ['65537 text', text(65537)],
  ['300 KiB mixed', mixed(300 * 1024)],
  ['200 KiB random', rng.bytes(200 * 1024)],
  ['1 MiB zeros', Buffer.alloc(MiB)],
];

function assertKErr(fn: () => unknown, cls: abstract new (...a: never[]) => KafkaliteError, msg?: RegExp): KafkaliteError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, 'expected an error, none was thrown');
  assert.ok(caught instanceof cls, `expected ${cls.name}, got ${(caught as Error)?.constructor?.name}: ${(caught as Error)?.message}`);
  const err = caught as KafkaliteError;
  assert.ok(err.code in ErrorCodes);
  if (msg) assert.match(err.message, msg);
  return err;
}

const dec = (codec: number, data: Uint8Array, magic = 2, maxBytes = BIG): Buffer => decompress(codec, data, { magic, maxBytes });
const enc = (codec: number, data: Uint8Array, magic = 2, level?: number): Buffer => compress(codec, data, { magic, level });

/** Parses a Kafka-style lz4 frame's block table (FLG 0x60, no content size). */
function lz4Blocks(frame: Buffer): { len: number; stored: boolean }[] {
  const blocks: { len: number; stored: boolean }[] = [];
  let pos = 7;
  for (;;) {
    const w = frame.readUInt32LE(pos);
    pos += 4;
    if (w === 0) break;
    const len = w & 0x7fffffff;
    blocks.push({ len, stored: (w & 0x80000000) !== 0 });
    pos += len;
  }
  assert.equal(pos, frame.length, 'nothing after the end mark');
  return blocks;
}

/** Parses a xerial stream into its raw chunks. */
function xerialChunks(stream: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let pos = 16;
  while (pos < stream.length) {
    const len = stream.readInt32BE(pos);
    chunks.push(stream.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  assert.equal(pos, stream.length);
  return chunks;
}

// ------------------------------------------------------------------------------------------------

describe('round trips', () => {
  for (const [name, codec] of CODECS) {
    test(`${name}: every input round trips`, () => {
      for (const [label, data] of INPUTS) {
        const c = enc(codec, data);
        assert.ok(data.equals(dec(codec, c)), `${name} ${label}`);
      }
    });
  }

  test('lz4 round trips for magic 0, 1, 2 and several levels', () => {
    for (const magic of [0, 1, 2]) {
      for (const level of [undefined, 1, 9, 12, 17]) {
        const data = INPUTS[8]![1];
        assert.ok(data.equals(dec(CompressionType.lz4, enc(CompressionType.lz4, data, magic, level), magic)), `magic ${magic} level ${level}`);
      }
    }
  });

  test('gzip and zstd levels round trip', () => {
    const data = INPUTS[8]![1];
    for (const level of [1, 6, 9, -1]) assert.ok(data.equals(dec(1, enc(1, data, 2, level))), `gzip ${level}`);
    for (const level of [-5, 1, 3, 10, 19]) assert.ok(data.equals(dec(4, enc(4, data, 2, level))), `zstd ${level}`);
  });

  test('decompress accepts a Uint8Array view with a byteOffset', () => {
    for (const [name, codec] of CODECS) {
      const data = text(5000);
      const c = enc(codec, data);
      const backing = Buffer.concat([Buffer.alloc(13, 0xee), c, Buffer.alloc(5, 0xee)]);
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 13, c.length);
      assert.ok(data.equals(dec(codec, view)), name);
    }
  });
});

// ------------------------------------------------------------------------------------------------

describe('lz4 framing (Lz4CompressionTest, Lz4BlockOutputStream)', () => {
  test('frame header bytes: magic 1/2 -> 04 22 4d 18 60 40 82, magic 0 -> ... 1a; end mark 00000000', () => {
    for (const magic of [1, 2]) {
      const f = enc(CompressionType.lz4, Buffer.from('hello'), magic);
      assert.equal(toHex(f.subarray(0, 7)), '04224d18604082', `magic ${magic}`);
      assert.equal(toHex(f.subarray(f.length - 4)), '00000000');
    }
    const f0 = enc(CompressionType.lz4, Buffer.from('hello'), 0);
    assert.equal(toHex(f0.subarray(0, 7)), '04224d1860401a');
    assert.equal(toHex(enc(CompressionType.lz4, Buffer.alloc(0), 2)), '04224d18604082' + '00000000');
  });

  test('64 KiB blocks: block count, stored-block flag for incompressible input', () => {
    for (const [label, data] of INPUTS) {
      const blocks = lz4Blocks(enc(CompressionType.lz4, data));
      assert.equal(blocks.length, Math.ceil(data.length / 65536), label);
      for (const b of blocks) assert.ok(b.len <= 65536, label);
    }
    const rnd = lz4Blocks(enc(CompressionType.lz4, rng.bytes(100000)));
    assert.deepEqual(rnd.map((b) => [b.stored, b.len]), [[true, 65536], [true, 100000 - 65536]]);
  });

  test('magic-0 broken header checksum: accepted when reading magic 0, rejected for magic 2 (and by python lz4)', () => {
    const data = text(1000);
    const f0 = enc(CompressionType.lz4, data, 0);
    assert.ok(data.equals(dec(CompressionType.lz4, f0, 0)));
    assertKErr(() => dec(CompressionType.lz4, f0, 2), CorruptRecordError, /descriptor corrupted/);
    assertKErr(() => dec(CompressionType.lz4, f0, 1), CorruptRecordError);
    // an independent lz4 implementation agrees the HC is wrong
    const [r] = py([{ op: 'lz4_frame_decompress', data: f0 }]);
    assert.equal(r!.ok, false);
    // a correct-HC frame is also fine under magic 0 (HC skipped)
    assert.ok(data.equals(dec(CompressionType.lz4, enc(CompressionType.lz4, data, 2), 0)));
  });

  test('flipped HC byte -> CorruptRecordError (testBadFrameChecksum)', () => {
    const f = enc(CompressionType.lz4, text(1000), 2);
    for (const flip of [0x01, 0x80, 0xff]) {
      const bad = Buffer.from(f);
      bad[6] ^= flip;
      assertKErr(() => dec(CompressionType.lz4, bad), CorruptRecordError, /descriptor corrupted/);
    }
  });

  test('block size above the frame max -> CorruptRecordError (testBadBlockSize)', () => {
    for (const word of [65537, 0x80000000 + 65537, 0x7fffffff, 1 << 20]) {
      const body = Buffer.alloc(Math.min(word & 0x7fffffff, 70000));
      const f = Buffer.concat([Buffer.from('04224d18604082', 'hex'), Buffer.alloc(4), body, Buffer.alloc(4)]);
      f.writeUInt32LE(word >>> 0, 7);
      assertKErr(() => dec(CompressionType.lz4, f), CorruptRecordError, /exceeded max/);
    }
  });

  test('premature end, bad magic, short input, bad FLG/BD -> CorruptRecordError', () => {
    const f = enc(CompressionType.lz4, text(5000));
    for (let cut = 0; cut < f.length; cut += cut < 20 ? 1 : 97) {
      assertKErr(() => dec(CompressionType.lz4, f.subarray(0, cut)), CorruptRecordError);
    }
    const badMagic = Buffer.from(f);
    badMagic[0] ^= 1;
    assertKErr(() => dec(CompressionType.lz4, badMagic), CorruptRecordError, /magic/);
    // FLG: version bits, reserved bits, no block independence; BD: reserved bits, size code < 4
    for (const [i, v] of [[4, 0x20], [4, 0x61], [4, 0x40], [5, 0x41], [5, 0x30], [5, 0xc0]] as const) {
      const bad = Buffer.from(f);
      bad[i] = v;
      assertKErr(() => dec(CompressionType.lz4, bad, 0), CorruptRecordError);
    }
  });

  test('content after the end mark is ignored', () => {
    const data = text(3000);
    const f = Buffer.concat([enc(CompressionType.lz4, data), Buffer.from('trailing junk')]);
    assert.ok(data.equals(dec(CompressionType.lz4, f)));
  });

  test('kafkalite lz4 frames decode in python lz4.frame to the same bytes', () => {
    const frames = INPUTS.map(([, d]) => enc(CompressionType.lz4, d, 2));
    const out = pyAll(frames.map((data) => ({ op: 'lz4_frame_decompress', data })));
    out.forEach((o, i) => assert.ok(o.equals(INPUTS[i]![1]), INPUTS[i]![0]));
  });

  test('python lz4.frame frames (block_linked=False, with/without checksums and content size) decode', () => {
    const datas = [Buffer.alloc(0), Buffer.from('x'), text(1000), mixed(300 * 1024), rng.bytes(100 * 1024)];
    const variants: Record<string, unknown>[] = [];
    for (const content_checksum of [false, true])
      for (const block_checksum of [false, true])
        for (const store_size of [false, true]) variants.push({ block_linked: false, content_checksum, block_checksum, store_size });
    const ops: PyOp[] = [];
    for (const d of datas) for (const args of variants) ops.push({ op: 'lz4_frame_compress', data: d, args });
    const frames = pyAll(ops);
    frames.forEach((f, i) => {
      const d = datas[Math.floor(i / variants.length)]!;
      assert.ok(d.equals(dec(CompressionType.lz4, f)), JSON.stringify(ops[i]!.args) + ` len ${d.length}`);
      assert.ok(d.equals(dec(CompressionType.lz4, f, 0)), 'magic 0 reader too');
    });
  });

  test('python frames with 256 KiB / 1 MiB / 4 MiB blocks decode', () => {
    const d = mixed(5 * MiB);
    const sizes = ['256KB', '1MB', '4MB'];
    const frames = pyAll(sizes.map((block_size) => ({ op: 'lz4_frame_compress', data: d, args: { block_linked: false, store_size: false, block_size } })));
    frames.forEach((f, i) => assert.ok(d.equals(dec(CompressionType.lz4, f)), sizes[i]));
  });

  test('python block checksum mismatch -> CorruptRecordError', () => {
    const d = text(2000);
    const f = py1({ op: 'lz4_frame_compress', data: d, args: { block_linked: false, block_checksum: true, store_size: false } });
    assert.equal(f[4]! & 0x10, 0x10);
    const len = f.readUInt32LE(7) & 0x7fffffff;
    const bad = Buffer.from(f);
    bad[7 + 4 + len] ^= 0x01; // first byte of the block's XXH32
    assertKErr(() => dec(CompressionType.lz4, bad), CorruptRecordError, /checksum/);
  });

  test('python linked-block frames are refused (Kafka requires block independence)', () => {
    const f = py1({ op: 'lz4_frame_compress', data: text(200000), args: { block_linked: true, store_size: false } });
    assert.equal(f[4]! & 0x20, 0);
    assertKErr(() => dec(CompressionType.lz4, f), CorruptRecordError);
  });
});

// ------------------------------------------------------------------------------------------------

describe('snappy framing (SnappyCompression: SnappyOutputStream)', () => {
  const HEADER = '82534e4150505900' + '00000001' + '00000001';

  test('xerial header bytes; empty input is the header alone', () => {
    for (const [label, d] of INPUTS) assert.equal(toHex(enc(CompressionType.snappy, d).subarray(0, 16)), HEADER, label);
    assert.equal(toHex(enc(CompressionType.snappy, Buffer.alloc(0))), HEADER);
    assert.equal(dec(CompressionType.snappy, Buffer.from(HEADER, 'hex')).length, 0);
  });

  test('one chunk per 32 KiB of input; each chunk is a raw snappy block (checked in python)', () => {
    const nonEmpty = INPUTS.filter(([, d]) => d.length > 0);
    const perInput = nonEmpty.map(([label, d]) => {
      const chunks = xerialChunks(enc(CompressionType.snappy, d));
      assert.equal(chunks.length, Math.ceil(d.length / 32768), label);
      return chunks;
    });
    const all = pyAll(perInput.flat().map((data) => ({ op: 'snappy_raw_decompress', data })));
    let k = 0;
    nonEmpty.forEach(([label, d], j) => {
      const raw = all.slice(k, k + perInput[j]!.length);
      k += raw.length;
      raw.forEach((r, i) => assert.equal(r.length, i < raw.length - 1 ? 32768 : d.length - 32768 * (raw.length - 1), `${label} chunk ${i}`));
      assert.ok(Buffer.concat(raw).equals(d), label);
    });
  });

  test('kafkalite xerial streams decode with kafka-python snappy_decode', () => {
    const nonEmpty = INPUTS.filter(([, d]) => d.length > 0);
    const out = pyAll(nonEmpty.map(([, d]) => ({ op: 'xerial_decode', data: enc(CompressionType.snappy, d) })));
    out.forEach((o, i) => assert.ok(o.equals(nonEmpty[i]![1]), nonEmpty[i]![0]));
  });

  test('kafka-python xerial streams (several block sizes) decode in kafkalite', () => {
    const ops: PyOp[] = [];
    for (const [, d] of INPUTS) for (const bs of [1024, 32768, 65536]) ops.push({ op: 'xerial_encode', data: d, args: { xerial_blocksize: bs } });
    pyAll(ops).forEach((s, i) => {
      const d = INPUTS[Math.floor(i / 3)]!;
      assert.ok(d[1].equals(dec(CompressionType.snappy, s)), `${d[0]} ${JSON.stringify(ops[i]!.args)}`);
    });
  });

  test('raw (unframed) snappy blocks are accepted', () => {
    const raws = pyAll(INPUTS.map(([, d]) => ({ op: 'snappy_raw_compress', data: d })));
    raws.forEach((r, i) => {
      if (INPUTS[i]![1].length === 0) return; // a raw block of nothing is one byte (00), checked below
      assert.ok(INPUTS[i]![1].equals(dec(CompressionType.snappy, r)), INPUTS[i]![0]);
    });
    assert.equal(dec(CompressionType.snappy, Buffer.from([0])).length, 0);
  });

  test('concatenated xerial streams decode to the concatenation', () => {
    const a = text(40000);
    const b = text(1000);
    const [sa, sb] = pyAll([
      { op: 'xerial_encode', data: a },
      { op: 'xerial_encode', data: b },
    ]);
    assert.ok(Buffer.concat([a, b]).equals(dec(CompressionType.snappy, Buffer.concat([sa!, sb!]))));
    assert.ok(Buffer.concat([a, b]).equals(dec(CompressionType.snappy, Buffer.concat([enc(2, a), enc(2, b)]))));
  });

  test('malformed snappy -> CorruptRecordError', () => {
    assertKErr(() => dec(CompressionType.snappy, Buffer.alloc(0)), CorruptRecordError, /empty/);
    const s = enc(CompressionType.snappy, text(50000));
    for (let cut = 17; cut < s.length; cut += 501) assertKErr(() => dec(CompressionType.snappy, s.subarray(0, cut)), CorruptRecordError);
    const neg = Buffer.from(s);
    neg.writeInt32BE(-1, 16);
    assertKErr(() => dec(CompressionType.snappy, neg), CorruptRecordError);
    const garbage = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]);
    assertKErr(() => dec(CompressionType.snappy, garbage), KafkaliteError);
    const flipped = Buffer.from(s);
    flipped[30] ^= 0xff;
    try {
      dec(CompressionType.snappy, flipped);
    } catch (err) {
      assert.ok(err instanceof KafkaliteError, String(err));
    }
  });
});

// ------------------------------------------------------------------------------------------------

describe('zstd and gzip cross-checks', () => {
  test('kafkalite zstd frames decode in python-zstandard', () => {
    const out = pyAll(INPUTS.map(([, d]) => ({ op: 'zstd_decompress', data: enc(CompressionType.zstd, d) })));
    out.forEach((o, i) => assert.ok(o.equals(INPUTS[i]![1]), INPUTS[i]![0]));
  });

  test('python zstd frames with and without content size (and with a checksum) decode', () => {
    const variants = [{ write_content_size: true }, { write_content_size: false }, { write_content_size: false, write_checksum: true }];
    const ops: PyOp[] = [];
    for (const [, d] of INPUTS) for (const args of variants) ops.push({ op: 'zstd_compress', data: d, args });
    const frames = pyAll(ops);
    const flags = pyAll(frames.map((data) => ({ op: 'zstd_frame_has_content_size', data })));
    frames.forEach((f, i) => {
      const d = INPUTS[Math.floor(i / variants.length)]!;
      const wantSize = (ops[i]!.args as { write_content_size: boolean }).write_content_size;
      assert.equal(flags[i]![0], wantSize ? 1 : 0, 'the frame really has/lacks a content size');
      assert.ok(d[1].equals(dec(CompressionType.zstd, f)), `${d[0]} ${JSON.stringify(ops[i]!.args)}`);
    });
  });

  test('kafkalite gzip decodes in python gzip; header starts 1f 8b 08', () => {
    const cs = INPUTS.map(([, d]) => enc(CompressionType.gzip, d));
    for (const c of cs) assert.equal(toHex(c.subarray(0, 3)), '1f8b08');
    pyAll(cs.map((data) => ({ op: 'gzip_decompress', data }))).forEach((o, i) => assert.ok(o.equals(INPUTS[i]![1]), INPUTS[i]![0]));
  });

  test('python gzip (single and multiple members) decodes', () => {
    const a = text(70000);
    const b = rng.bytes(5000);
    const [ga, gb, g9, g0] = pyAll([
      { op: 'gzip_compress', data: a },
      { op: 'gzip_compress', data: b },
      { op: 'gzip_compress', data: a, args: { compresslevel: 9 } },
      { op: 'gzip_compress', data: Buffer.alloc(0) },
    ]);
    assert.ok(a.equals(dec(CompressionType.gzip, ga!)));
    assert.ok(a.equals(dec(CompressionType.gzip, g9!)));
    assert.equal(dec(CompressionType.gzip, g0!).length, 0);
    assert.ok(Buffer.concat([a, b]).equals(dec(CompressionType.gzip, Buffer.concat([ga!, gb!]))), 'two members');
    assert.ok(Buffer.concat([a, b, a]).equals(dec(CompressionType.gzip, Buffer.concat([ga!, gb!, g9!]))), 'three members');
  });

  test('malformed zstd / gzip -> CorruptRecordError', () => {
    for (const codec of [CompressionType.zstd, CompressionType.gzip]) {
      const c = enc(codec, text(20000));
      for (const cut of [0, 1, 4, 10, c.length >> 1, c.length - 1]) {
        assertKErr(() => dec(codec, c.subarray(0, cut)), CorruptRecordError);
      }
      assertKErr(() => dec(codec, Buffer.from('definitely not compressed data')), CorruptRecordError);
    }
  });
});

// ------------------------------------------------------------------------------------------------

describe('decompression cap', () => {
  test('exactly maxBytes is accepted, one byte less is RecordTooLargeError (kafkalite and python frames)', () => {
    const d = text(100_000);
    const frames: [string, number, Buffer][] = CODECS.map(([n, c]) => [n, c, enc(c, d)] as [string, number, Buffer]);
    const pyFrames = pyAll([
      { op: 'zstd_compress', data: d, args: { write_content_size: false, write_checksum: true } },
      { op: 'zstd_compress', data: d, args: { write_content_size: true } },
      { op: 'lz4_frame_compress', data: d, args: { block_linked: false, store_size: false, content_checksum: true } },
      { op: 'gzip_compress', data: d },
      { op: 'xerial_encode', data: d },
    ]);
    frames.push(['py zstd +checksum', 4, pyFrames[0]!], ['py zstd +size', 4, pyFrames[1]!], ['py lz4', 3, pyFrames[2]!]);
    frames.push(['py gzip', 1, pyFrames[3]!], ['py xerial', 2, pyFrames[4]!]);
    for (const [name, codec, f] of frames) {
      let got: Buffer | undefined;
      try {
        got = dec(codec, f, 2, d.length);
      } catch (err) {
        assert.fail(`${name}: ${d.length} bytes with maxBytes ${d.length} threw ${(err as Error).message}`);
      }
      assert.ok(d.equals(got!), name);
      const err = assertKErr(() => dec(codec, f, 2, d.length - 1), RecordTooLargeError);
      assert.equal(err.code, 'RECORD_TOO_LARGE', name);
    }
  });

  const BOMB = 100_000_000;
  const bombOps: [string, number, PyOp][] = [
    ['gzip', 1, { op: 'gzip_compress', zeros: BOMB }],
    ['snappy xerial', 2, { op: 'xerial_encode', zeros: BOMB }],
    ['snappy raw', 2, { op: 'snappy_raw_compress', zeros: BOMB }],
    ['lz4 64KiB blocks', 3, { op: 'lz4_frame_compress', zeros: BOMB, args: { block_linked: false, store_size: false, block_size: '64KB' } }],
    ['lz4 4MiB blocks', 3, { op: 'lz4_frame_compress', zeros: BOMB, args: { block_linked: false, store_size: true, block_size: '4MB' } }],
    ['zstd', 4, { op: 'zstd_compress', zeros: BOMB, args: { write_content_size: false } }],
    ['zstd +size', 4, { op: 'zstd_compress', zeros: BOMB, args: { write_content_size: true } }],
  ];
  let bombs: Buffer[] = [];
  before(() => {
    bombs = pyAll(bombOps.map(([, , op]) => op));
  });

  test('100 MB of zeros, maxBytes 1 MiB -> RecordTooLargeError (every codec)', () => {
    bombOps.forEach(([name, codec], i) => {
      assert.ok(bombs[i]!.length < 5 * MiB, `${name} bomb is small (${bombs[i]!.length})`);
      const err = assertKErr(() => dec(codec, bombs[i]!, 2, MiB), RecordTooLargeError);
      assert.equal(err.code, 'RECORD_TOO_LARGE', name);
      assert.equal(errorName(err.kafkaErrorCode), 'MESSAGE_TOO_LARGE', name);
    });
  });

  test('bombs inside a record batch -> RecordTooLargeError from records()', () => {
    bombOps.forEach(([name, codec], i) => {
      const b = rawBatch({ count: 1, attributes: codec }, bombs[i]!);
      const err = assertKErr(() => new RecordBatch(b).records({ maxDecompressedBytes: MiB }), RecordTooLargeError);
      assert.equal(err.code, 'RECORD_TOO_LARGE', name);
    });
  });

  test('bombs do not allocate the full size (peak RSS measured in a fresh process)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bomb-'));
    try {
      const moduleUrl = 'file://' + join(REPO_ROOT, 'dist', 'src', 'index.js');
      bombOps.forEach(([name, codec], i) => {
        const file = join(dir, `bomb-${i}`);
        writeFileSync(file, bombs[i]!);
        const code = `
          import { readFileSync } from 'node:fs';
          const k = await import(${JSON.stringify(moduleUrl)});
          const bomb = readFileSync(${JSON.stringify(file)});
          // warm up the codec (native module load, contexts) on a small valid input
          k.decompress(${codec}, k.compress(${codec}, Buffer.alloc(70000, 1), { magic: 2 }), { magic: 2, maxBytes: 1 << 20 });
          globalThis.gc?.();
          const before = process.resourceUsage().maxRSS;
          let code = 'none';
          try { k.decompress(${codec}, bomb, { magic: 2, maxBytes: 1 << 20 }); } catch (e) { code = e.code ?? e.name; }
          const after = process.resourceUsage().maxRSS;
          process.stdout.write(JSON.stringify({ code, growthKiB: after - before }));`;
        const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
        assert.equal(r.status, 0, `${name}: ${r.stderr}`);
        const { code: errCode, growthKiB } = JSON.parse(r.stdout) as { code: string; growthKiB: number };
        assert.equal(errCode, 'RECORD_TOO_LARGE', name);
        assert.ok(growthKiB < 48 * 1024, `${name}: peak RSS grew by ${Math.round(growthKiB / 1024)} MiB while refusing a 100 MB bomb`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a lying raw snappy length preamble is refused before allocating', () => {
    // preamble says 2^31-1 bytes, body is a 1-byte literal: RecordTooLarge under a 1 MiB cap, Corrupt under a big cap
    const lie = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x41]);
    assertKErr(() => dec(CompressionType.snappy, lie, 2, MiB), RecordTooLargeError);
    assertKErr(() => dec(CompressionType.snappy, lie, 2, 0x7fffffff), CorruptRecordError);
  });

  test('a batch CRC-valid but with its compressed payload garbled fails with a KafkaliteError', () => {
    for (const [name, codec] of CODECS) {
      const good = rawBatch({ count: 1, attributes: codec }, enc(codec, Buffer.from('0c000000010100', 'hex')));
      assert.equal(new RecordBatch(good).records().length, 1, name);
      for (let i = 61; i < good.length; i++) {
        const bad = Buffer.from(good);
        bad[i] ^= 0x5a;
        fixCrc(bad);
        try {
          new RecordBatch(bad).records();
        } catch (err) {
          assert.ok(err instanceof KafkaliteError, `${name} byte ${i}: ${String(err)}`);
        }
      }
    }
  });
});
