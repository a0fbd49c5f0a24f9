/**
 * Log cleaner benchmark (issue 6): compacting a log of W1 records (100-byte values, 1,000-record
 * batches, as bench/recordbatch.ts) with 10% distinct keys, in MB/s of source log, against a plain
 * sequential read + write (+ fsync) of the same segment files in the same run (target >= 0.5x).
 * Peak RSS is reported against the dedupe buffer + 64 MiB: the log is built by a child process
 * (`--build <dir>`), so this process's peak is the cleaner's own use plus Node's baseline. CPU
 * seconds are reported beside wall seconds (this machine is shared: wall time includes waiting
 * for a core), and both ratios are printed.
 *
 * The log is built once, then each of BENCH_ROUNDS (3) rounds copies it afresh, runs the plain
 * read+write and the compaction (in alternating order) and takes their ratio; the median and
 * [min-max] of those ratios are reported.
 *
 * Environment: BENCH_CLEANER_BYTES (default 1 GiB, the size; at 64 MiB the plain copy's
 * write and fsync stay in the page cache and the ratio is about a third of the 1 GiB one),
 * BENCH_CLEANER_DEDUPE (offset map bytes, default sized for the keys: distinct × 24 / 0.9 rounded up).
 * Results go to stdout and bench/results/cleaner.json (overwritten; git keeps the history).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RecordBatchEncoder } from '../src/record/builder.js';
import { DEFAULT_CLEANER_CONFIG, LogCleaner } from '../src/storage/cleaner/log-cleaner.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { PartitionLog } from '../src/storage/partition-log.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const TARGET_BYTES = Number(process.env.BENCH_CLEANER_BYTES ?? 1024 * 1024 * 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Pause before each measurement, after sync (BENCH_SETTLE_MS). */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 3000);
const f1 = (x: number) => x.toFixed(1);
const VALUE_SIZE = 100;
const PER_BATCH = 1000;

/**
 * The baseline: each segment read once and written once, in reads of the cleaner's own read size
 * (log.cleaner.io.buffer.size / threads / 2, as log-cleaner.ts gives each Cleaner) through one
 * reused buffer, then fsync (the cleaner flushes its cleaned segment too).
 */
function plainCopy(files: string[], outDir: string): number {
  const buf = Buffer.allocUnsafe(Math.max(1024, Math.floor(DEFAULT_CLEANER_CONFIG.ioBufferSize / DEFAULT_CLEANER_CONFIG.threads / 2)));
  let total = 0;
  for (const f of files) {
    const src = openSync(f, 'r');
    const dst = openSync(join(outDir, `copy-${total}`), 'w');
    let pos = 0;
    for (;;) {
      const n = readSync(src, buf, 0, buf.length, pos);
      if (n === 0) break;
      let w = 0;
      while (w < n) w += writeSync(dst, buf, w, n - w);
      pos += n;
    }
    fsyncSync(dst);
    closeSync(dst);
    closeSync(src);
    total += pos;
  }
  return total;
}

const config = { ...DEFAULT_LOG_CONFIG, cleanupPolicy: 'compact' as const, segmentBytes: 128 * 1024 * 1024, fileDeleteDelayMs: 0, messageTimestampAfterMaxMs: 1n << 62n };
const records = Math.floor(TARGET_BYTES / 125); // W1 record size: ~125 bytes per record on disk
const distinct = Math.max(1, Math.floor(records / 10));

/** Child process: writes the workload log into `pdir`. */
function build(pdir: string): void {
  const log = PartitionLog.open(pdir, 'w1', 0, { config });
  const encoder = new RecordBatchEncoder();
  const value = Buffer.alloc(VALUE_SIZE, 'v');
  let x = 12345;
  const now = Date.now();
  for (let written = 0; written < records; written += PER_BATCH) {
    const batch = Array.from({ length: PER_BATCH }, () => {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      return { key: `key-${(x % distinct).toString().padStart(8, '0')}`, value, timestamp: now };
    });
    log.append(encoder.encode(batch));
  }
  log.roll();
  log.flush();
  log.close();
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};

interface RoundResult {
  copySeconds: number;
  copyCpuSeconds: number;
  copied: number;
  cleanSeconds: number;
  cleanCpuSeconds: number;
  sourceBytes: number;
  afterBytes: number;
  stats: unknown;
  endOffset: string | undefined;
  ratio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'kafkalite-bench-cleaner-'));
  try {
    // the workload is built once (child process) and copied afresh for every round
    const built = join(root, 'built');
    mkdirSync(built, { recursive: true });
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--build', built], { stdio: 'inherit' });
    if (child.status !== 0) throw new Error(`building the log failed: ${child.status ?? child.signal}`);
    const dedupe = Number(process.env.BENCH_CLEANER_DEDUPE ?? Math.ceil((distinct * 24) / 0.9 / (1 << 20) + 1) * (1 << 20));
    const rounds: RoundResult[] = [];
    let rssBefore = 0;
    let peakRssBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(root, 'data');
      const pdir = join(dataDir, 'w1-0');
      cpSync(built, pdir, { recursive: true });
      const log = PartitionLog.open(pdir, 'w1', 0, { config, hadCleanShutdown: true });
      const sourceBytes = log.size;
      // the plain copy reads the built segments: compaction replaces the round's own (same names)
      const files = readdirSync(built).filter((n) => n.endsWith('.log')).map((n) => join(built, n));
      // every measurement starts with no dirty pages left by the setup or the previous one, and
      // after a pause: the virtual disk keeps absorbing a large write after sync returns (seen here:
      // the plain copy 300 MB/s right after the round's 1 GiB setup copy, 530 MB/s seconds later)
      const settle = () => {
        spawnSync('sync');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SETTLE_MS);
      };
      const copy = () => {
        settle();
        const copyDir = join(root, 'copy');
        mkdirSync(copyDir);
        const t = process.hrtime.bigint();
        const cpu = process.cpuUsage();
        const copied = plainCopy(files, copyDir);
        const r = { copySeconds: Number(process.hrtime.bigint() - t) / 1e9, copyCpuSeconds: cpuSeconds(cpu), copied };
        rmSync(copyDir, { recursive: true, force: true });
        return r;
      };
      const compact = () => {
        settle();
        const cleaner = new LogCleaner(dataDir, () => [log], { config: { dedupeBufferSize: dedupe } });
        globalThis.gc?.();
        if (round === 0) rssBefore = process.memoryUsage().rss;
        const t = process.hrtime.bigint();
        const cpu = process.cpuUsage();
        const result = cleaner.compact(log);
        const r = { cleanSeconds: Number(process.hrtime.bigint() - t) / 1e9, cleanCpuSeconds: cpuSeconds(cpu), stats: result?.stats, endOffset: result?.endOffset.toString() };
        // the process's peak so far: after the first round it is this cleaner's own peak
        if (round === 0) peakRssBytes = process.resourceUsage().maxRSS * 1024;
        return r;
      };
      // the order alternates, so neither always runs on a page cache the other just filled
      let c: ReturnType<typeof copy>;
      let k: ReturnType<typeof compact>;
      if (round % 2 === 0) {
        c = copy();
        k = compact();
      } else {
        k = compact();
        c = copy();
      }
      rounds.push({ ...c, ...k, sourceBytes, afterBytes: log.size, ratio: sourceBytes / k.cleanSeconds / (c.copied / c.copySeconds) });
      log.close();
      rmSync(dataDir, { recursive: true, force: true });
      console.log(`round ${round + 1}: plain read+write ${f1(c.copied / 1e6 / c.copySeconds)} MB/s, compact ${f1(sourceBytes / 1e6 / k.cleanSeconds)} MB/s, ratio ${rounds.at(-1)!.ratio.toFixed(2)}`);
    }
    const first = rounds[0]!;
    const out = {
      bench: 'cleaner',
      date: new Date().toISOString(),
      workload: { records, distinctKeys: distinct, valueSize: VALUE_SIZE, perBatch: PER_BATCH, sourceBytes: first.sourceBytes, afterBytes: first.afterBytes },
      rounds: ROUNDS,
      plainReadWrite: {
        bytes: first.copied,
        MBps: spread(rounds.map((r) => r.copied / 1e6 / r.copySeconds)),
        seconds: spread(rounds.map((r) => r.copySeconds)),
        cpuSeconds: spread(rounds.map((r) => r.copyCpuSeconds)),
      },
      compact: {
        MBps: spread(rounds.map((r) => r.sourceBytes / 1e6 / r.cleanSeconds)),
        seconds: spread(rounds.map((r) => r.cleanSeconds)),
        cpuSeconds: spread(rounds.map((r) => r.cleanCpuSeconds)),
        stats: first.stats,
        endOffset: first.endOffset,
      },
      ratio: spread(rounds.map((r) => r.ratio)),
      cpuRatio: spread(rounds.map((r) => r.copyCpuSeconds / r.cleanCpuSeconds)),
      target: 0.5,
      peakRssBytes,
      rssBeforeCompactBytes: rssBefore,
      // the cleaner's own use: what the process grew by while compacting (first round)
      rssDeltaBytes: peakRssBytes - rssBefore,
      dedupeBufferSize: dedupe,
      rssLimit: dedupe + 64 * 1024 * 1024,
      rssDeltaWithinLimit: peakRssBytes - rssBefore <= dedupe + 64 * 1024 * 1024,
      node: process.version,
    };
    const text = JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
    process.stdout.write(text + '\n');
    console.log(
      `\ncompaction of ${f1(first.sourceBytes / 2 ** 20)} MiB (W1, 10% distinct keys): ${f1(out.compact.MBps.median)} MB/s vs plain read+write ${f1(out.plainReadWrite.MBps.median)} MB/s; ` +
        `ratio ${out.ratio.median.toFixed(2)} [${out.ratio.min.toFixed(2)}-${out.ratio.max.toFixed(2)}] (target >= 0.5); RSS +${f1(out.rssDeltaBytes / 2 ** 20)} MiB (limit ${f1(out.rssLimit / 2 ** 20)})`,
    );
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cleaner.json'), text + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--build') build(process.argv[3]!);
else main();
