/**
 * `npm run bench` (latency part, issue 24): the latency of small requests one at a time, as a test
 * suite sends them, against librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py)
 * in the same run. The client is confluent-kafka-python (bench/py/latency_bench.py), one process
 * per round and peer:
 *
 * - round trip: synchronous produce + flush of one 100 B record (acks=all, linger.ms=0),
 *   BENCH_LATENCY_COUNT (2,000) per round;
 * - produce to consume: a record produced while a consumer of its partition waits in a long poll
 *   (fetch.wait.max.ms 500), timed from produce() to the consumer's poll() returning it,
 *   BENCH_E2E_COUNT (300) per round for kafkalite; the mock answers a long poll only at its
 *   timeout (it does not wake on append), so it gets BENCH_E2E_MOCK_COUNT (20).
 *
 * Every peer first gets BENCH_LATENCY_WARMUP (6,000) unmeasured round trips and a tenth as many
 * produce-to-consume records: a fresh kafkalite runs its first few thousand requests at 2-4x the CPU
 * of later ones, in V8's baseline tiers while TurboFan compiles the request path (the broker's own
 * request metrics show it: BENCH_BROKER_LOG_LEVEL=debug), and the bench compares steady states.
 * The brokers' warm-up starts with half as many round trips to a second topic, from a second
 * client, then runs the produce-to-consume records, and ends with the round trips. Once per
 * process, at the second connection and at the second topic, V8 widens the type of fields that
 * first held one hidden class (`--trace-generalization`: the net.Server options' `handle`, the
 * held answers' lists, ...) and drops the optimized code that relied on it (`--trace-deopt`: ~20
 * functions of the Produce path, 'wrong map'); the first consumer's requests drop more of the
 * answer path. Without this order the first measured round paid that re-optimization (broker CPU
 * 140-202 ms against 81-96 ms in later rounds; p99 0.5-1.5 ms against 0.12-0.14 ms). A test suite
 * pays it once, at its second test and first consumer. The `cold` line gives the first warm-up
 * run: a broker's first round trips (it has served only the floor's relayed Metadata and its first
 * Produce before them).
 * Each of BENCH_ROUNDS rounds runs every peer once, in the balanced order of round-order.ts (the
 * machine is shared: a slow moment lands on one round, and no peer always runs after the same one);
 * the default is the fewest whole cycles of that order from 5 rounds up (6 with three peers). The table gives the median over rounds of each
 * peer's p50, p99 and p99.9, and the median [min-max] of the per-round ratios kafkalite / mock.
 * The issue's targets: round trip p50 ≤ 1.2x and p99 ≤ 2.0x the mock's; produce to consume p99 ≤ 3 ms.
 * BENCH_BASELINE_BROKER (another build's bin/kafkalite.js) adds `kafkalite-base` to every round (a
 * same-run A/B); BENCH_BROKER_NODE_FLAGS (e.g. `--cpu-prof`) and BENCH_BROKER_LOG_LEVEL (`debug`:
 * the broker's request metrics every 30 s, on stderr) go to the kafkalite broker.
 * BENCH_LATENCY_FULL_GC=1 has every kafkalite broker run a full collection before each of its
 * rounds (test/helpers/gc-on-signal.ts), as V8's memory reducer does by itself when a broker sits idle
 * between a suite's clients: the rounds then show what a new client pays when hidden classes died
 * with the previous one (src/v8/map-anchors.ts). Each kafkalite round line also gives the broker's
 * CPU time over the round (bench/proc-cpu.ts: every thread's on-CPU time).
 * `node-floor` (bench/latency-floor.ts; BENCH_LATENCY_FLOOR=0 leaves it out), round trips only: a Node process
 * that relays the client to the kafkalite broker until it has the broker's answer to a Produce,
 * then persists each Produce itself (writeSync) and answers with that copy, doing nothing else: what
 * Node, its socket path and the write cost a round trip, against which kafkalite's own work shows.
 * BENCH_LATENCY_PIN (split | same | none; split when taskset exists and 2+ CPUs are allowed): the
 * CPUs the peers and the client run on (see PIN below).
 * Results: stdout and bench/results/latency.json (overwritten; git keeps the history).
 */
import { spawnListening, stopChild } from './child.js';
import { cpuMsOf } from './proc-cpu.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON } from '../test/helpers/python-peer.js';
import { balancedRounds, roundOrder } from './round-order.js';

/** Round trips (and a tenth as many produce-to-consume records) per peer before anything is measured. */
const WARMUP = Number(process.env.BENCH_LATENCY_WARMUP ?? 6000);
const COUNT = Number(process.env.BENCH_LATENCY_COUNT ?? 2000);
const E2E_COUNT = Number(process.env.BENCH_E2E_COUNT ?? 300);
const E2E_MOCK_COUNT = Number(process.env.BENCH_E2E_MOCK_COUNT ?? 20);
const BASELINE_BROKER = process.env.BENCH_BASELINE_BROKER || undefined;
const BROKER_NODE_FLAGS = process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
const BROKER_LOG_LEVEL = process.env.BENCH_BROKER_LOG_LEVEL ?? 'warn';
const FULL_GC = process.env.BENCH_LATENCY_FULL_GC === '1';
const FLOOR = process.env.BENCH_LATENCY_FLOOR !== '0';
/** Whole cycles of the balanced order (round-order.ts), at least 5: 6 for kafkalite, the mock and the floor. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? balancedRounds(2 + (FLOOR ? 1 : 0) + (BASELINE_BROKER !== undefined ? 1 : 0), 5));
const GC_ON_SIGNAL = join(REPO_ROOT, 'dist', 'test', 'helpers', 'gc-on-signal.js');
/** The CPUs this process may run on (`Cpus_allowed_list` in /proc/self/status: `0-1`, `2,5-7`). */
function allowedCpus(): number[] {
  let list = '';
  try {
    list = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
  } catch {
    return [];
  }
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i);
  });
}
const CPUS = allowedCpus();
const HAVE_TASKSET = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
/**
 * Where the client and the peers run (taskset): `split` (the default with taskset and 2+ CPUs) puts
 * every peer, all its threads, on the second CPU this process may use and the client on the first;
 * `same` puts both on the second; `none` leaves it to the scheduler. Left to it, a round's placement
 * decides most of its p50 on this VM: a request that wakes a process on the other vCPU costs ~35 µs
 * each way, one on the same vCPU almost nothing (round trips pinned apart: p50 87-102 µs for
 * kafkalite, 81-82 µs for the mock; pinned together 24 and 20 µs), and the scheduler picks
 * differently from round to round and peer to peer.
 */
const PIN = (process.env.BENCH_LATENCY_PIN ?? (CPUS.length >= 2 && HAVE_TASKSET ? 'split' : 'none')) as 'split' | 'same' | 'none';
if (!['split', 'same', 'none'].includes(PIN)) throw new Error(`BENCH_LATENCY_PIN must be split, same or none, not ${PIN}`);
if (PIN !== 'none' && (CPUS.length < 2 || !HAVE_TASKSET)) throw new Error(`BENCH_LATENCY_PIN=${PIN} needs taskset and 2 CPUs this process may use`);
/** The command, run on `cpu` under `taskset` (which execs it: the pid stays the command's), or as it is with PIN=none. */
function pinned(cpu: number, cmd: string, args: string[]): [string, string[]] {
  return PIN === 'none' ? [cmd, args] : ['taskset', ['-c', String(cpu), cmd, ...args]];
}
/** The peers get the second allowed CPU, the client the first (`same`: the second too). */
const PEER_CPU = CPUS[1] ?? 0;
const CLIENT_CPU = PIN === 'same' ? PEER_CPU : (CPUS[0] ?? 0);

interface Peer {
  name: string;
  bootstrap: string;
  child: ChildProcess;
  kind: 'kafkalite' | 'mock' | 'floor';
}

async function startChild(name: string, cmd: string, args: string[], pattern: RegExp, kind: Peer['kind']): Promise<Peer> {
  const { child, port } = await spawnListening(name, ...pinned(PEER_CPU, cmd, args), pattern);
  return { name, bootstrap: `127.0.0.1:${port}`, child, kind };
}

function stopPeer(p: Peer): Promise<void> {
  return stopChild(p.child);
}

function kafkaliteBroker(name: string, bin: string, dataDir: string, flags: string[]): Promise<Peer> {
  const gcFlags = FULL_GC ? ['--expose-gc', '--import', GC_ON_SIGNAL] : [];
  return startChild(name, process.execPath, [...gcFlags, ...flags, bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', BROKER_LOG_LEVEL], /listening on [^:]+:(\d+)/, 'kafkalite');
}

/** One round of latency_bench.py: the latencies in µs. */
function runRound(peer: Peer, mode: 'roundtrip' | 'e2e', topic: string, count: number): Promise<number[]> {
  const child = spawn(...pinned(CLIENT_CPU, PYTHON, [join(REPO_ROOT, 'bench', 'py', 'latency_bench.py'), peer.bootstrap, mode, topic, String(count)]), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`latency_bench.py ${mode} against ${peer.name} exited with ${code}`));
      const parsed: unknown = JSON.parse(out);
      if (typeof parsed !== 'object' || parsed === null || !('us' in parsed) || !Array.isArray(parsed.us)) return reject(new Error(`latency_bench.py printed ${out}`));
      resolve(parsed.us.map(Number));
    });
  });
}

interface Quantiles {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  n: number;
}

function quantiles(us: number[]): Quantiles {
  const s = [...us].sort((a, b) => a - b);
  const q = (x: number): number => s[Math.min(s.length - 1, Math.ceil(x * s.length) - 1)]!;
  return { p50: q(0.5), p99: q(0.99), p999: q(0.999), max: s[s.length - 1]!, n: s.length };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]): { median: number; min: number; max: number } => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const f = (n: number, d = 2): string => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-latency-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const peers: Peer[] = [];
  try {
    mkdirSync(join(dataDir, 'kafkalite'));
    peers.push(await kafkaliteBroker('kafkalite', join(REPO_ROOT, 'bin', 'kafkalite.js'), join(dataDir, 'kafkalite'), BROKER_NODE_FLAGS));
    peers.push(await startChild('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/, 'mock'));
    if (FLOOR) {
      mkdirSync(join(dataDir, 'floor'));
      peers.push(await startChild('node-floor', process.execPath, [join(REPO_ROOT, 'dist', 'bench', 'latency-floor.js'), peers[0]!.bootstrap, join(dataDir, 'floor')], /listening on [^:]+:(\d+)/, 'floor'));
    }
    if (BASELINE_BROKER !== undefined) {
      mkdirSync(join(dataDir, 'base'));
      peers.push(await kafkaliteBroker('kafkalite-base', BASELINE_BROKER, join(dataDir, 'base'), []));
    }
    // the floor first: its warm-up creates a topic in the kafkalite broker it relays to, and the
    // code that this second topic deoptimizes there is optimized again in kafkalite's own warm-up
    const warmOrder = [...peers.filter((p) => p.kind === 'floor'), ...peers.filter((p) => p.kind !== 'floor')];
    for (const p of warmOrder) {
      if (WARMUP <= 0) break;
      let e: Quantiles | undefined;
      if (p.kind !== 'floor') {
        const cold = quantiles(await runRound(p, 'roundtrip', 'latency-warmup-2', Math.ceil(WARMUP / 2)));
        console.log(`cold      ${p.name.padEnd(16)} round trip p50 ${f(cold.p50 / 1000, 3)} ms  p99 ${f(cold.p99 / 1000, 3)} ms  p99.9 ${f(cold.p999 / 1000, 3)} ms (its first ${cold.n}, not counted)`);
        // before the last round trips: the consumer's first requests deoptimize code the Produce
        // path shares (the connection's answer path), which the round trips then optimize again
        e = quantiles(await runRound(p, 'e2e', 'latency-warmup', p.kind === 'mock' ? 2 : Math.ceil(WARMUP / 10)));
      }
      const q = quantiles(await runRound(p, 'roundtrip', p.kind === 'floor' ? 'floor-warmup' : 'latency-warmup', WARMUP));
      if (e === undefined) {
        console.log(`warm-up   ${p.name.padEnd(16)} round trip p50 ${f(q.p50 / 1000, 3)} ms  p99 ${f(q.p99 / 1000, 3)} ms (not counted)`);
        continue;
      }
      console.log(`warm-up   ${p.name.padEnd(16)} round trip p50 ${f(q.p50 / 1000, 3)} ms  p99 ${f(q.p99 / 1000, 3)} ms; produce to consume p50 ${f(e.p50 / 1000, 3)} ms  p99 ${f(e.p99 / 1000, 3)} ms (not counted)`);
    }
    console.log(`placement: ${PIN === 'none' ? 'left to the scheduler' : `peers on CPU ${PEER_CPU}, the client on CPU ${CLIENT_CPU}`} (BENCH_LATENCY_PIN=${PIN})`);
    const results: { peer: string; mode: string; round: number; q: Quantiles }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const p of roundOrder(peers, round)) {
        for (const mode of ['roundtrip', 'e2e'] as const) {
          // the floor answers Produce itself: what it acknowledges never reaches a consumer
          if (p.kind === 'floor' && mode === 'e2e') continue;
          const count = mode === 'roundtrip' ? COUNT : p.kind === 'mock' ? E2E_MOCK_COUNT : E2E_COUNT;
          if (FULL_GC && p.kind === 'kafkalite' && mode === 'roundtrip') {
            p.child.kill('SIGUSR2');
            await sleep(300);
          }
          const cpu0 = p.kind === 'mock' ? 0 : cpuMsOf(p.child.pid!);
          // (the floor's topics live in the kafkalite broker it relays to: named apart, so kafkalite's own rounds still create theirs)
          const topic = p.kind === 'floor' ? `floor-${mode}-${round}` : `latency-${mode}-${round}`;
          const q = quantiles(await runRound(p, mode, topic, count));
          const cpu = p.kind === 'mock' ? '' : `  ${p.kind === 'floor' ? 'floor' : 'broker'} CPU ${f(cpuMsOf(p.child.pid!) - cpu0, 0)} ms`;
          results.push({ peer: p.name, mode, round, q });
          console.log(`${mode.padEnd(9)} round ${round + 1} ${p.name.padEnd(16)} p50 ${f(q.p50 / 1000, 3)} ms  p99 ${f(q.p99 / 1000, 3)} ms  p99.9 ${f(q.p999 / 1000, 3)} ms  max ${f(q.max / 1000, 3)} ms  (n ${q.n})${cpu}`);
        }
      }
    }
    const summary: Record<string, unknown> = {};
    for (const mode of ['roundtrip', 'e2e'] as const) {
      console.log(`\n${mode === 'roundtrip' ? 'round trip (produce + flush, 100 B, acks=all)' : 'produce to consume (long poll)'}: median over ${ROUNDS} rounds, ms`);
      console.log(`${'peer'.padEnd(16)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'p99.9'.padStart(8)}`);
      const by = (peer: string) => results.filter((r) => r.peer === peer && r.mode === mode).sort((a, b) => a.round - b.round);
      const rows: Record<string, unknown> = {};
      for (const p of peers) {
        const rs = by(p.name);
        if (rs.length === 0) continue;
        const row = { p50Ms: median(rs.map((r) => r.q.p50)) / 1000, p99Ms: median(rs.map((r) => r.q.p99)) / 1000, p999Ms: median(rs.map((r) => r.q.p999)) / 1000 };
        rows[p.name] = row;
        console.log(`${p.name.padEnd(16)} ${f(row.p50Ms, 3).padStart(8)} ${f(row.p99Ms, 3).padStart(8)} ${f(row.p999Ms, 3).padStart(8)}`);
      }
      const ratios: Record<string, unknown> = {};
      const pairs: [string, string][] = [['kafkalite', 'librdkafka-mock']];
      if (BASELINE_BROKER) pairs.push(['kafkalite', 'kafkalite-base']);
      if (FLOOR && mode === 'roundtrip') pairs.push(['node-floor', 'librdkafka-mock'], ['kafkalite', 'node-floor']);
      for (const [a, b] of pairs) {
        const ra = by(a);
        const rb = by(b);
        const r = (k: keyof Quantiles) => range(ra.map((x, i) => x.q[k] / rb[i]!.q[k]));
        const x = { p50: r('p50'), p99: r('p99'), p999: r('p999') };
        ratios[`${a}/${b}`] = x;
        const cell = (v: { median: number; min: number; max: number }) => `${f(v.median)}x [${f(v.min)}-${f(v.max)}]`;
        console.log(`${`${a} / ${b}`.padEnd(30)} p50 ${cell(x.p50)}  p99 ${cell(x.p99)}  p99.9 ${cell(x.p999)}`);
      }
      summary[mode] = { peers: rows, ratios };
    }
    const file = join(REPO_ROOT, 'bench', 'results', 'latency.json');
    mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(file, JSON.stringify({ bench: 'latency', date: new Date().toISOString(), node: process.version, placement: PIN, rounds: ROUNDS, warmup: WARMUP, count: COUNT, e2eCount: E2E_COUNT, e2eMockCount: E2E_MOCK_COUNT, summary, results }, null, 2) + '\n');
    console.log(`\nresults written to ${file}`);
  } finally {
    await Promise.all(peers.map(stopPeer));
  }
}

await main();
