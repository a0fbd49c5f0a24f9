/**
 * The per-API request latency histograms (src/broker/request-metrics.ts): the bucket arithmetic
 * (exact below 16 µs, then 8 sub-buckets per power of two, every value inside its bucket's bounds,
 * no gap and no overlap between buckets), percentiles and interval snapshots from known samples,
 * and a broker that counts every phase of the requests it answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiKey } from '../../src/protocol/api-keys.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import {
  BUCKETS,
  bucketIndex,
  bucketLowerBound,
  bucketUpperBound,
  formatRequestMetrics,
  MAX_TRACKED_US,
  PhaseIndex,
  PHASES,
  RequestMetrics,
} from '../../src/broker/request-metrics.js';
import { withBroker } from '../helpers/broker.js';
import { RawClient } from '../helpers/raw-client.js';

describe('request metrics buckets', () => {
  test('values below 16 µs have a bucket each; then each power of two has 8', () => {
    for (let v = 0; v < 16; v++) assert.equal(bucketIndex(v), v);
    assert.equal(bucketIndex(16), 16);
    assert.equal(bucketIndex(17), 16, '16 and 17 share a bucket of width 2');
    assert.equal(bucketIndex(18), 17);
    assert.equal(bucketIndex(31), 23);
    assert.equal(bucketIndex(32), 24);
    assert.equal(bucketIndex(1000), bucketIndex(1023), '1000-1023 share a bucket of width 128');
    assert.notEqual(bucketIndex(1023), bucketIndex(1024));
  });

  test('every bucket starts one past the previous one ends, and holds the values between its bounds', () => {
    assert.equal(bucketLowerBound(0), 0);
    for (let i = 1; i < BUCKETS; i++) assert.equal(bucketLowerBound(i), bucketUpperBound(i - 1) + 1, `bucket ${i}`);
    assert.equal(bucketUpperBound(BUCKETS - 1), MAX_TRACKED_US);
    for (let i = 0; i < BUCKETS; i++) {
      assert.equal(bucketIndex(bucketLowerBound(i)), i);
      assert.equal(bucketIndex(bucketUpperBound(i)), i);
    }
    // relative width at most 1/8 past the exact range
    for (let i = 16; i < BUCKETS; i++) assert.ok(bucketUpperBound(i) + 1 - bucketLowerBound(i) <= bucketLowerBound(i) / 8, `bucket ${i}`);
  });

  test('fractions, negatives and values past the range are clamped', () => {
    assert.equal(bucketIndex(3.9), 3);
    assert.equal(bucketIndex(-5), 0);
    assert.equal(bucketIndex(Number.NaN), 0);
    assert.equal(bucketIndex(1e12), BUCKETS - 1);
    assert.equal(bucketIndex(MAX_TRACKED_US), BUCKETS - 1);
  });
});

describe('request metrics snapshots', () => {
  test('percentiles are the upper bounds of the buckets that hold them; count, sum and max are exact', () => {
    const m = new RequestMetrics();
    // 1000 samples: 990 of 100 µs, 9 of 5000 µs, 1 of 40000 µs
    for (let i = 0; i < 990; i++) m.record(ApiKey.Produce, PhaseIndex.handle, 100);
    for (let i = 0; i < 9; i++) m.record(ApiKey.Produce, PhaseIndex.handle, 5000);
    m.record(ApiKey.Produce, PhaseIndex.handle, 40_000);
    const s = m.snapshot();
    assert.equal(s.apis.length, 1);
    const produce = s.apis[0]!;
    assert.equal(produce.name, 'Produce');
    assert.equal(produce.count, 0, 'no request completed its total phase');
    const h = produce.phases.handle;
    assert.equal(h.count, 1000);
    assert.equal(h.sumUs, 990 * 100 + 9 * 5000 + 40_000);
    assert.equal(h.maxUs, 40_000);
    assert.equal(h.p50Us, bucketUpperBound(bucketIndex(100)));
    assert.equal(h.p99Us, bucketUpperBound(bucketIndex(100)), 'the 990th of 1000 is still 100 µs');
    assert.equal(h.p999Us, bucketUpperBound(bucketIndex(5000)));
    assert.deepEqual(h.buckets, [
      [bucketUpperBound(bucketIndex(100)), 990],
      [bucketUpperBound(bucketIndex(5000)), 9],
      [bucketUpperBound(bucketIndex(40_000)), 1],
    ]);
    assert.equal(produce.phases.queue.count, 0);
    assert.equal(produce.phases.queue.p50Us, 0);
  });

  test('a snapshot since an earlier one counts only what came after it', () => {
    const m = new RequestMetrics();
    for (let i = 0; i < 10; i++) m.record(ApiKey.Fetch, PhaseIndex.total, 2000);
    m.record(ApiKey.Metadata, PhaseIndex.total, 50);
    const first = m.snapshot();
    for (let i = 0; i < 4; i++) m.record(ApiKey.Fetch, PhaseIndex.total, 30);
    const second = m.snapshot(first);
    assert.equal(second.sinceMs, first.atMs);
    assert.deepEqual(second.apis.map((a) => [a.name, a.count]), [['Fetch', 4]], 'Metadata had nothing new');
    assert.equal(second.apis[0]!.phases.total.p99Us, bucketUpperBound(bucketIndex(30)));
    assert.equal(m.snapshot().apis.find((a) => a.name === 'Fetch')!.count, 14);
    assert.match(formatRequestMetrics(second)[0]!, /^requests Fetch x4 in \d+ s, p50\/p99\/p99\.9 ms: queue /);
    // plain data: what JSON carries is the whole snapshot
    assert.deepEqual(JSON.parse(JSON.stringify(second)), second);
  });
});

describe('a broker measures its requests', () => {
  test('each answered request is counted in every phase, and a total covers its parts', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'true' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        await c.request(ApiKey.Metadata, 9, { topics: [{ name: 'metrics' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
        const records = encodeRecordBatch([{ value: Buffer.alloc(100, 1) }]);
        for (let i = 0; i < 20; i++) {
          const r = await c.request(ApiKey.Produce, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'metrics', partitionData: [{ index: 0, records }] }] });
          assert.equal(r.responses[0].partitionResponses[0].errorCode, 0);
        }
      } finally {
        c.destroy();
      }
      const s = broker.requestMetrics.snapshot();
      const produce = s.apis.find((a) => a.apiKey === ApiKey.Produce);
      assert.ok(produce !== undefined, JSON.stringify(s.apis.map((a) => a.name)));
      assert.equal(produce.count, 20);
      for (const p of PHASES) assert.equal(produce.phases[p].count, 20, p);
      const t = produce.phases.total;
      const parts = produce.phases.queue.sumUs + produce.phases.handle.sumUs + produce.phases.append.sumUs + produce.phases.write.sumUs;
      assert.ok(Math.abs(t.sumUs - parts) < 1, `total ${t.sumUs} µs is the sum of its phases (${parts} µs)`);
      assert.ok(s.apis.some((a) => a.name === 'Metadata' && a.count === 1));
    });
  });

  test('a request with an API key the broker does not serve is not measured (no histogram a client can make)', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        // size, api key 32000, version 0, correlation id 1, null client id: the broker closes the connection
        const frame = Buffer.alloc(14);
        frame.writeInt32BE(10, 0);
        frame.writeInt16BE(32000, 4);
        frame.writeInt16BE(0, 6);
        frame.writeInt32BE(1, 8);
        frame.writeInt16BE(-1, 12);
        c.send(frame);
        assert.equal(await c.closesWithin(10_000), true);
      } finally {
        c.destroy();
      }
      assert.deepEqual(
        broker.requestMetrics.snapshot().apis.map((a) => a.apiKey),
        [],
      );
    });
  });
});
