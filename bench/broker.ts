/**
 * `npm run bench` (broker part): the kafkalite broker (`bin/kafkalite.js serve`, its own process, writing
 * to disk) side by side with librdkafka's in-memory mock cluster (C; started by
 * confluent-kafka-python with test.mock.num.brokers=1, bench/py/rdkafka_mock_cluster.py) and the
 * physical limit — a null server in another Node process that reads each request frame and answers
 * it with a bare header, over the same loopback TCP — and the same null server persisting what it
 * reads (`loopback+disk`: writeSync to a file with the broker's page-cache hints, before answering),
 * the floor for any broker in Node that stores what it acknowledges. One load client (this process,
 * the repo's raw protocol client) drives all four with the same pre-encoded requests.
 *
 * Produce: 1 KiB records in batches of 16 KiB and ~1 MiB (the largest batch under Kafka's default
 * max.message.bytes 1048588), acks=1 and acks=all, from 1 connection and from 8, each connection
 * keeping 5 requests in flight (librdkafka's max.in.flight default). Reported: MB/s and records/s,
 * and the latency of each produce request from write to acknowledgement (p50/p99). Every peer first
 * gets an unmeasured warm-up (BENCH_WARMUP_REQUESTS requests per batch size, or BENCH_WARMUP_MIB); each case then runs BENCH_ROUNDS
 * (one per peer) rounds with the peers' order balanced (round-order.ts), and the table shows each peer's median round and the median
 * [min-max] of the per-round ratios (the machine is shared: a slow moment hits one round). Consume: Fetch
 * (v11, max_bytes 1 MiB, one request in flight) of what the 1-connection acks=1 runs produced, in
 * the same balanced rounds.
 * Broker RSS is sampled every 250 ms over its runs (/proc); BENCH_SOAK_MIN=10 adds a produce soak
 * of that many minutes with the RSS curve. Results: stdout and bench/results/broker.json (overwritten; git keeps the history).
 * Environment: BENCH_BROKER_MIB (1024: MiB per produce run; with 8 connections x 5 in flight x 1 MiB, 40 MiB are in flight at once, so a shorter run measures mostly its ramp; and a 256 MiB run at 1 MiB is 256 requests, 0.15 s on an idle machine, and the per-round ratios of one such case spread from 0.63 to 1.82), BENCH_SOAK_MIN (0), BENCH_CASES (e.g.
 * `16KiB-acks1-x1,1MiB-acksall-x8`: only these produce cases), BENCH_BROKER_NODE_FLAGS (e.g. `--cpu-prof`),
 * BENCH_BASELINE_BROKER (another build's bin/kafkalite.js, measured alongside as `kafkalite-base`),
 * BENCH_BROKER_CONFIG (broker properties for both, e.g. `log.segment.bytes=67108864`), BENCH_BROKER_LOG_LEVEL
 * (`debug`: the broker's request metrics, queue/handle/append/write per API, every 30 s on stderr),
 * BENCH_CONSOLE=1 (issue 22's A/B: a second kafkalite, `kafkalite+console`, served with `--ui-port 0` and
 * no page open, in the same balanced rounds; its throughput and CPU time are compared with kafkalite's).
 * Each produce run also records the peer's CPU time (bench/proc-cpu.ts: every thread's schedstat) over the run;
 * the table gives it per MiB for kafkalite and loopback+disk (and kafkalite-base), with their ratio per round.
 * Before each produce run the bench waits until the kernel's dirty and writeback pages are below
 * 32 MiB, and after dropping a topic until the broker has removed it.
 */
import { spawnListening, stopChild } from './child.js';
import { cpuMsOf } from './proc-cpu.js';
import { roundOrder } from './round-order.js';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rm, rmSync, statfsSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReads } from '../src/broker/socket-reads.js';
import { encodeRecordBatch } from '../src/record/builder.js';
import { PAGE_BYTES, PageCacheBudget, WRITEBACK_CHUNK_BYTES } from '../src/storage/page-cache-budget.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON } from '../test/helpers/python-peer.js';
import { decodeResponseFrame, encodeRequestFrame, RawClient, type Msg } from '../test/helpers/raw-client.js';

const RUN_MIB = Number(process.env.BENCH_BROKER_MIB ?? 1024);
const SOAK_MIN = Number(process.env.BENCH_SOAK_MIN ?? 0);
/** Comma-separated case names to run (e.g. `16KiB-acks1-x1`); all cases when unset (consume needs the acks=1 x1 ones). */
const ONLY_CASES = process.env.BENCH_CASES?.split(',');
/** Extra Node flags for the kafkalite broker process (e.g. `--cpu-prof`). */
const BROKER_NODE_FLAGS = process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
/** `debug`: the kafkalite broker prints its request metrics (request-metrics.ts) every 30 s on stderr. */
const BROKER_LOG_LEVEL = process.env.BENCH_BROKER_LOG_LEVEL ?? 'warn';
/**
 * Requests per batch size produced before anything is measured (BENCH_WARMUP_MIB instead gives it in
 * MiB). V8 optimizes a function after it ran long enough (interrupt budget x ticks: about 5,000
 * calls of the request path's larger functions), so a 1 MiB stream, at ~1,500 requests a second,
 * ran its first ~3 s in baseline code (`--trace-opt`: onData, the Produce handler, the validator
 * completed optimizing only between requests 2,500 and 5,400; the warm-up's 4,000 requests of each
 * batch size make 8,000 calls of the functions both share), and the 16 MiB warm-up of earlier
 * runs left the 1 MiB rounds measuring that (kafkalite's rounds 1-2 of 1 MiB acks=1 x1 at 1 GiB a run: 1,445 and 1,589 MB/s, rounds 3-5: 1,907-2,036).
 */
const WARMUP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 4000);
const WARMUP_MIB = process.env.BENCH_WARMUP_MIB === undefined ? undefined : Number(process.env.BENCH_WARMUP_MIB);
/**
 * Another build's `bin/kafkalite.js` (e.g. a `git worktree` of the previous commit): run as a fourth
 * peer, `kafkalite-base`, in the same rounds, so a change is measured against its baseline under
 * the same machine conditions (this VM's speed drifts by 2x between runs).
 */
const BASELINE_BROKER = process.env.BENCH_BASELINE_BROKER || undefined;
/** Extra broker properties for kafkalite (and the baseline), e.g. `log.segment.bytes=67108864` to make the logs roll. */
/** Adds `kafkalite+console`: the same broker with the web console on (`--ui-port 0`), nobody looking. */
const CONSOLE_AB = process.env.BENCH_CONSOLE === '1';
/** kafkalite, the mock, loopback and loopback+disk, and the optional kafkalite-base and kafkalite+console. */
const PEER_COUNT = 4 + (BASELINE_BROKER !== undefined ? 1 : 0) + (CONSOLE_AB ? 1 : 0);
/**
 * Rounds per produce case (each peer once per round), in the order of round-order.ts. The default,
 * one round per peer, runs every peer once in every position; with an even number of peers (the
 * default 4) every peer also runs directly after every other once.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? PEER_COUNT);
const BROKER_CONFIG = (process.env.BENCH_BROKER_CONFIG ?? '').split(/[\s,]+/).filter(Boolean).flatMap((kv) => ['--config', kv]);
const MiB = 1024 * 1024;
const RECORD_BYTES = 1024;
const IN_FLIGHT = 5;
const PRODUCE_VERSION = 7; // the highest both kafkalite and librdkafka 2.0.2's mock serve
const FETCH_VERSION = 11;
const MAX_MESSAGE_BYTES = 1048588;

// ---- the null server (physical limit) -----------------------------------------------------------

/**
 * Reads frames, answers each with an 8-byte frame (size + correlation id): loopback's own cost. It
 * never assembles a frame (no copy, no allocation per frame): it walks the size prefixes across
 * chunks and reads only each frame's correlation id (bytes 4-8 after the size), so what it measures
 * is the socket, not a frame decoder.
 */
function nullServer(persistDir?: string): void {
  // reads land in one reused buffer (the broker's own socket-reads.ts path), not a fresh chunk per read
  const readBuffer = Buffer.allocUnsafeSlow(1024 * 1024);
  const persist = persistDir === undefined ? undefined : appendOnlyFile(persistDir);
  const server: Server = createServer({ pauseOnConnect: true }, (accepted) => {
    let onChunk: (chunk: Buffer) => void = () => undefined;
    const s = startReads(accepted, { target: () => readBuffer, filled: (n, buf) => onChunk(buf.subarray(0, n)), chunk: (data) => onChunk(data) });
    s.setNoDelay(true);
    // the next frame's size prefix (4) + apiKey/apiVersion (4) + correlation id (4), as they arrive
    const head = Buffer.alloc(12);
    let headFilled = 0;
    /** Bytes of the current frame's body still to skip once its head is known. */
    let skip = 0;
    onChunk = (chunk: Buffer) => {
      // the persisting variant stores what arrived before it answers, as a broker must
      persist?.(chunk);
      const answers: Buffer[] = [];
      const answer = () => {
        const a = Buffer.allocUnsafe(8);
        a.writeInt32BE(4, 0);
        a.writeInt32BE(head.readInt32BE(8), 4);
        answers.push(a);
      };
      let pos = 0;
      while (pos < chunk.length) {
        if (skip > 0) {
          const k = Math.min(skip, chunk.length - pos);
          skip -= k;
          pos += k;
          if (skip === 0) answer(); // the whole request is in: answer it
          continue;
        }
        const k = Math.min(12 - headFilled, chunk.length - pos);
        chunk.copy(head, headFilled, pos, pos + k);
        headFilled += k;
        pos += k;
        if (headFilled < 12) break;
        headFilled = 0;
        skip = head.readInt32BE(0) - 8;
        if (skip === 0) answer();
      }
      if (answers.length > 0) s.write(answers.length === 1 ? answers[0]! : Buffer.concat(answers));
    };
    s.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    process.stdout.write(`null server listening on 127.0.0.1:${typeof a === 'object' && a ? a.port : 0}\n`);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  // an exit, not death by signal, so a --cpu-prof given to it is written
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * For the persisting null server: appends every byte received to files of 1 GiB in `dir` with
 * writeSync, as FileRecords.append does, with the same page-cache hints (page-cache-budget.ts),
 * so its figure is the floor for reading, persisting and answering in one Node process.
 */
function appendOnlyFile(dir: string): (bytes: Buffer) => void {
  const FILE_BYTES = 1024 * MiB;
  let n = 0;
  const open = () => {
    const path = join(dir, `floor-${n++}.log`);
    return { path, pageCacheFd: openSync(path, 'w'), pageCacheClosed: false, pageCacheColdBefore: 0, pageCacheReadDroppedTo: 0, size: 0, writebackFrom: 0 };
  };
  let file = open();
  const pageCacheBudget = new PageCacheBudget();
  return (bytes) => {
    if (file.size + bytes.length > FILE_BYTES) {
      closeSync(file.pageCacheFd);
      file.pageCacheClosed = true;
      // off the event loop, as the broker removes deleted segments (background-delete.ts): inline,
      // unlinking a written-back 1 GiB file stopped this server for about 0.4 s (ext4 with discard)
      rm(file.path, { force: true }, (e) => {
        if (e) throw e;
      });
      file = open();
    }
    let done = 0;
    while (done < bytes.length) done += writeSync(file.pageCacheFd, bytes, done, bytes.length - done, file.size + done);
    file.size += bytes.length;
    if (file.size - file.writebackFrom >= WRITEBACK_CHUNK_BYTES) {
      // whole pages only, as FileRecords.startWriteback
      const to = file.size - (file.size % PAGE_BYTES);
      pageCacheBudget.written(file, file.writebackFrom, to);
      file.writebackFrom = to;
    }
  };
}

// ---- peers ----------------------------------------------------------------------------------------

interface Peer {
  name: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Whether the peer stores what it receives (the null server does not parse it). */
  stores: boolean;
  /** A kafkalite peer's data directory. */
  dataDir?: string;
}

async function startChild(name: string, cmd: string, args: string[], pattern: RegExp, stores: boolean): Promise<Peer> {
  const { child, port } = await spawnListening(name, cmd, args, pattern);
  return { name, port, pid: child.pid!, child, stores };
}

function stopPeer(p: Peer): Promise<void> {
  return stopChild(p.child);
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ---- workloads ------------------------------------------------------------------------------------

interface ProduceCase {
  batch: '16KiB' | '1MiB';
  acks: 1 | -1;
  connections: 1 | 8;
}

/** One pre-encoded batch per size, reused for every request (fresh large buffers cost page faults). */
const BATCHES = new Map<string, { records: Buffer; count: number }>();
function batchFor(kind: '16KiB' | '1MiB'): { records: Buffer; count: number } {
  let b = BATCHES.get(kind);
  if (b) return b;
  const value = Buffer.alloc(RECORD_BYTES, 0x61);
  let count = kind === '16KiB' ? 16 : 1024;
  let records: Buffer;
  for (;;) {
    records = encodeRecordBatch(Array.from({ length: count }, () => ({ value })));
    if (records.length <= Math.min(MAX_MESSAGE_BYTES, kind === '16KiB' ? 16 * 1024 + 1024 : MAX_MESSAGE_BYTES)) break;
    count--;
  }
  b = { records, count };
  BATCHES.set(kind, b);
  return b;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function ensureTopic(port: number, topic: string): Promise<void> {
  const c = await RawClient.connect(port);
  // Metadata v2: the mock serves up to v2, and before v4 every request may auto-create
  const r = await c.request(3, 2, { topics: [{ name: topic }] });
  c.destroy();
  if (r.topics[0].errorCode !== 0) throw new Error(`topic ${topic}: error ${r.topics[0].errorCode}`);
}

/** One connection producing `requests` requests, IN_FLIGHT at a time; returns the latencies (ms). */
async function produceOn(client: RawClient, topic: string, c: ProduceCase, requests: number, checkAnswers: boolean): Promise<number[]> {
  const { records } = batchFor(c.batch);
  const body: Msg = { transactionalId: null, acks: c.acks, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] };
  // one frame per in-flight slot, its correlation id patched only after its answer came back
  const frames = Array.from({ length: IN_FLIGHT }, (_, s) => encodeRequestFrame(0, PRODUCE_VERSION, s, body, 'bench'));
  const latencies: number[] = [];
  let sent = 0;
  const slot = async (s: number): Promise<void> => {
    while (sent < requests) {
      const id = sent++;
      frames[s]!.writeInt32BE(id, 8);
      const answer = client.nextFrame();
      const t0 = performance.now();
      client.send(frames[s]!);
      const frame = await answer;
      latencies.push(performance.now() - t0);
      if (checkAnswers) {
        const r = decodeResponseFrame(0, PRODUCE_VERSION, frame);
        const p = r.body.responses[0].partitionResponses[0];
        if (p.errorCode !== 0) throw new Error(`produce to ${topic} failed with error ${p.errorCode}`);
      }
    }
  };
  // answers come in order, so awaiting nextFrame() in send order pairs them up
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, s) => slot(s)));
  client.destroy();
  return latencies;
}

interface ProduceResult extends ProduceCase {
  peer: string;
  /** Which round of the case (0-based; the table reports the median round per peer). */
  round?: number;
  requests: number;
  bytes: number;
  records: number;
  seconds: number;
  mbPerSec: number;
  recordsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** The peer process's CPU time over the run (user + system). */
  cpuMs?: number;
}

async function runProduce(peer: Peer, c: ProduceCase, topic: string, mib = RUN_MIB): Promise<ProduceResult> {
  const { records, count } = batchFor(c.batch);
  const total = Math.max(c.connections * IN_FLIGHT, Math.round((mib * MiB) / records.length));
  const perConn = Math.ceil(total / c.connections);
  // connected before the clock starts, as a client keeps its connections: librdkafka's mock listens
  // with a backlog of 5 (`ss -ltn`), so 8 connects at once while it is busy can overflow its accept
  // queue (TcpExtListenOverflows), and the dropped handshake is retried by TCP after 1 s — timed,
  // that second was most of a run's duration
  const clients = await Promise.all(Array.from({ length: c.connections }, () => RawClient.connect(peer.port)));
  const t0 = performance.now();
  const lats = await Promise.all(clients.map((client) => produceOn(client, topic, c, perConn, peer.stores)));
  const seconds = (performance.now() - t0) / 1000;
  const all = lats.flat().sort((a, b) => a - b);
  const requests = perConn * c.connections;
  return {
    ...c,
    peer: peer.name,
    requests,
    bytes: requests * records.length,
    records: requests * count,
    seconds,
    mbPerSec: (requests * records.length) / MiB / seconds,
    recordsPerSec: (requests * count) / seconds,
    p50Ms: quantile(all, 0.5),
    p99Ms: quantile(all, 0.99),
  };
}

/** Fetches the whole partition from its log start (1 MiB per request) and returns MB/s. */
async function runConsume(peer: Peer, topic: string): Promise<{ peer: string; topic: string; bytes: number; seconds: number; mbPerSec: number }> {
  const client = await RawClient.connect(peer.port);
  // from the log start: librdkafka's mock keeps a bounded number of message sets per partition
  const lo = await client.request(2, 1, { replicaId: -1, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -2n }] }] });
  let offset = lo.topics[0].partitions[0].offset as bigint;
  let bytes = 0;
  const t0 = performance.now();
  for (;;) {
    const r = await client.request(1, FETCH_VERSION, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: MiB,
      isolationLevel: 0,
      topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: MiB }] }],
    });
    const p = r.responses[0].partitions[0];
    if (p.errorCode !== 0) throw new Error(`fetch ${topic} at ${offset}: error ${p.errorCode}`);
    const recs = p.records as Buffer | null;
    if (recs === null || recs.length === 0) break;
    bytes += recs.length;
    // walk the batch headers: next offset = last batch's baseOffset + lastOffsetDelta + 1
    let pos = 0;
    let next = offset;
    while (pos + 61 <= recs.length) {
      const len = recs.readInt32BE(pos + 8);
      if (pos + 12 + len > recs.length) break;
      next = recs.readBigInt64BE(pos) + BigInt(recs.readInt32BE(pos + 23)) + 1n;
      pos += 12 + len;
    }
    if (next === offset) break;
    offset = next;
    if (offset >= (p.highWatermark as bigint)) break;
  }
  const seconds = (performance.now() - t0) / 1000;
  client.destroy();
  return { peer: peer.name, topic, bytes, seconds, mbPerSec: bytes / MiB / seconds };
}

/**
 * Deletes a topic from the brokers that keep it on disk (kafkalite's; the mock keeps a bounded
 * amount in memory and the floor rewrites one file): once its case is measured, or after the
 * warm-up. A full run at 1 GiB a round wrote about 28 GiB per kafkalite broker before.
 */
async function dropTopic(p: Peer, topic: string): Promise<void> {
  if (!p.name.startsWith('kafkalite')) return;
  const c = await RawClient.connect(p.port);
  const r = await c.request(20, 4, { topicNames: [topic], timeoutMs: 30_000 });
  c.destroy();
  if (r.responses[0].errorCode !== 0) throw new Error(`deleting ${topic} on ${p.name}: error ${r.responses[0].errorCode}`);
  // the broker removes the renamed directory off its event loop (background-delete.ts): the next
  // run starts once it is gone, so no peer's run shares the device with that removal
  if (p.dataDir !== undefined) await removalsDone(p.dataDir);
}

/**
 * Waits (at most 10 s) until the kernel holds less than 32 MiB dirty or under writeback
 * (/proc/meminfo): a produce run starts on an idle device, not on the writeback the run before
 * left. In the disk-bound 1 MiB cases a peer's throughput moved by up to 2x from round to round
 * (bench/README.md, session 14).
 */
async function settleWriteback(): Promise<void> {
  const until = Date.now() + 10_000;
  const pendingMiB = (): number => {
    let kib = 0;
    for (const m of readFileSync('/proc/meminfo', 'utf8').matchAll(/^(?:Dirty|Writeback):\s+(\d+) kB$/gm)) kib += Number(m[1]);
    return kib / 1024;
  };
  while (pendingMiB() >= 32 && Date.now() < until) await sleep(20);
}

/** Waits (at most 60 s) until `dataDir` holds no `-delete` directory. */
async function removalsDone(dataDir: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (readdirSync(dataDir).some((n) => n.endsWith('-delete')) && Date.now() < until) await sleep(20);
}

/**
 * Fails at once when the data directory's file system cannot hold a run: per kafkalite broker the
 * largest of the warm-up and, later, the two topics kept for the consume rounds plus the case being
 * measured (each ROUNDS x RUN_MIB); the floor's file adds 1 GiB.
 */
function checkFreeSpace(dir: string): void {
  const brokers = 1 + (BASELINE_BROKER !== undefined ? 1 : 0) + (CONSOLE_AB ? 1 : 0);
  // the warm-up topics are dropped one at a time: at most the 1 MiB one is there (WARMUP_REQUESTS MiB)
  const perBroker = Math.max(WARMUP_MIB ?? WARMUP_REQUESTS, 3 * ROUNDS * RUN_MIB) * MiB;
  const need = brokers * perBroker + 1024 * MiB;
  const st = statfsSync(dir);
  const free = st.bavail * st.bsize;
  if (free < need) {
    throw new Error(`the bench needs about ${Math.ceil(need / 1024 ** 3)} GiB free under ${dir}, which has ${(free / 1024 ** 3).toFixed(1)} GiB: set BENCH_BROKER_MIB or BENCH_ROUNDS lower`);
  }
}

// ---- main -----------------------------------------------------------------------------------------

const f = (n: number, d = 1): string => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-broker-'));
  const cleanup = (): void => rmSync(dataDir, { recursive: true, force: true });
  process.on('exit', cleanup);
  checkFreeSpace(dataDir);
  const self = new URL(import.meta.url).pathname;
  const kafkalite: Peer = { ...(await startChild('kafkalite', process.execPath, [...BROKER_NODE_FLAGS, join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', BROKER_LOG_LEVEL, '--config', 'log.retention.check.interval.ms=5000', ...BROKER_CONFIG], /listening on [^:]+:(\d+)/, true)), dataDir };
  const mock = await startChild('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/, true);
  const loopback = await startChild('loopback-limit', process.execPath, [self, 'null-server'], /listening on [^:]+:(\d+)/, false);
  const floorDir = join(dataDir, 'floor');
  mkdirSync(floorDir);
  const diskFloor = await startChild('loopback+disk', process.execPath, [self, 'null-server', floorDir], /listening on [^:]+:(\d+)/, false);
  const peers = [kafkalite, mock, loopback, diskFloor];
  if (BASELINE_BROKER !== undefined) {
    const baseDir = join(dataDir, 'baseline');
    mkdirSync(baseDir);
    peers.push({ ...(await startChild('kafkalite-base', process.execPath, [BASELINE_BROKER, 'serve', '--port', '0', '--data-dir', baseDir, '--log-level', 'warn', '--config', 'log.retention.check.interval.ms=5000', ...BROKER_CONFIG], /listening on [^:]+:(\d+)/, true)), dataDir: baseDir });
  }

  if (CONSOLE_AB) {
    const consoleDir = join(dataDir, 'console');
    mkdirSync(consoleDir);
    peers.push({ ...(await startChild('kafkalite+console', process.execPath, [...BROKER_NODE_FLAGS, join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--ui-port', '0', '--data-dir', consoleDir, '--log-level', BROKER_LOG_LEVEL, '--config', 'log.retention.check.interval.ms=5000', ...BROKER_CONFIG], /listening on [^:]+:(\d+)/, true)), dataDir: consoleDir });
  }

  const rss: { t: number; mib: number }[] = [];
  const t0 = Date.now();
  const sampler = setInterval(() => rss.push({ t: (Date.now() - t0) / 1000, mib: rssMiB(kafkalite.pid) }), 250);

  const cases: ProduceCase[] = [];
  for (const batch of ['16KiB', '1MiB'] as const) for (const acks of [1, -1] as const) for (const connections of [1, 8] as const) {
    if (!ONLY_CASES || ONLY_CASES.includes(`${batch}-acks${acks === -1 ? 'all' : '1'}-x${connections}`)) cases.push({ batch, acks, connections });
  }
  const produce: ProduceResult[] = [];
  const consumeTopics: string[] = [];
  try {
    // warm-up, not measured: every peer gets the same load once, so a JIT (kafkalite, the load
    // client) and first-touch memory are not charged to whichever case happens to run first
    for (const p of peers) {
      for (const batch of ['16KiB', '1MiB'] as const) {
        const topic = `bench-warmup-${batch}`;
        if (p.stores) await ensureTopic(p.port, topic);
        await runProduce(p, { batch, acks: 1, connections: 1 }, topic, WARMUP_MIB ?? (WARMUP_REQUESTS * batchFor(batch).records.length) / MiB);
        await dropTopic(p, topic);
      }
    }
    for (const c of cases) {
      const topic = `bench-${c.batch}-acks${c.acks === -1 ? 'all' : '1'}-c${c.connections}`;
      if (c.acks === 1 && c.connections === 1) consumeTopics.push(topic);
      for (const p of peers) if (p.stores) await ensureTopic(p.port, topic);
      // rounds interleaved per case, in a balanced order (round-order.ts): what the machine's other
      // load, or the peer before (its writeback), does to one round lands on every peer alike
      for (let round = 0; round < ROUNDS; round++) {
        for (const p of roundOrder(peers, round)) {
          await settleWriteback();
          const cpu0 = cpuMsOf(p.pid);
          const r = await runProduce(p, c, topic);
          produce.push({ ...r, round, cpuMs: cpuMsOf(p.pid) - cpu0 });
          console.log(`produce ${c.batch} acks=${c.acks === -1 ? 'all' : 1} x${c.connections} round ${round + 1} ${p.name.padEnd(16)} ${f(r.mbPerSec).padStart(8)} MB/s ${f(r.recordsPerSec, 0).padStart(9)} rec/s  p50 ${f(r.p50Ms, 2)} ms  p99 ${f(r.p99Ms, 2)} ms`);
        }
      }
      if (!consumeTopics.includes(topic)) for (const p of peers) await dropTopic(p, topic);
    }
    // rounds in the balanced order, as for produce: the first reader of a round pays a cold start
    // (the same build in two slots read ~10% slower in the first)
    const consume: (Awaited<ReturnType<typeof runConsume>> & { round: number })[] = [];
    const readers = peers.filter((x) => x.stores);
    for (const topic of consumeTopics) {
      for (let round = 0; round < ROUNDS; round++) {
        for (const p of roundOrder(readers, round)) {
          const r = await runConsume(p, topic);
          consume.push({ ...r, round });
          console.log(`consume ${topic.padEnd(24)} round ${round + 1} ${p.name.padEnd(16)} ${f(r.mbPerSec).padStart(8)} MB/s (${f(r.bytes / MiB, 0)} MiB)`);
        }
      }
    }
    let soak: { minutes: number; rss: { t: number; mib: number }[]; mbPerSec: number } | undefined;
    if (SOAK_MIN > 0) {
      const start = rss.length;
      const until = Date.now() + SOAK_MIN * 60_000;
      let bytes = 0;
      const s0 = performance.now();
      // retention keeps the soak's disk use bounded (and exercises segment deletion under load)
      const admin = await RawClient.connect(kafkalite.port);
      const created = await admin.request(19, 4, {
        topics: [{ name: 'bench-soak', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [
          { name: 'retention.bytes', value: String(512 * MiB) },
          { name: 'segment.bytes', value: String(64 * MiB) },
          { name: 'file.delete.delay.ms', value: '1000' },
        ] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      admin.destroy();
      if (created.topics[0].errorCode !== 0) throw new Error(`bench-soak: error ${created.topics[0].errorCode}`);
      while (Date.now() < until) {
        const r = await runProduce(kafkalite, { batch: '1MiB', acks: 1, connections: 8 }, 'bench-soak');
        bytes += r.bytes;
      }
      soak = { minutes: SOAK_MIN, rss: rss.slice(start), mbPerSec: bytes / MiB / ((performance.now() - s0) / 1000) };
    }
    clearInterval(sampler);

    // ---- table --------------------------------------------------------------------------------
    console.log(`\nproduce (MB/s, rec/s, request latency p50/p99 ms): each peer's median round of ${ROUNDS}; ratios: median [min-max] of the per-round ratios`);
    console.log('case                      kafkalite                         librdkafka mock                   loopback limit    vs mock              vs limit');
    const summary: Record<string, unknown>[] = [];
    for (const c of cases) {
      const rounds = (peer: string) =>
        produce.filter((r) => r.peer === peer && r.batch === c.batch && r.acks === c.acks && r.connections === c.connections).sort((a, b) => (a.round ?? 0) - (b.round ?? 0));
      const medianRound = (rs: ProduceResult[]) => [...rs].sort((a, b) => a.mbPerSec - b.mbPerSec)[Math.floor(rs.length / 2)]!;
      const ratio = (a: ProduceResult[], b: ProduceResult[]) => {
        const xs = a.map((r, i) => r.mbPerSec / b[i]!.mbPerSec).sort((x, y) => x - y);
        return { median: xs[Math.floor(xs.length / 2)]!, min: xs[0]!, max: xs[xs.length - 1]! };
      };
      // CPU per MiB written, every thread of the peer's process (proc-cpu.ts): steadier from round to
      // round than MB/s, which on a small machine moves with whatever else runs
      const cpuPerMiB = (rs: ProduceResult[]) => rs.map((r) => (r.cpuMs ?? NaN) / (r.bytes / MiB)).sort((a, b) => a - b);
      const cpuRatio = (a: ProduceResult[], b: ProduceResult[]) => a.map((r, i) => (r.cpuMs ?? NaN) / (r.bytes / MiB) / ((b[i]!.cpuMs ?? NaN) / (b[i]!.bytes / MiB))).sort((x, y) => x - y);
      const mid = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
      const spread = (xs: number[]) => `${f(mid(xs), 2)} [${f(xs[0]!, 2)}-${f(xs.at(-1)!, 2)}]`;
      const [ks, ms, ls] = [rounds('kafkalite'), rounds('librdkafka-mock'), rounds('loopback-limit')];
      const [k, m, l] = [medianRound(ks), medianRound(ms), medianRound(ls)];
      const vsMock = ratio(ks, ms);
      const vsLimit = ratio(ks, ls);
      summary.push({ ...c, kafkalite: k.mbPerSec, mock: m.mbPerSec, loopback: l.mbPerSec, vsMock, vsLimit });
      const cell = (r: ProduceResult) => `${f(r.mbPerSec).padStart(7)} ${f(r.recordsPerSec, 0).padStart(8)} ${f(r.p50Ms, 2).padStart(6)}/${f(r.p99Ms, 2).padEnd(7)}`;
      const rr = (x: { median: number; min: number; max: number }) => `${f(x.median, 2)}x [${f(x.min, 2)}-${f(x.max, 2)}]`.padEnd(20);
      console.log(`${`${c.batch} acks=${c.acks === -1 ? 'all' : '1'} x${c.connections}`.padEnd(26)}${cell(k)}   ${cell(m)}   ${f(l.mbPerSec).padStart(8)}    ${rr(vsMock)} ${rr(vsLimit)}`);
      const ds = rounds('loopback+disk');
      const vsDisk = ratio(ks, ds);
      const mockVsDisk = ratio(ms, ds);
      const [kCpu, dCpu, kdCpu] = [cpuPerMiB(ks), cpuPerMiB(ds), cpuRatio(ks, ds)];
      summary[summary.length - 1]!.loopbackDisk = {
        mbPerSec: medianRound(ds).mbPerSec,
        kafkaliteVs: vsDisk,
        mockVs: mockVsDisk,
        cpuMsPerMiB: { kafkalite: kCpu, loopbackDisk: dCpu, kafkaliteVsPerRound: kdCpu },
      };
      console.log(`${''.padEnd(26)}loopback+disk ${f(medianRound(ds).mbPerSec).padStart(8)}   kafkalite vs it ${rr(vsDisk)} mock vs it ${rr(mockVsDisk)}`);
      console.log(`${''.padEnd(26)}CPU ms/MiB kafkalite ${spread(kCpu)} loopback+disk ${spread(dCpu)}, kafkalite/it ${spread(kdCpu)}x`);
      if (BASELINE_BROKER !== undefined) {
        const bs = rounds('kafkalite-base');
        const vsBase = ratio(ks, bs);
        const kbCpu = cpuRatio(ks, bs);
        summary[summary.length - 1]!.vsBaseline = { baseline: medianRound(bs).mbPerSec, ...vsBase, cpuMsPerMiBBase: cpuPerMiB(bs), cpuVsBasePerRound: kbCpu };
        console.log(`${''.padEnd(26)}kafkalite-base ${cell(medianRound(bs))}   kafkalite vs base ${rr(vsBase)} CPU/MiB kafkalite/base ${spread(kbCpu)}x`);
      }
      if (CONSOLE_AB) {
        const cs = rounds('kafkalite+console');
        const vsOff = ratio(cs, ks);
        const onCpu = cpuPerMiB(cs);
        // the CPU of the whole run, not per MiB (the console's own work does not scale with the bytes)
        const onOff = cs.map((r, i) => (r.cpuMs ?? NaN) / (ks[i]!.cpuMs ?? NaN)).sort((a, b) => a - b);
        summary[summary.length - 1]!.console = { mbPerSec: medianRound(cs).mbPerSec, vsOff, cpuMsPerMiBOff: kCpu, cpuMsPerMiBOn: onCpu, cpuRatioPerRound: onOff };
        console.log(`${''.padEnd(26)}kafkalite+console ${cell(medianRound(cs))}   console on vs off ${rr(vsOff)} CPU ms/MiB off ${spread(kCpu)} on ${spread(onCpu)}, CPU on/off ${spread(onOff)}x`);
      }
    }
    if (consume.length > 0) {
      console.log(`\nconsume (MB/s, Fetch v${FETCH_VERSION} from the log start, 1 MiB per request): each peer's median round of ${ROUNDS}`);
      for (const topic of consumeTopics) {
        const cells = readers.map((p) => {
          const xs = consume.filter((r) => r.topic === topic && r.peer === p.name).map((r) => r.mbPerSec).sort((a, b) => a - b);
          return `${p.name} ${f(xs[Math.floor(xs.length / 2)]!)} [${f(xs[0]!)}-${f(xs[xs.length - 1]!)}]`;
        });
        console.log(`${topic.padEnd(26)}${cells.join('   ')}`);
      }
    }
    const rssVals = rss.map((x) => x.mib);
    console.log(`\nkafkalite RSS over the run: min ${f(Math.min(...rssVals))} MiB, max ${f(Math.max(...rssVals))} MiB, last ${f(rssVals[rssVals.length - 1]!)} MiB (${rss.length} samples)`);
    if (soak) console.log(`soak ${soak.minutes} min at ${f(soak.mbPerSec)} MB/s: RSS ${f(soak.rss[0]?.mib ?? NaN)} -> ${f(soak.rss[soak.rss.length - 1]?.mib ?? NaN)} MiB (max ${f(Math.max(...soak.rss.map((x) => x.mib)))})`);

    const results = {
      bench: 'broker',
      date: new Date().toISOString(),
      node: process.version,
      runMiB: RUN_MIB,
      recordBytes: RECORD_BYTES,
      inFlight: IN_FLIGHT,
      produceVersion: PRODUCE_VERSION,
      batches: Object.fromEntries([...BATCHES].map(([k, v]) => [k, { bytes: v.records.length, records: v.count }])),
      rounds: ROUNDS,
      warmupMiB: WARMUP_MIB,
      warmupRequests: WARMUP_MIB === undefined ? WARMUP_REQUESTS : undefined,
      summary,
      produce,
      consume,
      rss,
      soak,
      targets: { vsMock: 1, vsLoopbackLargeBatches: 0.3 },
      totalSeconds: (Date.now() - t0) / 1000,
    };
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'broker.json');
    writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
    console.log(`\ntotal ${f(results.totalSeconds)} s; results written to ${file}`);
  } finally {
    clearInterval(sampler);
    await Promise.all(peers.map(stopPeer));
  }
}

if (process.argv[2] === 'null-server') nullServer(process.argv[3]);
else await main();
