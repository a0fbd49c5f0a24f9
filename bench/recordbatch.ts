/**
 * `npm run bench`: record batch v2 encode/decode against kafkajs 2.2.4 and @platformatic/kafka and
 * the machine's floor (copy + CRC-32C), all in one process, interleaved with the order rotated each
 * round; median of 5 rounds [min-max]; ratios are medians of the per-round ratios. Then compression
 * throughput per codec. Results go to stdout and to bench/results/recordbatch.json (overwritten; git keeps the history).
 *
 * Workloads (issue #2): 1,000,000 records, 16 B key, one 8 B/8 B header, no compression;
 * W1 = 100 B values in 1,000-record batches; W2 = 1 KiB values in 100-record batches.
 * Legacy row: decode of magic-1 message sets (W1 sizes, 1,000 messages per set, plain and one gzip
 * wrapper per set) against kafkajs's message-set decoder.
 * Environment: BENCH_ROUNDS (5), BENCH_RECORDS (1000000), BENCH_ONLY (W1|W2|legacy|compression).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  compress,
  CompressionType,
  crc32c,
  crc32cImplementation,
  decompress,
  encodeLegacyMessageSet,
  readRecordBatches,
  RecordBatch,
  RecordBatchEncoder,
  type RecordInput,
} from '../src/index.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TOTAL = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const ONLY = process.env.BENCH_ONLY;

interface Workload {
  name: string;
  valueSize: number;
  perBatch: number;
}
const WORKLOADS: Workload[] = [
  { name: 'W1', valueSize: 100, perBatch: 1000 },
  { name: 'W2', valueSize: 1024, perBatch: 100 },
];

function rnd(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = 97 + ((x >>> 0) % 26);
  }
  return b;
}

/** 10 batches of distinct messages, reused cyclically (a producer encodes what it just created). */
function makeInputs(w: Workload): RecordInput[][] {
  const ts = 1_700_000_000_000;
  const out: RecordInput[][] = [];
  for (let b = 0; b < 10; b++) {
    const batch: RecordInput[] = [];
    for (let i = 0; i < w.perBatch; i++) {
      const s = b * w.perBatch + i;
      batch.push({
        key: rnd(16, s * 3 + 1),
        value: rnd(w.valueSize, s * 3 + 2),
        headers: [{ key: 'hdr-key1', value: rnd(8, s * 3 + 3) }],
        timestamp: ts + i,
      });
    }
    out.push(batch);
  }
  return out;
}

type Fn = () => void;
interface Variant {
  name: string;
  fn: Fn | (() => Promise<void>);
  /** records processed per call */
  records: number;
  bytes: number;
}

async function measure(variants: Variant[], baseline: string): Promise<Record<string, object>> {
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      globalThis.gc?.();
      const t0 = process.hrtime.bigint();
      await v.fn();
      times.get(v.name)!.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
  const base = times.get(baseline)!;
  const out: Record<string, object> = {};
  for (const v of variants) {
    const t = times.get(v.name)!;
    const recs = t.map((s) => v.records / s / 1e6);
    const ratios = t.map((s, i) => base[i]! / s);
    out[v.name] = {
      mRecPerSec: median(recs),
      min: Math.min(...recs),
      max: Math.max(...recs),
      MBps: median(t.map((s) => v.bytes / s / 1e6)),
      ratioToBaseline: median(ratios),
    };
  }
  return out;
}

function printTable(title: string, res: Record<string, object>, baseline: string): void {
  console.log(`\n${title} (ratio column: against ${baseline})`);
  console.log('| variant | M records/s [min-max] | MB/s | ratio |');
  console.log('|---|---|---|---|');
  for (const [name, r] of Object.entries(res) as [string, { mRecPerSec: number; min: number; max: number; MBps: number; ratioToBaseline: number }][]) {
    console.log(
      `| ${name} | ${r.mRecPerSec.toFixed(3)} [${r.min.toFixed(3)}-${r.max.toFixed(3)}] | ${r.MBps.toFixed(0)} | ${r.ratioToBaseline.toFixed(2)} |`,
    );
  }
}

async function loadPeers() {
  const KjsRecord = require('kafkajs/src/protocol/recordBatch/record/v0');
  const KjsRecordBatch = require('kafkajs/src/protocol/recordBatch/v0').RecordBatch;
  const kjsDecode = require('kafkajs/src/protocol/recordBatch/v0/decoder');
  const KjsDecoder = require('kafkajs/src/protocol/decoder');
  const plt = (await import('@platformatic/kafka')) as unknown as {
    createRecordsBatch(m: unknown[], o: object): { buffer: Buffer; buffers: Buffer[] };
    readRecordsBatch(r: unknown): { records: unknown[] };
    Reader: { from(b: Buffer): unknown };
  };
  return { KjsRecord, KjsRecordBatch, kjsDecode, KjsDecoder, plt };
}

async function benchWorkload(w: Workload, results: Record<string, unknown>): Promise<void> {
  const peers = await loadPeers();
  const inputs = makeInputs(w);
  const batches = Math.max(1, Math.floor(TOTAL / w.perBatch));
  const records = batches * w.perBatch;
  const encoder = new RecordBatchEncoder();
  const sample = Buffer.from(encoder.encode(inputs[0]!, {}));
  const batchBytes = sample.length * batches;

  // peers' input shapes, prepared outside the timed region
  const kjsInputs = inputs.map((batch) =>
    batch.map((r, i) => ({ key: r.key, value: r.value, headers: { [r.headers![0]!.key]: r.headers![0]!.value }, offsetDelta: i, timestampDelta: i })),
  );
  const pltInputs = inputs.map((batch) =>
    batch.map((r) => ({
      key: r.key,
      value: r.value,
      headers: new Map([[Buffer.from(r.headers![0]!.key), r.headers![0]!.value]]),
      topic: 't',
      partition: 0,
      timestamp: BigInt(r.timestamp as number),
    })),
  );
  const pltOpts = { compression: 'none', producerId: -1n, producerEpoch: -1, partitionLeaderEpoch: -1 };

  // floor: per-record copy of key, value and header into a reused buffer, then CRC-32C
  const floorBuf = Buffer.allocUnsafe(sample.length + 4096);
  const floorEncode = () => {
    for (let b = 0; b < batches; b++) {
      const batch = inputs[b % 10]!;
      let pos = 61;
      for (const r of batch) {
        floorBuf.set(r.key as Buffer, pos);
        pos += 16;
        floorBuf.set(r.value as Buffer, pos);
        pos += w.valueSize;
        floorBuf.set(r.headers![0]!.value as Buffer, pos);
        pos += 8 + 16;
      }
      crc32c(floorBuf, 21, pos);
    }
  };

  const encodeVariants: Variant[] = [
    {
      name: 'kafkalite encode (reused buffer)',
      records,
      bytes: batchBytes,
      fn: () => {
        for (let b = 0; b < batches; b++) encoder.encode(inputs[b % 10]!, {});
      },
    },
    {
      name: 'kafkalite encode (own Buffer per batch)',
      records,
      bytes: batchBytes,
      fn: () => {
        for (let b = 0; b < batches; b++) Buffer.from(encoder.encode(inputs[b % 10]!, {}));
      },
    },
    {
      name: 'kafkajs 2.2.4 encode',
      records,
      bytes: batchBytes,
      fn: async () => {
        for (let b = 0; b < batches; b++) {
          const recs = kjsInputs[b % 10]!.map((r) => peers.KjsRecord(r));
          const rb = await peers.KjsRecordBatch({ records: recs, firstTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_000 + w.perBatch, lastOffsetDelta: w.perBatch - 1 });
          void rb.buffer;
        }
      },
    },
    {
      name: '@platformatic/kafka encode (Writer)',
      records,
      bytes: batchBytes,
      fn: () => {
        for (let b = 0; b < batches; b++) peers.plt.createRecordsBatch(pltInputs[b % 10]!, pltOpts);
      },
    },
    { name: 'floor: copy + CRC-32C, reused buffer', records, bytes: batchBytes, fn: floorEncode },
  ];
  const enc = await measure(encodeVariants, 'kafkajs 2.2.4 encode');
  printTable(`${w.name} encode (${records} records, ${w.perBatch}/batch, ${sample.length} B/batch)`, enc, 'kafkajs 2.2.4 encode');

  // decode input: distinct batch Buffers, as a consumer receives them
  const decodeBatches = Math.min(batches, w.name === 'W1' ? 1000 : 10000);
  const encoded: Buffer[] = [];
  for (let b = 0; b < decodeBatches; b++) encoded.push(Buffer.from(encoder.encode(inputs[b % 10]!, { baseOffset: b * w.perBatch })));
  const decRecords = decodeBatches * w.perBatch;
  const decBytes = encoded.reduce((a, b) => a + b.length, 0);
  const decodeVariants: Variant[] = [
    {
      name: 'kafkalite decode + CRC verify',
      records: decRecords,
      bytes: decBytes,
      fn: () => {
        for (const buf of encoded) new RecordBatch(buf).records();
      },
    },
    {
      name: 'kafkalite decode + CRC verify + read key, value, headers',
      records: decRecords,
      bytes: decBytes,
      fn: () => {
        for (const buf of encoded) {
          for (const r of new RecordBatch(buf).records()) {
            void r.key;
            void r.value;
            void r.headers;
          }
        }
      },
    },
    {
      name: 'kafkalite decode via BatchReader + CRC verify',
      records: decRecords,
      bytes: decBytes,
      fn: () => {
        for (const buf of encoded) for (const batch of readRecordBatches(buf)) batch.records();
      },
    },
    {
      name: 'kafkajs 2.2.4 decode (no CRC check)',
      records: decRecords,
      bytes: decBytes,
      fn: async () => {
        for (const buf of encoded) await peers.kjsDecode(new peers.KjsDecoder(buf));
      },
    },
    {
      name: '@platformatic/kafka decode (no CRC check)',
      records: decRecords,
      bytes: decBytes,
      fn: () => {
        for (const buf of encoded) peers.plt.readRecordsBatch(peers.plt.Reader.from(buf));
      },
    },
    {
      name: 'floor: CRC-32C verify only',
      records: decRecords,
      bytes: decBytes,
      fn: () => {
        for (const buf of encoded) crc32c(buf, 21, buf.length);
      },
    },
  ];
  const dec = await measure(decodeVariants, 'kafkajs 2.2.4 decode (no CRC check)');
  printTable(`${w.name} decode (${decRecords} records in ${decodeBatches} batches)`, dec, 'kafkajs 2.2.4 decode (no CRC check)');
  results[w.name] = { batchBytes: sample.length, encode: enc, decode: dec };
}

async function benchLegacy(results: Record<string, unknown>): Promise<void> {
  const kjsMessageSet = require('kafkajs/src/protocol/messageSet/decoder');
  const KjsDecoder = require('kafkajs/src/protocol/decoder');
  const inputs = makeInputs(WORKLOADS[0]!).map((batch) => batch.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp })));
  const sets = Math.max(1, Math.floor(TOTAL / 1000));
  const out: Record<string, object> = {};
  for (const compression of ['none', 'gzip'] as const) {
    const encoded: Buffer[] = [];
    for (let s = 0; s < sets; s++) {
      encoded.push(encodeLegacyMessageSet(inputs[s % 10]!, { magic: 1, compression, baseOffset: s * 1000 }));
    }
    const records = sets * 1000;
    const bytes = encoded.reduce((a, b) => a + b.length, 0);
    const variants: Variant[] = [
      {
        name: `kafkalite magic-1 decode (${compression}) + CRC verify + read key, value`,
        records,
        bytes,
        fn: () => {
          for (const buf of encoded) {
            for (const batch of readRecordBatches(buf)) {
              for (const r of batch.records()) {
                void r.key;
                void r.value;
              }
            }
          }
        },
      },
      {
        name: `kafkalite magic-1 decode (${compression}), no CRC check, read key, value`,
        records,
        bytes,
        fn: () => {
          for (const buf of encoded) {
            for (const batch of readRecordBatches(buf, { verifyCrc: false })) {
              for (const r of batch.records({ verifyCrc: false })) {
                void r.key;
                void r.value;
              }
            }
          }
        },
      },
      {
        name: `kafkajs 2.2.4 magic-1 decode (${compression}, no CRC check)`,
        records,
        bytes,
        fn: async () => {
          for (const buf of encoded) await kjsMessageSet(new KjsDecoder(buf), buf.length);
        },
      },
    ];
    const baseline = variants[2]!.name;
    const res = await measure(variants, baseline);
    printTable(`legacy magic-1 decode, ${compression} (${records} messages in ${sets} sets)`, res, baseline);
    out[compression] = res;
  }
  results.legacy = out;
}

function benchCompression(results: Record<string, unknown>): void {
  const encoder = new RecordBatchEncoder();
  const inputs = makeInputs(WORKLOADS[0]!);
  // JSON-ish values like the anchors' payload: compressible, as real values are
  const recs: RecordInput[] = inputs[0]!.map((r, i) => ({
    ...r,
    value: JSON.stringify({ id: i, user: `user-${i % 97}`, event: i % 3 ? 'click' : 'view', ts: 1_700_000_000_000 + i, page: `/p/${i % 13}` }),
  }));
  const section = Buffer.from(encoder.encode(recs, {}).subarray(61));
  const out: Record<string, object> = {};
  console.log(`\ncompression of one batch's records section (${section.length} B, 1000 records), MB/s of uncompressed bytes`);
  console.log('| codec | ratio | compress MB/s [min-max] | decompress MB/s [min-max] |');
  console.log('|---|---|---|---|');
  for (const name of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
    const id = CompressionType[name];
    const c = compress(id, section, { magic: 2 });
    const n = Math.max(5, Math.floor(200e6 / section.length / (name === 'gzip' ? 8 : 1)));
    const ct: number[] = [];
    const dt: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) compress(id, section, { magic: 2 });
      ct.push((section.length * n) / (Number(process.hrtime.bigint() - t0) / 1e9) / 1e6);
      t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) decompress(id, c, { magic: 2, maxBytes: 1 << 30 });
      dt.push((section.length * n) / (Number(process.hrtime.bigint() - t0) / 1e9) / 1e6);
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
    const ratio = section.length / c.length;
    out[name] = { ratio, compressMBps: med(ct), decompressMBps: med(dt) };
    console.log(
      `| ${name} | ${ratio.toFixed(2)} | ${med(ct).toFixed(0)} [${Math.min(...ct).toFixed(0)}-${Math.max(...ct).toFixed(0)}] | ${med(dt).toFixed(0)} [${Math.min(...dt).toFixed(0)}-${Math.max(...dt).toFixed(0)}] |`,
    );
  }
  results.compression = out;
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    crc32c: crc32cImplementation,
    rounds: ROUNDS,
    records: TOTAL,
  };
  console.log(`kafkalite record batch benchmark: node ${process.version}, CRC-32C via ${crc32cImplementation}, ${ROUNDS} rounds`);
  for (const w of WORKLOADS) if (!ONLY || ONLY === w.name) await benchWorkload(w, results);
  if (!ONLY || ONLY === 'legacy') await benchLegacy(results);
  if (!ONLY || ONLY === 'compression') benchCompression(results);
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'recordbatch.json');
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nresults written to ${file}`);
}

await main();
