/**
 * `node dist/bench/small-produce.js` (issues 24 and 18): the broker's CPU time and system calls per
 * small request, against the loopback+disk floor in the same run. A raw client
 * (test/helpers/raw-client.ts) sends Produce v9 requests of one 100 B record (acks=-1) one at a
 * time, each after the previous answer, to each peer in its own process:
 * - `kafkalite`: this build's `kafkalite serve`;
 * - `kafkalite-base`, with BENCH_BASELINE_BROKER (another build's bin/kafkalite.js): an A/B of two
 *   builds in one run (the same path twice is an A/A control of the noise);
 * - `loopback+disk`: broker.ts's null server persisting what it reads (`broker.js null-server
 *   <dir>`), which answers each request with a bare header: what reading, writing to the page cache
 *   and answering cost in one Node process, without Kafka's work.
 * Each peer gets BENCH_SMALL_WARMUP (6,000) unmeasured requests, then BENCH_SMALL_ROUNDS rounds
 * (whole cycles of round-order.ts's balanced order, at least 3: 4, or 6 with a baseline) of
 * BENCH_SMALL_COUNT (5,000), the peers in that order. Measured per round: the peer's
 * CPU time from /proc/<pid>/task/<tid>/schedstat, all threads and the main thread, and the round
 * trip as the client saw it; reported as each peer's median round and the median [min-max] of the
 * per-round ratios kafkalite / loopback+disk (and kafkalite / kafkalite-base). Main-thread CPU per
 * request is the steady figure: an A/A run on an idle machine holds within a few percent, where the
 * round trip moves with the scheduler. With BENCH_SMALL_STRACE=1, one more pass per peer counts its
 * system calls (`strace -f -c -p <pid>` attached for those requests only); the counts are
 * deterministic enough to compare builds. BENCH_BROKER_NODE_FLAGS (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`) go to the brokers' node.
 * BENCH_SMALL_INTERLEAVED=1 (with BENCH_BASELINE_BROKER) runs the two builds at once instead, the
 * client sending to each in turn (`interleaved()` below): the A/B for a host that other tenants load.
 * BENCH_SMALL_VALUE_BYTES (100) sets the record's value size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeRecordBatch } from '../src/record/builder.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { RawClient, encodeRequestFrame } from '../test/helpers/raw-client.js';
import { spawnListening, stopChild } from './child.js';
import { cpuMsOf } from './proc-cpu.js';
import { balancedRounds, roundOrder } from './round-order.js';

const WARMUP = Number(process.env.BENCH_SMALL_WARMUP ?? 6000);
const COUNT = Number(process.env.BENCH_SMALL_COUNT ?? 5000);
const STRACE = process.env.BENCH_SMALL_STRACE === '1';
const NODE_FLAGS = process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
const BASELINE_BROKER = process.env.BENCH_BASELINE_BROKER || undefined;
const INTERLEAVED = process.env.BENCH_SMALL_INTERLEAVED === '1';
/** The one record's value: 100 B, a small request; larger to see where a path starts to pay per byte. */
const VALUE_BYTES = Number(process.env.BENCH_SMALL_VALUE_BYTES ?? 100);
/** Whole cycles of the balanced order (round-order.ts), at least 3: 4 for kafkalite and the floor, 6 with a baseline. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_SMALL_ROUNDS ?? balancedRounds(BASELINE_BROKER !== undefined ? 3 : 2, 3)));
const PRODUCE = 0;
const CREATE_TOPICS = 19;
const TOPIC = 'small-produce';
const LISTENING = /listening on [^:]+:(\d+)/;

interface Peer {
  name: 'kafkalite' | 'kafkalite-base' | 'loopback+disk';
  child: ChildProcess;
  pid: number;
  client: RawClient;
  dataDir: string;
}

/** One measured round of one peer, per request: CPU µs (all threads, main thread, tick-sampled user and system) and the round trip µs. */
interface Round {
  cpuUs: number;
  mainUs: number;
  userUs: number;
  sysUs: number;
  roundTripUs: number;
}

async function startPeer(name: Peer['name'], bin: string | undefined): Promise<Peer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kl-small-'));
  const args =
    bin === undefined
      ? [join(REPO_ROOT, 'dist', 'bench', 'broker.js'), 'null-server', dataDir]
      : [...NODE_FLAGS, bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'];
  let started: { child: ChildProcess; port: number };
  try {
    started = await spawnListening(name, process.execPath, args, LISTENING);
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const { child, port } = started;
  const client = await RawClient.connect(port);
  // the null server answers any frame with a bare header: it needs no topic
  if (bin !== undefined) {
    client.send(encodeRequestFrame(CREATE_TOPICS, 5, client.correlationId(), { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false }));
    await client.nextFrame();
  }
  return { name, child, pid: child.pid!, client, dataDir };
}

async function stopPeer(p: Peer): Promise<void> {
  p.client.socket.destroy();
  await stopChild(p.child);
  rmSync(p.dataDir, { recursive: true, force: true });
}

/** [utime, stime] of a process, in µs (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMicros(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) * 10_000, Number(fields[12]) * 10_000];
}

/** One thread's on-CPU time in µs (its schedstat). */
function threadCpuMicros(pid: number, tid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
}

const RECORDS = encodeRecordBatch([{ key: null, value: Buffer.alloc(VALUE_BYTES, 7) }]);

/** One Produce v9 round trip of RECORDS (acks=-1). */
async function produceOnce(client: RawClient): Promise<void> {
  client.send(encodeRequestFrame(PRODUCE, 9, client.correlationId(), { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: RECORDS }] }] }));
  await client.nextFrame();
}

async function produceLoop(client: RawClient, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await produceOnce(client);
}

async function measure(p: Peer): Promise<Round> {
  const ticks0 = cpuMicros(p.pid);
  const all0 = 1000 * cpuMsOf(p.pid);
  const main0 = threadCpuMicros(p.pid, p.pid);
  const t0 = process.hrtime.bigint();
  await produceLoop(p.client, COUNT);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  const all = 1000 * cpuMsOf(p.pid) - all0;
  const main = threadCpuMicros(p.pid, p.pid) - main0;
  const ticks1 = cpuMicros(p.pid);
  return { cpuUs: all / COUNT, mainUs: main / COUNT, userUs: (ticks1[0] - ticks0[0]) / COUNT, sysUs: (ticks1[1] - ticks0[1]) / COUNT, roundTripUs: wallUs / COUNT };
}

/** System calls per request of one more pass, counted by strace attached to every thread of the peer. */
async function straceCount(p: Peer): Promise<{ perRequest: number | undefined; table: string }> {
  const strace = spawn('strace', ['-f', '-c', '-p', String(p.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  strace.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await sleep(1000); // strace attaches to every thread before it counts
  await produceLoop(p.client, COUNT);
  const done = new Promise((r) => strace.once('exit', r));
  strace.kill('SIGINT');
  await done;
  const total = /^\s*100\.00\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total$/m.exec(out);
  return { perRequest: total ? Number(total[1]) / COUNT : undefined, table: out };
}

const f = (x: number, digits = 1): string => x.toFixed(digits);
const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
/** The median and range of a list: `1.23 [1.10-1.40]`. */
function spread(xs: number[], digits = 2): string {
  const s = sorted(xs);
  return `${f(s[Math.floor(s.length / 2)]!, digits)} [${f(s[0]!, digits)}-${f(s.at(-1)!, digits)}]`;
}
/** The round whose main-thread CPU is the median: its figures go in the table together. */
function medianRound(rs: Round[]): Round {
  return [...rs].sort((a, b) => a.mainUs - b.mainUs)[Math.floor(rs.length / 2)]!;
}

/**
 * BENCH_SMALL_INTERLEAVED=1 (with BENCH_BASELINE_BROKER): kafkalite and kafkalite-base run at the
 * same time, and one client sends its requests to them in turn (one to each, then again), so that
 * both see the same moments of a shared host. Per round, each one's main-thread CPU over that same
 * interval and its round-trip p50 and p99. On a host whose speed moved by 2x between sequential
 * rounds, this held a build against itself at 1.004 [0.990-1.014] a round, where one A/B of two
 * builds in sequential rounds spread from 0.75 to 1.24 (bench/README.md, session 15).
 */
async function interleaved(): Promise<void> {
  const peers: Peer[] = [];
  try {
    peers.push(await startPeer('kafkalite', join(REPO_ROOT, 'bin', 'kafkalite.js')));
    peers.push(await startPeer('kafkalite-base', BASELINE_BROKER!));
    for (const p of peers) await produceLoop(p.client, WARMUP);
    console.log(`${COUNT} Produce requests (1 record of ${VALUE_BYTES} B, acks=-1) to each of kafkalite and kafkalite-base per round, in turn, ${ROUNDS} rounds, after ${WARMUP} each:`);
    const cpuRatios: number[] = [];
    const p50Ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const trips: number[][] = [[], []];
      const main0 = peers.map((p) => threadCpuMicros(p.pid, p.pid));
      for (let i = 0; i < 2 * COUNT; i++) {
        // who goes first alternates by round
        const k = (i + r) & 1;
        const t0 = process.hrtime.bigint();
        await produceOnce(peers[k]!.client);
        trips[k]!.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
      const mainUs = peers.map((p, k) => (threadCpuMicros(p.pid, p.pid) - main0[k]!) / COUNT);
      const bySize = trips.map(sorted);
      const q = (k: number, at: number) => bySize[k]![Math.floor(COUNT * at)]!;
      cpuRatios.push(mainUs[0]! / mainUs[1]!);
      p50Ratios.push(q(0, 0.5) / q(1, 0.5));
      console.log(
        `  round ${r + 1}: main thread kafkalite ${f(mainUs[0]!)} µs, kafkalite-base ${f(mainUs[1]!)} µs (${f(cpuRatios.at(-1)!, 3)}); round trip p50 ${f(q(0, 0.5))} / ${f(q(1, 0.5))} µs, p99 ${f(q(0, 0.99))} / ${f(q(1, 0.99))} µs`,
      );
    }
    console.log(`kafkalite / kafkalite-base per round, median [min-max]: main-thread CPU ${spread(cpuRatios, 3)}, round-trip p50 ${spread(p50Ratios, 3)}`);
  } finally {
    await Promise.all(peers.map(stopPeer));
  }
}

async function main(): Promise<void> {
  const peers: Peer[] = [];
  try {
    peers.push(await startPeer('kafkalite', join(REPO_ROOT, 'bin', 'kafkalite.js')));
    if (BASELINE_BROKER !== undefined) peers.push(await startPeer('kafkalite-base', BASELINE_BROKER));
    peers.push(await startPeer('loopback+disk', undefined));
    for (const p of peers) await produceLoop(p.client, WARMUP);
    const rounds = new Map<Peer['name'], Round[]>(peers.map((p) => [p.name, []]));
    console.log(`${COUNT} Produce requests (1 record of ${VALUE_BYTES} B, acks=-1) one at a time per round, ${ROUNDS} rounds, after ${WARMUP} each; per request:`);
    for (let r = 0; r < ROUNDS; r++) {
      // the peers' order balanced over the rounds (round-order.ts): none always runs first, after
      // the client's idle time, or always after the same peer
      for (const p of roundOrder(peers, r)) {
        const m = await measure(p);
        rounds.get(p.name)!.push(m);
        console.log(
          `  round ${r + 1} ${p.name.padEnd(14)} CPU ${f(m.cpuUs).padStart(5)} µs, main thread ${f(m.mainUs).padStart(5)} (ticks: user ${f(m.userUs)}, system ${f(m.sysUs)}), round trip ${f(m.roundTripUs)} µs`,
        );
      }
    }
    console.log(`\neach peer's median round (by main-thread CPU), µs per request:`);
    for (const p of peers) {
      const m = medianRound(rounds.get(p.name)!);
      console.log(`  ${p.name.padEnd(14)} CPU ${f(m.cpuUs).padStart(5)}, main thread ${f(m.mainUs).padStart(5)}, round trip ${f(m.roundTripUs).padStart(5)}`);
    }
    const ratios = (a: Round[], b: Round[], x: (r: Round) => number): number[] => a.map((ra, i) => x(ra) / x(b[i]!));
    const compare = (label: string, a: Round[], b: Round[]) =>
      console.log(`  ${label.padEnd(30)} CPU ${spread(ratios(a, b, (r) => r.cpuUs))}, main thread ${spread(ratios(a, b, (r) => r.mainUs))}, round trip ${spread(ratios(a, b, (r) => r.roundTripUs))}`);
    console.log('per-round ratios, median [min-max]:');
    compare('kafkalite / loopback+disk', rounds.get('kafkalite')!, rounds.get('loopback+disk')!);
    if (BASELINE_BROKER !== undefined) compare('kafkalite / kafkalite-base', rounds.get('kafkalite')!, rounds.get('kafkalite-base')!);
    if (STRACE) {
      for (const p of peers) {
        const { perRequest, table } = await straceCount(p);
        console.log(`\n${p.name}: system calls per request ${perRequest === undefined ? '(no total line)' : f(perRequest, 2)}\n${table}`);
      }
    }
  } finally {
    await Promise.all(peers.map(stopPeer));
  }
}

if (INTERLEAVED && BASELINE_BROKER === undefined) throw new Error('BENCH_SMALL_INTERLEAVED=1 compares two builds: set BENCH_BASELINE_BROKER=<build>/bin/kafkalite.js');
await (INTERLEAVED ? interleaved() : main());
