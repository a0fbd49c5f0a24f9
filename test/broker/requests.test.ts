/**
 * Request semantics over the raw protocol: the Fetch long poll (DelayedFetch: wait for min_bytes
 * or max_wait_ms, woken by appends), records never null (librdkafka rejects -1), KIP-74 (the first
 * batch whole beyond max_bytes, then the budget applies), read_committed stopping at the last
 * stable offset, Metadata's "all topics" forms (v0 empty list, v1+ null) and auto-creation.
 */
import assert from 'node:assert/strict';
import { errorName, type ErrorName } from '../../src/protocol/error-codes.js';
import { describe, test } from 'node:test';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch, type RecordBatchOptions } from '../../src/record/builder.js';
import { withBroker } from '../helpers/broker.js';
import { decodeResponseFrame, encodeRequestFrame, RawClient, type Msg } from '../helpers/raw-client.js';

/** Hang guard only: a long poll that never wakes fails here instead of at its 60 s max wait. */
const WAKE_GUARD_MS = 20_000;

/** `answer`, or a failure with `what` if it has not come within the hang guard. */
async function guarded<T>(answer: Promise<T>, what: string): Promise<T> {
  let guard: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([answer, new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error(what)), WAKE_GUARD_MS)))]);
  } finally {
    clearTimeout(guard);
  }
}

function fetchBody(topic: string, partitions: { partition: number; offset: bigint }[], o: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; partitionMaxBytes?: number; isolation?: number } = {}): Msg {
  return {
    replicaId: -1,
    maxWaitMs: o.maxWaitMs ?? 0,
    minBytes: o.minBytes ?? 1,
    maxBytes: o.maxBytes ?? 1 << 20,
    isolationLevel: o.isolation ?? 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: partitions.map((p) => ({ partition: p.partition, fetchOffset: p.offset, partitionMaxBytes: o.partitionMaxBytes ?? 1 << 20 })) }],
  };
}

async function createTopic(c: RawClient, name: string, partitions = 1): Promise<void> {
  const r = await c.request(19, 4, { topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.equal(errorName(r.topics[0].errorCode), 'NONE', `creating ${name}`);
}

async function produce(c: RawClient, topic: string, partition: number, values: string[], options: RecordBatchOptions = {}): Promise<bigint> {
  const records = encodeRecordBatch(values.map((v) => ({ value: v })), options);
  const r = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  const p = r.responses[0].partitionResponses[0];
  assert.equal(errorName(p.errorCode), 'NONE', `produce to ${topic}-${partition}: ${p.errorMessage}`);
  return p.baseOffset as bigint;
}

/**
 * Sends a Fetch v12 long poll and shows it parked: the producer's connection is served three
 * times meanwhile and the poll is still unanswered. `answer`: its answer to come.
 */
async function parkedFetch(consumer: RawClient, producer: RawClient, id: number, body: Msg, unparked: string): Promise<{ answer: Promise<Buffer> }> {
  const answer = consumer.nextFrame();
  consumer.send(encodeRequestFrame(1, 12, id, body));
  let answered = false;
  void answer.then(() => (answered = true));
  for (let i = 0; i < 3; i++) await producer.request(3, 9, { topics: null });
  assert.equal(answered, false, unparked);
  return { answer };
}

function batchesOf(records: Buffer): { baseOffset: bigint; lastOffset: bigint; values: string[] }[] {
  const out = [];
  const reader = readRecordBatches(records, { verifyCrc: true });
  for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
    if (b.kind !== 'v2') throw new Error('legacy batch');
    out.push({ baseOffset: b.baseOffset, lastOffset: b.lastOffset, values: [...b.records({ verifyCrc: false })].map((r) => Buffer.from(r.value!).toString()) });
  }
  return out;
}

describe('broker requests (raw protocol)', () => {
  test('an empty Fetch long poll is answered after max_wait_ms, empty, not before', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'idle');
      const maxWaitMs = 400;
      const t0 = performance.now();
      const r = await c.request(1, 12, fetchBody('idle', [{ partition: 0, offset: 0n }], { maxWaitMs }));
      const waited = performance.now() - t0;
      // a lower bound is the protocol rule (min_bytes not reached: wait the whole max_wait_ms);
      // no upper bound is asserted. 5 ms slack for the two clocks' granularity.
      assert.ok(waited >= maxWaitMs - 5, `answered after ${waited.toFixed(1)} ms, before max_wait_ms ${maxWaitMs}`);
      const p = r.responses[0].partitions[0];
      assert.equal(errorName(p.errorCode), 'NONE');
      assert.ok(Buffer.isBuffer(p.records) && p.records.length === 0, 'empty records, not null');
      c.destroy();
    });
  });

  test('a long poll is parked while other connections are served, and a produce wakes it early', async () => {
    await withBroker({}, async (broker) => {
      const consumer = await RawClient.connect(broker.port);
      const producer = await RawClient.connect(broker.port);
      await createTopic(producer, 'wake', 2);
      const id = consumer.correlationId();
      const { answer } = await parkedFetch(consumer, producer, id, fetchBody('wake', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }], { maxWaitMs: 60_000, minBytes: 1 }), 'long poll answered with nothing to return');
      await produce(producer, 'wake', 1, ['wake up']);
      const frame = await guarded(answer, 'produce did not wake the long poll');
      const r = decodeResponseFrame(1, 12, frame);
      assert.equal(r.correlationId, id);
      const [p0, p1] = r.body.responses[0].partitions;
      assert.equal(p0.records.length, 0);
      assert.deepEqual(batchesOf(p1.records).map((b) => b.values), [['wake up']]);
      assert.equal(p1.highWatermark, 1n);
      consumer.destroy();
      producer.destroy();
    });
  });

  test('an unknown partition does not end a long poll (it is answered with its error); no partition to read, or a leader-epoch error, answers at once', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
      const consumer = await RawClient.connect(broker.port);
      const producer = await RawClient.connect(broker.port);
      await createTopic(producer, 'mixed');
      const fetch = (partitions: { topic: string; partition: number; currentLeaderEpoch?: number }[]): Msg => ({
        ...fetchBody('mixed', [], { maxWaitMs: 60_000, minBytes: 1 }),
        topics: [...new Set(partitions.map((p) => p.topic))].map((topic) => ({
          topic,
          partitions: partitions.filter((p) => p.topic === topic).map((p) => ({ partition: p.partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: p.currentLeaderEpoch ?? -1 })),
        })),
      });
      const { answer } = await parkedFetch(consumer, producer, consumer.correlationId(), fetch([{ topic: 'mixed', partition: 0 }, { topic: 'mixed', partition: 7 }, { topic: 'missing', partition: 0 }]), 'the unknown partitions ended the long poll (KafkaApis puts them aside, ReplicaManager waits for the rest)');
      await produce(producer, 'mixed', 0, ['for the known one']);
      const frame = await guarded(answer, 'produce did not wake the long poll');
      const r = decodeResponseFrame(1, 12, frame).body;
      const byPartition = r.responses.flatMap((t: Msg) => t.partitions.map((p: Msg) => [`${t.topic}-${p.partitionIndex}`, errorName(p.errorCode), p.records.length > 0]));
      assert.deepEqual(byPartition, [['mixed-0', 'NONE', true], ['mixed-7', 'UNKNOWN_TOPIC_OR_PARTITION', false], ['missing-0', 'UNKNOWN_TOPIC_OR_PARTITION', false]]);
      // nothing to read at all: answered at once (ReplicaManager is not asked)
      const none = await guarded(consumer.request(1, 12, fetch([{ topic: 'missing', partition: 0 }])), 'a fetch of unknown partitions alone waited');
      assert.equal(errorName(none.responses[0].partitions[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
      // a current leader epoch newer than the partition's (0): the read fails, answered at once
      const epoch = await guarded(consumer.request(1, 12, fetch([{ topic: 'mixed', partition: 0, currentLeaderEpoch: 3 }])), 'a leader-epoch error waited');
      assert.equal(errorName(epoch.responses[0].partitions[0].errorCode), 'UNKNOWN_LEADER_EPOCH');
      const fenced = await consumer.request(1, 12, { ...fetch([{ topic: 'mixed', partition: 0, currentLeaderEpoch: -2 }]), maxWaitMs: 0 });
      assert.equal(errorName(fenced.responses[0].partitions[0].errorCode), 'FENCED_LEADER_EPOCH');
      consumer.destroy();
      producer.destroy();
    });
  });

  test('min_bytes: a long poll keeps waiting until enough bytes arrived across appends', async () => {
    await withBroker({}, async (broker) => {
      const consumer = await RawClient.connect(broker.port);
      const producer = await RawClient.connect(broker.port);
      await createTopic(producer, 'minbytes');
      const one = encodeRecordBatch([{ value: 'x'.repeat(100) }]).length;
      const answer = consumer.nextFrame();
      let answered = false;
      void answer.then(() => (answered = true));
      consumer.send(encodeRequestFrame(1, 11, 7, fetchBody('minbytes', [{ partition: 0, offset: 0n }], { maxWaitMs: 60_000, minBytes: one * 3 })));
      await produce(producer, 'minbytes', 0, ['x'.repeat(100)]);
      await produce(producer, 'minbytes', 0, ['x'.repeat(100)]);
      await producer.request(3, 9, { topics: null }); // one more round trip for the wake-ups to run
      assert.equal(answered, false, 'answered below min_bytes');
      await produce(producer, 'minbytes', 0, ['x'.repeat(100)]);
      const r = decodeResponseFrame(1, 11, await answer);
      assert.equal(batchesOf(r.body.responses[0].partitions[0].records).length, 3);
      consumer.destroy();
      producer.destroy();
    });
  });

  for (const version of [4, 7, 11, 12]) {
    test(`Fetch v${version} never returns null records (empty, unknown partition, out of range)`, async () => {
      await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
        const c = await RawClient.connect(broker.port);
        await createTopic(c, 'nulls');
        await produce(c, 'nulls', 0, ['a']);
        const cases: [string, { partition: number; offset: bigint }, ErrorName][] = [
          ['at the end', { partition: 0, offset: 1n }, 'NONE'],
          ['out of range', { partition: 0, offset: 99n }, 'OFFSET_OUT_OF_RANGE'],
          ['unknown partition', { partition: 5, offset: 0n }, 'UNKNOWN_TOPIC_OR_PARTITION'],
        ];
        for (const [what, part, error] of cases) {
          const r = await c.request(1, version, fetchBody('nulls', [part]));
          const p = r.responses[0].partitions[0];
          assert.equal(errorName(p.errorCode), error, what);
          assert.ok(p.records !== null && p.records.length === 0, `${what}: records ${p.records === null ? 'null' : p.records.length}`);
        }
        const unknown = await c.request(1, version, fetchBody('no-such-topic', [{ partition: 0, offset: 0n }]));
        assert.equal(errorName(unknown.responses[0].partitions[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        assert.notEqual(unknown.responses[0].partitions[0].records, null);
        c.destroy();
      });
    });
  }

  test('KIP-74: the first batch comes whole beyond max_bytes; later partitions get what the budget leaves', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'big', 2);
      const values = Array.from({ length: 64 }, (_, i) => `${i}-`.padEnd(1000, 'v'));
      await produce(c, 'big', 0, values);
      await produce(c, 'big', 0, ['second batch']);
      await produce(c, 'big', 1, values);
      const batchBytes = encodeRecordBatch(values.map((v) => ({ value: v }))).length;
      const small = { maxBytes: 1000, partitionMaxBytes: 1000 };
      const r = await c.request(1, 12, fetchBody('big', [{ partition: 0, offset: 0n }, { partition: 1, offset: 0n }], small));
      const [p0, p1] = r.responses[0].partitions;
      assert.equal(p0.records.length, batchBytes, 'first batch not whole');
      assert.deepEqual(batchesOf(p0.records).map((b) => [b.baseOffset, b.lastOffset]), [[0n, 63n]]);
      assert.equal(errorName(p1.errorCode), 'NONE');
      assert.equal(p1.records.length, 0, 'budget already spent, yet partition 1 got bytes');
      assert.equal(p1.highWatermark, 64n);
      // fetch_offset mid-batch: the whole batch holding it (clients skip the records before it)
      const mid = await c.request(1, 12, fetchBody('big', [{ partition: 0, offset: 30n }], small));
      assert.deepEqual(batchesOf(mid.responses[0].partitions[0].records).map((b) => b.baseOffset), [0n]);
      // partition_max_bytes alone also cannot cut the first batch
      const perPartition = await c.request(1, 12, fetchBody('big', [{ partition: 1, offset: 0n }], { maxBytes: 1 << 20, partitionMaxBytes: 10 }));
      assert.equal(perPartition.responses[0].partitions[0].records.length, batchBytes);
      // a budget that fits both batches of partition 0 returns both
      const both = await c.request(1, 12, fetchBody('big', [{ partition: 0, offset: 0n }], { maxBytes: 1 << 20 }));
      assert.deepEqual(batchesOf(both.responses[0].partitions[0].records).map((b) => b.values.length), [64, 1]);
      c.destroy();
    });
  });

  test('fetch.max.bytes caps the answer whatever max_bytes asks (the first batch still whole)', async () => {
    await withBroker({ config: { 'fetch.max.bytes': '1024' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        await createTopic(c, 'capped');
        for (let i = 0; i < 4; i++) await produce(c, 'capped', 0, ['x'.repeat(600) + i]);
        const r = await c.request(1, 12, fetchBody('capped', [{ partition: 0, offset: 0n }], { maxBytes: 1 << 20 }));
        const records = r.responses[0].partitions[0].records as Buffer;
        assert.ok(records.length <= 1024, `${records.length} bytes answered above fetch.max.bytes`);
        assert.deepEqual(batchesOf(records).map((b) => b.baseOffset), [0n], 'the first batch, whole; the next does not fit');
      } finally {
        c.destroy();
      }
    });
  });

  test('read_committed stops at the last stable offset; read_uncommitted reads to the high watermark', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'txn');
      const pid = await c.request(22, 4, { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
      assert.equal(errorName(pid.errorCode), 'NONE');
      await produce(c, 'txn', 0, ['c0', 'c1', 'c2']);
      // an open transaction's batch (transactional bit, the producer's id): nothing commits it. Appended to
      // the log directly: a Produce without a transactional id may not carry it (TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
      const txn = encodeRecordBatch(['t0', 't1'].map((v) => ({ value: v })), { isTransactional: true, producerId: pid.producerId, producerEpoch: pid.producerEpoch, baseSequence: 0 });
      assert.equal(broker.logs.getLog('txn', 0)!.append(txn).firstOffset, 3n);
      await produce(c, 'txn', 0, ['after']);
      const committed = await c.request(1, 12, fetchBody('txn', [{ partition: 0, offset: 0n }], { isolation: 1 }));
      const pc = committed.responses[0].partitions[0];
      assert.equal(pc.highWatermark, 6n);
      assert.equal(pc.lastStableOffset, 3n);
      assert.deepEqual(batchesOf(pc.records).flatMap((b) => b.values), ['c0', 'c1', 'c2']);
      const atLso = await c.request(1, 12, fetchBody('txn', [{ partition: 0, offset: 3n }], { isolation: 1 }));
      assert.equal(errorName(atLso.responses[0].partitions[0].errorCode), 'NONE');
      assert.equal(atLso.responses[0].partitions[0].records.length, 0);
      const uncommitted = await c.request(1, 12, fetchBody('txn', [{ partition: 0, offset: 0n }], { isolation: 0 }));
      assert.deepEqual(batchesOf(uncommitted.responses[0].partitions[0].records).flatMap((b) => b.values), ['c0', 'c1', 'c2', 't0', 't1', 'after']);
      // ListOffsets latest under read_committed is the LSO too (v2+)
      const lo = await c.request(2, 5, { replicaId: -1, isolationLevel: 1, topics: [{ name: 'txn', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
      assert.equal(lo.topics[0].partitions[0].offset, 3n);
      c.destroy();
    });
  });

  test('Metadata v0 with an empty list means all topics; v1+ empty means none and null means all', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      await createTopic(c, 'alpha');
      await createTopic(c, 'beta', 3);
      const names = (r: Msg) => (r.topics as Msg[]).map((t) => t.name).sort();
      assert.deepEqual(names(await c.request(3, 0, { topics: [] })), ['alpha', 'beta']);
      assert.deepEqual(names(await c.request(3, 1, { topics: [] })), []);
      for (const v of [1, 4, 9]) assert.deepEqual(names(await c.request(3, v, { topics: null })), ['alpha', 'beta'], `v${v} null`);
      const beta = (await c.request(3, 9, { topics: [{ name: 'beta' }] })).topics[0];
      assert.deepEqual(beta.partitions.map((p: Msg) => [p.partitionIndex, p.leaderId]), [[0, 1], [1, 1], [2, 1]]);
      c.destroy();
    });
  });

  test('auto-create on: Metadata creates unknown topics with num.partitions unless the request says no (v4+)', async () => {
    await withBroker({ config: { 'num.partitions': '3' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      const refused = await c.request(3, 9, { topics: [{ name: 'not-asked' }], allowAutoTopicCreation: false });
      assert.equal(errorName(refused.topics[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
      const v0 = await c.request(3, 0, { topics: [{ name: 'by-v0' }] });
      assert.equal(errorName(v0.topics[0].errorCode), 'NONE');
      assert.equal(v0.topics[0].partitions.length, 3);
      const v9 = await c.request(3, 9, { topics: [{ name: 'by-v9' }], allowAutoTopicCreation: true });
      assert.equal(v9.topics[0].partitions.length, 3);
      assert.deepEqual(((await c.request(3, 1, { topics: null })).topics as Msg[]).map((t) => t.name).sort(), ['by-v0', 'by-v9']);
      // Produce never creates (only Metadata does, KafkaApis)
      const p = await c.request(0, 9, { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [{ name: 'by-produce', partitionData: [{ index: 0, records: encodeRecordBatch([{ value: 'v' }]) }] }] });
      assert.equal(errorName(p.responses[0].partitionResponses[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
      c.destroy();
    });
  });

  test('auto-create off: Metadata answers UNKNOWN_TOPIC_OR_PARTITION whatever the request asks', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      for (const [v, body] of [[0, { topics: [{ name: 'x' }] }], [1, { topics: [{ name: 'x' }] }], [9, { topics: [{ name: 'x' }], allowAutoTopicCreation: true }]] as const) {
        const r = await c.request(3, v, body);
        assert.equal(errorName(r.topics[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION', `v${v}`);
      }
      assert.equal((await c.request(3, 1, { topics: null })).topics.length, 0);
      c.destroy();
    });
  });
});
