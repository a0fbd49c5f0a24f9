/**
 * The bounded soak of issue 17: kcat produces (idempotent, acks=all) and consumes normally while,
 * at the same time, the broker gets
 *
 * - 2,000 connections that send requests and never read an answer (50 of them 40 Fetch requests
 *   with answers of 256 KiB, the rest a few Metadata requests);
 * - 2,000 connections that connect and send nothing;
 * - 200 slow senders, one byte of a request at a time;
 * - random and mutated request frames on connections that reconnect when closed;
 * - oversized, negative and lying size prefixes (a size then fewer bytes, then nothing);
 * - batch-level attacks in Produce requests: a bad CRC, lying batch and record lengths, a lying
 *   record count, a decompression bomb and a record with 100,000 headers — each must be answered.
 *
 * kcat's every run must succeed and it must consume exactly what it produced; the broker's own
 * accounting of queued request bytes and unsent answer bytes stays within its configured bounds
 * (plus what the bounds allow per connection, queued-bytes.ts); idle connections are closed by
 * connections.max.idle.ms; after the clean shutdown `kafkalite verify` finds the data dir clean
 * (withBroker). Loopback only, 4,600 sockets at most (ulimit -n must allow ~10,000: each is two
 * descriptors in this one process). Seeded (KAFKALITE_FUZZ_SEED); about a minute.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Broker } from '../../src/broker/broker.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { schemaForApi } from '../../src/protocol/schemas/index.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { crc32c } from '../../src/record/crc.js';
import { withBroker } from '../helpers/broker.js';
import { runCommand } from '../helpers/python-peer.js';
import { decodeResponseFrame, encodeRequestFrame, encodeRequestPayload, RawClient, sizePrefixed, type Msg } from '../helpers/raw-client.js';
import { Rng } from '../helpers/ref.js';
import { requirePeer } from '../helpers/tier.js';
import { randomMessage } from '../protocol/value-gen.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x736f616b);
/** How long the attacks run while kcat works (the whole test stays well under two minutes). */
const SOAK_MS = 30_000;
/** Between kcat's produce rounds of 300 records. */
const PRODUCE_PAUSE_MS = 100;
const NEVER_READ = 2_000;
/** Of those, how many pipeline Fetch requests with large answers (the rest: a few small Metadata requests). */
const HEAVY_NEVER_READ = 50;
const HEAVY_FETCHES = 40;
const FETCH_MAX_BYTES = 256 * 1024;
const IDLE = 2_000;
const SLOW = 200;
const FRAME_LANES = 4;
const GUARD_MS = 20_000;

const MAX_REQUEST_BYTES = 1024 * 1024;
const QUEUED_REQUEST_BYTES = 8 * 1024 * 1024;
const QUEUED_RESPONSE_BYTES = 4 * 1024 * 1024;
const RESPONSE_BYTES_PER_CONNECTION = 64 * 1024;
/** Longer than the soak's setup, shorter than the soak: the idle connections are closed during it. */
const MAX_IDLE_MS = 15_000;

const CONFIG = {
  'socket.request.max.bytes': String(MAX_REQUEST_BYTES),
  'queued.max.request.bytes': String(QUEUED_REQUEST_BYTES),
  'kafkalite.queued.max.response.bytes': String(QUEUED_RESPONSE_BYTES),
  'kafkalite.queued.max.response.bytes.per.connection': String(RESPONSE_BYTES_PER_CONNECTION),
  'connections.max.idle.ms': String(MAX_IDLE_MS),
  'num.partitions': '1',
};

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.int(xs.length)]!;
}

async function kcat(args: string[], input?: string): Promise<string> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}

/** Opens a raw socket (paused: nothing is read for it unless the caller resumes it). */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.pause();
    s.on('error', () => undefined);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Opens `n` sockets, `batch` at a time (a listen backlog takes only so many at once). */
async function openMany(port: number, n: number, batch = 100): Promise<Socket[]> {
  const out: Socket[] = [];
  for (let i = 0; i < n; i += batch) out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => open(port)))));
  return out;
}

/** Produce v8 of one partition's `records` to `topic`, acks=1. */
function produceFrame(id: number, topic: string, records: Buffer): Buffer {
  return encodeRequestFrame(0, 8, id, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
}

/** The hostile batches: each is answered with an error or stored intact, never a crash or a hang. */
function hostileBatches(rng: Rng): [string, Buffer][] {
  const plain = (): Buffer => encodeRecordBatch(Array.from({ length: 3 }, (_, i) => ({ key: `k${i}`, value: rng.bytes(50) })));
  const recrc = (b: Buffer): Buffer => {
    b.writeUInt32BE(crc32c(b, 21, b.length), 17);
    return b;
  };
  const badCrc = plain();
  badCrc[badCrc.length - 1] ^= 0xff;
  const longBatch = plain();
  longBatch.writeInt32BE(longBatch.readInt32BE(8) + 1000, 8);
  const shortBatch = plain();
  shortBatch.writeInt32BE(shortBatch.readInt32BE(8) - 20, 8);
  const manyRecords = plain();
  manyRecords.writeInt32BE(1_000_000, 57);
  recrc(manyRecords);
  // the first record's length varint (after the 61-byte header) claims far more than is there
  const lyingRecord = plain();
  lyingRecord[61] = 0xfe;
  recrc(lyingRecord);
  const bomb = encodeRecordBatch([{ value: Buffer.alloc(48 * 1024 * 1024) }], { compression: 'gzip' });
  const headers = encodeRecordBatch([{ value: 'v', headers: Array.from({ length: 100_000 }, () => ({ key: 'h', value: null })) }]);
  return [
    ['bad CRC', badCrc],
    ['batch length too long', longBatch],
    ['batch length too short', shortBatch],
    ['record count 1,000,000', manyRecords],
    ['record length lies', lyingRecord],
    ['decompression bomb (48 MiB of zeros, gzip)', bomb],
    ['100,000 headers', headers],
  ];
}

const FUZZ_APIS: [number, number][] = [
  [18, 3],
  [3, 9],
  [0, 8],
  [1, 11],
  [2, 5],
  [10, 3],
];

/** A random request frame of a harmless API, often mutated, sometimes random bytes or a hostile size. */
function fuzzFrame(rng: Rng): Buffer {
  const [apiKey, version] = pick(rng, FUZZ_APIS);
  const body = randomMessage(schemaForApi(apiKey)!.request, version, rng) as Msg;
  if (apiKey === 1) body.maxWaitMs = rng.int(20);
  // random topic names would each become a topic: files, not robustness
  if (apiKey === 3) body.allowAutoTopicCreation = false;
  const p = Buffer.concat(encodeRequestPayload(apiKey, version, rng.int(1 << 30), body, 'soak-fuzz'));
  switch (rng.int(6)) {
    case 0:
      return sizePrefixed(p);
    case 1:
      for (let k = 1 + rng.int(6); k > 0; k--) p[rng.int(p.length)] = rng.int(256);
      return sizePrefixed(p);
    case 2:
      return sizePrefixed(p.subarray(0, rng.int(p.length)));
    case 3:
      return sizePrefixed(rng.bytes(rng.int(300)));
    case 4: {
      const at = 8 + rng.int(Math.max(1, p.length - 8));
      if (at + 4 <= p.length) p.writeInt32BE(pick(rng, [0x7fffffff, -1, -2, 0x40000000]), at);
      return sizePrefixed(p);
    }
    default: {
      const size = Buffer.alloc(4);
      size.writeInt32BE(pick(rng, [MAX_REQUEST_BYTES + 1, 0x7fffffff, -1, -2147483648]), 0);
      return Buffer.concat([size, p]);
    }
  }
}

test('soak: kcat produces and consumes while hostile clients and inputs hit the broker; the bounds hold; verify is clean', { timeout: 170_000 }, async () => {
  requirePeer('kcat');
  // every socket is two descriptors here (client and broker side): say so rather than fail with EMFILE
  const fds = execFileSync('sh', ['-c', 'ulimit -n']).toString().trim();
  const needed = 2 * (NEVER_READ + IDLE + SLOW + 150 + FRAME_LANES + 50) + 1000;
  assert.ok(fds === 'unlimited' || Number(fds) >= needed, `ulimit -n is ${fds}; the soak needs ${needed} descriptors`);
  const rng = new Rng(SEED);
  await withBroker({ config: CONFIG }, async (broker: Broker) => {
    const admin = await RawClient.connect(broker.port);
    const md = await admin.request(3, 1, { topics: [{ name: 'soak' }, { name: 'attack' }, { name: 'bulk' }, ...Array.from({ length: 20 }, (_, i) => ({ name: `soak-wide-topic-name-${i}` }))] });
    for (const t of md.topics) assert.equal(errorName(t.errorCode), 'NONE', t.name);
    const allTopics = md.topics.map((t: Msg) => ({ name: t.name as string }));
    // 4 MiB for the heavy hogs to fetch, in batches of 64 KiB
    for (let i = 0; i < 64; i++) {
      const r = await admin.request(0, 8, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'bulk', partitionData: [{ index: 0, records: encodeRecordBatch([{ value: rng.bytes(64 * 1024) }]) }] }] });
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
    }
    // one connection may hold its bound plus one answer: a Fetch answer is at most its maxBytes
    // plus one batch (KIP-74) plus the answer's own fields; over all connections, a Fetch answer
    // takes no more than what is left of the bound, or one batch when nothing is (fetch.ts)
    const heavyAnswer = FETCH_MAX_BYTES + 64 * 1024 + 1024;
    const oneBatchAnswer = 64 * 1024 + 1024;
    const attacks = hostileBatches(rng);

    let stop = false;
    const sockets: Socket[] = [];
    const failures: string[] = [];
    const done: Promise<unknown>[] = [];

    // ---- the well-behaved client: kcat produces rounds and consumes from the start meanwhile
    const produced: string[] = [];
    done.push(
      (async () => {
        for (let round = 0; !stop; round++) {
          const lines = Array.from({ length: 300 }, (_, i) => `r${round}-m${i}-${'x'.repeat(i % 97)}`);
          await kcat(['-b', broker.bootstrap, '-t', 'soak', '-P', '-X', 'enable.idempotence=true', '-X', 'linger.ms=5', '-X', 'message.timeout.ms=30000'], lines.join('\n') + '\n');
          produced.push(...lines);
          // a pause between rounds: each consume run reads the whole topic from its start, and a
          // producer at full speed (about 270,000 records in the soak) left time for only 1-2 of them
          await sleep(PRODUCE_PAUSE_MS);
        }
      })(),
    );
    let consumerRounds = 0;
    done.push(
      (async () => {
        while (!stop) {
          const acked = produced.length;
          if (acked === 0) {
            await sleep(100);
            continue;
          }
          // exactly what was acknowledged when the run began (-c), not up to an end the producer
          // keeps moving (-e): a consumer slower than the producer would never reach that end
          const out = (await kcat(['-b', broker.bootstrap, '-t', 'soak', '-C', '-o', 'beginning', '-c', String(acked), '-q', '-f', '%s\n'])).split('\n').filter((l) => l !== '');
          assert.ok(out.length >= acked, `kcat consumed ${out.length}, ${acked} were acknowledged before it started`);
          assert.deepEqual(out.slice(0, acked), produced.slice(0, acked));
          consumerRounds++;
        }
      })(),
    );

    // ---- the accounting, sampled throughout
    let maxServed = 0;
    const rssBefore = process.memoryUsage().rss;
    let maxRss = rssBefore;
    const sampler = setInterval(() => {
      maxServed = Math.max(maxServed, broker.connectionCounts.served);
      maxRss = Math.max(maxRss, process.memoryUsage().rss);
    }, 50);

    // ---- 2,000 connections that never read
    const heavyFrames = Buffer.concat(
      Array.from({ length: HEAVY_FETCHES }, (_, i) =>
        encodeRequestFrame(1, 11, i + 1, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: FETCH_MAX_BYTES, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
          topics: [{ topic: 'bulk', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(i % 48), logStartOffset: -1n, partitionMaxBytes: FETCH_MAX_BYTES }] }],
          forgottenTopicsData: [], rackId: '',
        }),
      ),
    );
    const lightFrames = Buffer.concat(Array.from({ length: 10 }, (_, i) => encodeRequestFrame(3, 1, i + 1, { topics: allTopics })));
    const neverRead = await openMany(broker.port, NEVER_READ);
    sockets.push(...neverRead);
    neverRead.forEach((s, i) => s.write(i < HEAVY_NEVER_READ ? heavyFrames : lightFrames));

    // ---- 2,000 idle connections
    const idle = await openMany(broker.port, IDLE);
    sockets.push(...idle);
    const idleClosed = Promise.all(idle.map((s) => new Promise<void>((resolve) => (s.once('close', () => resolve()), s.resume()))));

    // ---- 200 slow senders: one byte of an ApiVersions request every 250 ms
    const slow = await openMany(broker.port, SLOW);
    sockets.push(...slow);
    const slowFrame = encodeRequestFrame(18, 3, 1, { clientSoftwareName: 'slow', clientSoftwareVersion: '1' });
    let slowAt = 0;
    const dribble = setInterval(() => {
      if (slowAt < slowFrame.length - 1) {
        for (const s of slow) if (!s.destroyed) s.write(slowFrame.subarray(slowAt, slowAt + 1));
        slowAt++;
      }
    }, 250);

    // ---- size prefixes: oversized, negative, and lying (a size, then fewer bytes, then nothing)
    const prefixes = await openMany(broker.port, 150);
    sockets.push(...prefixes);
    prefixes.forEach((s, i) => {
      s.resume();
      const size = Buffer.alloc(4);
      size.writeInt32BE([MAX_REQUEST_BYTES + 1, 0x7fffffff, -1, 1000, MAX_REQUEST_BYTES][i % 5]!, 0);
      s.write(Buffer.concat([size, rng.bytes(i % 5 >= 3 ? 10 + rng.int(200) : 20)]));
    });

    // ---- random and mutated frames, on connections that reconnect when the broker closes them
    let fuzzFrames = 0;
    const fuzzLane = async (): Promise<void> => {
      while (!stop) {
        const s = await open(broker.port);
        s.resume();
        const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
        for (let i = 0; i < 50 && !s.destroyed && !stop; i++) {
          s.write(fuzzFrame(rng));
          fuzzFrames++;
          await sleep(2);
        }
        s.end();
        await Promise.race([closed, sleep(2_000)]);
        s.destroy();
      }
    };
    for (let i = 0; i < FRAME_LANES; i++) done.push(fuzzLane());

    // ---- hostile batches, each answered
    const batchAttacks: Record<string, Set<string>> = {};
    done.push(
      (async () => {
        while (!stop) {
          for (const [what, records] of attacks) {
            const c = await RawClient.connect(broker.port);
            try {
              const id = c.correlationId();
              const answer = c.nextFrame();
              c.send(produceFrame(id, 'attack', records));
              const frame = await Promise.race([answer.then((f) => f), sleep(GUARD_MS).then(() => undefined)]);
              if (frame === undefined) throw new Error(`${what}: no answer within ${GUARD_MS} ms`);
              assert.equal(frame.readInt32BE(0), id);
              const ok = await c.request(18, 3, { clientSoftwareName: 'after', clientSoftwareVersion: '1' });
              assert.equal(errorName(ok.errorCode), 'NONE');
              const body = decodeResponseFrame(0, 8, frame).body;
              (batchAttacks[what] ??= new Set()).add(errorName(body.responses[0].partitionResponses[0].errorCode) ?? 'unknown error code');
            } catch (e) {
              // the broker closing the connection is a legitimate answer to a frame it cannot parse
              if (!c.isClosed) failures.push(`${what}: ${(e as Error).message}`);
              else (batchAttacks[what] ??= new Set()).add('connection closed');
            } finally {
              c.destroy();
            }
          }
          await sleep(500);
        }
      })(),
    );

    // ---- the hogs are stalled and other clients are answered all along
    const probe = await RawClient.connect(broker.port);
    let probes = 0;
    const started = Date.now();
    // the soak's length, longer (up to twice) until kcat has consumed the topic twice
    while (Date.now() - started < SOAK_MS || (consumerRounds < 2 && Date.now() - started < 2 * SOAK_MS)) {
      const r = await Promise.race([probe.request(3, 1, { topics: [] }), sleep(GUARD_MS).then(() => undefined)]);
      assert.ok(r !== undefined, `a reading client's Metadata unanswered for ${GUARD_MS} ms while ${JSON.stringify(broker.queuedBytes)}`);
      probes++;
      await sleep(100);
    }
    stop = true;
    clearInterval(dribble);
    const results = await Promise.allSettled(done);
    for (const r of results) if (r.status === 'rejected') failures.push(String((r.reason as Error)?.stack ?? r.reason));
    clearInterval(sampler);

    // idle connections were closed by connections.max.idle.ms during the soak
    await Promise.race([idleClosed, sleep(GUARD_MS)]);
    const stillOpen = idle.filter((s) => !s.destroyed && s.readyState === 'open').length;
    assert.equal(stillOpen, 0, `${stillOpen} idle connections never closed (connections.max.idle.ms=${MAX_IDLE_MS})`);

    const q = broker.queuedBytes;
    const report = { ...q, rssBeforeMiB: Math.round(rssBefore / 2 ** 20), maxRssMiB: Math.round(maxRss / 2 ** 20), fuzzFrames, probes, consumerRounds, produced: produced.length, maxServed, batchAttacks: Object.fromEntries(Object.entries(batchAttacks).map(([k, v]) => [k, [...v]])) };
    console.log(`soak: ${JSON.stringify(report)}`);
    assert.deepEqual(failures, []);
    // the bounds (queued-bytes.ts): the configured one, plus one socket read per connection for
    // requests, and one answer per connection for answers (as Kafka's one response in flight)
    assert.ok(q.requestBytesHighWater <= QUEUED_REQUEST_BYTES, `queued request bytes reached ${q.requestBytesHighWater}`);
    assert.ok(q.responseBytesPerConnectionHighWater <= RESPONSE_BYTES_PER_CONNECTION + heavyAnswer, `one connection's answers reached ${q.responseBytesPerConnectionHighWater}`);
    assert.ok(q.responseBytesHighWater <= QUEUED_RESPONSE_BYTES + HEAVY_NEVER_READ * oneBatchAnswer, `unsent answer bytes reached ${q.responseBytesHighWater}`);
    assert.ok(q.responseBytesHighWater >= QUEUED_RESPONSE_BYTES, `the soak never reached the answer bound (${q.responseBytesHighWater})`);
    assert.ok(produced.length >= 3000 && consumerRounds >= 2, `kcat did too little: ${produced.length} produced, ${consumerRounds} consume runs`);
    for (const [what] of attacks) assert.ok(batchAttacks[what] !== undefined, `${what} never tried`);

    // kcat consumes exactly what it produced
    const all = (await kcat(['-b', broker.bootstrap, '-t', 'soak', '-C', '-o', 'beginning', '-e', '-q', '-f', '%s\n'])).split('\n').filter((l) => l !== '');
    assert.deepEqual(all, produced);
    for (const s of sockets) s.destroy();
    probe.destroy();
    admin.destroy();
  });
});
