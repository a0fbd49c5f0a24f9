/**
 * Server behaviour of one connection, driven by a raw client on the repo's codec: pipelining and
 * answer order, ApiVersions for any version (KIP-511), what closes a connection (unknown API or
 * version, frame size outside [0, socket.request.max.bytes] — Kafka's SocketServer /
 * InvalidReceiveException) and that other connections never notice, clients vanishing mid-frame
 * and mid-request, acks=0 (no answer), advertised version caps, and the clean-shutdown marker.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { CLEAN_SHUTDOWN_FILE } from '../../src/storage/file-names.js';
import { storedRecords, withBroker } from '../helpers/broker.js';
import { decodeResponseFrame, encodeRequestFrame, RawClient, sizePrefixed, type Msg } from '../helpers/raw-client.js';

/** A hang guard for "the broker closes this connection": generous, never a timing claim. */
const CLOSE_GUARD_MS = 10_000;

async function metadataWorks(client: RawClient): Promise<void> {
  const r = await client.request(3, 1, { topics: [] });
  assert.equal(r.brokers.length, 1);
}

/** Produce does not create topics (only Metadata does, AutoTopicCreationManager): v1 always asks to. */
async function createTopic(client: RawClient, name: string): Promise<void> {
  const r = await client.request(3, 1, { topics: [{ name }] });
  assert.equal(errorName(r.topics[0].errorCode), 'NONE', `auto-creating ${name}`);
}

function produceBody(topic: string, acks: number, values: string[]): Msg {
  const records = encodeRecordBatch(values.map((v) => ({ value: v })));
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] };
}

describe('broker connections (raw protocol)', () => {
  test('pipelined requests are answered in order, each with its own correlation id', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      for (let t = 0; t < 3; t++) await createTopic(c, `pipe-${t}`);
      const plan: [number, number, Msg][] = [];
      for (let i = 0; i < 40; i++) {
        const k = i % 4;
        if (k === 0) plan.push([18, i % 3, {}]);
        else if (k === 1) plan.push([3, 1 + (i % 9), { topics: [{ name: `pipe-${i % 3}` }], allowAutoTopicCreation: true }]);
        else if (k === 2) plan.push([0, 3 + (i % 7), produceBody(`pipe-${i % 3}`, 1, [`v${i}`])]);
        else plan.push([2, 1 + (i % 6), { replicaId: -1, topics: [{ name: `pipe-${i % 3}`, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }]);
      }
      // correlation ids deliberately not increasing: the broker must echo, not count
      const ids = plan.map((_, i) => 1000 - i * 7);
      const answers = plan.map(() => c.nextFrame());
      c.send(Buffer.concat(plan.map(([k, v, body], i) => encodeRequestFrame(k, v, ids[i]!, body))));
      for (let i = 0; i < plan.length; i++) {
        const [k, v] = plan[i]!;
        const r = decodeResponseFrame(k, v, await answers[i]!);
        assert.equal(r.correlationId, ids[i], `answer ${i} (API ${k} v${v})`);
        if (k === 0) assert.equal(errorName(r.body.responses[0].partitionResponses[0].errorCode), 'NONE');
      }
      c.destroy();
      const values = storedRecords(broker.dataDir, 'pipe-2', 0).map((r) => r.value!.toString());
      assert.deepEqual(values, plan.flatMap(([k], i) => (k === 0 && i % 3 === 2 ? [`v${i}`] : [])));
    });
  });

  test('ApiVersions v0-4 are answered; v5 and v99 get a v0 body with UNSUPPORTED_VERSION and the connection stays open', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      for (let v = 0; v <= 4; v++) {
        const r = await c.request(18, v, { clientSoftwareName: 'raw-client', clientSoftwareVersion: '1.0' });
        assert.equal(errorName(r.errorCode), 'NONE', `v${v}`);
        assert.deepEqual(r.apiKeys.find((k: Msg) => k.apiKey === 18), { apiKey: 18, minVersion: 0, maxVersion: 4 });
        assert.ok(r.apiKeys.some((k: Msg) => k.apiKey === 0) && r.apiKeys.some((k: Msg) => k.apiKey === 1));
      }
      for (const v of [5, 99, 32767]) {
        const id = c.correlationId();
        const answer = c.nextFrame();
        // a newer client sends its newest body; the broker must not need to parse it
        c.send(encodeRequestFrame(18, v, id, { clientSoftwareName: 'future', clientSoftwareVersion: '9' }, 'raw-client', 3));
        const r = decodeResponseFrame(18, 0, await answer);
        assert.equal(r.correlationId, id);
        assert.equal(errorName(r.body.errorCode), 'UNSUPPORTED_VERSION', `v${v}`);
        assert.deepEqual(r.body.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
      }
      await metadataWorks(c);
      assert.equal(c.isClosed, false);
      c.destroy();
    });
  });

  for (const [what, apiKey, version] of [
    ['unknown API key 1000', 1000, 0],
    ['unknown API key -1', -1, 0],
    ['an API the broker does not serve (JoinGroup)', 11, 5],
    ['Produce v99', 0, 99],
    ['Fetch v3 (below the served minimum)', 1, 3],
  ] as const) {
    test(`${what} closes that connection; other connections keep working`, async () => {
      await withBroker({}, async (broker) => {
        const other = await RawClient.connect(broker.port);
        await metadataWorks(other);
        const c = await RawClient.connect(broker.port);
        await metadataWorks(c);
        // header v1 + a few body bytes: the broker must decide on the header alone
        const header = Buffer.alloc(8 + 2 + 4);
        header.writeInt16BE(apiKey, 0);
        header.writeInt16BE(version, 2);
        header.writeInt32BE(77, 4);
        header.writeInt16BE(-1, 8);
        c.send(sizePrefixed(header));
        assert.ok(await c.closesWithin(CLOSE_GUARD_MS), 'connection not closed');
        assert.equal(c.unclaimed.length, 0, 'no answer expected');
        await metadataWorks(other);
        const fresh = await RawClient.connect(broker.port);
        await metadataWorks(fresh);
        other.destroy();
        fresh.destroy();
      });
    });
  }

  test('a frame above socket.request.max.bytes closes the connection; one at the limit is served', async () => {
    const max = 4096;
    await withBroker({ config: { 'socket.request.max.bytes': String(max) } }, async (broker) => {
      const other = await RawClient.connect(broker.port);
      // a Produce request of exactly max bytes (after the size prefix) is read and answered
      const c0 = await RawClient.connect(broker.port);
      await createTopic(c0, 'limit');
      // a big value, then the client id (int16-length string, one byte per char) fills to exactly max
      const body = produceBody('limit', 1, ['x'.repeat(max - 300)]);
      const short = encodeRequestFrame(0, 9, 2, body, '');
      const atLimit = encodeRequestFrame(0, 9, 2, body, 'c'.repeat(max - (short.length - 4)));
      assert.equal(atLimit.length - 4, max);
      const answer = c0.nextFrame();
      c0.send(atLimit);
      const r = decodeResponseFrame(0, 9, await answer);
      assert.equal(errorName(r.body.responses[0].partitionResponses[0].errorCode), 'NONE');

      const c = await RawClient.connect(broker.port);
      const over = Buffer.alloc(8);
      over.writeInt32BE(max + 1, 0);
      c.send(over); // the size alone must be enough: no waiting for max+1 bytes
      assert.ok(await c.closesWithin(CLOSE_GUARD_MS), 'oversized frame did not close the connection');
      await metadataWorks(other);
      await metadataWorks(c0);
      other.destroy();
      c0.destroy();
    });
  });

  for (const size of [-1, -2147483648]) {
    test(`a negative frame size (${size}) closes the connection`, async () => {
      await withBroker({}, async (broker) => {
        const c = await RawClient.connect(broker.port);
        const b = Buffer.alloc(4);
        b.writeInt32BE(size, 0);
        c.send(b);
        assert.ok(await c.closesWithin(CLOSE_GUARD_MS));
        const fresh = await RawClient.connect(broker.port);
        await metadataWorks(fresh);
        fresh.destroy();
      });
    });
  }

  test('requests pipelined before a bad size prefix in the same write are answered, then the connection closes', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      const bad = Buffer.alloc(4);
      bad.writeInt32BE(-1, 0);
      const first = c.nextFrame();
      const second = c.nextFrame();
      c.send(Buffer.concat([encodeRequestFrame(3, 1, 101, { topics: [] }), encodeRequestFrame(18, 0, 102, {}), bad]));
      assert.equal(decodeResponseFrame(3, 1, await first).correlationId, 101);
      assert.equal(decodeResponseFrame(18, 0, await second).correlationId, 102);
      assert.ok(await c.closesWithin(CLOSE_GUARD_MS));
    });
  });

  test('frames shorter than a request header close the connection', async () => {
    await withBroker({}, async (broker) => {
      for (const len of [0, 1, 7]) {
        const c = await RawClient.connect(broker.port);
        c.send(sizePrefixed(Buffer.alloc(len, 0)));
        assert.ok(await c.closesWithin(CLOSE_GUARD_MS), `frame of ${len} bytes`);
      }
      const fresh = await RawClient.connect(broker.port);
      await metadataWorks(fresh);
      fresh.destroy();
    });
  });

  test('clients disconnecting mid-frame and mid-request leave the broker serving', async () => {
    await withBroker({}, async (broker) => {
      const watcher = await RawClient.connect(broker.port);
      // mid size prefix, mid header, mid body
      const frame = encodeRequestFrame(0, 9, 5, produceBody('vanish', 1, ['never stored']));
      for (const cut of [2, 6, frame.length - 3]) {
        const c = await RawClient.connect(broker.port);
        c.send(frame.subarray(0, cut));
        await new Promise((r) => setImmediate(r));
        c.destroy();
      }
      // mid request: a long poll in progress, then a produce whose answer nobody reads
      const poller = await RawClient.connect(broker.port);
      await poller.request(3, 9, { topics: [{ name: 'vanish' }], allowAutoTopicCreation: true });
      poller.send(
        encodeRequestFrame(1, 12, 9, {
          maxWaitMs: 30_000,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 0,
          topics: [{ topic: 'vanish', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
        }),
      );
      await metadataWorks(watcher); // the long poll is now parked in the broker
      poller.destroy();
      const producer = await RawClient.connect(broker.port);
      producer.send(encodeRequestFrame(0, 9, 1, produceBody('vanish', 1, ['stored'])));
      producer.socket.end();
      await producer.closed;
      await metadataWorks(watcher);
      const fresh = await RawClient.connect(broker.port);
      const lo = await fresh.request(2, 5, { replicaId: -1, topics: [{ name: 'vanish', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
      assert.equal(lo.topics[0].partitions[0].offset, 1n);
      assert.deepEqual(storedRecords(broker.dataDir, 'vanish', 0).map((r) => r.value!.toString()), ['stored']);
      watcher.destroy();
      fresh.destroy();
    });
  });

  test('acks=0 Produce gets no answer: the next pipelined answer carries the next correlation id', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await c.request(3, 9, { topics: [{ name: 'fire' }], allowAutoTopicCreation: true });
      const first = c.nextFrame();
      c.send([
        encodeRequestFrame(0, 9, 501, produceBody('fire', 0, ['a', 'b'])),
        encodeRequestFrame(0, 3, 502, produceBody('fire', 0, ['c'])),
        encodeRequestFrame(2, 5, 503, { replicaId: -1, topics: [{ name: 'fire', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }),
      ]);
      const r = decodeResponseFrame(2, 5, await first);
      assert.equal(r.correlationId, 503);
      assert.equal(r.body.topics[0].partitions[0].offset, 3n);
      await metadataWorks(c);
      assert.equal(c.unclaimed.length, 0);
      assert.deepEqual(storedRecords(broker.dataDir, 'fire', 0).map((x) => x.value!.toString()), ['a', 'b', 'c']);
      c.destroy();
    });
  });

  test('acks=0 Produce that fails closes the connection (the client cannot see an error answer)', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      c.send(encodeRequestFrame(0, 9, 1, produceBody('no-such-topic', 0, ['lost'])));
      assert.ok(await c.closesWithin(CLOSE_GUARD_MS));
      assert.equal(c.unclaimed.length, 0);
    });
  });

  test('maxVersions caps show in ApiVersions, and what is not advertised is not served', async () => {
    await withBroker({ maxVersions: { 0: 3, 1: 4, 3: 1 } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'capped');
      const r = await c.request(18, 3, { clientSoftwareName: 'raw-client', clientSoftwareVersion: '1.0' });
      const range = (k: number) => r.apiKeys.find((a: Msg) => a.apiKey === k);
      assert.deepEqual(range(0), { apiKey: 0, minVersion: 0, maxVersion: 3 });
      assert.deepEqual(range(1), { apiKey: 1, minVersion: 0, maxVersion: 4 });
      assert.deepEqual(range(3), { apiKey: 3, minVersion: 0, maxVersion: 1 });
      assert.equal(errorName((await c.request(0, 3, produceBody('capped', 1, ['ok']))).responses[0].partitionResponses[0].errorCode), 'NONE');
      // a version the broker knows but does not serve: UNSUPPORTED_VERSION, nothing appended (unsupported-version.ts)
      const refused = await c.request(0, 4, produceBody('capped', 1, ['refused']));
      assert.equal(errorName(refused.responses[0].partitionResponses[0].errorCode), 'UNSUPPORTED_VERSION');
      assert.deepEqual(storedRecords(broker.dataDir, 'capped', 0).map((x) => x.value!.toString()), ['ok']);
    });
  });

  test('graceful close writes .kafka_cleanshutdown; the next start consumes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-close-'));
    try {
      await withBroker({ dataDir }, async (broker) => {
        const c = await RawClient.connect(broker.port);
        await createTopic(c, 'durable');
        const p = await c.request(0, 9, produceBody('durable', -1, ['x', 'y']));
        assert.equal(errorName(p.responses[0].partitionResponses[0].errorCode), 'NONE');
        assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), false, 'marker present while running');
        c.destroy();
      });
      assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), true);
      await withBroker({ dataDir }, async (broker) => {
        assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), false, 'marker not consumed on start');
        const c = await RawClient.connect(broker.port);
        const lo = await c.request(2, 5, { replicaId: -1, topics: [{ name: 'durable', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
        assert.equal(lo.topics[0].partitions[0].offset, 2n);
        c.destroy();
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('close() while a long poll and an idle connection are open answers the poll and ends both', async () => {
    const broker = await (await import('../../src/broker/broker.js')).Broker.start({ logLevel: 'silent' });
    const idle = await RawClient.connect(broker.port);
    const poller = await RawClient.connect(broker.port);
    await poller.request(3, 9, { topics: [{ name: 'closing' }], allowAutoTopicCreation: true });
    const answer = poller.nextFrame();
    poller.send(
      encodeRequestFrame(1, 12, 44, {
        maxWaitMs: 60_000,
        minBytes: 1,
        maxBytes: 1 << 20,
        topics: [{ topic: 'closing', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
      }),
    );
    await metadataWorks(idle);
    await broker.close();
    const r = decodeResponseFrame(1, 12, await answer);
    assert.equal(r.correlationId, 44);
    assert.ok(await idle.closesWithin(CLOSE_GUARD_MS));
    assert.ok(await poller.closesWithin(CLOSE_GUARD_MS));
  });

  test('answers held for pipelined requests go out before a request that waits (a long poll)', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'held');
      const produced = c.nextFrame();
      const polled = c.nextFrame();
      let pollAnswered = false;
      void polled.then(() => (pollAnswered = true));
      // one write: a Produce, then a Fetch at the end of the log that waits for data; held behind
      // the poll, the Produce answer would come only when the poll gives up (after maxWaitMs)
      c.send(
        Buffer.concat([
          encodeRequestFrame(0, 7, 1, produceBody('held', 1, ['a'])),
          encodeRequestFrame(1, 12, 2, {
            maxWaitMs: 10_000,
            minBytes: 1,
            maxBytes: 1 << 20,
            topics: [{ topic: 'held', partitions: [{ partition: 0, fetchOffset: 1n, partitionMaxBytes: 1 << 20 }] }],
          }),
        ]),
      );
      const p = decodeResponseFrame(0, 7, await produced);
      assert.equal(errorName(p.body.responses[0].partitionResponses[0].errorCode), 'NONE');
      assert.equal(pollAnswered, false, 'the Produce answer came while the poll behind it still waited');
      // another client's record ends the poll
      const other = await RawClient.connect(broker.port);
      await other.request(0, 7, produceBody('held', 1, ['b']));
      const f = decodeResponseFrame(1, 12, await polled);
      assert.equal(f.correlationId, 2);
      const records = f.body.responses[0].partitions[0].records as Buffer;
      assert.equal(records.readBigInt64BE(0), 1n, 'the poll was answered with the record that ended it');
      other.destroy();
    });
  });

  test('Fetch answers read into pooled memory stay intact while the socket still holds them, and the memory comes back', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'pooled');
      const BATCHES = 40;
      const PER_BATCH = 4;
      for (let i = 0; i < BATCHES; i++) {
        const value = Buffer.alloc(64 * 1024, i % 251);
        const records = encodeRecordBatch(Array.from({ length: PER_BATCH }, () => ({ value })));
        const r = await c.request(0, 7, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'pooled', partitionData: [{ index: 0, records }] }] });
        assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      }
      // ~10 MiB of answers to a client that does not read: the kernel's socket buffers fill and the
      // broker's socket keeps the rest queued, so a read buffer handed back too early would be
      // overwritten by a later Fetch before its bytes left
      const f = await RawClient.connect(broker.port);
      f.socket.pause();
      const answers = Array.from({ length: BATCHES }, () => f.nextFrame());
      f.send(
        Buffer.concat(
          Array.from({ length: BATCHES }, (_, i) =>
            encodeRequestFrame(1, 11, i, {
              replicaId: -1,
              maxWaitMs: 0,
              minBytes: 0,
              maxBytes: 1 << 20,
              isolationLevel: 0,
              // partitionMaxBytes 1: exactly the batch holding the offset, whole (KIP-74)
              topics: [{ topic: 'pooled', partitions: [{ partition: 0, fetchOffset: BigInt(i * PER_BATCH), partitionMaxBytes: 1 }] }],
            }),
          ),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300)); // lets the broker answer all it can meanwhile
      f.socket.resume();
      for (let i = 0; i < BATCHES; i++) {
        const r = decodeResponseFrame(1, 11, await answers[i]!);
        assert.equal(r.correlationId, i);
        const records = r.body.responses[0].partitions[0].records as Buffer;
        const batch = readRecordBatches(records, { verifyCrc: true }).nextBatch();
        assert.ok(batch !== null && batch.kind === 'v2', `answer ${i} holds a batch`);
        assert.equal(batch.baseOffset, BigInt(i * PER_BATCH), `answer ${i}`);
        for (const rec of batch.records({ verifyCrc: false })) {
          assert.ok(rec.value!.every((b) => b === i % 251), `answer ${i}: a record's bytes changed after it was read`);
        }
      }
      assert.ok(broker.fetchReadPool.pooledBytes > 0, 'the read buffers came back to the pool once written');
      f.destroy();
      c.destroy();
    });
  });
});
