/**
 * Log cleaner benchmark (issue 6): compacting a log of W1 records (100-byte values, 1,000-record
 * batches, as bench/recordbatch.ts) with 10% distinct keys, in MB/s of source log, against a plain
 * sequential read + write (+ fsync) of the same segment files in the same run (target >= 0.5x).
 * Peak RSS is reported against the dedupe buffer + 64 MiB: the log is built by a child process
 * (`--build <dir>`), so this process's peak is the cleaner's own use plus Node's baseline. CPU
 * seconds are reported beside wall seconds (this machine is shared: wall time includes waiting
 * for a core), and both ratios are printed.
 *
 * Environment: BENCH_CLEANER_BYTES (default 64 MiB; 1073741824 for the 1 GiB run),
 * BENCH_CLEANER_DEDUPE (offset map bytes, default sized for the keys: distinct × 24 / 0.9 rounded up).
 * Results go to stdout and bench/results/<timestamp>-cleaner.json.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RecordBatchEncoder } from '../src/record/builder.js';
import { DEFAULT_CLEANER_CONFIG, LogCleaner } from '../src/storage/cleaner/log-cleaner.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { PartitionLog } from '../src/storage/partition-log.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const TARGET_BYTES = Number(process.env.BENCH_CLEANER_BYTES ?? 64 * 1024 * 1024);
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

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'kafkalite-bench-cleaner-'));
  try {
    const dataDir = join(root, 'data');
    const pdir = join(dataDir, 'w1-0');
    mkdirSync(pdir, { recursive: true });
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--build', pdir], { stdio: 'inherit' });
    if (child.status !== 0) throw new Error(`building the log failed: ${child.status ?? child.signal}`);
    const log = PartitionLog.open(pdir, 'w1', 0, { config, hadCleanShutdown: true });
    const sourceBytes = log.size;
    const files = readdirSync(pdir).filter((n) => n.endsWith('.log')).map((n) => join(pdir, n));

    const copyDir = join(root, 'copy');
    mkdirSync(copyDir);
    let t = process.hrtime.bigint();
    let cpu = process.cpuUsage();
    const copied = plainCopy(files, copyDir);
    const copySeconds = Number(process.hrtime.bigint() - t) / 1e9;
    const copyCpuSeconds = cpuSeconds(cpu);
    rmSync(copyDir, { recursive: true, force: true });

    const dedupe = Number(process.env.BENCH_CLEANER_DEDUPE ?? Math.ceil((distinct * 24) / 0.9 / (1 << 20) + 1) * (1 << 20));
    const cleaner = new LogCleaner(dataDir, () => [log], { config: { dedupeBufferSize: dedupe } });
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    t = process.hrtime.bigint();
    cpu = process.cpuUsage();
    const result = cleaner.compact(log);
    const cleanSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    const cleanCpuSeconds = cpuSeconds(cpu);
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    const copyMBps = copied / 1e6 / copySeconds;
    const cleanMBps = sourceBytes / 1e6 / cleanSeconds;
    const out = {
      bench: 'cleaner',
      workload: { records, distinctKeys: distinct, valueSize: VALUE_SIZE, perBatch: PER_BATCH, sourceBytes, afterBytes: log.size },
      plainReadWrite: { bytes: copied, seconds: copySeconds, MBps: copyMBps, cpuSeconds: copyCpuSeconds },
      compact: { seconds: cleanSeconds, MBps: cleanMBps, cpuSeconds: cleanCpuSeconds, rounds: result?.stats, endOffset: result?.endOffset.toString() },
      ratio: cleanMBps / copyMBps,
      cpuRatio: copyCpuSeconds / cleanCpuSeconds,
      target: 0.5,
      peakRssBytes,
      rssBeforeCompactBytes: rssBefore,
      // the cleaner's own use: what the process grew by while compacting
      rssDeltaBytes: peakRssBytes - rssBefore,
      dedupeBufferSize: dedupe,
      rssLimit: dedupe + 64 * 1024 * 1024,
      rssDeltaWithinLimit: peakRssBytes - rssBefore <= dedupe + 64 * 1024 * 1024,
      node: process.version,
    };
    log.close();
    const text = JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
    process.stdout.write(text + '\n');
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${new Date().toISOString().replace(/:/g, '-')}-cleaner.json`), text + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--build') build(process.argv[3]!);
else main();
