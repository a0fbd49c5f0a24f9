/**
 * `npm run bench` (consumer groups part): the same client, confluent-kafka-python (librdkafka),
 * against the kafkalite broker (`bin/kafkalite.js serve`, its own process, writing to disk) and
 * against librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py), in one run.
 *
 * Measured (bench/py/group_bench.py): rebalance time for 10 members subscribing at once to a
 * 100-partition topic in a fresh group (first subscribe until all 100 partitions are assigned across
 * the 10, range assignor), then offset commit throughput: the 10 members commit their partitions
 * synchronously in a loop (commits/s, one OffsetCommit request each). Commit errors, a rebalance
 * during the commit phase, committed offsets that do not read back, or a topic whose partition count
 * is not 100 fail the run.
 *
 * The topic: kafkalite creates it through CreateTopics; librdkafka 2.0.2's mock serves no
 * CreateTopics and would auto-create it with 4 partitions, so the mock's process creates it with
 * rd_kafka_mock_topic_create() on a stdin command before the round.
 *
 * Rebalance figures are bound by timers on both sides, not by broker work, and the report says so:
 * the mock elects a leader on a fixed 3000 ms timer started by the first JoinGroup of an Empty
 * group, never earlier (rdkafka_mock_cgrp.c rd_kafka_mock_cgrp_rebalance; MOCK_INITIAL_JOIN_MS),
 * so "past the wait" is its own work. kafkalite runs with group.initial.rebalance.delay.ms=0 (Kafka's
 * InitialDelayedJoin with no delay): the first generation forms with the members already in, a
 * late member starts another, and the members of the first learn of it from their SyncGroup
 * answer (tens of ms) or only from their next Heartbeat (heartbeat.interval.ms=1000: ~1-2 s),
 * whichever comes first in that round. The mock also answers a SyncGroup arriving after the
 * leader's with an error once the leader's has moved the group to Up (it counts assignments, not
 * synced members); that member rejoins and the next election waits session.timeout.ms - 1000:
 * such rounds show more than one generation and a ~32 s rebalance. Results: stdout and
 * bench/results/groups.json (overwritten; git keeps the history).
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
/** rdkafka_mock_cgrp.c: the first JoinGroup of an Empty group starts a fixed 3000 ms election timer. */
const MOCK_INITIAL_JOIN_MS = 3000;
/** kafkalite elects as soon as it can: Kafka's default 3000 ms delay would be extended while members keep arriving. */
const KAFKALITE_INITIAL_DELAY_MS = 0;

interface Peer {
  name: string;
  bootstrap: string;
  child: ChildProcess;
  /** The next stdout line after the listening one (the mock's answers to stdin commands). */
  nextLine: () => Promise<string>;
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

/** The mock's own topic creation (bench/py/rdkafka_mock_cluster.py stdin command): its Metadata auto-create would make 4 partitions. */
async function mockCreateTopic(mock: Peer, topic: string, partitions: number): Promise<void> {
  mock.child.stdin!.write(JSON.stringify({ createTopic: topic, partitions, replicationFactor: 1 }) + '\n');
  const answer = JSON.parse(await mock.nextLine()) as { createTopic: string; error: string | null };
  if (answer.createTopic !== topic || answer.error !== null) throw new Error(`${mock.name}: creating ${topic} with ${partitions} partitions: ${answer.error}`);
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
  /** Most on_assign calls of one member before the full assignment: 1 = one generation. */
  assignments: number;
  commits: number;
  perMember: number[];
  commitSeconds: number;
  commitsPerSec: number;
}

async function round(peer: Peer, n: number, createdByPeer: boolean): Promise<RoundResult> {
  const topic = `bench-groups-${n}`;
  if (createdByPeer) await mockCreateTopic(peer, topic, PARTITIONS);
  // a fresh group each round: a group left by the previous round's members is still on the mock's
  // session.timeout.ms - 1000 join timer when the next members arrive
  const input = { bootstrap: peer.bootstrap, topic, group: `${topic}-group`, partitions: PARTITIONS, members: MEMBERS, commitSeconds: COMMIT_S, createTopic: !createdByPeer };
  const r = await runCommand(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'group_bench.py')], { input: JSON.stringify(input), timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`group_bench.py against ${peer.name} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  const out = JSON.parse(r.stdout.toString()) as Omit<RoundResult, 'peer' | 'round'>;
  // group_bench.py checks this too; a partition count other than the one asked for makes the figures incomparable
  if (out.partitions !== PARTITIONS) throw new Error(`${peer.name}: ${topic} has ${out.partitions} partitions, expected ${PARTITIONS}`);
  if (out.commits <= 0) throw new Error(`${peer.name}: no commits in round ${n}`);
  return {
    peer: peer.name,
    round: n,
    partitions: out.partitions,
    rebalanceSeconds: out.rebalanceSeconds,
    assignments: out.assignments,
    commits: out.commits,
    perMember: out.perMember,
    commitSeconds: out.commitSeconds,
    commitsPerSec: out.commitsPerSec,
  };
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
    [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', '--config', `group.initial.rebalance.delay.ms=${KAFKALITE_INITIAL_DELAY_MS}`],
    /listening on [^:]+:(\d+)/,
  );
  const mock = await startPeer('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/);
  const peers = [kafkalite, mock];
  /** The broker's wait before the first election: kafkalite's group.initial.rebalance.delay.ms, the mock's fixed timer. */
  const initialJoinMs: Record<string, number> = { kafkalite: KAFKALITE_INITIAL_DELAY_MS, 'librdkafka-mock': MOCK_INITIAL_JOIN_MS };
  const rounds: RoundResult[] = [];
  try {
    // interleaved: each round runs on both peers back to back (the shared machine's load hits both)
    for (let n = 0; n < ROUNDS; n++) {
      for (const p of peers) {
        const r = await round(p, n, p === mock);
        rounds.push(r);
        console.log(
          `round ${n} ${p.name.padEnd(16)} ${r.partitions} partitions  rebalance ${f(r.rebalanceSeconds * 1000, 0).padStart(6)} ms (${r.assignments} generation${r.assignments === 1 ? '' : 's'})   ` +
            `commits ${f(r.commitsPerSec, 0).padStart(7)}/s (per member ${Math.min(...r.perMember)}-${Math.max(...r.perMember)})`,
        );
      }
    }
  } finally {
    await Promise.all(peers.map(stopPeer));
  }
  const summary = Object.fromEntries(
    peers.map((p) => {
      const mine = rounds.filter((r) => r.peer === p.name);
      const rebalanceMsMedian = median(mine.map((r) => r.rebalanceSeconds * 1000));
      return [
        p.name,
        {
          rebalanceMsMedian,
          initialJoinWaitMs: initialJoinMs[p.name]!,
          rebalancePastWaitMsMedian: rebalanceMsMedian - initialJoinMs[p.name]!,
          roundsWithExtraGenerations: mine.filter((r) => r.assignments > 1).length,
          commitsPerSecMedian: median(mine.map((r) => r.commitsPerSec)),
        },
      ];
    }),
  );
  const k = summary['kafkalite']!;
  const m = summary['librdkafka-mock']!;
  console.log(`\n${MEMBERS} members, ${PARTITIONS} partitions, ${ROUNDS} rounds of ${COMMIT_S} s commits (medians)`);
  console.log(`                 rebalance ms   of which join wait   past the wait   rounds >1 generation   commits/s`);
  for (const [name, s] of Object.entries(summary)) {
    console.log(
      `${name.padEnd(17)}${f(s.rebalanceMsMedian, 0).padStart(12)}   ${f(s.initialJoinWaitMs, 0).padStart(18)}   ${f(s.rebalancePastWaitMsMedian, 0).padStart(13)}   ` +
        `${`${s.roundsWithExtraGenerations}/${ROUNDS}`.padStart(20)}   ${f(s.commitsPerSecMedian, 0).padStart(9)}`,
    );
  }
  // the rebalance ratio compares timers more than brokers (see the header), so it is printed as such
  console.log(`kafkalite vs mock: commits ${f(k.commitsPerSecMedian / m.commitsPerSecMedian, 2)}x the rate; rebalance ${f(k.rebalanceMsMedian / m.rebalanceMsMedian, 2)}x the time (timer-bound on both)`);
  const results = {
    bench: 'groups',
    date: new Date().toISOString(),
    node: process.version,
    client: 'confluent-kafka-python (librdkafka)',
    members: MEMBERS,
    partitions: PARTITIONS,
    commitSeconds: COMMIT_S,
    kafkaliteConfig: { 'group.initial.rebalance.delay.ms': String(KAFKALITE_INITIAL_DELAY_MS) },
    mockInitialJoinMs: MOCK_INITIAL_JOIN_MS,
    rounds,
    summary,
    totalSeconds: (Date.now() - t0) / 1000,
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'groups.json');
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`\ntotal ${f(results.totalSeconds)} s; results written to ${file}`);
}

await main();
