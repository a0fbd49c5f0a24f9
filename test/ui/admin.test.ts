/**
 * The console's admin actions over HTTP against a broker kafkajs filled: topic and broker configs
 * edited through IncrementalAlterConfigs (Kafka's validation errors passed on), the broker page
 * (listeners, API versions, requests answered), consumer group offset reset as
 * kafka-consumer-groups.sh --reset-offsets does it (dry run, execute, refused for an active group)
 * and group deletion, and the message browser's filters and newest-first paging.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Broker } from '../../src/broker/broker.js';
import { activeConsumer, filledBroker, LATER_TS, openTransaction } from './fixture.js';
import { call, events, ok, post, text, type Json } from './http.js';
import { createRequire } from 'node:module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const { Kafka, logLevel } = createRequire(import.meta.url)('kafkajs') as { Kafka: new (o: unknown) => any; logLevel: { NOTHING: number } };

describe('console admin API', () => {
  let broker: Broker;
  let url: string;
  before(async () => {
    broker = await filledBroker();
    url = broker.uiUrl!;
  });
  after(async () => {
    await broker.close();
    rmSync(broker.dataDir, { recursive: true, force: true });
  });

  const config = (cs: Json[], name: string): Json => cs.find((c) => c.name === name);

  test('topic configs: SET, validateOnly, Kafka\'s INVALID_CONFIG, DELETE back to the default', async () => {
    const dry = await ok(url, '/api/topics/orders/configs', post({ changes: [{ name: 'retention.ms', value: '3600000' }], validateOnly: true }));
    assert.equal(dry.validateOnly, true);
    assert.equal(config(await ok(url, '/api/topics/orders/configs'), 'retention.ms').source, 'DEFAULT_CONFIG');
    const set = await ok(url, '/api/topics/orders/configs', post({ changes: [{ name: 'retention.ms', value: '3600000' }] }));
    assert.deepEqual(config(set.configs, 'retention.ms'), { name: 'retention.ms', value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false, sensitive: false });
    // the broker itself applies it: its topic config says so
    assert.equal(broker.topics.get('orders')?.overrides['retention.ms'], '3600000');
    const bad = await call(url, '/api/topics/orders/configs', post({ changes: [{ name: 'retention.ms', value: 'soon' }] }));
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /^INVALID_CONFIG: /);
    const unknown = await call(url, '/api/topics/orders/configs', post({ changes: [{ name: 'no.such.config', value: '1' }] }));
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error, /^INVALID_CONFIG/);
    const reset = await ok(url, '/api/topics/orders/configs', post({ changes: [{ name: 'retention.ms', value: null }] }));
    assert.equal(config(reset.configs, 'retention.ms').source, 'DEFAULT_CONFIG');
    assert.equal((await call(url, '/api/topics/nosuch/configs', post({ changes: [{ name: 'retention.ms', value: '1' }] }))).status, 404);
    for (const body of [{}, { changes: [] }, { changes: [{ value: '1' }] }, { changes: [{ name: 'a', value: 1 }] }, { changes: [{ name: 'a', value: '1' }], validateOnly: 'yes' }]) {
      const r = await call(url, '/api/topics/orders/configs', post(body));
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.body.error.length > 0);
    }
  });

  test('the broker page: brokers, listeners, API versions served, requests answered; broker configs edited', async () => {
    const b = await ok(url, '/api/brokers');
    assert.equal(b.nodeId, 1);
    assert.deepEqual(b.brokers.map((x: Json) => [x.nodeId, `${x.host}:${x.port}`]), [[1, broker.bootstrap]]);
    assert.equal(b.listeners.find((l: Json) => l.name === 'endpoint in metadata').value, broker.bootstrap);
    const produce = b.apiVersions.find((v: Json) => v.name === 'Produce');
    assert.equal(produce.apiKey, 0);
    assert.ok(produce.minVersion <= 3 && produce.maxVersion >= 9, JSON.stringify(produce));
    const metadata = b.requests.find((r: Json) => r.name === 'Metadata');
    assert.ok(metadata.count >= 1);
    assert.equal(metadata.histogram.reduce((n: number, x: number) => n + x, 0), metadata.count);
    assert.equal(metadata.histogram.length, b.histogramBucketsMs.length + 1);
    assert.equal((await ok(url, '/api/brokers/1')).nodeId, 1);
    assert.equal((await call(url, '/api/brokers/7')).status, 404);
    assert.equal((await call(url, '/api/brokers/x')).status, 400);
    const set = await ok(url, '/api/brokers/1/configs', post({ changes: [{ name: 'log.retention.ms', value: '7200000' }] }));
    assert.deepEqual([config(set.configs, 'log.retention.ms').value, config(set.configs, 'log.retention.ms').source], ['7200000', 'DYNAMIC_BROKER_CONFIG']);
    const fixed = await call(url, '/api/brokers/1/configs', post({ changes: [{ name: 'num.io.threads', value: '4' }] }));
    assert.equal(fixed.status, 400);
    assert.match(fixed.body.error, /^INVALID_REQUEST: .*Cannot update these configs dynamically/);
    await ok(url, '/api/brokers/1/configs', post({ changes: [{ name: 'log.retention.ms', value: null }] }));
  });

  test('offset reset: dry run, execute to earliest, latest, an offset (kept in range) and a timestamp; a new group', async () => {
    const committed = async (g: string): Promise<string[]> => (await ok(url, `/api/groups/${g}`)).offsets.map((o: Json) => o.committedOffset);
    const end = (await ok(url, '/api/topics/orders')).partitions[0].endOffset;
    const plan = await ok(url, '/api/groups/billing/reset-offsets', post({ to: 'earliest' }));
    assert.deepEqual(plan, { groupId: 'billing', state: 'Empty', executed: false, partitions: [{ topic: 'orders', partition: 0, currentOffset: '1', newOffset: '0' }] });
    assert.deepEqual(await committed('billing'), ['1'], 'a dry run commits nothing');
    assert.equal((await ok(url, '/api/groups/billing/reset-offsets', post({ to: 'earliest', execute: true }))).executed, true);
    assert.deepEqual(await committed('billing'), ['0']);
    await ok(url, '/api/groups/billing/reset-offsets', post({ topics: ['orders'], to: 'latest', execute: true }));
    assert.deepEqual(await committed('billing'), [end]);
    await ok(url, '/api/groups/billing/reset-offsets', post({ to: 'offset:999', execute: true }));
    assert.deepEqual(await committed('billing'), [end], '--to-offset past the end is the end');
    await ok(url, '/api/groups/billing/reset-offsets', post({ to: `timestamp:${LATER_TS + 1n}`, execute: true }));
    assert.deepEqual(await committed('billing'), ['4'], 'the first offset at or after the time');
    await ok(url, '/api/groups/billing/reset-offsets', post({ to: `timestamp:${LATER_TS + 3_600_000n}`, execute: true }));
    assert.deepEqual(await committed('billing'), [end], 'no message that late: the end offset');
    await ok(url, '/api/groups/billing/reset-offsets', post({ to: 'offset:2', execute: true }));
    assert.deepEqual(await committed('billing'), ['2']);
    // a group that does not exist yet (Dead) may be given offsets, as the tool allows; it needs topics named
    assert.equal((await call(url, '/api/groups/fresh/reset-offsets', post({ to: 'earliest' }))).status, 400);
    await ok(url, '/api/groups/fresh/reset-offsets', post({ topics: ['orders'], to: 'offset:3', execute: true }));
    assert.deepEqual(await committed('fresh'), ['3']);
    for (const body of [{}, { to: 'yesterday' }, { to: 'offset:-1' }, { to: 'earliest', topics: [] }, { to: 'earliest', execute: 'yes' }]) {
      assert.equal((await call(url, '/api/groups/billing/reset-offsets', post(body))).status, 400, JSON.stringify(body));
    }
    assert.equal((await call(url, '/api/groups/billing/reset-offsets', post({ topics: ['nosuch'], to: 'earliest' }))).status, 404);
  });

  test('an active group: reset refused with the tool\'s words, deletion with NON_EMPTY_GROUP; the consumer resumes at a reset offset after', async () => {
    const consumer = await activeConsumer(broker, 'live', 'orders');
    try {
      const r = await call(url, '/api/groups/live/reset-offsets', post({ to: 'earliest' }));
      assert.equal(r.status, 409);
      assert.match(r.body.error, /^Assignments can only be reset if the group 'live' is inactive, but the current state is (Stable|PreparingRebalance|CompletingRebalance)\.$/);
      const d = await call(url, '/api/groups/live', { method: 'DELETE' });
      assert.equal(d.status, 409);
      assert.match(d.body.error, /NON_EMPTY_GROUP/);
    } finally {
      await consumer.stop();
    }
    assert.equal((await ok(url, '/api/groups/live')).state, 'Empty');
    await ok(url, '/api/groups/live/reset-offsets', post({ topics: ['orders'], to: 'offset:3', execute: true }));
    const again = await activeConsumer(broker, 'live', 'orders');
    try {
      const end = Number((await ok(url, '/api/topics/orders')).partitions[0].endOffset);
      const deadline = Date.now() + 20_000;
      while (again.received.length < end - 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(again.received[0], '3', 'the consumer resumed at the reset offset');
    } finally {
      await again.stop();
    }
  });

  test('group deletion: DeleteGroups, then the group is gone; an unknown group is GROUP_ID_NOT_FOUND', async () => {
    await ok(url, '/api/groups/fresh/reset-offsets', post({ topics: ['orders'], to: 'earliest', execute: true }));
    assert.deepEqual(await ok(url, '/api/groups/fresh', { method: 'DELETE' }), { groupId: 'fresh', deleted: true });
    assert.equal((await call(url, '/api/groups/fresh')).status, 404);
    const again = await call(url, '/api/groups/fresh', { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.match(again.body.error, /GROUP_ID_NOT_FOUND/);
  });

  test('the first page from the beginning starts at the log start after records were deleted (DeleteRecords) and after the topic was made again', async () => {
    const kafka = new Kafka({ clientId: 'ui-trim', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'trimmed', numPartitions: 1 }] });
      for (const value of ['t-0', 't-1', 't-2', 't-3']) await ok(url, '/api/topics/trimmed/messages', post({ value }));
      const before = await ok(url, '/api/topics/trimmed/messages?partition=0&from=beginning');
      assert.deepEqual(before.messages.map((m: Json) => m.offset), ['0', '1', '2', '3']);
      // the console remembers the start it saw (0) and reads from there while it asks again: the answer must not come from 0 now
      await admin.fetchTopicMetadata({ topics: ['trimmed'] }); // kafkajs' deleteTopicRecords needs the topic's leaders known
      await admin.deleteTopicRecords({ topic: 'trimmed', partitions: [{ partition: 0, offset: '2' }] });
      for (const limit of ['50', '1']) {
        const after = await ok(url, `/api/topics/trimmed/messages?partition=0&from=beginning&limit=${limit}`);
        assert.equal(after.startOffset, '2');
        assert.deepEqual(after.messages.map((m: Json) => [m.offset, text(m.value)]), [['2', 't-2'], ['3', 't-3']].slice(0, Number(limit)));
      }
      const filtered = await ok(url, '/api/topics/trimmed/messages?partition=0&from=beginning&value=t-3');
      assert.deepEqual(filtered.messages.map((m: Json) => m.offset), ['3']);
      // deleted and made again under the same name: the remembered start (2) is readable there, but the log starts at 0
      await admin.deleteTopics({ topics: ['trimmed'] });
      assert.equal(await admin.createTopics({ topics: [{ topic: 'trimmed', numPartitions: 1 }] }), true);
      for (const value of ['n-0', 'n-1', 'n-2']) await ok(url, '/api/topics/trimmed/messages', post({ value }));
      const again = await ok(url, '/api/topics/trimmed/messages?partition=0&from=beginning');
      assert.equal(again.startOffset, '0');
      assert.deepEqual(again.messages.map((m: Json) => [m.offset, text(m.value)]), [['0', 'n-0'], ['1', 'n-1'], ['2', 'n-2']]);
    } finally {
      await admin.disconnect();
    }
  });

  test('message filters (key, value, header) and newest-first paging', async () => {
    const page = async (q: string): Promise<Json> => ok(url, `/api/topics/orders/messages?${q}`);
    const offsets = (p: Json): string[] => p.messages.map((m: Json) => m.offset);
    const back = await page('from=offset:3&direction=backward&limit=2');
    assert.deepEqual(offsets(back), ['3', '2']);
    assert.equal(back.next, 'offset:1');
    const older = await page(`from=${back.next}&direction=backward&limit=2`);
    assert.deepEqual(offsets(older), ['1', '0']);
    assert.equal(older.next, null);
    const newest = await page('from=end&direction=backward&limit=3');
    assert.deepEqual(offsets(newest), ['4', '3', '2']);
    assert.deepEqual(offsets(await page('key=o-4')), ['3']);
    assert.deepEqual(offsets(await page('value=pen')), ['1']);
    assert.deepEqual(offsets(await page('header=trace')), ['0'], 'a header key');
    assert.deepEqual(offsets(await page('header=bold')), ['0'], 'a header value');
    assert.deepEqual(offsets(await page('value=later&direction=backward&from=end')), ['4', '3']);
    const filtered = await page('value=%22id%22&limit=2');
    assert.deepEqual(offsets(filtered), ['0', '1']);
    assert.equal(filtered.next, 'offset:2');
    assert.deepEqual(offsets(await page(`value=%22id%22&from=${filtered.next}`)), ['2']);
    assert.deepEqual(text((await page('value=ink')).messages[0].key), 'o-3');
    assert.deepEqual(offsets(await page('key=nothing-like-it')), []);
    assert.equal((await page('key=nothing-like-it')).scanned, 5);
    for (const q of ['direction=sideways', `key=${'x'.repeat(1025)}`]) assert.equal((await call(url, `/api/topics/orders/messages?${q}`)).status, 400, q);
  });

  test('live tail: an event stream of new messages from long-poll Fetches, closed with the page', async () => {
    const end = (await ok(url, '/api/topics/orders')).partitions[0].endOffset;
    const tail = await events(url, '/api/topics/orders/tail?partition=0');
    try {
      assert.equal(tail.status, 200);
      assert.equal(tail.type, 'text/event-stream; charset=utf-8');
      assert.deepEqual(await tail.next('start'), { topic: 'orders', partition: 0, from: end });
      assert.equal((await ok(url, '/api/info')).streams, 1);
      await ok(url, '/api/topics/orders/messages', post({ key: 'live-1', value: 'tailed' }));
      const [m] = await tail.next('messages');
      assert.deepEqual([m.offset, text(m.key), text(m.value)], [end, 'live-1', 'tailed']);
      // the browser's requests go on while the tail's Fetch waits: it has a connection of its own
      assert.equal((await ok(url, '/api/topics/orders')).partitions[0].endOffset, String(BigInt(end) + 1n));
      await ok(url, '/api/topics/orders/messages', post({ key: 'live-2', value: 'again' }));
      assert.deepEqual((await tail.next('messages')).map((x: Json) => text(x.key)), ['live-2']);
    } finally {
      tail.close();
    }
    for (let i = 0; i < 100 && (await ok(url, '/api/info')).streams !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await ok(url, '/api/info')).streams, 0, 'the stream ended with its request');
    const fromOffset = await events(url, '/api/topics/orders/tail?partition=0&from=offset:0');
    try {
      assert.equal((await fromOffset.next('messages'))[0].offset, '0');
    } finally {
      fromOffset.close();
    }
    for (const [path, status] of [['/api/topics/orders/tail?partition=9', 404], ['/api/topics/nosuch/tail', 404], ['/api/topics/orders/tail?from=end', 400]] as const) {
      const r = await call(url, path);
      assert.equal(r.status, status, path);
      assert.ok(r.body.error.length > 0);
    }
  });

  test('transactions and producers: an open transaction with its partitions and age, then committed; producer ids with epochs and sequences', async () => {
    const before = (await ok(url, '/api/topics/orders')).partitions[0];
    const txn = await openTransaction(broker, 'ui-txn', 'orders');
    try {
      const list: Json[] = await ok(url, '/api/transactions');
      const t = list.find((x) => x.transactionalId === 'ui-txn');
      assert.equal(t.state, 'Ongoing');
      assert.equal(t.open, true);
      assert.deepEqual(t.partitions, [{ topic: 'orders', partitions: [0] }]);
      assert.ok(t.ageMs >= 0 && t.ageMs < 600_000, String(t.ageMs));
      assert.ok(t.producerEpoch >= 0);
      assert.ok(BigInt(t.producerId) >= 0n);
      // the open transaction holds the last stable offset at its first message
      assert.equal((await ok(url, '/api/topics/orders')).partitions[0].lastStableOffset, before.endOffset);
      const p = await ok(url, '/api/producers?topic=orders');
      assert.deepEqual(p.errors, []);
      const mine = p.producers.find((x: Json) => x.producerId === t.producerId);
      assert.deepEqual([mine.partition, mine.producerEpoch, mine.lastSequence, mine.currentTxnStartOffset], [0, t.producerEpoch, 0, before.endOffset]);
      assert.ok(Number(mine.lastTimestamp) > 0);
      await txn.commit();
      const done = (await ok(url, '/api/transactions')).find((x: Json) => x.transactionalId === 'ui-txn');
      assert.deepEqual([done.state, done.open, done.ageMs], ['CompleteCommit', false, null]);
      assert.equal((await ok(url, '/api/producers?topic=orders')).producers.find((x: Json) => x.producerId === t.producerId).currentTxnStartOffset, '-1');
      assert.ok((await ok(url, '/api/producers')).producers.some((x: Json) => x.topic === 'orders' && x.producerId === t.producerId), 'every topic when none is named');
      assert.equal((await call(url, '/api/producers?topic=nosuch')).status, 404);
    } finally {
      await txn.disconnect();
    }
  });

  test('samples for the sparklines and the lag chart: taken while a page watches, with rates; stopped when it goes', async () => {
    const topics = await events(url, '/api/samples/topics?interval=100');
    let end: bigint;
    try {
      assert.ok(Array.isArray(await topics.next('history')));
      const first = await topics.next('sample');
      end = BigInt(first.value.orders.endOffsets);
      assert.ok(first.value.orders.bytes > 0, 'bytes on disk in serve mode');
      await ok(url, '/api/topics/orders/messages', post({ value: 'sampled-1' }));
      await ok(url, '/api/topics/orders/messages', post({ value: 'sampled-2' }));
      let grown: Json;
      for (let i = 0; i < 100; i++) {
        const s = await topics.next('sample');
        if (BigInt(s.value.orders.endOffsets) === end + 2n) {
          grown = s;
          break;
        }
      }
      assert.ok(grown, 'a sample saw the two new messages');
      // the two appends happened since some earlier sample: a rate above zero was reported on the way
      const again = await events(url, '/api/samples/topics?interval=100');
      try {
        const history: Json[] = await again.next('history');
        assert.ok(history.length >= 2, 'a second page gets the samples kept');
        assert.ok(history.some((x) => x.value.orders.rate > 0), JSON.stringify(history.map((x) => x.value.orders.rate)));
      } finally {
        again.close();
      }
    } finally {
      topics.close();
    }
    const lag = await events(url, '/api/samples/groups/billing?interval=100');
    try {
      await lag.next('history');
      const s = await lag.next('sample');
      assert.deepEqual(Object.keys(s.value.partitions), ['orders-0']);
      await ok(url, '/api/groups/billing/reset-offsets', post({ to: 'earliest', execute: true }));
      let seen = false;
      for (let i = 0; i < 100 && !seen; i++) seen = (await lag.next('sample')).value.totalLag === String(end! + 2n);
      assert.ok(seen, 'the lag after the reset to earliest is the whole partition');
    } finally {
      lag.close();
    }
    for (let i = 0; i < 100 && (await ok(url, '/api/info')).streams !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await ok(url, '/api/info')).streams, 0);
    assert.equal((await ok(url, '/api/info')).samplers, 0, 'nobody watching: no sampling');
    for (const [path, status] of [['/api/samples/topics?interval=5', 400], ['/api/samples/groups/nobody', 404], ['/api/samples/nothing', 404]] as const) {
      assert.equal((await call(url, path)).status, status, path);
    }
  });
});
