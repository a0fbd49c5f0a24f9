/**
 * The fuzz loop of legacy-fuzz.test.ts (legacy message sets, magic 0 and 1), run in a worker thread
 * so the test can kill it on a hang.
 *
 * Every case is derived from (seed, case index) alone, so any case can be replayed:
 *   KAFKALITE_FUZZ_SEED=<seed> KAFKALITE_FUZZ_CASE=<index> node --test dist/test/fuzz/legacy-fuzz.test.js
 *
 * Entries are written here from Kafka's `LegacyRecord` layout (offset, size, crc, magic, attributes,
 * [timestamp], key, value) with the independent reference CRC-32 of helpers/ref.ts, so any field can
 * be made hostile: entry and inner size fields, key/value lengths, magic, attributes (codec bits 0-7,
 * timestamp bit), wrapper offsets, inner magic and inner compression, empty or truncated inner sets.
 * Wrapper values are compressed with kafkalite's codecs (their output is just input bytes here,
 * and is mutated too). CRCs are recomputed valid in most cases so the parsers behind the check are
 * reached, and left broken in the rest.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import {
  compress,
  convertToV2,
  type LegacyRecord,
  LegacyRecordBatch,
  readRecordBatches,
} from '../../src/record/index.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { refCrc32, Rng } from '../helpers/ref.js';
import { caseSeed, judge, planCases, runCases, type CasePlan as HarnessCasePlan, type FuzzResult, type FuzzRunConfig } from './harness.js';

export interface LegacyFuzzConfig extends FuzzRunConfig {
  kind: 'legacy-fuzz';
  /** Cases of uncompressed entries and streams. */
  plainCases: number;
  /** Cases per codec (gzip, snappy, lz4). */
  codecCases: number;
  /** Entries cut at every byte position. */
  truncationEntries: number;
  /** Every n-th case is also read through FileRecords from a temp file. */
  fileEvery: number;
}

const INT_MAX = 0x7fffffff;
const INT_MIN = -0x80000000;
const MAX_DECOMPRESSED = 4 * 1024 * 1024;
const CODEC_IDS = [1, 2, 3] as const;
const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4'];
const T0 = 1_700_000_000_000n;

// ---- independent legacy entry writer (LegacyRecord layout) ---------------------------------------

interface GenMsg {
  offset: bigint;
  magic: number;
  attributes: number;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
}

interface EntryMutation {
  keyLen?: number;
  valueLen?: number;
  size?: number;
  brokenCrc?: boolean;
}

/** offset int64 | size int32 | crc uint32 | magic | attributes | [timestamp] | key | value */
function writeEntry(m: GenMsg, mut: EntryMutation = {}): Buffer {
  const v1 = m.magic === 1;
  const klen = m.key === null ? 0 : m.key.length;
  const vlen = m.value === null ? 0 : m.value.length;
  const body = Buffer.alloc(2 + (v1 ? 8 : 0) + 4 + klen + 4 + vlen);
  let p = 0;
  body[p++] = m.magic & 0xff;
  body[p++] = m.attributes & 0xff;
  if (v1) {
    body.writeBigInt64BE(BigInt.asIntN(64, m.timestamp), p);
    p += 8;
  }
  body.writeInt32BE(mut.keyLen ?? (m.key === null ? -1 : klen), p);
  p += 4;
  if (m.key) p += m.key.copy(body, p);
  body.writeInt32BE(mut.valueLen ?? (m.value === null ? -1 : vlen), p);
  p += 4;
  if (m.value) m.value.copy(body, p);
  const out = Buffer.alloc(12 + 4 + body.length);
  out.writeBigInt64BE(BigInt.asIntN(64, m.offset), 0);
  out.writeInt32BE(mut.size ?? 4 + body.length, 8);
  let crc = refCrc32(body);
  if (mut.brokenCrc) crc = (crc ^ 0x5a5a5a5a) >>> 0;
  out.writeUInt32BE(crc, 12);
  body.copy(out, 16);
  return out;
}

/** Recompute the CRC of the entry at `pos` (over magic..end, as far as the buffer reaches). */
function fixCrcAt(b: Buffer, pos = 0): Buffer {
  if (b.length - pos < 17) return b;
  const size = b.readInt32BE(pos + 8);
  const end = size >= 4 ? Math.min(b.length, pos + 12 + size) : b.length;
  if (end <= pos + 16) return b;
  b.writeUInt32BE(refCrc32(b, pos + 16, end), pos + 12);
  return b;
}

const rbytes = (rng: Rng): Buffer | null => (rng.bool(0.15) ? null : rng.bool(0.1) ? Buffer.alloc(0) : rng.bytes(rng.bool(0.85) ? rng.int(24) : rng.int(600)));

interface GenRecordSpec {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: bigint;
  offsetDelta: number;
}

function genRecords(rng: Rng): GenRecordSpec[] {
  const n = rng.bool(0.1) ? rng.range(6, 30) : rng.range(1, 5);
  let d = 0;
  return Array.from({ length: n }, () => {
    const r = { key: rbytes(rng), value: rbytes(rng), timestamp: rng.bool(0.1) ? -1n : T0 + BigInt(rng.int(100000)), offsetDelta: d };
    d += rng.bool(0.9) ? 1 : rng.range(2, 5);
    return r;
  });
}

interface Built {
  buf: Buffer;
  /** What a pristine build must decode to: [offset, timestamp, key, value] per record. */
  expect?: { offset: bigint; timestamp: bigint; key: Buffer | null; value: Buffer | null }[];
}

const HOSTILE_LEN = (real: number, rng: Rng): number[] => [-2, -100, INT_MIN, INT_MAX, real + 1, real + 4, real + 1000, real - 1, 0x7ffffff0, rng.int(INT_MAX)];

/** A plain (uncompressed) entry, maybe structurally mutated. */
function plainEntry(rng: Rng, magic: number, structural: number): Built {
  const [r] = genRecords(rng);
  const offset = rng.bool(0.9) ? BigInt(rng.int(1e6)) : rng.pick([-1n, (1n << 63n) - 1n, 1n << 40n]);
  const typeBit = magic === 1 && rng.bool(0.2) ? 0x08 : 0;
  const msg: GenMsg = { offset, magic, attributes: typeBit, timestamp: r!.timestamp, key: r!.key, value: r!.value };
  if (!rng.bool(structural)) {
    return { buf: writeEntry(msg), expect: [{ offset, timestamp: magic === 0 ? -1n : r!.timestamp, key: r!.key, value: r!.value }] };
  }
  const mut: EntryMutation = {};
  switch (rng.int(6)) {
    case 0:
      mut.keyLen = rng.pick(HOSTILE_LEN(r!.key?.length ?? 0, rng));
      break;
    case 1:
      mut.valueLen = rng.pick(HOSTILE_LEN(r!.value?.length ?? 0, rng));
      break;
    case 2:
      mut.size = rng.pick([0, 3, 4, 13, 14, 15, 21, 22, 23, -1, INT_MIN, INT_MAX, rng.int(200)]);
      break;
    case 3:
      msg.attributes = rng.bool(0.5) ? rng.int(256) : (typeBit | rng.range(4, 7));
      break;
    case 4:
      msg.magic = rng.pick([0, 1, 2, 3, -1, 0x7f]);
      break;
    default:
      mut.brokenCrc = true;
  }
  return { buf: writeEntry(msg, mut) };
}

/** A compressed wrapper (inner set built here, compressed with kafkalite's codec), maybe mutated. */
function wrapperEntry(rng: Rng, magic: number, codec: number, structural: number): Built {
  const recs = genRecords(rng);
  const base = rng.bool(0.85) ? BigInt(rng.int(1e6)) : rng.pick([0n, 1n << 40n, (1n << 63n) - 1000n]);
  const logAppend = magic === 1 && rng.bool(0.2);
  const lat = T0 + 999n;
  const mutate = rng.bool(structural);
  const kind = mutate ? rng.int(11) : -1;
  const inner = recs.map((r, i) => {
    const innerMagic = kind === 0 && rng.bool(0.5) ? rng.pick([0, 1, 2, 5]) : magic;
    const attributes = (logAppend ? 0x08 : 0) | (kind === 1 && rng.bool(0.5) ? rng.range(1, 7) : 0);
    const offset = magic === 1 ? BigInt(r.offsetDelta) : base + BigInt(r.offsetDelta);
    const mut: EntryMutation = {};
    if (kind === 2 && rng.bool(0.4)) mut.size = rng.pick([0, 5, 13, 14, -1, INT_MAX, rng.int(100)]);
    if (kind === 3 && rng.bool(0.4)) mut.keyLen = rng.pick(HOSTILE_LEN(r.key?.length ?? 0, rng));
    if (kind === 3 && rng.bool(0.4)) mut.valueLen = rng.pick(HOSTILE_LEN(r.value?.length ?? 0, rng));
    if (kind === 4 && rng.bool(0.3)) mut.brokenCrc = true;
    void i;
    return writeEntry({ offset, magic: innerMagic, attributes, timestamp: r.timestamp, key: r.key, value: r.value }, mut);
  });
  let set: Buffer = Buffer.concat(inner);
  if (kind === 5) set = Buffer.from(set.subarray(0, rng.int(set.length))); // truncated inner set (maybe empty)
  if (kind === 6) set = Buffer.concat([set, rng.bytes(rng.range(1, 30))]); // trailing garbage
  let value: Buffer | null = compress(codec, set, { magic });
  if (kind === 7) {
    value = Buffer.from(value);
    const n = rng.range(1, 4);
    for (let k = 0; k < n; k++) {
      const pos = rng.int(value.length);
      value[pos] = rng.bool(0.5) ? value[pos]! ^ (1 << rng.int(8)) : rng.int(256);
    }
  }
  if (kind === 8) value = rng.bool(0.3) ? null : Buffer.from(value.subarray(0, rng.int(value.length)));
  const last = recs[recs.length - 1]!;
  let wrapperOffset = base + BigInt(last.offsetDelta);
  if (kind === 9) wrapperOffset = rng.pick([0n, BigInt(last.offsetDelta) - 1n, -1n, 1n, (1n << 63n) - 1n]);
  let attributes = codec | (logAppend ? 0x08 : 0);
  if (kind === 10) attributes = rng.pick([4, 5, 6, 7, codec | 0xf0, rng.int(256)]);
  const maxTs = recs.reduce((m, r) => (r.timestamp > m ? r.timestamp : m), -1n);
  const buf = writeEntry({ offset: wrapperOffset, magic, attributes, timestamp: logAppend ? lat : maxTs, key: null, value });
  if (mutate) return { buf };
  return {
    buf,
    expect: recs.map((r) => ({
      offset: base + BigInt(r.offsetDelta),
      timestamp: magic === 0 ? -1n : logAppend ? lat : r.timestamp,
      key: r.key,
      value: r.value,
    })),
  };
}

// ---- byte-level mutations of a whole entry -----------------------------------------------------

type Mutator = (rng: Rng, b: Buffer) => Buffer;

const mutators: { name: string; fn: Mutator }[] = [
  {
    name: 'byte-flips',
    fn: (rng, b) => {
      const n = rng.pick([1, 1, 2, 3, 8]);
      for (let i = 0; i < n; i++) {
        const pos = rng.bool(0.7) && b.length > 18 ? rng.range(16, b.length - 1) : rng.int(b.length);
        b[pos] = rng.bool(0.5) ? b[pos]! ^ (1 << rng.int(8)) : rng.pick([0x00, 0xff, 0x80, 0x7f, 0x01, rng.int(256)]);
      }
      return b;
    },
  },
  { name: 'truncate-raw', fn: (rng, b) => Buffer.from(b.subarray(0, rng.int(b.length))) },
  {
    name: 'truncate-fix-length',
    fn: (rng, b) => {
      const cut = rng.range(Math.min(17, b.length), b.length);
      const c = Buffer.from(b.subarray(0, cut));
      if (c.length >= 12) c.writeInt32BE(cut - 12, 8);
      return c;
    },
  },
  {
    name: 'inflate-size',
    fn: (rng, b) => {
      const real = b.readInt32BE(8);
      b.writeInt32BE(rng.pick([INT_MAX, INT_MIN, -1, 0, 13, 14, 21, 22, real + 1, real + 1000, real - 1, rng.int(INT_MAX)]) | 0, 8);
      return b;
    },
  },
  {
    name: 'key-value-length',
    fn: (rng, b) => {
      const magic = b[16];
      const at = magic === 1 ? 26 : 18;
      if (b.length < at + 4) return b;
      const pos = rng.bool(0.5) ? at : rng.range(at, b.length - 4);
      b.writeInt32BE(rng.pick([INT_MAX, INT_MIN, -1, -2, 0, b.length, b.length - at, rng.int(INT_MAX)]) | 0, pos);
      return b;
    },
  },
  {
    name: 'magic-attributes',
    fn: (rng, b) => {
      if (b.length < 18) return b;
      if (rng.bool(0.5)) b[16] = rng.pick([0, 1, 2, 3, 0x7f, 0x80, 0xff]);
      else b[17] = rng.bool(0.5) ? (b[17]! & 0xf8) | rng.int(8) : rng.int(256);
      return b;
    },
  },
  { name: 'append-garbage', fn: (rng, b) => Buffer.concat([b, rng.bytes(rng.range(1, 40))]) },
];

// ---- decoding and judging ----------------------------------------------------------------------

let sink = 0;

function touchRecord(r: LegacyRecord): void {
  sink += Number(r.offset & 0xffn) + Number(r.timestamp & 0xffn) + r.keySize + r.valueSize + r.crc + r.magic + r.attributes;
  sink += (r.key?.length ?? -1) + (r.value?.length ?? -1) + r.sizeInBytes + Number(r.isValid()) + r.timestampType.length + r.compressionType;
}

function touchBatch(b: LegacyRecordBatch): void {
  sink += b.magic + Number(b.offset & 0xffn) + Number(b.lastOffset & 0xffn) + b.sizeInBytes + b.crc + b.attributes + Number(b.isValid());
  sink += b.compressionType + b.compression.length + b.timestampType.length + Number(b.maxTimestamp & 0xffn);
}

/** Decode as a reader would; returns the records of all batches. */
function exercise(buf: Buffer, mode: number): LegacyRecord[] {
  const out: LegacyRecord[] = [];
  if (mode === 2) {
    const b = new LegacyRecordBatch(buf);
    touchBatch(b);
    const rs = b.records({ verifyCrc: false, maxDecompressedBytes: MAX_DECOMPRESSED });
    for (const r of rs) touchRecord(r);
    sink += Number(b.baseOffset & 0xffn);
    const v2 = convertToV2(b, { verifyCrc: false });
    sink += v2.length;
    return rs;
  }
  const verify = mode === 0;
  const reader = readRecordBatches(buf, { verifyCrc: verify });
  for (const any of reader) {
    if (any.kind !== 'legacy') {
      // a mutated magic may turn an entry into a "v2 batch": decode it as such
      for (const r of any.records({ verifyCrc: verify })) sink += r.keySize;
      continue;
    }
    touchBatch(any);
    const rs = any.records({ verifyCrc: verify, maxDecompressedBytes: MAX_DECOMPRESSED });
    for (const r of rs) {
      touchRecord(r);
      out.push(r);
    }
    sink += Number(any.baseOffset & 0xffn);
  }
  sink += reader.incompleteBytes;
  return out;
}

let tmpDir: string | undefined;
function exerciseFile(buf: Buffer, i: number): void {
  tmpDir ??= mkdtempSync(join(tmpdir(), 'kafkalite-legacy-fuzz-'));
  const file = join(tmpDir, `${String(i % 8).padStart(20, '0')}.log`);
  writeFileSync(file, buf);
  const fr = FileRecords.open(file);
  try {
    for (const fb of fr.batches()) {
      sink += fb.position + fb.sizeInBytes + Number(fb.batch.isValid());
      if (fb.batch.kind === 'legacy') for (const r of fb.batch.records({ verifyCrc: false, maxDecompressedBytes: MAX_DECOMPRESSED })) touchRecord(r);
      else for (const r of fb.batch.records({ verifyCrc: false })) sink += r.keySize;
    }
  } finally {
    fr.close();
  }
}

function sameRecords(got: LegacyRecord[], want: NonNullable<Built['expect']>): string | undefined {
  if (got.length !== want.length) return `decoded ${got.length} records, generated ${want.length}`;
  const eq = (a: Buffer | null, b: Buffer | null): boolean => (a === null ? b === null : b !== null && a.equals(b));
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = want[i]!;
    if (g.offset !== w.offset) return `record ${i}: offset ${g.offset}, generated ${w.offset}`;
    if (g.timestamp !== w.timestamp) return `record ${i}: timestamp ${g.timestamp}, generated ${w.timestamp}`;
    if (!eq(g.key, w.key) || !eq(g.value, w.value)) return `record ${i}: key/value differ`;
    if (!g.isValid()) return `record ${i}: CRC invalid`;
  }
  return undefined;
}

// ---- the loop ----------------------------------------------------------------------------------

const SEED_SALT = 0x1b873593;
type CasePlan = HarnessCasePlan<NonNullable<Built['expect']>>;

function plans(cfg: LegacyFuzzConfig): { total: number; planFor: (i: number) => CasePlan } {
  const anyEntry = (rng: Rng, codec: number, structural: number): Built => {
    const magic = rng.int(2);
    return codec === 0 ? plainEntry(rng, magic, structural) : wrapperEntry(rng, magic, codec, structural);
  };
  const byteMutated = (codec: number): CasePlan['make'] => (rng) => {
    let buf = rng.pick(mutators).fn(rng, Buffer.from(anyEntry(rng, codec, 0.1).buf));
    if (rng.bool(0.75)) buf = fixCrcAt(buf);
    return { buf };
  };
  const structural = (codec: number): CasePlan['make'] => (rng) => {
    const b = anyEntry(rng, codec, 0.85);
    return b;
  };
  const pristine = (codec: number): CasePlan['make'] => (rng) => anyEntry(rng, codec, 0);
  const stream: CasePlan['make'] = (rng) => {
    // several entries back to back (both magics, some compressed, some mutated), maybe a v2-looking tail
    const n = rng.range(2, 5);
    const parts: Buffer[] = [];
    for (let k = 0; k < n; k++) {
      const codec = rng.bool(0.7) ? 0 : rng.pick(CODEC_IDS);
      let b = anyEntry(rng, codec, 0.1).buf;
      if (rng.bool(0.4)) {
        b = rng.pick(mutators).fn(rng, Buffer.from(b));
        if (rng.bool(0.7)) b = fixCrcAt(b);
      }
      parts.push(b);
    }
    return { buf: Buffer.concat(parts) };
  };

  const plainKinds: [string, number, CasePlan['make']][] = [
    ['plain/byte-mutated', 40, byteMutated(0)],
    ['plain/structural', 25, structural(0)],
    ['plain/stream', 20, stream],
    ['plain/pristine', 15, pristine(0)],
  ];
  const codecKinds: [string, number, (c: number) => CasePlan['make']][] = [
    ['byte-mutated', 40, byteMutated],
    ['structural', 45, structural],
    ['pristine', 15, pristine],
  ];
  const truncSources: Buffer[] = [];
  const truncRng = new Rng(caseSeed(cfg.seed, -1, SEED_SALT));
  for (let k = 0; k < cfg.truncationEntries; k++) {
    const codec = k % 4 === 0 ? 0 : CODEC_IDS[k % 3]!;
    truncSources.push(codec === 0 ? plainEntry(truncRng, k % 2, 0).buf : wrapperEntry(truncRng, k % 2, codec, 0).buf);
  }
  return planCases({
    plainCases: cfg.plainCases,
    plainKinds,
    codecCases: cfg.codecCases,
    codecs: CODEC_IDS,
    codecName: (c) => CODEC_NAMES[c]!,
    codecKinds,
    truncSources,
    fixCut: (c) => {
      if (c.length >= 17) {
        c.writeInt32BE(c.length - 12, 8);
        fixCrcAt(c);
      }
    },
  });
}

export function runLegacyFuzz(cfg: LegacyFuzzConfig): FuzzResult {
  try {
    const result = runCases(cfg, plans(cfg), {
      salt: SEED_SALT,
      noun: 'entry',
      exercise,
      compare: (got, expect) => sameRecords(got as LegacyRecord[], expect),
      extra: {
        every: cfg.fileEvery,
        check: (buf, i) => {
          try {
            exerciseFile(buf, i);
            return undefined;
          } catch (err) {
            const p = judge(err, buf.length);
            return p === undefined ? undefined : `FileRecords: ${p}`;
          }
        },
      },
    });
    if (sink === 0.5) console.log(sink);
    return result;
  } finally {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  }
}

if (!isMainThread && parentPort && (workerData as LegacyFuzzConfig | undefined)?.kind === 'legacy-fuzz') {
  parentPort.postMessage(runLegacyFuzz(workerData as LegacyFuzzConfig));
}
