/**
 * Transactions bench (issue 18): the same client, confluent-kafka-python (librdkafka 2.0.2,
 * bench/py/txn_bench.py), against the kafkalite broker (`bin/kafkalite.js serve`, its own process,
 * writing to disk) and against librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py,
 * which serves transactions), in one run. Within a round one client process drives both, taking
 * turns in chunks (50 small transactions; 10 large ones then 10 idempotent batches), the order
 * rotated every chunk, so that both are measured under the same load of this shared machine.
 *
 * Measured per peer and round: transactions per second with 10 records each and the commit latency
 * p50/p99; the throughput of 1000-record transactions and of the same records sent idempotently
 * without a transaction (their ratio is what the transactions cost). Targets (issue 18):
 * kafkalite's transactions per second at least the mock's, while persisting; large transactions
 * within 10% of the idempotent throughput. Results: stdout and bench/results/transactions.json
 * (overwritten).
 *
 * Each phase also reports the CPU time it cost the server process (all its threads, from
 * /proc/<pid>/task/<tid>/schedstat) and the client, per transaction: on this shared 2-core machine
 * the wall-clock figures drift by 2x between runs, the CPU figures much less, and they separate what
 * the broker spends from what the client does. Before the measured rounds the peers get an
 * untimed warm-up (BENCH_TXN_WARMUP transactions of 10 records and a tenth as many of 1000): the
 * broker is a long-running process whose hot paths V8 compiles after a few thousand requests (a
 * fresh broker spent ~2 ms of CPU per transaction for its first 600, ~0.5 ms from its third
 * thousand on, when V8 has stopped compiling); the mock is C and needs none.
 * Environment: BENCH_TXN_ROUNDS (5), BENCH_TXN_SMALL (1000 transactions), BENCH_TXN_LARGE (100),
 * BENCH_TXN_VALUE_BYTES (100), BENCH_TXN_WARMUP (3000; 0: none), BENCH_TXN_BEFORE (unset: the path of
 * another build's checkout, e.g. a copy of main with its bin/ and dist/; it runs as a third peer,
 * `kafkalite-before`, in the same turns, so that a change is measured against the build before it
 * under the same load), BENCH_TXN_BEFORE_NODE_FLAGS (node flags for that peer only, e.g.
 * `--max-semi-space-size=32`: with BENCH_TXN_BEFORE set to this checkout, a serve-time V8 flag
 * against none in the same turns).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON, runCommand } from '../test/helpers/python-peer.js';

const ROUNDS = Number(process.env.BENCH_TXN_ROUNDS ?? 5);
const SMALL = Number(process.env.BENCH_TXN_SMALL ?? 1000);
const LARGE = Number(process.env.BENCH_TXN_LARGE ?? 100);
const VALUE_BYTES = Number(process.env.BENCH_TXN_VALUE_BYTES ?? 100);
const WARMUP = Number(process.env.BENCH_TXN_WARMUP ?? 3000);
const BEFORE = process.env.BENCH_TXN_BEFORE;
/** Node/V8 flags for the BENCH_TXN_BEFORE peer only (space-separated): a serve-time flag against none, same build, same run. */
const BEFORE_NODE_FLAGS = (process.env.BENCH_TXN_BEFORE_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');

interface Peer {
  name: string;
  bootstrap: string;
  child: ChildProcess;
  /** The next stdout line after the listening one (the mock's answers to stdin commands). */
  nextLine: () => Promise<string>;
}

/** CPU milliseconds per transaction (per 1000-record batch for idempotent) of the server process and of the client. */
interface PhaseCpu {
  serverCpuMs: number;
  clientCpuMs: number;
}

interface RoundResult {
  small: { txnsPerSec: number; commitP50Ms: number; commitP99Ms: number } & PhaseCpu;
  large: { MBps: number } & PhaseCpu;
  idempotent: { MBps: number } & PhaseCpu;
}

function startPeer(name: string, cmd: string, args: string[], pattern: RegExp): Promise<Peer> {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  const nextLine = (): Promise<string> => {
    const line = lines.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
  };
  return new Promise((resolve, reject) => {
    let listening = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (listening) {
        const w = waiting.shift();
        if (w) w(line);
        else lines.push(line);
        return;
      }
      const m = pattern.exec(line);
      if (m) {
        listening = true;
        resolve({ name, bootstrap: `127.0.0.1:${m[1]}`, child, nextLine });
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    child.once('error', reject);
  });
}

/**
 * The bench's topics have one partition on both peers: kafkalite auto-creates them with
 * `num.partitions` (1, Kafka's default), the mock would with 4 (rdkafka_mock.c), and librdkafka's
 * default partitioner spreads keyless records over all of them, so a mock transaction would carry
 * four partitions (four AddPartitionsToTxn entries, batches and markers) to kafkalite's one.
 */
async function createMockTopic(mock: Peer, topic: string): Promise<void> {
  mock.child.stdin!.write(JSON.stringify({ createTopic: topic, partitions: 1, replicationFactor: 1 }) + '\n');
  const answer = JSON.parse(await mock.nextLine()) as { createTopic: string; error: string | null };
  if (answer.createTopic !== topic || answer.error !== null) throw new Error(`${mock.name}: creating ${topic}: ${answer.error}`);
}

/** One round: the peers take turns inside one txn_bench.py run (bench/py/txn_bench.py's chunks), each on its own topic. */
async function round(peers: Peer[], topic: string, small = SMALL, large = LARGE): Promise<Record<string, RoundResult>> {
  for (const p of peers) if (p.name === 'librdkafka-mock') await createMockTopic(p, topic);
  const input = JSON.stringify({
    peers: peers.map((p) => ({ name: p.name, bootstrap: p.bootstrap, topic, server_pid: p.child.pid ?? 0 })),
    small_txns: small,
    large_txns: large,
    value_bytes: VALUE_BYTES,
  });
  const r = await runCommand(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'txn_bench.py')], { input, timeoutMs: 1_200_000 });
  if (r.code !== 0) throw new Error(`txn_bench.py exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString('utf8')) as Record<string, RoundResult>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (x: number, d = 1): string => x.toFixed(d);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-txn-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const serve = (name: string, root: string, dir: string, nodeFlags: string[] = []): Promise<Peer> =>
    startPeer(
      name,
      process.execPath,
      [...nodeFlags, join(root, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dir, '--log-level', 'warn', '--config', 'auto.create.topics.enable=true'],
      /listening on [^:]+:(\d+)/,
    );
  const kafkalite = await serve('kafkalite', REPO_ROOT, dataDir);
  const mock = await startPeer('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/);
  const peers = [kafkalite, mock];
  if (BEFORE !== undefined) {
    const beforeDir = join(dataDir, 'before');
    mkdirSync(beforeDir);
    peers.push(await serve('kafkalite-before', BEFORE, beforeDir, BEFORE_NODE_FLAGS));
  }
  const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`load average at start: ${load()} (2 cores)`);
  const results: Record<string, RoundResult[]> = Object.fromEntries(peers.map((p) => [p.name, []]));
  try {
    if (WARMUP > 0) {
      const w = await round(peers, 'txn-bench-warmup', WARMUP, Math.ceil(WARMUP / 100));
      for (const p of peers) console.log(`warm-up ${p.name}: ${WARMUP} transactions, ${f(w[p.name]!.small.txnsPerSec)} txn/s, server CPU ${f(w[p.name]!.small.serverCpuMs * 1000, 0)} us/txn (not counted)`);
    }
    for (let r = 0; r < ROUNDS; r++) {
      // the first chunk's order is the peers' order: rotated every round (txn_bench.py rotates every chunk)
      const rs = await round(r % 2 === 0 ? peers : [...peers].reverse(), `txn-bench-${r}`);
      for (const p of peers) {
        const res = rs[p.name]!;
        results[p.name]!.push(res);
        console.log(
          `round ${r + 1} ${p.name}: ${f(res.small.txnsPerSec)} txn/s (10 records), commit p50 ${f(res.small.commitP50Ms, 2)} ms p99 ${f(res.small.commitP99Ms, 2)} ms; ` +
            `1000-record txns ${f(res.large.MBps, 2)} MB/s, idempotent ${f(res.idempotent.MBps, 2)} MB/s; ` +
            `server CPU ${f(res.small.serverCpuMs * 1000, 0)} us per 10-record txn, ${f(res.large.serverCpuMs * 1000, 0)} us per 1000-record txn, ` +
            `${f(res.idempotent.serverCpuMs * 1000, 0)} us per idempotent 1000; client CPU ${f(res.small.clientCpuMs * 1000, 0)} us per 10-record txn`,
        );
      }
    }
  } finally {
    for (const p of peers) p.child.kill('SIGTERM');
  }
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, rs]) => [
      name,
      {
        txnsPerSecMedian: median(rs.map((x) => x.small.txnsPerSec)),
        commitP50MsMedian: median(rs.map((x) => x.small.commitP50Ms)),
        commitP99MsMedian: median(rs.map((x) => x.small.commitP99Ms)),
        largeMBpsMedian: median(rs.map((x) => x.large.MBps)),
        idempotentMBpsMedian: median(rs.map((x) => x.idempotent.MBps)),
        largeOverIdempotentMedian: median(rs.map((x) => x.large.MBps / x.idempotent.MBps)),
        serverCpuUsPerSmallTxnMedian: median(rs.map((x) => x.small.serverCpuMs * 1000)),
        clientCpuUsPerSmallTxnMedian: median(rs.map((x) => x.small.clientCpuMs * 1000)),
        serverCpuUsPerLargeTxnMedian: median(rs.map((x) => x.large.serverCpuMs * 1000)),
        serverCpuUsPerIdempotentBatchMedian: median(rs.map((x) => x.idempotent.serverCpuMs * 1000)),
      },
    ]),
  );
  console.log(`load average at end: ${load()}`);
  const k = summary.kafkalite!;
  const m = summary['librdkafka-mock']!;
  // the ratio to the mock as the README reports it: the median of the per-round ratios
  const vsMock = (name: string): string => {
    const ratios = results[name]!.map((x, i) => x.small.txnsPerSec / results['librdkafka-mock']![i]!.small.txnsPerSec);
    return `${f(median(ratios), 2)}x [${f(Math.min(...ratios), 2)}-${f(Math.max(...ratios), 2)}]`;
  };
  console.log(`kafkalite vs mock: ${vsMock('kafkalite')} the transactions per second; large transactions at ${f(k.largeOverIdempotentMedian * 100, 0)}% of idempotent throughput (mock ${f(m.largeOverIdempotentMedian * 100, 0)}%)`);
  const b = summary['kafkalite-before'];
  if (b !== undefined) {
    console.log(
      `kafkalite-before (${BEFORE}) vs mock: ${vsMock('kafkalite-before')}; large at ${f(b.largeOverIdempotentMedian * 100, 0)}% of idempotent; ` +
        `server CPU per 10-record txn ${f(b.serverCpuUsPerSmallTxnMedian, 0)} us, per 1000-record txn ${f(b.serverCpuUsPerLargeTxnMedian, 0)} us vs ${f(b.serverCpuUsPerIdempotentBatchMedian, 0)} us per idempotent 1000`,
    );
  }
  console.log(
    `server CPU per 10-record txn: kafkalite ${f(k.serverCpuUsPerSmallTxnMedian, 0)} us, mock ${f(m.serverCpuUsPerSmallTxnMedian, 0)} us (client ${f(k.clientCpuUsPerSmallTxnMedian, 0)} / ${f(m.clientCpuUsPerSmallTxnMedian, 0)} us); ` +
      `kafkalite per 1000-record txn ${f(k.serverCpuUsPerLargeTxnMedian, 0)} us vs ${f(k.serverCpuUsPerIdempotentBatchMedian, 0)} us per idempotent 1000`,
  );
  mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(REPO_ROOT, 'bench', 'results', 'transactions.json'),
    JSON.stringify({ date: new Date().toISOString(), node: process.version, before: BEFORE ?? null, beforeNodeFlags: BEFORE_NODE_FLAGS, rounds: ROUNDS, small: SMALL, large: LARGE, valueBytes: VALUE_BYTES, warmup: WARMUP, loadavg: loadavg(), results, summary }, null, 2) + '\n',
  );
}

await main();
