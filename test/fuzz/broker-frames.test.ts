/**
 * Frame storm against a live broker: >= 100,000 request frames — valid requests of every served
 * API and version (random field values from the schemas, plus realistic Produce/Fetch), the same
 * with bytes flipped, cut short, extended, lengths made hostile (0x7fffffff, -1, 5-byte varints),
 * headers re-pointed at other APIs and versions, random bytes, and hostile size prefixes.
 *
 * The broker runs in a worker thread (this same file), so a crash is the worker dying and a hang is
 * the watchdog's own connection going unanswered while the test thread is fine. Each fuzz frame is
 * followed by an ApiVersions probe on the same connection: the probes answered say exactly how
 * many frames the broker processed before it closed the connection (Kafka closes on unparseable
 * requests), and the frames after the closer are sent again on a new connection, so every case is
 * delivered. A connection parked by a legitimately long Fetch poll is abandoned after a while.
 * Handler failures the broker logs at error level (a handler threw instead of answering with an
 * error code) fail the test. After the storm a fresh client must still get correct answers.
 *
 * Seed: KAFKALITE_FUZZ_SEED; cases: KAFKALITE_BROKER_FUZZ_CASES (default 30,000; the decoder alone gets 100k+ in
 * protocol-request-fuzz, this storm checks the live server and is bounded by reconnects).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { Broker } from '../../src/broker/broker.js';
import { ALL_HANDLERS } from '../../src/broker/handlers/index.js';
import { createLogger } from '../../src/broker/logger.js';
import { decodeMessage } from '../../src/protocol/codec.js';
import { schemaForApi } from '../../src/protocol/schemas/index.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { Rng, toHex } from '../helpers/ref.js';
import { encodeRequestFrame, encodeRequestPayload, RawClient, sizePrefixed, type Msg } from '../helpers/raw-client.js';
import { randomMessage } from '../protocol/value-gen.js';
import { caseSeed } from './harness.js';
import { tierCount } from '../helpers/tier.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x6b61666b);
const CASES = Number(process.env.KAFKALITE_BROKER_FUZZ_CASES ?? tierCount(30_000, 1_000));
const SALT = 0x62726b72;
const MAX_REQUEST_BYTES = 64 * 1024;
/** Fuzz frames written per burst (each followed by its probe). */
const BURST = 200;
/** Connections storming at once (each reconnects when the broker closes it). */
const LANES = 4;
/** A connection with no answer for this long, while the watchdog's are answered, is parked (a long poll). */
const PARKED_MS = 1_500;
/** The watchdog's probe unanswered for this long = the broker hangs. */
const HANG_MS = 15_000;
const PROBE_ID_BASE = 0x7e000000;
const TOPICS = ['fz-0', 'fz-1', 'fz-2'];

type WorkerMessage = { kind: 'ready'; port: number } | { kind: 'log'; line: string } | { kind: 'closed' };

// ---- the broker side (worker thread) ----------------------------------------------------------

async function brokerWorker(): Promise<void> {
  const port = parentPort!;
  const logger = createLogger('error', (line) => port.postMessage({ kind: 'log', line } satisfies WorkerMessage));
  const debug = process.env.KAFKALITE_TEST_LOG === '1' ? createLogger('debug') : undefined;
  if (debug) Object.assign(logger, { debug: debug.debug, info: debug.info, warn: debug.warn, warnThrottled: debug.warn });
  const broker = await Broker.start({ logger, config: { 'socket.request.max.bytes': String(MAX_REQUEST_BYTES), 'num.partitions': '1' } });
  port.on('message', (m) => {
    if (m === 'close') void broker.close().then(() => port.postMessage({ kind: 'closed' } satisfies WorkerMessage));
  });
  port.postMessage({ kind: 'ready', port: broker.port } satisfies WorkerMessage);
}

// ---- frame generation (test thread) -----------------------------------------------------------

const SERVED: [number, number][] = ALL_HANDLERS.flatMap((h) => Array.from({ length: h.maxVersion - h.minVersion + 1 }, (_, i): [number, number] => [h.api.apiKey, h.minVersion + i]));

/** A valid request: realistic for the data path, schema-random otherwise (bounded where it would only cost disk). */
function validRequest(rng: Rng): { apiKey: number; version: number; payload: Buffer } {
  const [apiKey, version] = rng.pick(SERVED);
  let body: Msg;
  const topic = rng.pick(TOPICS);
  if (apiKey === 0 && rng.bool(0.7)) {
    const n = 1 + rng.int(5);
    const records = encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ key: rng.bool() ? `k${i}` : null, value: rng.bytes(rng.int(200)) })), { compression: rng.pick(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) });
    body = { transactionalId: null, acks: rng.pick([1, -1, 0]), timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] };
  } else if (apiKey === 1 && rng.bool(0.7)) {
    body = { replicaId: -1, maxWaitMs: rng.int(20), minBytes: rng.int(2), maxBytes: rng.pick([0, 100, 1 << 20]), isolationLevel: rng.int(2), topics: [{ topic, partitions: [{ partition: rng.int(2), fetchOffset: BigInt(rng.int(50)), partitionMaxBytes: rng.pick([1, 1000, 1 << 20]) }] }] };
  } else {
    body = randomMessage(schemaForApi(apiKey)!.request, version, rng);
    // long polls park the connection (legal, but it slows the storm): keep most short
    if (apiKey === 1 && rng.bool(0.95)) body.maxWaitMs = rng.int(20);
    // CreateTopics may ask for up to the broker's 100,000-partition limit: files, not robustness
    if (apiKey === 19) for (const t of body.topics as Msg[]) if ((t.numPartitions as number) > 4) t.numPartitions = 4;
  }
  const payload = Buffer.concat(encodeRequestPayload(apiKey, version, rng.int(PROBE_ID_BASE), body, rng.bool(0.1) ? null : 'fuzz'));
  return { apiKey, version, payload };
}

const HOSTILE_INT32 = [0x7fffffff, -1, -2, 0x40000000, -2147483648, 0x10000];
const HOSTILE_VARINTS = [Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80]), Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x07])];

type Make = (rng: Rng) => Buffer;

// Weights: every kind but 'valid' usually makes the broker close the connection (as Kafka does),
// and reconnecting is what bounds the storm's speed; schema-random valid requests (hostile values
// in well-formed frames) are half the cases so 100,000 fit in about a minute.
const KINDS: [string, number, Make][] = [
  ['valid', 50, (rng) => sizePrefixed(validRequest(rng).payload)],
  [
    'byte-flips',
    12,
    (rng) => {
      const p = validRequest(rng).payload;
      for (let k = 1 + rng.int(6); k > 0; k--) p[rng.int(p.length)] = rng.int(256);
      return sizePrefixed(p);
    },
  ],
  ['truncated', 6, (rng) => sizePrefixed(validRequest(rng).payload.subarray(0, rng.int(200)))],
  ['extended', 4, (rng) => sizePrefixed(Buffer.concat([validRequest(rng).payload, rng.bytes(1 + rng.int(64))]))],
  [
    'hostile-lengths',
    10,
    (rng) => {
      const p = Buffer.from(validRequest(rng).payload);
      const at = 8 + rng.int(Math.max(1, p.length - 8));
      if (rng.bool()) {
        if (at + 4 <= p.length) p.writeInt32BE(rng.pick(HOSTILE_INT32), at);
        else if (at + 2 <= p.length) p.writeInt16BE(rng.pick([0x7fff, -1, -2]), at);
        return sizePrefixed(p);
      }
      return sizePrefixed(Buffer.concat([p.subarray(0, at), rng.pick(HOSTILE_VARINTS), p.subarray(at + 1)]));
    },
  ],
  [
    'other-api-or-version',
    6,
    (rng) => {
      const p = validRequest(rng).payload;
      if (rng.bool()) p.writeInt16BE(rng.bool() ? rng.pick(SERVED)[0] : rng.range(-32768, 32767), 0);
      p.writeInt16BE(rng.bool(0.7) ? rng.int(14) : rng.range(-32768, 32767), 2);
      return sizePrefixed(p);
    },
  ],
  ['random-bytes', 8, (rng) => sizePrefixed(rng.bytes(rng.int(rng.bool(0.1) ? 4000 : 120)))],
  [
    'hostile-size',
    4,
    (rng) => {
      const b = Buffer.concat([Buffer.alloc(4), rng.bytes(rng.int(32))]);
      b.writeInt32BE(rng.pick([-1, -2147483648, MAX_REQUEST_BYTES + 1, 0x7fffffff, rng.range(MAX_REQUEST_BYTES + 1, 0x7fffffff)]), 0);
      return b;
    },
  ],
];
const WEIGHT = KINDS.reduce((n, k) => n + k[1], 0);

function makeCase(i: number): { kind: string; frame: Buffer } {
  const rng = new Rng(caseSeed(SEED, i, SALT));
  let w = rng.int(WEIGHT);
  for (const [kind, weight, make] of KINDS) {
    if (w < weight) return { kind, frame: make(rng) };
    w -= weight;
  }
  throw new Error('unreachable');
}

function probe(id: number): Buffer {
  return encodeRequestFrame(18, 0, id, {});
}

function isProbeAnswer(frame: Buffer, id: number): boolean {
  if (frame.length < 4 || frame.readInt32BE(0) !== id) return false;
  const body = decodeMessage(schemaForApi(18)!.response, 0, frame, 4).value as Msg;
  return errorName(body.errorCode) === 'NONE' && (body.apiKeys as Msg[]).some((k) => k.apiKey === 0);
}

interface Case {
  i: number;
  kind: string;
  frame: Buffer;
}

/**
 * Sends cases, each followed by a probe; resolves with how many are known processed (their probes
 * answered) and why it stopped. After a close, the first unprocessed case is the closer.
 */
async function burst(client: RawClient, cases: Case[]): Promise<{ processed: number; stop: 'done' | 'closed' | 'parked' }> {
  const chunks: Buffer[] = [];
  for (const c of cases) chunks.push(c.frame, probe(PROBE_ID_BASE + c.i));
  client.send(chunks);
  let next = 0;
  while (next < cases.length) {
    let timer: NodeJS.Timeout | undefined;
    const frame = await Promise.race([
      client.nextFrame().catch(() => 'closed' as const),
      new Promise<'parked'>((resolve) => (timer = setTimeout(() => resolve('parked'), PARKED_MS))),
    ]);
    clearTimeout(timer);
    if (frame === 'closed' || frame === 'parked') return { processed: next, stop: frame };
    // answers to fuzz frames come in order before their probe's; skip them
    if (isProbeAnswer(frame, PROBE_ID_BASE + cases[next]!.i)) next++;
  }
  return { processed: next, stop: 'done' };
}

interface StormStats {
  kinds: Record<string, number>;
  closed: number;
  parked: number;
  connections: number;
  /** Case index a lane was at, for the failure message. */
  at: number[];
}

/** One lane: cases lane, lane + LANES, ... over as many connections as closes require. */
async function runLane(port: number, lane: number, stats: StormStats, stop: () => boolean): Promise<void> {
  let pending: Case[] = [];
  let nextIndex = lane;
  let client = await RawClient.connect(port);
  stats.connections++;
  while (!stop()) {
    while (pending.length < BURST && nextIndex < CASES) {
      pending.push({ i: nextIndex, ...makeCase(nextIndex) });
      nextIndex += LANES;
    }
    if (pending.length === 0) break;
    stats.at[lane] = pending[0]!.i;
    // A hostile size goes in its own write, after the frames before it were answered (the burst
    // ends just before it), so each case's outcome is attributed to that case alone.
    let end = 1;
    while (end < pending.length && pending[end]!.kind !== 'hostile-size') end++;
    const r = await burst(client, pending.slice(0, end));
    // the closer (or the parked frame) was delivered and handled too
    const handled = r.stop === 'done' ? r.processed : r.processed + 1;
    for (const c of pending.slice(0, handled)) stats.kinds[c.kind] = (stats.kinds[c.kind] ?? 0) + 1;
    pending = pending.slice(handled);
    if (r.stop !== 'done') {
      stats[r.stop]++;
      client.destroy();
      client = await RawClient.connect(port);
      stats.connections++;
    }
  }
  client.destroy();
}

/** A fresh client's view after the storm: produce, fetch back, metadata, list offsets. */
async function checkStillCorrect(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  const av = await c.request(18, 3, { clientSoftwareName: 'after-storm', clientSoftwareVersion: '1' });
  assert.equal(errorName(av.errorCode), 'NONE');
  const topic = 'after-storm';
  const md = await c.request(3, 9, { topics: [{ name: topic }], allowAutoTopicCreation: true });
  assert.equal(errorName(md.topics[0].errorCode), 'NONE');
  const values = ['one', 'two', 'three'];
  const pr = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch(values.map((v) => ({ value: v }))) }] }] });
  assert.equal(errorName(pr.responses[0].partitionResponses[0].errorCode), 'NONE');
  assert.equal(pr.responses[0].partitionResponses[0].baseOffset, 0n);
  const fr = await c.request(1, 12, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }] });
  const got: string[] = [];
  const reader = readRecordBatches(fr.responses[0].partitions[0].records as Buffer, { verifyCrc: true });
  for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) for (const r of b.records()) got.push(Buffer.from(r.value!).toString());
  assert.deepEqual(got, values);
  const all = await c.request(3, 1, { topics: null });
  for (const t of [topic, ...TOPICS]) assert.ok((all.topics as Msg[]).some((x) => x.name === t && errorName(x.errorCode) === 'NONE'), `topic ${t} missing after the storm`);
  c.destroy();
}

if (!isMainThread) {
  await brokerWorker();
} else {
  test(`broker frame storm: ${CASES} hostile frames, no crash or hang, correct answers after (seed ${SEED})`, { timeout: 240_000 }, async (t) => {
    const worker = new Worker(new URL(import.meta.url));
    const errorLines: string[] = [];
    let died: Error | undefined;
    worker.on('error', (e) => (died = e));
    worker.on('exit', (code) => (died ??= new Error(`broker worker exited with code ${code}`)));
    const port = await new Promise<number>((resolve, reject) => {
      worker.on('message', (m: WorkerMessage) => {
        if (m.kind === 'ready') resolve(m.port);
        else if (m.kind === 'log') errorLines.push(m.line);
      });
      worker.once('error', reject);
    });
    // the watchdog: its own connection, one ApiVersions at a time; unanswered for HANG_MS = a hang
    let hung: string | undefined;
    let stopWatch = false;
    const watchdog = (async () => {
      const w = await RawClient.connect(port);
      while (!stopWatch && hung === undefined) {
        let timer: NodeJS.Timeout | undefined;
        const ok = await Promise.race([
          w.request(18, 0, {}).then(
            () => true,
            (e: Error) => e.message,
          ),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), HANG_MS))),
        ]);
        clearTimeout(timer);
        if (ok === false) hung = `the broker did not answer the watchdog for ${HANG_MS} ms`;
        else if (ok !== true) hung = `the watchdog's connection failed (${ok})`;
        await new Promise((r) => setTimeout(r, 200));
      }
      w.destroy();
    })();

    // the topics realistic Produce/Fetch frames aim at
    const setup = await RawClient.connect(port);
    for (const name of TOPICS) await setup.request(19, 4, { topics: [{ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    setup.destroy();

    const stats: StormStats = { kinds: {}, closed: 0, parked: 0, connections: 0, at: [] };
    const t0 = performance.now();
    try {
      await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(port, lane, stats, () => died !== undefined || hung !== undefined))).catch((e: Error) => {
        // a refused connection usually means the broker died: report that first
        if (died === undefined) throw e;
      });
      assert.equal(died, undefined, `broker crashed near cases ${stats.at.join(', ')} (replay: KAFKALITE_FUZZ_SEED=${SEED}): ${died?.stack}`);
      assert.equal(hung, undefined, `${hung} near cases ${stats.at.join(', ')}: ${stats.at.map((i) => toHex(makeCase(i).frame.subarray(0, 100))).join(' ')}`);
      const total = Object.values(stats.kinds).reduce((n, k) => n + k, 0);
      assert.equal(total, CASES, 'every case delivered once');
      t.diagnostic(`${total} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s over ${stats.connections} connections (${LANES} at a time); closed ${stats.closed}, parked ${stats.parked}`);
      t.diagnostic(`kinds ${JSON.stringify(stats.kinds)}`);
      await checkStillCorrect(port);
      assert.deepEqual(errorLines.map((l) => l.slice(0, 600)), [], 'handlers failed (logged at error level)');
    } finally {
      stopWatch = true;
      await watchdog;
      if (!died) {
        const closed = new Promise<void>((resolve) => worker.on('message', (m: WorkerMessage) => m.kind === 'closed' && resolve()));
        worker.postMessage('close');
        await closed;
      }
      await worker.terminate();
    }
  });
}
