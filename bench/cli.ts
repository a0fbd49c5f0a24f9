/**
 * `npm run bench` (CLI part): `dump-log --deep-iteration` and `verify` over one segment file,
 * against the record codec's own decode of the same file in the same run (BatchReader with CRC
 * checks + every record parsed, reading the file in 1 MiB windows into one reused buffer).
 * Every operation first runs untimed over at least WARMUP_RECORDS records (once at least), so the
 * page cache and V8's optimizing compiler are in the same state for all three when the rounds
 * start: V8 optimizes code run once per batch only after some thousands of batches, and when only
 * the codec ran ahead the commands were timed half unoptimized on the 64 MiB segment. The first,
 * cold, run is reported as well: it is what one CLI invocation on a file of this size sees. Each
 * round runs the three in rotated order; median of BENCH_ROUNDS (3) rounds [min-max]; ratios are
 * medians of per-round ratios (codec time / command time, so 1.0 = as fast as the codec; target
 * >= 0.7). Peak RSS is reported per operation (measured in a child process each, so one
 * operation's peak does not hide another's), at the full size, at 1/8 of it, and at the full size
 * with a 16 MiB old space: memory must not grow with the segment size.
 *
 * Segment: BENCH_CLI_MIB (64; 1024 for the 1 GiB figure) of uncompressed v2 batches of 100 records
 * (16 B keys, 1 KiB values, one header), offsets assigned as a log would. Dump output goes to
 * /dev/null. Results: stdout and bench/results/cli.json (overwritten; git keeps the history).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeRecordBatch, readRecordBatches } from '../src/index.js';
import { dumpLog } from '../src/cli/dump-log.js';
import { LineWriter } from '../src/cli/output.js';
import { verifyPath } from '../src/cli/verify.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const MiB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_CLI_MIB ?? 64);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Records each operation decodes untimed before the rounds. */
const WARMUP_RECORDS = 500_000;
/** Segment writing chunk. */
const WINDOW = 8 * MiB;
/** The codec baseline's read size (the storage bench's raw reads use a reused 1 MiB buffer too). */
const READ_WINDOW = 1 * MiB;

type Op = 'codec' | 'dump' | 'verify';

/** A segment of SIZE_MIB: one encoded batch, its baseOffset rewritten per copy (not under the CRC). */
function writeSegment(path: string, mib: number): { bytes: number; batches: number; records: number } {
  const per = 100;
  const template = encodeRecordBatch(
    Array.from({ length: per }, (_, i) => ({
      key: `key-${String(i).padStart(12, '0')}`,
      value: Buffer.alloc(1024, 0x61 + (i % 26)),
      headers: [{ key: 'trace', value: 'abcdefgh' }],
      timestamp: 1_700_000_000_000 + i,
    })),
  );
  const fd = openSync(path, 'w');
  const chunk = Buffer.allocUnsafe(Math.floor(WINDOW / template.length) * template.length);
  const perChunk = chunk.length / template.length;
  let batches = 0;
  let written = 0;
  try {
    while (written < mib * MiB) {
      for (let i = 0; i < perChunk; i++) {
        template.copy(chunk, i * template.length);
        chunk.writeBigInt64BE(BigInt((batches + i) * per), i * template.length);
      }
      writeSync(fd, chunk);
      written += chunk.length;
      batches += perChunk;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: written, batches, records: batches * per };
}

/** Reused by every codec run (fresh large Buffers cost page faults). */
const codecBuffer = Buffer.allocUnsafe(READ_WINDOW + 2 * MiB);

/** The record codec on the file: windows read into one buffer, complete batches decoded, CRC checked. */
function codecDecode(path: string): number {
  const buf = codecBuffer;
  const fd = openSync(path, 'r');
  let carry = 0;
  let records = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, carry, Math.min(READ_WINDOW, buf.length - carry), null);
      const end = carry + n;
      if (n === 0) break;
      const reader = readRecordBatches(buf, { end });
      for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
        if (b.kind !== 'v2') continue;
        const it = b.recordIterator();
        while (it.readNext() !== null) records++;
      }
      carry = end - reader.position;
      buf.copy(buf, 0, reader.position, end);
    }
  } finally {
    closeSync(fd);
  }
  return records;
}

function runOp(op: Op, path: string, devNull: number): void {
  if (op === 'codec') codecDecode(path);
  else if (op === 'dump') {
    const out = new LineWriter(devNull);
    dumpLog({ files: [path], deepIteration: true, printDataLog: false, skipRecordMetadata: false, maxBytes: 0x7fffffff, json: false }, out, out);
  } else {
    const report = verifyPath(path);
    if (!report.ok) throw new Error(`verify found problems: ${JSON.stringify(report.problems.slice(0, 3))}`);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Child mode: one operation, prints its peak RSS in MiB. */
if (process.argv[2] === '--child') {
  const devNull = openSync('/dev/null', 'w');
  runOp(process.argv[3] as Op, process.argv[4]!, devNull);
  process.stdout.write(String(process.resourceUsage().maxRSS / 1024));
  process.exit(0);
}

function peakRss(op: Op, path: string, nodeFlags: string[] = []): number {
  const res = spawnSync(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), '--child', op, path], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(res.stderr);
  return Number(res.stdout);
}

function main(): void {
  const root = mkdtempSync(join(tmpdir(), 'kafkalite-bench-cli-'));
  try {
    const path = join(root, '00000000000000000000.log');
    const small = join(root, 'small', '00000000000000000000.log');
    mkdirSync(join(root, 'small'));
    const shape = writeSegment(path, SIZE_MIB);
    writeSegment(small, Math.max(8, SIZE_MIB / 8));
    const devNull = openSync('/dev/null', 'w');
    const ops: Op[] = ['codec', 'dump', 'verify'];
    const times: { [op: string]: number[] } = { codec: [], dump: [], verify: [] };
    const timed = (op: Op) => {
      const t = process.hrtime.bigint();
      runOp(op, path, devNull);
      return Number(process.hrtime.bigint() - t) / 1e9;
    };
    const warmupRuns = Math.max(1, Math.ceil(WARMUP_RECORDS / shape.records));
    const firstRun: { [op: string]: number } = {};
    for (const op of ops) {
      firstRun[op] = timed(op);
      for (let i = 1; i < warmupRuns; i++) runOp(op, path, devNull);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < ops.length; k++) {
        const op = ops[(k + round) % ops.length]!;
        times[op]!.push(timed(op));
      }
    }
    const mbps = (s: number) => shape.bytes / MiB / s;
    const result: { [k: string]: unknown } = {
      date: new Date().toISOString(),
      node: process.version,
      segment: { ...shape, mib: shape.bytes / MiB, fileBytes: statSync(path).size },
      rounds: ROUNDS,
      warmupRuns,
      target: 0.7,
    };
    console.log(
      `segment ${(shape.bytes / MiB).toFixed(0)} MiB, ${shape.batches} batches, ${shape.records} records; ${warmupRuns} warm-up run(s), ${ROUNDS} rounds`,
    );
    for (const op of ops) {
      const ts = times[op]!;
      const ratios = ts.map((t, i) => times.codec![i]! / t);
      const rssBig = peakRss(op, path);
      const rssSmall = peakRss(op, small);
      // peak RSS also follows V8's heap sizing (it grows the young generation under a high
      // allocation rate); the operation finishing on the whole segment with a 16 MiB old space
      // shows what it retains does not grow with the file
      const rssCapped = peakRss(op, path, ['--max-old-space-size=16', '--max-semi-space-size=1']);
      result[op] = {
        seconds: ts,
        mbPerSecond: { median: mbps(median(ts)), min: mbps(Math.max(...ts)), max: mbps(Math.min(...ts)) },
        ratioToCodec: op === 'codec' ? 1 : median(ratios),
        firstRun: { seconds: firstRun[op], mbPerSecond: mbps(firstRun[op]!) },
        peakRssMiB: { segment: rssBig, eighthSegment: rssSmall, segmentWith16MiBOldSpace: rssCapped },
      };
      console.log(
        `${op.padEnd(7)} ${mbps(median(ts)).toFixed(0).padStart(6)} MB/s [${mbps(Math.max(...ts)).toFixed(0)}-${mbps(Math.min(...ts)).toFixed(0)}]` +
          `  x${(op === 'codec' ? 1 : median(ratios)).toFixed(2)} of codec  (first run ${mbps(firstRun[op]!).toFixed(0)} MB/s)  peak RSS ${rssBig.toFixed(0)} MiB (1/8 size: ${rssSmall.toFixed(0)} MiB; 16 MiB old space: ${rssCapped.toFixed(0)} MiB)`,
      );
    }
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'cli.json');
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`results written to ${file}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
