/**
 * `npm run bench` (consumer groups part): the same client, confluent-kafka-python (librdkafka),
 * against the kafkalite broker (`bin/kafkalite.js serve`, its own process, writing to disk) and
 * against librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py), in one run.
 *
 * Measured (bench/py/group_bench.py): rebalance time for 10 members subscribing at once to a
 * 100-partition topic (first subscribe until all 100 partitions are assigned across the 10, range
 * assignor), then offset commit throughput: the 10 members commit their partitions synchronously
 * in a loop (commits/s, one OffsetCommit request each). kafkalite runs with
 * group.initial.rebalance.delay.ms=0, since the mock has no initial delay (Kafka's default 3000 ms
 * would dominate the figure). librdkafka 2.0.2's mock does not serve CreateTopics and auto-creates
 * topics with its default partition count: each round reports the partition count it really had. Results: stdout and bench/results/<date>-groups.json.
 * Environment: BENCH_GROUP_COMMIT_S (10: seconds of commits per peer), BENCH_GROUP_ROUNDS (3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON, runCommand } from '../test/helpers/python-peer.js';

const COMMIT_S = Number(process.env.BENCH_GROUP_COMMIT_S ?? 10);
const ROUNDS = Number(process.env.BENCH_GROUP_ROUNDS ?? 3);
const MEMBERS = 10;
const PARTITIONS = 100;

interface Peer {
  name: string;
  bootstrap: string;
  child: ChildProcess;
}

function startPeer(name: string, cmd: string, args: string[], pattern: RegExp): Promise<Peer> {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = pattern.exec(line);
      if (m) resolve({ name, bootstrap: `127.0.0.1:${m[1]}`, child });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    child.once('error', reject);
  });
}

function stopPeer(p: Peer): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null) return resolve();
    p.child.once('exit', () => resolve());
    p.child.stdin?.end();
    p.child.kill('SIGTERM');
  });
}

interface RoundResult {
  peer: string;
  round: number;
  partitions: number;
  rebalanceSeconds: number;
  commits: number;
  commitSeconds: number;
  commitsPerSec: number;
}

async function round(peer: Peer, n: number): Promise<RoundResult> {
  const input = { bootstrap: peer.bootstrap, topic: `bench-groups-${n}`, partitions: PARTITIONS, members: MEMBERS, commitSeconds: COMMIT_S };
  const r = await runCommand(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'group_bench.py')], { input: JSON.stringify(input), timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`group_bench.py against ${peer.name} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  const out = JSON.parse(r.stdout.toString()) as Omit<RoundResult, 'peer' | 'round'>;
  return { peer: peer.name, round: n, partitions: out.partitions, rebalanceSeconds: out.rebalanceSeconds, commits: out.commits, commitSeconds: out.commitSeconds, commitsPerSec: out.commitsPerSec };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (n: number, d = 1): string => n.toFixed(d);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-groups-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const t0 = Date.now();
  const kafkalite = await startPeer(
    'kafkalite',
    process.execPath,
    [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', '--config', 'group.initial.rebalance.delay.ms=0'],
    /listening on [^:]+:(\d+)/,
  );
  const mock = await startPeer('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/);
  const peers = [kafkalite, mock];
  const rounds: RoundResult[] = [];
  try {
    // interleaved: each round runs on both peers back to back (the shared machine's load hits both)
    for (let n = 0; n < ROUNDS; n++) {
      for (const p of peers) {
        const r = await round(p, n);
        rounds.push(r);
        console.log(`round ${n} ${p.name.padEnd(16)} ${r.partitions} partitions  rebalance ${f(r.rebalanceSeconds * 1000, 0).padStart(6)} ms   commits ${f(r.commitsPerSec, 0).padStart(7)}/s`);
      }
    }
  } finally {
    await Promise.all(peers.map(stopPeer));
  }
  const summary = Object.fromEntries(
    peers.map((p) => {
      const mine = rounds.filter((r) => r.peer === p.name);
      return [p.name, { rebalanceMsMedian: median(mine.map((r) => r.rebalanceSeconds * 1000)), commitsPerSecMedian: median(mine.map((r) => r.commitsPerSec)) }];
    }),
  );
  const k = summary['kafkalite']!;
  const m = summary['librdkafka-mock']!;
  console.log(`\n${MEMBERS} members, ${PARTITIONS} partitions, ${ROUNDS} rounds (medians)`);
  console.log(`                 rebalance ms   commits/s`);
  for (const [name, s] of Object.entries(summary)) console.log(`${name.padEnd(17)}${f(s.rebalanceMsMedian, 0).padStart(12)}   ${f(s.commitsPerSecMedian, 0).padStart(9)}`);
  console.log(`kafkalite vs mock: rebalance ${f(k.rebalanceMsMedian / m.rebalanceMsMedian, 2)}x the time, commits ${f(k.commitsPerSecMedian / m.commitsPerSecMedian, 2)}x the rate`);
  const results = {
    bench: 'groups',
    date: new Date().toISOString(),
    node: process.version,
    client: 'confluent-kafka-python (librdkafka)',
    members: MEMBERS,
    partitions: PARTITIONS,
    commitSeconds: COMMIT_S,
    kafkaliteConfig: { 'group.initial.rebalance.delay.ms': '0' },
    rounds,
    summary,
    totalSeconds: (Date.now() - t0) / 1000,
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${results.date}-groups.json`.replace(/:/g, '-'));
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`\ntotal ${f(results.totalSeconds)} s; results written to ${file}`);
}

await main();
