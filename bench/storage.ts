/**
 * `npm run bench` (second part): the partition log against raw `fs` on the same bytes, all in one
 * process, interleaved with the order rotated each round; median of 5 rounds [min-max]; ratios are
 * medians of the per-round ratios (raw time / log time, so 1.0 = as fast as raw `fs`). Results go
 * to stdout and to bench/results/storage.json (overwritten; git keeps the history). Temp dirs under os.tmpdir(), removed at
 * the end.
 *
 * Sections (BENCH_ONLY picks one):
 * - append: 1 MiB v2 batches (pre-encoded, baseOffset 0 as a producer sends them; 1 KiB records),
 *   BENCH_APPEND_MIB (512) in total, one flush at the end, vs raw writeSync + one fdatasync (also
 *   shown with the log's page-cache hints made inline: a floor for a log that recycles pages). Two
 *   log variants: the caller keeps its bytes (validated on a reused copy), and the caller hands
 *   them over (`mutateInput`, as a broker hands over a produce request's buffer: Kafka validates
 *   the request's bytes in place); that variant resets baseOffset to 0 before each append, as
 *   the next request from a producer would carry it (8 bytes, not CRC-covered).
 * - small: 1 KiB batches (4 records), BENCH_SMALL_BATCHES (65536), flush every 1,000 batches, vs
 *   raw writeSync with fdatasync every 1,000 writes; the same two log variants.
 * - fetch: PartitionLog.read by offset over a whole log, maxBytes 1 MiB, vs raw sequential
 *   readSync of the same segment files into one reused 1 MiB buffer (page cache warm). The log is
 *   read as a consumer reads it (parsing each response for its next offset, which raw reads do
 *   not need), and with the consumer's offsets known beforehand (as a broker receives them in
 *   fetch requests; the like-for-like comparison of the log's own work with raw reads).
 * - lookup: a BENCH_LOOKUP_RECORDS (10,000,000)-record log in 1,000-record batches and 100
 *   segments; at 10, 25, 50, 100 segments, latency of read(offset, {maxBytes: 1}),
 *   segment.translateOffset(offset) and fetchOffsetByTimestamp(ts) at random offsets and
 *   timestamps (BENCH_LOOKUPS (2000) per round); RSS as the log grows and after reading it all.
 * Environment: BENCH_ROUNDS (5), BENCH_ONLY (append|small|fetch|lookup), plus the sizes above.
 */
import { closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c, encodeRecordBatch, type RecordInput } from '../src/index.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../src/storage/log-config.js';
import type { LogSegment } from '../src/storage/log-segment.js';
import { PartitionLog } from '../src/storage/partition-log.js';
import { nativeAddon } from '../src/native/addon.js';
import { DEFAULT_PAGE_CACHE_BUDGET, WRITEBACK_CHUNK_BYTES } from '../src/storage/page-cache-budget.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const APPEND_MIB = Number(process.env.BENCH_APPEND_MIB ?? 512);
const SMALL_BATCHES = Number(process.env.BENCH_SMALL_BATCHES ?? 65536);
const LOOKUP_RECORDS = Number(process.env.BENCH_LOOKUP_RECORDS ?? 10_000_000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 2000);
const ONLY = process.env.BENCH_ONLY;
const MiB = 1024 * 1024;

const ROOT = mkdtempSync(join(tmpdir(), 'kafkalite-bench-storage-'));
let dirCounter = 0;
function freshDir(name: string): string {
  const d = join(ROOT, `${name}-${dirCounter++}`);
  mkdirSync(d, { recursive: true });
  return d;
}
function cleanup(): void {
  rmSync(ROOT, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

// ---- inputs -----------------------------------------------------------------------------------

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

/**
 * One v2 batch of `count` records (16 B key, one 8 B/8 B header, values sized so the batch is as
 * close to `target` bytes as possible without exceeding it), baseOffset 0, as a producer sends it.
 */
function producerBatch(target: number, count: number, seed: number, ts0: number): Buffer {
  const make = (valueSize: number) => {
    const records: RecordInput[] = [];
    for (let i = 0; i < count; i++) {
      records.push({
        key: rnd(16, seed * 7919 + i * 3 + 1),
        value: rnd(valueSize, seed * 7919 + i * 3 + 2),
        headers: [{ key: 'hdr-key1', value: rnd(8, seed * 7919 + i * 3 + 3) }],
        timestamp: ts0 + i,
      });
    }
    return encodeRecordBatch(records, {});
  };
  let v = Math.max(0, Math.floor((target - 61) / count) - 40);
  let b = make(v);
  v += Math.floor((target - b.length) / count);
  b = make(v);
  while (b.length > target && v > 0) b = make(--v);
  return b;
}

// ---- measurement --------------------------------------------------------------------------------

interface Variant {
  name: string;
  bytes: number;
  ops: number;
  setup?: () => void;
  run: () => void;
  teardown?: () => void;
}

interface Stat {
  median: number;
  min: number;
  max: number;
}
interface VariantResult {
  seconds: Stat;
  MBps: Stat;
  opsPerSec: Stat;
  ratioToBaseline: Stat;
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const stat = (a: number[]): Stat => ({ median: median(a), min: Math.min(...a), max: Math.max(...a) });
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

function measure(variants: Variant[], baseline: string): Record<string, VariantResult> {
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      v.setup?.();
      globalThis.gc?.();
      const t0 = process.hrtime.bigint();
      v.run();
      times.get(v.name)!.push(Number(process.hrtime.bigint() - t0) / 1e9);
      v.teardown?.();
    }
  }
  const base = times.get(baseline)!;
  const out: Record<string, VariantResult> = {};
  for (const v of variants) {
    const t = times.get(v.name)!;
    out[v.name] = {
      seconds: stat(t),
      MBps: stat(t.map((s) => v.bytes / s / 1e6)),
      opsPerSec: stat(t.map((s) => v.ops / s)),
      ratioToBaseline: stat(t.map((s, i) => base[i]! / s)),
    };
  }
  return out;
}

const f = (x: number, d = 0) => x.toFixed(d);
function printTable(title: string, res: Record<string, VariantResult>, baseline: string, target?: number): void {
  console.log(`\n${title}\n(ratio: ${baseline} time / variant time, per round; median [min-max] of ${ROUNDS} rounds${target ? `; target >= ${target}` : ''})`);
  console.log('| variant | MB/s [min-max] | ops/s | ratio [min-max] |');
  console.log('|---|---|---|---|');
  for (const [name, r] of Object.entries(res)) {
    console.log(
      `| ${name} | ${f(r.MBps.median)} [${f(r.MBps.min)}-${f(r.MBps.max)}] | ${f(r.opsPerSec.median)} | ${f(r.ratioToBaseline.median, 2)} [${f(r.ratioToBaseline.min, 2)}-${f(r.ratioToBaseline.max, 2)}] |`,
    );
  }
}

function openLog(dir: string, overrides: Partial<LogConfig> = {}): PartitionLog {
  return PartitionLog.open(dir, 'bench', 0, { config: { ...DEFAULT_LOG_CONFIG, ...overrides }, hadCleanShutdown: true });
}

function logFiles(log: PartitionLog): string[] {
  return log.segmentList().map((s) => s.log.path);
}

/** A log variant: a fresh log per round, checked to hold `bytes` afterwards, then removed. */
function logVariant(name: string, bytes: number, ops: number, run: (log: PartitionLog) => void, after?: () => void): Variant {
  let log: PartitionLog | undefined;
  let dir = '';
  return {
    name,
    bytes,
    ops,
    setup: () => {
      dir = freshDir('log');
      log = openLog(dir);
    },
    run: () => run(log!),
    teardown: () => {
      if (log!.size !== bytes) throw new Error(`log holds ${log!.size} bytes, expected ${bytes}`);
      log!.close();
      rmSync(dir, { recursive: true, force: true });
      after?.();
    },
  };
}

/** The caller keeps its bytes: the log validates a copy. */
const appendKept = (log: PartitionLog, input: Buffer) => void log.append(input);
/**
 * The caller hands its bytes over (`mutateInput`); baseOffset goes back to 0 first, as a producer's
 * next request carries it (8 bytes outside the CRC, so the batch stays valid).
 */
const appendHandedOver = (log: PartitionLog, input: Buffer) => {
  input.writeBigInt64BE(0n, 0);
  log.append(input, { mutateInput: true });
};
/** After a handed-over run the inputs hold assigned offsets: the other variants get them as a producer sends them. */
const resetBaseOffsets = (inputs: Buffer[]) => () => {
  for (const b of inputs) b.writeBigInt64BE(0n, 0);
};

// ---- append: 1 MiB batches, one flush ------------------------------------------------------------

function benchAppendLarge(results: Record<string, unknown>): void {
  const ts0 = Date.now() - 3_600_000;
  const inputs = Array.from({ length: 16 }, (_, i) => producerBatch(MiB, 1000, i + 1, ts0 + i * 1000));
  const batchBytes = inputs[0]!.length;
  const n = Math.max(1, Math.round((APPEND_MIB * MiB) / batchBytes));
  const total = n * batchBytes;
  let dir = '';
  let fd = -1;
  const rawSetup = () => {
    dir = freshDir('raw');
    fd = openSync(join(dir, 'raw.log'), 'w');
  };
  const rawTeardown = () => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  };
  const write = (b: Buffer) => {
    let done = 0;
    while (done < b.length) done += writeSync(fd, b, done, b.length - done);
  };
  const appendAll = (append: (log: PartitionLog, input: Buffer) => void) => (l: PartitionLog) => {
    for (let i = 0; i < n; i++) append(l, inputs[i % inputs.length]!);
    l.flush();
  };
  const variants: Variant[] = [
    logVariant('PartitionLog.append + one flush', total, n, appendAll(appendKept)),
    logVariant('PartitionLog.append(mutateInput) + one flush', total, n, appendAll(appendHandedOver), resetBaseOffsets(inputs)),
    {
      name: 'raw writeSync + one fdatasync',
      bytes: total,
      ops: n,
      setup: rawSetup,
      run: () => {
        for (let i = 0; i < n; i++) write(inputs[i % inputs.length]!);
        fdatasyncSync(fd);
      },
      teardown: rawTeardown,
    },
    {
      // the floor with the log's own page-cache hints (src/storage/page-cache-budget.ts, made
      // inline here): without them, raw writes take never-used page-cache pages, which cost this
      // VM a host fault each, and the log, which recycles its pages, could look faster than its floor
      name: 'raw writeSync + page-cache hints + one fdatasync',
      bytes: total,
      ops: n,
      setup: rawSetup,
      run: () => {
        const hints = nativeAddon;
        let writebackFrom = 0;
        let written = 0;
        const ranges: [number, number][] = [];
        let held = 0;
        for (let i = 0; i < n; i++) {
          const b = inputs[i % inputs.length]!;
          write(b);
          written += b.length;
          if (hints !== undefined && written - writebackFrom >= WRITEBACK_CHUNK_BYTES) {
            hints.startWriteback(fd, writebackFrom, written - writebackFrom);
            ranges.push([writebackFrom, written]);
            held += written - writebackFrom;
            writebackFrom = written;
            while (held > DEFAULT_PAGE_CACHE_BUDGET) {
              const [from, to] = ranges.shift()!;
              hints.dropPages(fd, from, to - from);
              held -= to - from;
            }
          }
        }
        fdatasyncSync(fd);
      },
      teardown: rawTeardown,
    },
    {
      name: 'raw: Buffer.from copy per batch + writeSync + one fdatasync (diagnostic)',
      bytes: total,
      ops: n,
      setup: rawSetup,
      run: () => {
        for (let i = 0; i < n; i++) write(Buffer.from(inputs[i % inputs.length]!));
        fdatasyncSync(fd);
      },
      teardown: rawTeardown,
    },
  ];
  const baseline = variants[2]!.name;
  const res = measure(variants, baseline);
  printTable(`append: ${n} batches of ${batchBytes} B (1,000 records of ~1 KiB each), ${f(total / MiB)} MiB, one flush at the end`, res, baseline, 0.8);
  results.append1MiB = { batchBytes, batches: n, totalBytes: total, variants: res, target: 0.8 };
}

// ---- append: 1 KiB batches, flush every 1,000 ----------------------------------------------------

function benchAppendSmall(results: Record<string, unknown>): void {
  const ts0 = Date.now() - 3_600_000;
  const inputs = Array.from({ length: 1000 }, (_, i) => producerBatch(1024, 4, i + 1, ts0 + i * 4));
  const n = SMALL_BATCHES;
  let total = 0;
  for (let i = 0; i < n; i++) total += inputs[i % inputs.length]!.length;
  const every = 1000;
  let dir = '';
  let fd = -1;
  const appendAll = (append: (log: PartitionLog, input: Buffer) => void) => (l: PartitionLog) => {
    for (let i = 0; i < n; i++) {
      append(l, inputs[i % inputs.length]!);
      if ((i + 1) % every === 0) l.flush();
    }
    l.flush();
  };
  const variants: Variant[] = [
    logVariant(`PartitionLog.append + flush every ${every}`, total, n, appendAll(appendKept)),
    logVariant(`PartitionLog.append(mutateInput) + flush every ${every}`, total, n, appendAll(appendHandedOver), resetBaseOffsets(inputs)),
    {
      name: `raw writeSync + fdatasync every ${every}`,
      bytes: total,
      ops: n,
      setup: () => {
        dir = freshDir('raw');
        fd = openSync(join(dir, 'raw.log'), 'w');
      },
      run: () => {
        for (let i = 0; i < n; i++) {
          const b = inputs[i % inputs.length]!;
          let done = 0;
          while (done < b.length) done += writeSync(fd, b, done, b.length - done);
          if ((i + 1) % every === 0) fdatasyncSync(fd);
        }
        fdatasyncSync(fd);
      },
      teardown: () => {
        closeSync(fd);
        rmSync(dir, { recursive: true, force: true });
      },
    },
  ];
  const baseline = variants[2]!.name;
  const res = measure(variants, baseline);
  printTable(`append: ${n} batches of ${inputs[0]!.length} B (4 records), ${f(total / MiB, 1)} MiB, flush every ${every} batches`, res, baseline, 0.5);
  results.append1KiB = { batchBytes: inputs[0]!.length, batches: n, flushEvery: every, totalBytes: total, variants: res, target: 0.5 };
}

// ---- fetch ------------------------------------------------------------------------------------------

/**
 * Reads the whole log by offset, `maxBytes` per read, as a consumer does; returns whole-batch bytes
 * read. `onRead` sees each fetch offset and the bytes that read returned.
 */
function readWholeLog(log: PartitionLog, maxBytes: number, into?: Buffer, onRead?: (offset: bigint, length: number) => void): number {
  let offset = log.logStartOffset;
  const end = log.logEndOffset;
  let bytes = 0;
  while (offset < end) {
    const buf = log.read(offset, into ? { maxBytes, into } : { maxBytes }).records;
    // walk the whole batches (the last one may be cut at maxBytes); continue after the last whole one
    let p = 0;
    let lastStart = -1;
    while (p + 61 <= buf.length) {
      const size = buf.readInt32BE(p + 8) + 12;
      if (p + size > buf.length) break;
      lastStart = p;
      p += size;
    }
    if (lastStart < 0) throw new Error(`no whole batch at offset ${offset}`);
    onRead?.(offset, buf.length);
    bytes += p;
    offset = buf.readBigInt64BE(lastStart) + BigInt(buf.readInt32BE(lastStart + 23)) + 1n;
  }
  return bytes;
}

/** The fetch offsets a consumer reading the whole log sends, and the bytes each read returns. */
function fetchPlan(log: PartitionLog, maxBytes: number, into: Buffer): { offsets: bigint[]; lengths: number[] } {
  const offsets: bigint[] = [];
  const lengths: number[] = [];
  readWholeLog(log, maxBytes, into, (offset, length) => {
    offsets.push(offset);
    lengths.push(length);
  });
  return { offsets, lengths };
}

/** A consumer (or a broker connection) reuses its fetch buffer: 2 MiB covers maxBytes plus one oversized batch. */
const fetchBuffer = Buffer.alloc(2 * MiB);

function benchFetch(results: Record<string, unknown>): void {
  const ts0 = Date.now() - 3_600_000;
  const out: Record<string, unknown> = {};
  const logs: { name: string; inputs: Buffer[]; batches: number }[] = [
    { name: '1 MiB batches', inputs: Array.from({ length: 16 }, (_, i) => producerBatch(MiB, 1000, i + 1, ts0 + i * 1000)), batches: 0 },
    { name: '1 KiB batches', inputs: Array.from({ length: 1000 }, (_, i) => producerBatch(1024, 4, i + 1, ts0 + i * 4)), batches: SMALL_BATCHES },
  ];
  logs[0]!.batches = Math.max(1, Math.round((APPEND_MIB * MiB) / logs[0]!.inputs[0]!.length));
  for (const spec of logs) {
    const dir = freshDir('fetch');
    const log = openLog(dir);
    for (let i = 0; i < spec.batches; i++) log.append(spec.inputs[i % spec.inputs.length]!);
    log.flush();
    const total = log.size;
    const files = logFiles(log);
    const buf = Buffer.allocUnsafe(MiB);
    const rawRead = (fresh: boolean) => {
      let bytes = 0;
      for (const file of files) {
        const fd = openSync(file, 'r');
        try {
          for (;;) {
            const target = fresh ? Buffer.allocUnsafe(MiB) : buf;
            const n = readSync(fd, target, 0, MiB, bytes);
            if (n === 0) break;
            bytes += n;
          }
        } finally {
          closeSync(fd);
        }
      }
      if (bytes !== total) throw new Error(`raw read ${bytes} bytes, expected ${total}`);
    };
    // small logs are read several times per timed run, so a run covers at least APPEND_MIB MiB
    const passes = Math.max(1, Math.round((APPEND_MIB * MiB) / total));
    const reads = Math.ceil(total / MiB) * passes;
    const plan = fetchPlan(log, MiB, fetchBuffer);
    const planned = plan.lengths.reduce((a, b) => a + b, 0);
    const variants: Variant[] = [
      {
        name: 'PartitionLog.read(offset, maxBytes 1 MiB), whole log',
        bytes: total * passes,
        ops: reads,
        run: () => {
          for (let k = 0; k < passes; k++) {
            const got = readWholeLog(log, MiB);
            if (got !== total) throw new Error(`log read ${got} bytes, expected ${total}`);
          }
        },
      },
      {
        name: 'PartitionLog.read(offset, maxBytes 1 MiB, into a reused buffer), whole log',
        bytes: total * passes,
        ops: reads,
        run: () => {
          for (let k = 0; k < passes; k++) {
            const got = readWholeLog(log, MiB, fetchBuffer);
            if (got !== total) throw new Error(`log read ${got} bytes, expected ${total}`);
          }
        },
      },
      {
        name: 'PartitionLog.read(offsets known beforehand, maxBytes 1 MiB, into a reused buffer), whole log',
        bytes: total * passes,
        ops: reads,
        run: () => {
          const { offsets, lengths } = plan;
          for (let k = 0; k < passes; k++) {
            let got = 0;
            for (let i = 0; i < offsets.length; i++) {
              const n = log.read(offsets[i]!, { maxBytes: MiB, into: fetchBuffer }).records.length;
              if (n !== lengths[i]) throw new Error(`read at ${offsets[i]} returned ${n} bytes, expected ${lengths[i]}`);
              got += n;
            }
            if (got !== planned) throw new Error(`log read ${got} bytes, expected ${planned}`);
          }
        },
      },
      {
        name: 'raw readSync 1 MiB into a reused buffer',
        bytes: total * passes,
        ops: reads,
        run: () => {
          for (let k = 0; k < passes; k++) rawRead(false);
        },
      },
      {
        name: 'raw readSync 1 MiB into a fresh Buffer each (diagnostic)',
        bytes: total * passes,
        ops: reads,
        run: () => {
          for (let k = 0; k < passes; k++) rawRead(true);
        },
      },
    ];
    const baseline = variants[3]!.name;
    const res = measure(variants, baseline);
    printTable(`fetch: ${spec.name}, ${f(total / MiB)} MiB in ${files.length} segment(s)${passes > 1 ? `, read ${passes} times per run` : ''}, page cache warm`, res, baseline, 0.8);
    out[spec.name] = { totalBytes: total, passesPerRun: passes, readsPerPass: plan.offsets.length, bytesReadPerPass: planned, variants: res, target: 0.8 };
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
  results.fetch = out;
}

// ---- lookups and RSS --------------------------------------------------------------------------------

interface Latency {
  medianUs: Stat;
  p99Us: Stat;
}

function rssMiB(): { rss: number; heapUsed: number; external: number; arrayBuffers: number } {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss / MiB, heapUsed: m.heapUsed / MiB, external: m.external / MiB, arrayBuffers: m.arrayBuffers / MiB };
}

function floorSegment(segments: readonly LogSegment[], offset: bigint): LogSegment {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (segments[mid]!.baseOffset <= offset) lo = mid;
    else hi = mid - 1;
  }
  return segments[lo]!;
}

function benchLookup(results: Record<string, unknown>): void {
  const perBatch = 1000;
  const segmentsWanted = 100;
  const batches = Math.max(segmentsWanted, Math.round(LOOKUP_RECORDS / perBatch));
  const batchesPerSegment = Math.max(1, Math.floor(batches / segmentsWanted));
  // small records (no key, 8 B value): ~17 KB batches, ~170 MB for 10 M records; record timestamp = T0 + offset
  const records: RecordInput[] = Array.from({ length: perBatch }, (_, i) => ({ value: rnd(8, i + 1), timestamp: i }));
  const template = encodeRecordBatch(records, {});
  const batchBytes = template.length;
  const T0 = Date.now() - 2 * batches * perBatch - 60_000;
  const segmentBytes = batchesPerSegment * batchBytes + (batchBytes >> 1);
  const dir = freshDir('lookup');
  const rss: Record<string, unknown> = { beforeBuild: rssMiB() };
  const log = openLog(dir, { segmentBytes });
  const checkpoints = [10, 25, 50, 100].map((s) => Math.round((s * segmentsWanted) / 100));
  const curve: Record<string, unknown>[] = [];
  console.log(
    `\nlookup: ${batches * perBatch} records in ${batches} batches of ${perBatch} (${batchBytes} B), segment.bytes ${segmentBytes} (${batchesPerSegment} batches/segment), index.interval.bytes ${DEFAULT_LOG_CONFIG.indexIntervalBytes}; ${LOOKUPS} random lookups per round, ${ROUNDS} rounds`,
  );
  console.log('(latency in µs: median of per-round medians [min-max], median of per-round p99s; one unrecorded warm-up round per row; page cache warm; target median < 50 µs)');
  console.log('| segments | records | log MiB | read(o, maxBytes 1) med [min-max] / p99 | translateOffset med / p99 | fetchOffsetByTimestamp med [min-max] / p99 | RSS MiB | build s |');
  console.log('|---|---|---|---|---|---|---|---|');
  let appended = 0;
  let buildSeconds = 0;
  let seed = 12345;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  for (const segs of checkpoints) {
    const t0 = process.hrtime.bigint();
    for (; appended < segs * batchesPerSegment; appended++) {
      // timestamps: baseTimestamp = maxTimestamp - 999 = T0 + first offset of the batch
      const base = BigInt(T0 + appended * perBatch);
      template.writeBigInt64BE(base, 27);
      template.writeBigInt64BE(base + BigInt(perBatch - 1), 35);
      template.writeUInt32BE(crc32c(template, 21, template.length), 17);
      log.append(template);
    }
    buildSeconds += Number(process.hrtime.bigint() - t0) / 1e9;
    const leo = Number(log.logEndOffset);
    const segments = log.segmentList();
    const lat: Record<string, { med: number[]; p99: number[] }> = { read: { med: [], p99: [] }, translate: { med: [], p99: [] }, timestamp: { med: [], p99: [] } };
    const samples = new Float64Array(LOOKUPS);
    let warmup = false;
    const run = (key: string, op: (i: number) => void) => {
      for (let i = 0; i < LOOKUPS; i++) {
        const t = process.hrtime.bigint();
        op(i);
        samples[i] = Number(process.hrtime.bigint() - t) / 1000;
      }
      if (warmup) return;
      const sorted = Array.from(samples).sort((a, b) => a - b);
      lat[key]!.med.push(quantile(sorted, 0.5));
      lat[key]!.p99.push(quantile(sorted, 0.99));
    };
    // round -1 is a warm-up (JIT, index caches), not recorded
    for (let round = -1; round < ROUNDS; round++) {
      const offsets = Array.from({ length: LOOKUPS }, () => BigInt(Math.floor(random() * leo)));
      const order: [string, (i: number) => void][] = [
        [
          'read',
          (i) => {
            const r = log.read(offsets[i]!, { maxBytes: 1 });
            if (r.records.length === 0) throw new Error('empty read');
          },
        ],
        [
          'translate',
          (i) => {
            const o = offsets[i]!;
            const h = floorSegment(segments, o).translateOffset(o);
            if (h === undefined || h.lastOffset < o) throw new Error(`translateOffset(${o}) failed`);
          },
        ],
        [
          'timestamp',
          (i) => {
            const o = offsets[i]!;
            const found = log.fetchOffsetByTimestamp(BigInt(T0) + o);
            if (found?.offset !== o) throw new Error(`fetchOffsetByTimestamp(T0 + ${o}) gave ${found?.offset}`);
          },
        ],
      ];
      warmup = round < 0;
      for (let k = 0; k < order.length; k++) {
        const [key, op] = order[(k + Math.max(0, round)) % order.length]!;
        run(key, op);
      }
    }
    const summary = (key: string): Latency => ({ medianUs: stat(lat[key]!.med), p99Us: stat(lat[key]!.p99) });
    const row = {
      segments: log.segmentCount,
      records: leo,
      logBytes: log.size,
      read: summary('read'),
      translateOffset: summary('translate'),
      fetchOffsetByTimestamp: summary('timestamp'),
      memory: rssMiB(),
      buildSecondsSoFar: buildSeconds,
    };
    curve.push(row);
    const cell = (l: Latency) => `${f(l.medianUs.median, 1)} [${f(l.medianUs.min, 1)}-${f(l.medianUs.max, 1)}] / ${f(l.p99Us.median, 1)}`;
    console.log(
      `| ${row.segments} | ${leo} | ${f(row.logBytes / MiB)} | ${cell(row.read)} | ${f(row.translateOffset.medianUs.median, 1)} / ${f(row.translateOffset.p99Us.median, 1)} | ${cell(row.fetchOffsetByTimestamp)} | ${f(row.memory.rss)} | ${f(buildSeconds, 1)} |`,
    );
  }
  rss.afterBuild = rssMiB();
  const t0 = process.hrtime.bigint();
  const read = readWholeLog(log, MiB);
  const readSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (read !== log.size) throw new Error(`read ${read} bytes of ${log.size}`);
  rss.afterReadAll = rssMiB();
  rss.logBytes = log.size;
  const r = rss as Record<string, { rss: number; heapUsed: number; external: number; arrayBuffers: number }>;
  console.log(`\nmemory (MiB, after gc): log of ${f(log.size / MiB)} MiB, ${log.segmentCount} segments; whole-log read took ${f(readSeconds, 2)} s (${f(log.size / readSeconds / 1e6)} MB/s)`);
  console.log('| point | RSS | heapUsed | external | arrayBuffers |');
  console.log('|---|---|---|---|---|');
  for (const k of ['beforeBuild', 'afterBuild', 'afterReadAll'] as const) {
    console.log(`| ${k} | ${f(r[k]!.rss)} | ${f(r[k]!.heapUsed, 1)} | ${f(r[k]!.external, 1)} | ${f(r[k]!.arrayBuffers, 1)} |`);
  }
  log.close();
  rmSync(dir, { recursive: true, force: true });
  results.lookup = { records: batches * perBatch, perBatch, batchBytes, segmentBytes, lookupsPerRound: LOOKUPS, curve, memoryMiB: rss, wholeLogReadSeconds: readSeconds, target: { medianUs: 50 } };
}

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    rounds: ROUNDS,
    tmpdir: ROOT,
    note: 'one process; other processes may share this 2-core machine',
  };
  console.log(`kafkalite storage benchmark: node ${process.version}, ${ROUNDS} rounds, temp dir ${ROOT}`);
  const t0 = Date.now();
  // lookup first: its RSS readings are then not inflated by the large append buffers
  if (!ONLY || ONLY === 'lookup') benchLookup(results);
  if (!ONLY || ONLY === 'append') benchAppendLarge(results);
  if (!ONLY || ONLY === 'small') benchAppendSmall(results);
  if (!ONLY || ONLY === 'fetch') benchFetch(results);
  results.totalSeconds = (Date.now() - t0) / 1000;
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'storage.json');
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`\ntotal ${f(results.totalSeconds as number)} s; results written to ${file}`);
}

try {
  await main();
} finally {
  cleanup();
}
