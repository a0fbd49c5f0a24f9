/**
 * The fuzz loop of batch-fuzz.test.ts, run in a worker thread so the test can kill it on a hang.
 *
 * Every case is derived from (seed, case index) alone, so any case can be replayed:
 *   KAFKALITE_FUZZ_SEED=<seed> KAFKALITE_FUZZ_CASE=<index> node --test dist/test/fuzz/batch-fuzz.test.js
 *
 * Valid inputs are generated here: records are serialized token by token from Kafka's `DefaultRecord` layout
 * (so a varint can be made over-long or replaced by a hostile value), compressed with kafkalite's
 * codecs (any codec output is just input bytes here), and framed by the hand-rolled header writer in
 * helpers/ref.ts; CRCs are recomputed with the independent reference CRC-32C so the record parser
 * and decompressors are reached.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import {
  BatchReader,
  RecordBatch,
  type LegacyRecordBatch,
  compress,
  encodeRecordBatch,
  parseControlRecordKey,
  parseEndTransactionMarker,
  type Record,
  type RecordInput,
} from '../../src/record/index.js';
import { Rng, fixCrc, overlong, rawBatch, refVarint, refVarlong } from '../helpers/ref.js';
import { caseSeed, planCases, runCases, type CasePlan as HarnessCasePlan, type FuzzResult, type FuzzRunConfig } from './harness.js';

export interface FuzzConfig extends FuzzRunConfig {
  kind: 'batch-fuzz';
  /** Cases of uncompressed batches (most of the budget). */
  plainCases: number;
  /** Cases per codec (gzip, snappy, lz4, zstd). */
  codecCases: number;
  /** Batches cut at every byte position. */
  truncationBatches: number;
}

const INT_MAX = 0x7fffffff;
const INT_MIN = -0x80000000;
const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;
const MAX_DECOMPRESSED = 4 * 1024 * 1024;
const CODEC_IDS = [1, 2, 3, 4] as const;
const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const T0 = 1700000000000;

// ---- token-level record serialization ----------------------------------------------------------

type Token =
  | { t: 'i8'; v: number }
  | { t: 'vi'; v: number; role: string }
  | { t: 'vl'; v: number | bigint; role: string }
  | { t: 'raw'; v: Buffer };

interface GenRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
  tsDelta: number;
  offsetDelta: number;
}

function genRecords(rng: Rng, control: boolean, hostileControl = true): GenRecord[] {
  const n = rng.bool(0.1) ? rng.range(6, 30) : rng.range(1, 5);
  const out: GenRecord[] = [];
  let off = 0;
  for (let i = 0; i < n; i++) {
    const bytes = (): Buffer | null => (rng.bool(0.15) ? null : rng.bytes(rng.bool(0.8) ? rng.int(20) : rng.int(400)));
    let key = bytes();
    let value = bytes();
    if (control) {
      key = Buffer.alloc(4);
      const hostile = hostileControl && rng.bool(0.2);
      key.writeInt16BE(hostile ? rng.range(-2, 3) : 0, 0);
      key.writeInt16BE(hostile ? rng.range(-1, 8) : rng.int(2), 2);
      value = Buffer.alloc(hostile ? rng.int(10) : 6);
      if (value.length >= 6) {
        value.writeInt16BE(hostile ? rng.range(-2, 3) : 0, 0);
        value.writeInt32BE(rng.int(1000), 2);
      }
    }
    const headers: GenRecord['headers'] = [];
    const hc = rng.bool(0.6) ? 0 : rng.range(1, 4);
    for (let h = 0; h < hc; h++) {
      headers.push({ key: rng.bool(0.9) ? `h${rng.int(1000)}` : 'ключ', value: rng.bool(0.2) ? null : rng.bytes(rng.int(12)) });
    }
    out.push({ key, value, headers, tsDelta: rng.bool(0.8) ? rng.int(1000) : rng.range(-100000, 100000), offsetDelta: off });
    off += rng.bool(0.9) ? 1 : rng.range(1, 5);
  }
  return out;
}

function recordTokens(r: GenRecord): Token[] {
  const toks: Token[] = [
    { t: 'i8', v: 0 },
    { t: 'vl', v: r.tsDelta, role: 'timestampDelta' },
    { t: 'vi', v: r.offsetDelta, role: 'offsetDelta' },
    { t: 'vi', v: r.key === null ? -1 : r.key.length, role: 'keyLength' },
  ];
  if (r.key) toks.push({ t: 'raw', v: r.key });
  toks.push({ t: 'vi', v: r.value === null ? -1 : r.value.length, role: 'valueLength' });
  if (r.value) toks.push({ t: 'raw', v: r.value });
  toks.push({ t: 'vi', v: r.headers.length, role: 'headerCount' });
  for (const h of r.headers) {
    const k = Buffer.from(h.key, 'utf8');
    toks.push({ t: 'vi', v: k.length, role: 'headerKeyLength' }, { t: 'raw', v: k });
    toks.push({ t: 'vi', v: h.value === null ? -1 : h.value.length, role: 'headerValueLength' });
    if (h.value) toks.push({ t: 'raw', v: h.value });
  }
  return toks;
}

interface TokenMutation {
  /** index into the body tokens; -1 = the body length prefix */
  index: number;
  kind: 'overlong' | 'value' | 'drop' | 'dup' | 'fiveByteContinuation';
  extra: number;
  value: number | bigint;
  fixLength: boolean;
}

function tokenBytes(tok: Token, m: TokenMutation | undefined): number[] {
  switch (tok.t) {
    case 'i8':
      return [tok.v & 0xff];
    case 'raw':
      return [...tok.v];
    case 'vi':
    case 'vl': {
      const v = m?.kind === 'value' ? m.value : tok.v;
      const base = tok.t === 'vi' ? refVarint(Number(BigInt.asIntN(32, BigInt(v)))) : refVarlong(BigInt.asIntN(64, BigInt(v)));
      if (m?.kind === 'overlong') return overlong(base, m.extra);
      if (m?.kind === 'fiveByteContinuation') return [...overlong(base, Math.max(0, 4 - base.length)).map((b) => b | 0x80), 0x01];
      return base;
    }
  }
}

function serializeRecord(toks: Token[], m: TokenMutation | undefined): Buffer {
  const parts: number[] = [];
  toks.forEach((tok, i) => {
    const mine = m && m.index === i ? m : undefined;
    if (mine?.kind === 'drop') return;
    const b = tokenBytes(tok, mine);
    parts.push(...b);
    if (mine?.kind === 'dup') parts.push(...b);
  });
  const body = Buffer.from(parts);
  const trueLen = body.length;
  let lenTok: Token = { t: 'vi', v: trueLen, role: 'length' };
  let lm: TokenMutation | undefined = m && m.index === -1 ? m : undefined;
  if (m && m.index >= 0 && !m.fixLength) {
    // keep the length the unmutated body would have had
    lenTok = { t: 'vi', v: toks.reduce((n, t) => n + tokenBytes(t, undefined).length, 0), role: 'length' };
  }
  return Buffer.concat([Buffer.from(tokenBytes(lenTok, lm)), body]);
}

function randomTokenMutation(rng: Rng, toks: Token[]): TokenMutation {
  const varIdx = toks.map((t, i) => (t.t === 'vi' || t.t === 'vl' ? i : -1)).filter((i) => i >= 0);
  const index = rng.bool(0.2) ? -1 : rng.bool(0.9) ? rng.pick(varIdx) : rng.int(toks.length);
  const isLong = index >= 0 && toks[index]!.t === 'vl';
  const kinds: TokenMutation['kind'][] = ['overlong', 'overlong', 'value', 'value', 'value', 'fiveByteContinuation', 'drop', 'dup'];
  const kind = rng.pick(kinds);
  const interestingInt = [-1, -2, -100, INT_MIN, INT_MAX, 0x3fffffff, 0, 1, 2, 63, 64, 127, 128, 1 << 20, rng.int(1000), -rng.int(1000)];
  const interestingLong: (number | bigint)[] = [LONG_MAX, LONG_MIN, 2n ** 53n, -(2n ** 53n), 2 ** 31, -1, 0, rng.int(1e9)];
  return {
    index,
    kind,
    // over-long: up to 12 bytes total, i.e. sometimes legal (<= 5 / <= 10) and sometimes not
    extra: rng.range(1, isLong ? 11 : 7),
    value: isLong ? rng.pick(interestingLong) : rng.pick(interestingInt),
    fixLength: rng.bool(0.5),
  };
}

// ---- batch construction ------------------------------------------------------------------------

interface Built {
  buf: Buffer;
  records: GenRecord[];
  /** true when no structural mutation was applied: the batch must decode to `records` */
  pristine: boolean;
}

function buildBatch(rng: Rng, codec: number, structural: number): Built {
  const control = rng.bool(0.05);
  const records = genRecords(rng, control, structural > 0);
  let mutated = false;
  const serialized = records.map((r) => {
    const toks = recordTokens(r);
    if (rng.bool(structural)) {
      mutated = true;
      return serializeRecord(toks, randomTokenMutation(rng, toks));
    }
    return serializeRecord(toks, undefined);
  });
  let payload: Buffer = Buffer.concat(serialized);
  if (codec !== 0) payload = compress(codec, payload, { magic: 2 });
  let attributes = codec;
  if (rng.bool(0.1)) attributes |= 0x08;
  if (rng.bool(0.1)) attributes |= 0x10;
  if (control) attributes |= 0x20;
  if (rng.bool(0.05)) attributes |= 0x40;
  const hasPid = rng.bool(0.3);
  const buf = rawBatch(
    {
      baseOffset: rng.bool(0.9) ? BigInt(rng.int(1e6)) : rng.pick([LONG_MAX - 100n, -1n, 2n ** 60n]),
      partitionLeaderEpoch: rng.int(10),
      attributes,
      lastOffsetDelta: records[records.length - 1]!.offsetDelta,
      baseTimestamp: BigInt(T0),
      maxTimestamp: BigInt(T0 + 1000),
      producerId: hasPid ? BigInt(rng.int(1e6)) : -1n,
      producerEpoch: hasPid ? rng.int(100) : -1,
      baseSequence: hasPid ? (rng.bool(0.9) ? rng.int(1e6) : INT_MAX - rng.int(3)) : -1,
      count: records.length,
    },
    payload,
  );
  return { buf, records, pristine: !mutated };
}

// ---- byte-level mutations ----------------------------------------------------------------------

type Mutator = (rng: Rng, b: Buffer) => Buffer;

const LENGTH_VALUES = (len: number, rng: Rng): number[] => [
  0x7fffffff, -1, INT_MIN, len + 1, len - 1, len + 100000, 0, 13, 14, 48, 49, 50, rng.int(0x7fffffff), -rng.int(0x7fffffff),
];

const mutators: { name: string; fn: Mutator }[] = [
  {
    name: 'byte-flips',
    fn: (rng, b) => {
      const n = rng.pick([1, 1, 1, 2, 3, 8]);
      for (let i = 0; i < n; i++) {
        // bias towards the records section, where the parser lives
        const pos = rng.bool(0.7) && b.length > 61 ? rng.range(61, b.length - 1) : rng.int(b.length);
        b[pos] = rng.bool(0.5) ? b[pos]! ^ (1 << rng.int(8)) : rng.pick([0x00, 0xff, 0x80, 0x7f, 0x01, rng.int(256)]);
      }
      return b;
    },
  },
  {
    name: 'truncate-fix-length',
    fn: (rng, b) => {
      const cut = rng.range(61, b.length);
      const c = Buffer.from(b.subarray(0, cut));
      c.writeInt32BE(cut - 12, 8);
      return c;
    },
  },
  {
    name: 'truncate-raw',
    fn: (rng, b) => Buffer.from(b.subarray(0, rng.int(b.length))),
  },
  {
    name: 'length-field',
    fn: (rng, b) => {
      b.writeInt32BE(rng.pick(LENGTH_VALUES(b.readInt32BE(8), rng)) | 0, 8);
      return b;
    },
  },
  {
    name: 'record-count',
    fn: (rng, b) => {
      const n = b.readInt32BE(57);
      b.writeInt32BE(rng.pick([INT_MAX, -1, INT_MIN, n + 1, n - 1, n + 2, 0, n * 1000, rng.int(INT_MAX), 1]) | 0, 57);
      return b;
    },
  },
  {
    name: 'attributes-magic',
    fn: (rng, b) => {
      if (rng.bool(0.7)) b[22] = rng.bool(0.5) ? (b[22]! & 0xf8) | rng.int(8) : rng.int(256);
      else if (rng.bool(0.5)) b[21] = rng.int(256);
      else b[16] = rng.pick([0, 1, 3, 0x7f, 0x80, 0xff]);
      return b;
    },
  },
  {
    name: 'inflate-inner-length',
    fn: (rng, b) => {
      // overwrite bytes at a random place in the records section with a 5-byte huge varint
      if (b.length <= 66) return b;
      const pos = rng.range(61, b.length - 5);
      Buffer.from(rng.pick([refVarint(INT_MAX), refVarint(INT_MIN), refVarint(0x3fffffff), [0xff, 0xff, 0xff, 0xff, 0xff]])).copy(b, pos);
      return b;
    },
  },
  {
    name: 'append-garbage',
    fn: (rng, b) => Buffer.concat([b, rng.bytes(rng.range(1, 40))]),
  },
];

// ---- decoding and checking ---------------------------------------------------------------------

let sink = 0;

function touchRecord(r: Record, control: boolean): void {
  sink += Number(r.offset & 0xffn) + Number(r.timestamp & 0xffn) + r.sequence + r.keySize + r.valueSize + r.sizeInBytes;
  sink += r.attributes + r.offsetDelta + Number(BigInt(r.timestampDelta) & 0xffn);
  for (const h of r.headers) sink += h.key.length + (h.value?.length ?? -1);
  if (control) {
    const k = parseControlRecordKey(r.key);
    if (k.type === 'ABORT' || k.type === 'COMMIT') sink += parseEndTransactionMarker(r.key, r.value).coordinatorEpoch;
  }
}

function touchBatch(b: RecordBatch): void {
  sink += b.magic + Number(b.baseOffset & 0xffn) + b.length + b.sizeInBytes + b.partitionLeaderEpoch + b.crc + b.attributes;
  sink += b.compressionType + b.compression.length + b.timestampType.length + Number(b.isTransactional) + Number(b.isControl);
  sink += Number(b.hasDeleteHorizon) + Number((b.deleteHorizonMs ?? 0n) & 0xffn) + b.lastOffsetDelta + Number(b.lastOffset & 0xffn);
  sink += Number(b.nextOffset & 0xffn) + Number(b.baseTimestamp & 0xffn) + Number(b.maxTimestamp & 0xffn) + Number(b.producerId & 0xffn);
  sink += b.producerEpoch + b.baseSequence + b.lastSequence + Number(b.hasProducerId) + b.recordsCount + Number(b.isValid());
}

function touchLegacy(b: LegacyRecordBatch, verifyCrc: boolean): void {
  sink += b.magic + Number(b.lastOffset & 0xffn) + b.sizeInBytes + b.crc + b.attributes + Number(b.isValid());
  sink += b.compression.length + b.timestampType.length + Number(b.maxTimestamp & 0xffn);
  for (const r of b.records({ verifyCrc, maxDecompressedBytes: MAX_DECOMPRESSED })) {
    sink += Number(r.offset & 0xffn) + Number(r.timestamp & 0xffn) + r.keySize + r.valueSize + r.crc + Number(r.isValid());
    sink += (r.key?.length ?? 0) + (r.value?.length ?? 0);
  }
}

/** Decodes `buf` one of three ways; returns the decoded records of all batches. */
function exercise(buf: Buffer, mode: number): Record[] {
  const out: Record[] = [];
  if (mode === 2) {
    const b = new RecordBatch(buf, 0);
    touchBatch(b);
    for (const r of b.recordIterator({ verifyCrc: false, maxDecompressedBytes: MAX_DECOMPRESSED })) {
      touchRecord(r, b.isControl);
      out.push(r);
    }
    return out;
  }
  const reader = new BatchReader(buf, { verifyCrc: mode === 0 });
  for (const b of reader) {
    if (b.kind === 'legacy') {
      // a mutated magic byte reaches the legacy decoder: it must fail just as cleanly
      touchLegacy(b, mode === 0);
      continue;
    }
    touchBatch(b);
    for (const r of b.records({ verifyCrc: mode === 0, maxDecompressedBytes: MAX_DECOMPRESSED })) {
      touchRecord(r, b.isControl);
      out.push(r);
    }
  }
  sink += reader.incompleteBytes;
  return out;
}

function sameRecords(got: Record[], want: GenRecord[]): string | undefined {
  if (got.length !== want.length) return `decoded ${got.length} records, generated ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = want[i]!;
    const eq = (a: Buffer | null, b: Buffer | null): boolean => (a === null ? b === null : b !== null && a.equals(b));
    if (!eq(g.key, w.key) || !eq(g.value, w.value)) return `record ${i}: key/value differ`;
    if (g.offsetDelta !== w.offsetDelta || Number(g.timestampDelta) !== w.tsDelta) return `record ${i}: deltas differ`;
    if (g.headers.length !== w.headers.length) return `record ${i}: header count differs`;
    for (let h = 0; h < w.headers.length; h++) {
      if (g.headers[h]!.key !== w.headers[h]!.key || !eq(g.headers[h]!.value, w.headers[h]!.value)) return `record ${i}: header ${h} differs`;
    }
  }
  return undefined;
}

// ---- the loop ----------------------------------------------------------------------------------

const SEED_SALT = 0x5bd1e995;
type CasePlan = HarnessCasePlan<GenRecord[]>;

function plans(cfg: FuzzConfig): { total: number; planFor: (i: number) => CasePlan } {
  const byteMutated = (codec: number, structural: number): CasePlan['make'] => (rng) => {
    const built = buildBatch(rng, codec, structural);
    const m = rng.pick(mutators);
    let buf = m.fn(rng, Buffer.from(built.buf));
    if (rng.bool(0.75) && buf.length >= 61) buf = fixCrc(buf);
    return { buf };
  };
  const structuralOnly = (codec: number): CasePlan['make'] => (rng) => buildBatch(rng, codec, 0.6);
  const pristine = (codec: number): CasePlan['make'] => (rng) => {
    const built = buildBatch(rng, codec, 0);
    return { buf: built.buf, expect: built.records };
  };
  const multi: CasePlan['make'] = (rng) => {
    const n = rng.range(2, 4);
    const parts: Buffer[] = [];
    for (let k = 0; k < n; k++) {
      const codec = rng.bool(0.8) ? 0 : rng.pick(CODEC_IDS);
      let b = buildBatch(rng, codec, 0).buf;
      if (rng.bool(0.5)) {
        b = rng.pick(mutators).fn(rng, Buffer.from(b));
        if (rng.bool(0.7) && b.length >= 61) b = fixCrc(b);
      }
      parts.push(b);
    }
    return { buf: Buffer.concat(parts) };
  };
  const viaEncoder: CasePlan['make'] = (rng) => {
    // batches from kafkalite's own encoder, then mutated: covers encoder-shaped inputs as well
    const codec = rng.bool(0.85) ? 0 : rng.pick(CODEC_IDS);
    const recs: RecordInput[] = genRecords(rng, false).map((r) => ({
      key: r.key,
      value: r.value,
      headers: r.headers,
      timestamp: T0 + r.tsDelta + 100000,
      offsetDelta: r.offsetDelta,
    }));
    let b = encodeRecordBatch(recs, { compression: CODEC_NAMES[codec] as 'none', baseOffset: rng.int(1000) });
    b = rng.pick(mutators).fn(rng, b);
    if (rng.bool(0.75) && b.length >= 61) b = fixCrc(b);
    return { buf: b };
  };

  // plain cases: a mix of categories; codec cases: per codec; then every-position truncations
  const plainKinds: [string, number, CasePlan['make']][] = [
    ['plain/byte-mutated', 45, byteMutated(0, 0.1)],
    ['plain/structural', 25, structuralOnly(0)],
    ['plain/structural+byte', 10, byteMutated(0, 0.5)],
    ['plain/multi-batch', 8, multi],
    ['plain/encoder+byte', 7, viaEncoder],
    ['plain/pristine', 5, pristine(0)],
  ];
  const codecKinds: [string, number, (c: number) => CasePlan['make']][] = [
    ['byte-mutated', 45, (c) => byteMutated(c, 0.1)],
    ['structural', 40, structuralOnly],
    ['pristine', 15, pristine],
  ];
  const truncSources: Buffer[] = [];
  const truncRng = new Rng(caseSeed(cfg.seed, -1, SEED_SALT));
  for (let k = 0; k < cfg.truncationBatches; k++) {
    truncSources.push(buildBatch(truncRng, k % 5 === 0 ? 0 : CODEC_IDS[k % 4]!, 0).buf);
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
      if (c.length >= 61) {
        c.writeInt32BE(c.length - 12, 8);
        fixCrc(c);
      }
    },
  });
}

export function runFuzz(cfg: FuzzConfig): FuzzResult {
  const result = runCases(cfg, plans(cfg), {
    salt: SEED_SALT,
    noun: 'batch',
    exercise,
    compare: (got, expect) => sameRecords(got as Record[], expect),
  });
  if (sink === 0.5) console.log(sink); // keep `sink` observable
  return result;
}

if (!isMainThread && parentPort && (workerData as FuzzConfig | undefined)?.kind === 'batch-fuzz') {
  const result = runFuzz(workerData as FuzzConfig);
  parentPort.postMessage(result);
}
