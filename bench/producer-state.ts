/**
 * `npm run bench` (third part): producer-state costs (issue: producer state).
 * - Idempotent append overhead: W1-sized v2 batches (1,000 records, 16 B key, 100 B value, one
 *   8 B/8 B header) from 100 producers in turn, against the same batches without producer ids,
 *   each appended to its own PartitionLog; interleaved, order rotated per round, median of
 *   BENCH_ROUNDS (5) rounds; ratio = plain time / idempotent time (target: overhead <= 10%, ratio >= 0.91).
 * - Snapshot load: a partition with 10,000 producers, closed cleanly (snapshot at the log end),
 *   reopened: time of PartitionLog.open (target < 100 ms), and of the snapshot read alone.
 * Results to stdout and bench/results/producer-state.json (overwritten; git keeps the history).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordBatchEncoder, type RecordInput } from '../src/index.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { PartitionLog } from '../src/storage/partition-log.js';
import { readProducerSnapshot } from '../src/storage/producer-snapshot.js';
import { REPO_ROOT } from '../test/helpers/paths.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCHES = Number(process.env.BENCH_PSTATE_BATCHES ?? 400);
const PRODUCERS = 100;
const ROOT = mkdtempSync(join(tmpdir(), 'kafkalite-bench-pstate-'));
process.on('exit', () => rmSync(ROOT, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => {
  const d = join(ROOT, String(dirs++));
  mkdirSync(d);
  return d;
};
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 1 << 30 };

function w1Records(ts: number): RecordInput[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    key: Buffer.alloc(16, i & 0xff),
    value: Buffer.alloc(100, (i * 7) & 0xff),
    headers: [{ key: 'hdr-key1', value: Buffer.alloc(8, 1) }],
    timestamp: ts + i,
  }));
}

function appendOverhead(results: Record<string, unknown>): void {
  const now = Date.now();
  const records = w1Records(now - 60_000);
  const encoder = new RecordBatchEncoder();
  // distinct pre-encoded buffers for both variants, so both read the same amount of cold memory;
  // idempotent: one per (producer, sequence step), producers take turns, sequences advance by 1,000
  const plain: Buffer[] = [];
  const idempotent: Buffer[] = [];
  for (let b = 0; b < BATCHES; b++) {
    plain.push(Buffer.from(encoder.encode(records)));
    const producer = b % PRODUCERS;
    const round = Math.floor(b / PRODUCERS);
    idempotent.push(Buffer.from(encoder.encode(records, { producerId: BigInt(1000 + producer), producerEpoch: 0, baseSequence: round * 1000 })));
  }
  const times = { plain: [] as number[], idempotent: [] as number[] };
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['plain', 'idempotent'] as const) : (['idempotent', 'plain'] as const);
    const t: Record<string, number> = {};
    for (const name of order) {
      const log = PartitionLog.open(freshDir(), 't', 0, { config });
      globalThis.gc?.();
      const t0 = process.hrtime.bigint();
      const inputs = name === 'plain' ? plain : idempotent;
      for (let b = 0; b < BATCHES; b++) log.append(inputs[b]!);
      t[name] = Number(process.hrtime.bigint() - t0) / 1e9;
      log.close();
    }
    times.plain.push(t.plain!);
    times.idempotent.push(t.idempotent!);
    ratios.push(t.plain! / t.idempotent!);
  }
  const recs = BATCHES * 1000;
  const row = (name: 'plain' | 'idempotent') =>
    `| ${name} | ${(recs / median(times[name]) / 1e6).toFixed(2)} [${(recs / Math.max(...times[name]) / 1e6).toFixed(2)}-${(recs / Math.min(...times[name]) / 1e6).toFixed(2)}] |`;
  console.log(`\nappend of ${BATCHES} W1 batches (${plain[0]!.length} B), ${PRODUCERS} producers taking turns; M records/s median [min-max]`);
  console.log('| variant | M records/s |\n|---|---|');
  console.log(row('plain'));
  console.log(row('idempotent'));
  console.log(`ratio plain/idempotent time (1.0 = no overhead): ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}]; target >= 0.91`);
  results.appendOverhead = { batches: BATCHES, producers: PRODUCERS, times, ratio: median(ratios), ratios };
}

function snapshotLoad(results: Record<string, unknown>): void {
  const dir = freshDir();
  const now = Date.now();
  const encoder = new RecordBatchEncoder();
  const log = PartitionLog.open(dir, 't', 0, { config });
  for (let p = 0; p < 10_000; p++) {
    log.append(encoder.encode([{ value: 'x', timestamp: now - 1000 }], { producerId: BigInt(p), producerEpoch: 0, baseSequence: 0 }));
  }
  log.close();
  const open: number[] = [];
  const read: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let t0 = process.hrtime.bigint();
    const again = PartitionLog.open(dir, 't', 0, { config, hadCleanShutdown: true });
    open.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const producers = again.producerStateManager.activeProducers().size;
    if (producers !== 10_000) throw new Error(`expected 10000 producers after reload, found ${producers}`);
    again.close();
    t0 = process.hrtime.bigint();
    const entries = readProducerSnapshot(join(dir, '00000000000000010000.snapshot'));
    read.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (entries.length !== 10_000) throw new Error('snapshot entry count');
  }
  console.log(`\nreopen of a partition with 10,000 producers (clean shutdown, snapshot at the log end), ms median [min-max]`);
  console.log(`| PartitionLog.open | ${median(open).toFixed(1)} [${Math.min(...open).toFixed(1)}-${Math.max(...open).toFixed(1)}] | target < 100 |`);
  console.log(`| snapshot read alone | ${median(read).toFixed(1)} [${Math.min(...read).toFixed(1)}-${Math.max(...read).toFixed(1)}] | |`);
  results.snapshotLoad = { producers: 10_000, openMs: open, readMs: read };
}

const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, rounds: ROUNDS };
appendOverhead(results);
snapshotLoad(results);
const out = join(REPO_ROOT, 'bench', 'results', 'producer-state.json');
mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
console.log(`\nresults written to ${out}`);
