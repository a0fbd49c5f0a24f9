/**
 * What a connection may make the broker hold, and how many connections it serves (issue 17,
 * findings 1 and 5): answers a client never reads stop its connection being read once they reach
 * `kafkalite.queued.max.response.bytes.per.connection` (or, broker-wide,
 * `kafkalite.queued.max.response.bytes`) while every other client is served; requests queue up to
 * `queued.max.request.bytes`; `connections.max.idle.ms` closes idle connections and slow senders;
 * `max.connections` makes new connections wait for a slot and `max.connections.per.ip` closes them
 * (Kafka's ConnectionQuotas). Waits are hang guards, never timing claims.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Broker } from '../../src/broker/broker.js';
import { brokerConfigFromProperties } from '../../src/broker/config.js';
import { MAX_WAITING_CONNECTIONS } from '../../src/broker/connection-quotas.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { withBroker } from '../helpers/broker.js';
import { tierCount } from '../helpers/tier.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { encodeRequestFrame, RawClient, type Msg } from '../helpers/raw-client.js';

/** A hang guard: an answer that does not come within this fails the test. */
const GUARD_MS = 15_000;

async function within<T>(p: Promise<T>, what: string, ms = GUARD_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}

async function answers(client: RawClient): Promise<void> {
  const v = await within(client.request(18, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' }), 'ApiVersions');
  assert.equal(errorName(v.errorCode), 'NONE');
  const m = await within(client.request(3, 1, { topics: [] }), 'Metadata');
  assert.equal(m.brokers.length, 1);
}

/** A client socket that never reads: paused before it connects, so Node reads nothing for it. */
function neverReading(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.pause();
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

/** Polls `sample` until it returns the same value `times` polls in a row (the broker stopped moving). */
async function settled(sample: () => string, what: string, times = 5, everyMs = 100): Promise<void> {
  let last = '';
  let same = 0;
  const deadline = Date.now() + GUARD_MS * 2;
  while (same < times) {
    if (Date.now() > deadline) throw new Error(`${what} never settled (last ${last})`);
    await sleep(everyMs);
    const now = sample();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

/** Resolves once `check` holds (polled), fails the test when it never does. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + GUARD_MS * 2;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: never happened`);
    await sleep(50);
  }
}

/** Metadata v1 for the given topics: a request of ~1 KiB with a few KiB of answer. */
function metadataFrame(id: number, topics: string[]): Buffer {
  return encodeRequestFrame(3, 1, id, { topics: topics.map((name) => ({ name })) });
}

/**
 * `count` of those frames back to back, correlation ids 1 to `count`: one frame encoded, its copies
 * given their ids (the correlation id is at byte 8: size, api key, api version before it), which
 * costs a copy per frame where encoding each cost the test more CPU than the broker's work.
 */
function metadataFrames(count: number, topics: string[]): Buffer {
  const one = metadataFrame(0, topics);
  const out = Buffer.allocUnsafe(count * one.length);
  for (let i = 0; i < count; i++) {
    one.copy(out, i * one.length);
    out.writeInt32BE(i + 1, i * one.length + 8);
  }
  return out;
}

async function createTopics(broker: Broker, names: string[]): Promise<void> {
  const c = await RawClient.connect(broker.port);
  const r = await c.request(3, 1, { topics: names.map((name) => ({ name })) });
  for (const t of r.topics) assert.equal(errorName(t.errorCode), 'NONE', t.name);
  c.destroy();
}

describe('answers nobody reads', () => {
  test('a client pipelining Metadata and never reading stops being read at its bound; others are answered; it gets every answer once it reads', async () => {
    const perConnection = 64 * 1024;
    const brokerWide = 256 * 1024;
    const config = { 'kafkalite.queued.max.response.bytes.per.connection': String(perConnection), 'kafkalite.queued.max.response.bytes': String(brokerWide) };
    await withBroker({ config }, async (broker) => {
      const topics = Array.from({ length: 40 }, (_, i) => `bounded-topic-with-a-longish-name-${i}`);
      await createTopics(broker, topics);
      const early = await RawClient.connect(broker.port);
      await answers(early);
      // one answer's size, to state the bound: the per-connection bound plus at most one answer
      const sizing = await RawClient.connect(broker.port);
      const pending = sizing.nextFrame();
      sizing.send(metadataFrame(1, topics));
      const answerBytes = (await pending).length + 4;
      sizing.destroy();

      const hogs = await Promise.all([0, 1, 2, 3].map(() => neverReading(broker.port)));
      // enough requests that the hogs' answers overflow the kernel's socket buffers and the bound
      const perHog = tierCount(20_000, 8_000);
      const frames = metadataFrames(perHog, topics);
      for (const hog of hogs) hog.write(frames);
      await until(() => broker.queuedBytes.responseBytes >= hogs.length * perConnection, 'every hog stalled with its bound of answers pending');
      await settled(() => `${broker.queuedBytes.responseBytes}/${hogs.map((h) => h.writableLength).join(',')}`, 'the hogs');

      const q = broker.queuedBytes;
      // the broker stopped reading the hogs: their requests wait in their own process
      for (const hog of hogs) assert.ok(hog.writableLength > 0, `a hog could write all ${perHog} requests: the broker never stopped reading it`);
      assert.ok(q.responseBytes > 0, 'nothing pending: the hogs are not stalled');
      assert.ok(q.responseBytesPerConnectionHighWater <= perConnection + answerBytes, `one connection held ${q.responseBytesPerConnectionHighWater} answer bytes (bound ${perConnection} + one answer of ${answerBytes})`);
      assert.ok(q.responseBytesHighWater <= brokerWide + hogs.length * (perConnection + answerBytes), `all held ${q.responseBytesHighWater}`);
      assert.ok(q.requestBytesHighWater <= broker.config.queuedMaxRequestBytes, `queued requests ${q.requestBytesHighWater}`);

      // clients that read are answered while the hogs stay stalled
      await answers(early);
      const late = await RawClient.connect(broker.port);
      await answers(late);
      for (let i = 0; i < 20; i++) await answers(late);

      // a hog that starts reading gets all its answers, in order
      const first = hogs[0]!;
      let got = 0;
      let buffered: Buffer = Buffer.alloc(0);
      const all = new Promise<void>((resolve) => {
        first.on('data', (chunk: Buffer) => {
          buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
          while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
            const size = buffered.readInt32BE(0);
            assert.equal(buffered.readInt32BE(4), got + 1, 'correlation id');
            got++;
            buffered = buffered.subarray(4 + size);
          }
          if (got === perHog) resolve();
        });
      });
      first.resume();
      await within(all, `the hog reading its ${perHog} answers (got ${got})`, GUARD_MS * 4);
      for (const h of hogs) h.destroy();
      early.destroy();
      late.destroy();
      await settled(() => `${broker.queuedBytes.responseBytes}/${broker.queuedBytes.requestBytes}`, 'closing the hogs', 3);
      assert.equal(broker.queuedBytes.responseBytes, 0, 'closed connections still counted');
      assert.equal(broker.queuedBytes.requestBytes, 0, 'closed connections still counted');
    });
  });

  test('clients pipelining Fetch and never reading: a Fetch answer takes what is left of the broker-wide bound, one batch past it', async () => {
    const brokerWide = 512 * 1024;
    const batchBytes = 32 * 1024;
    const config = { 'kafkalite.queued.max.response.bytes.per.connection': String(64 * 1024), 'kafkalite.queued.max.response.bytes': String(brokerWide) };
    await withBroker({ config }, async (broker) => {
      await createTopics(broker, ['fetched']);
      const producer = await RawClient.connect(broker.port);
      for (let i = 0; i < 64; i++) {
        const records = encodeRecordBatch([{ value: Buffer.alloc(batchBytes, i) }]);
        const r = await producer.request(0, 8, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'fetched', partitionData: [{ index: 0, records }] }] });
        assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      }
      const fetchBody = (id: number): Msg => ({
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: 'fetched', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(id % 32), logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      const fetch = (id: number): Buffer => encodeRequestFrame(1, 11, id, fetchBody(id));
      const hogs = await Promise.all(Array.from({ length: 8 }, () => neverReading(broker.port)));
      for (const hog of hogs) hog.write(Buffer.concat(Array.from({ length: 400 }, (_, i) => fetch(i + 1))));
      await until(() => broker.queuedBytes.responseBytes >= brokerWide, 'the hogs filling the broker-wide bound');
      await settled(() => `${broker.queuedBytes.responseBytes}`, 'the hogs');
      const q = broker.queuedBytes;
      // each Fetch answer fit what was left, or was one batch (plus the answer's own fields)
      assert.ok(q.responseBytesHighWater <= brokerWide + hogs.length * (batchBytes + 1024), `unsent answers reached ${q.responseBytesHighWater}`);
      await answers(producer);
      const consumer = await RawClient.connect(broker.port);
      const r = await within(consumer.request(1, 11, fetchBody(1)), 'a reading consumer\'s Fetch');
      assert.equal(errorName(r.responses[0].partitions[0].errorCode), 'NONE');
      assert.ok(r.responses[0].partitions[0].records.length >= batchBytes, 'the reading consumer got no records');
      for (const h of hogs) h.destroy();
      producer.destroy();
      consumer.destroy();
    });
  });

  test('queued.max.request.bytes: requests queued behind long polls fill it; a client that reads is still served, pipelining', async () => {
    const bound = 16 * 1024;
    const config = { 'queued.max.request.bytes': String(bound) };
    await withBroker({ config }, async (broker) => {
      const topics = Array.from({ length: 40 }, (_, i) => `queued-topic-with-a-longish-name-${i}`);
      await createTopics(broker, topics);
      // A connection handles one request at a time (Kafka's muted channel), so the Metadata frames
      // behind a Fetch that long-polls an empty partition wait in the broker's request queue: the
      // queue fills whatever the kernel's socket buffers hold, which a stalled reader would not.
      const longPoll = encodeRequestFrame(1, 11, 1, {
        replicaId: -1, maxWaitMs: 60_000, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: topics[0], partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      const behind = metadataFrames(200, topics);
      const hogs = await Promise.all([0, 1, 2, 3].map(() => neverReading(broker.port)));
      for (const hog of hogs) hog.write(Buffer.concat([longPoll, behind]));
      await until(() => broker.queuedBytes.requestBytes >= bound, 'the requests behind long polls filling queued.max.request.bytes');
      await settled(() => `${broker.queuedBytes.requestBytes}`, 'the hogs');
      assert.ok(broker.queuedBytes.requestBytes >= bound);
      // each connection reads at most one socket read (64 KiB) past the bound
      assert.ok(broker.queuedBytes.requestBytesHighWater <= bound + hogs.length * 64 * 1024, `queued ${broker.queuedBytes.requestBytesHighWater}`);
      const c = await RawClient.connect(broker.port);
      for (let round = 0; round < 5; round++) {
        const ids = Array.from({ length: 20 }, () => c.correlationId());
        const frames = ids.map(() => c.nextFrame());
        c.send(ids.map((id) => metadataFrame(id, topics)));
        for (let i = 0; i < ids.length; i++) assert.equal((await within(frames[i]!, 'a pipelined answer to a client that reads')).readInt32BE(0), ids[i]);
      }
      assert.ok(broker.queuedBytes.requestBytes >= bound, 'the hogs were let go: the test proves nothing');
      for (const h of hogs) h.destroy();
      // a muted connection reads nothing, so it sees its client's close when it next writes (as
      // Kafka's muted channel): a record ends the long polls, and their answers find the sockets closed
      const records = encodeRecordBatch([{ value: Buffer.from('wake') }]);
      const r = await c.request(0, 8, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topics[0], partitionData: [{ index: 0, records }] }] });
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      c.destroy();
      await settled(() => `${broker.queuedBytes.requestBytes}`, 'closing the hogs', 3);
      assert.equal(broker.queuedBytes.requestBytes, 0, 'closed connections still counted');
    });
  });

  test('kafkalite.queued.max.response.bytes.per.connection=0 answers one request at a time, as Kafka mutes a channel', async () => {
    await withBroker({ config: { 'kafkalite.queued.max.response.bytes.per.connection': '0' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      const ids = Array.from({ length: 50 }, () => c.correlationId());
      const frames = ids.map(() => c.nextFrame());
      c.send(ids.map((id) => encodeRequestFrame(18, 2, id, {})));
      for (let i = 0; i < ids.length; i++) assert.equal((await within(frames[i]!, 'answer')).readInt32BE(0), ids[i]);
      c.destroy();
    });
  });

  test('the new properties are checked at start', () => {
    assert.equal(brokerConfigFromProperties({ 'queued.max.request.bytes': '-1' }).queuedMaxRequestBytes, Infinity);
    assert.throws(() => brokerConfigFromProperties({ 'queued.max.request.bytes': '0' }), /queued.max.request.bytes/);
    assert.throws(() => brokerConfigFromProperties({ 'kafkalite.queued.max.response.bytes': 'x' }), /kafkalite.queued.max.response.bytes/);
    assert.throws(() => brokerConfigFromProperties({ 'max.connections.per.ip': '0' }), /max.connections.per.ip/);
    assert.equal(brokerConfigFromProperties({ 'max.connections.per.ip': '0', 'max.connections.per.ip.overrides': '127.0.0.1:5' }).maxConnectionsPerIpOverrides.get('127.0.0.1'), 5);
    assert.throws(() => brokerConfigFromProperties({ 'max.connections.per.ip.overrides': 'somehost' }), /max.connections.per.ip.overrides/);
    assert.throws(() => brokerConfigFromProperties({ 'max.connections.per.ip.overrides': '127.0.0.1:-2' }), /max.connections.per.ip.overrides/);
    assert.equal(brokerConfigFromProperties({ 'max.connections.per.ip.overrides': '[::1]:3, 10.0.0.1:7' }).maxConnectionsPerIpOverrides.get('::1'), 3);
    assert.equal(brokerConfigFromProperties({ 'connections.max.idle.ms': '-1' }).connectionsMaxIdleMs, -1);
  });
});

describe('connections.max.idle.ms', () => {
  test('an idle connection, a slow sender and a client that never reads are closed; a busy client and a long poll are not', async () => {
    const idleMs = 1000;
    await withBroker({ config: { 'connections.max.idle.ms': String(idleMs) } }, async (broker) => {
      const topics = Array.from({ length: 40 }, (_, i) => `idle-topic-with-a-longish-name-${i}`);
      await createTopics(broker, topics);
      const idle = await RawClient.connect(broker.port);
      const slow = await RawClient.connect(broker.port);
      const frame = encodeRequestFrame(18, 2, 1, {});
      // one byte per 50 ms: bytes arrive, no request ever completes
      let sent = 0;
      const dribble = setInterval(() => {
        if (sent < frame.length - 1 && !slow.isClosed) slow.send(frame.subarray(sent, ++sent));
      }, 50);
      const hog = await neverReading(broker.port);
      hog.write(metadataFrames(20_000, topics));
      const busy = await RawClient.connect(broker.port);
      const poller = await RawClient.connect(broker.port);
      const poll = poller.request(1, 11, {
        replicaId: -1, maxWaitMs: idleMs * 3, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: topics[0], partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      // the poller is looked at when its answer comes: idle afterwards, it may be closed
      let pollDone = false;
      const polled = poll.then((r) => ((pollDone = true), { r, closedAtAnswer: poller.isClosed }));
      let stopBusy = false;
      try {
        const busyWork = (async () => {
          while (!stopBusy) {
            await answers(busy);
            // once answered, the poller is a busy client too
            if (pollDone) await answers(poller);
            await sleep(idleMs / 10);
          }
        })();
        assert.ok(await idle.closesWithin(GUARD_MS), 'idle connection not closed');
        assert.ok(await slow.closesWithin(GUARD_MS), 'slow sender not closed');
        // a client that never reads cannot see its close: the broker's count says it
        // (the busy client and the poller are the other two)
        await until(() => broker.connectionCounts.served === 2, 'the client that never reads closed');
        const { r, closedAtAnswer } = await within(polled, 'long poll');
        assert.equal(errorName(r.errorCode), 'NONE');
        assert.equal(closedAtAnswer, false, 'a long poll was cut');
        assert.equal(busy.isClosed, false, 'a busy client was closed');
        stopBusy = true;
        await within(busyWork, 'busy client');
      } finally {
        stopBusy = true;
        clearInterval(dribble);
        hog.destroy();
        busy.destroy();
        poller.destroy();
      }
    });
  });
});

describe('connections.max.idle.ms after a blocked event loop', () => {
  test('a request that arrived while the event loop was blocked past the limit is read before the idle check (Kafka reads, then closes the oldest)', async () => {
    const idleMs = 500;
    await withBroker({ config: { 'connections.max.idle.ms': String(idleMs) } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await answers(c);
      // written to the kernel at once; the broker shares this thread, so blocking it leaves the
      // request unread past the limit, as a long synchronous task or a descheduled process would
      const pending = c.request(18, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' });
      const blockedUntil = Date.now() + idleMs * 3;
      while (Date.now() < blockedUntil) {
        // busy: nothing else runs on this thread
      }
      const v = await within(pending, 'the ApiVersions sent before the block');
      assert.equal(errorName(v.errorCode), 'NONE');
      assert.equal(c.isClosed, false, 'closed as idle with a request waiting');
      c.destroy();
    });
  });
});

describe('max.connections and max.connections.per.ip', () => {
  test('per IP: the connection over the limit is closed; the override raises it; a freed slot is reused', async () => {
    await withBroker({ config: { 'max.connections.per.ip': '2' } }, async (broker) => {
      const a = await RawClient.connect(broker.port);
      const b = await RawClient.connect(broker.port);
      await answers(a);
      await answers(b);
      const c = await RawClient.connect(broker.port);
      assert.ok(await c.closesWithin(GUARD_MS), 'third connection from 127.0.0.1 served');
      a.destroy();
      await a.closed;
      const d = await within(retryConnect(broker.port), 'reconnect after a slot freed');
      await answers(d);
      await answers(b);
      b.destroy();
      d.destroy();
    });
    await withBroker({ config: { 'max.connections.per.ip': '1', 'max.connections.per.ip.overrides': '127.0.0.1:3' } }, async (broker) => {
      const cs = [await RawClient.connect(broker.port), await RawClient.connect(broker.port), await RawClient.connect(broker.port)];
      for (const c of cs) await answers(c);
      const over = await RawClient.connect(broker.port);
      assert.ok(await over.closesWithin(GUARD_MS), 'fourth connection served despite the override of 3');
      for (const c of cs) c.destroy();
    });
  });

  test('broker-wide: a connection over max.connections waits unserved and is served once a slot frees', async () => {
    await withBroker({ config: { 'max.connections': '2' } }, async (broker) => {
      const a = await RawClient.connect(broker.port);
      const b = await RawClient.connect(broker.port);
      await answers(a);
      await answers(b);
      const waiting = await RawClient.connect(broker.port);
      const id = waiting.correlationId();
      const answer = waiting.nextFrame();
      waiting.send(encodeRequestFrame(18, 2, id, {}));
      await settled(() => JSON.stringify(broker.connectionCounts), 'accepting');
      assert.deepEqual(broker.connectionCounts, { served: 2, waiting: 1 });
      assert.equal(waiting.unclaimed.length, 0);
      assert.equal(waiting.isClosed, false);
      a.destroy();
      assert.equal((await within(answer, 'the waiting connection served')).readInt32BE(0), id);
      await answers(waiting);
      await answers(b);
      assert.equal(broker.connectionCounts.served, 2);
      b.destroy();
      waiting.destroy();
    });
  });

  test(`beyond ${MAX_WAITING_CONNECTIONS} waiting, a new connection is closed (a full accept backlog)`, async () => {
    await withBroker({ config: { 'max.connections': '1' } }, async (broker) => {
      const served = await RawClient.connect(broker.port);
      await answers(served);
      const waiting: RawClient[] = [];
      for (let i = 0; i < MAX_WAITING_CONNECTIONS; i++) waiting.push(await RawClient.connect(broker.port));
      await settled(() => JSON.stringify(broker.connectionCounts), 'accepting');
      assert.deepEqual(broker.connectionCounts, { served: 1, waiting: MAX_WAITING_CONNECTIONS });
      const over = await RawClient.connect(broker.port);
      assert.ok(await over.closesWithin(GUARD_MS), 'connection beyond the waiting queue kept');
      for (const w of waiting) w.destroy();
      served.destroy();
    });
  });
});

/** Connects until the broker serves the connection (a closed slot is freed when the broker sees the close). */
async function retryConnect(port: number): Promise<RawClient> {
  for (;;) {
    const c = await RawClient.connect(port);
    try {
      await c.request(18, 2, {});
      return c;
    } catch {
      await sleep(50);
    }
  }
}
