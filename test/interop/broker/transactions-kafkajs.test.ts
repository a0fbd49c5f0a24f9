/**
 * kafkajs 2.2.4 transactions against the broker's transaction coordinator: producer.transaction(),
 * send, sendOffsets (AddOffsetsToTxn v1 + TxnOffsetCommit v1), commit and abort (EndTxn v1); a
 * kafkajs read_committed consumer (its default) sees exactly the committed records; the group's
 * offsets sent in the committed transaction are visible to admin.fetchOffsets and those of the
 * aborted one are not; a second producer with the same transactionalId fences the first, whose
 * open transaction is aborted and whose commit fails with INVALID_PRODUCER_EPOCH (kafkajs speaks
 * EndTxn v1, below PRODUCER_FENCED's v2).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';

const require = createRequire(import.meta.url);

interface KTransaction {
  send(r: { topic: string; messages: { key?: string; value: string; partition?: number }[] }): Promise<unknown>;
  sendOffsets(o: { consumerGroupId: string; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}
interface KProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  transaction(): Promise<KTransaction>;
}
interface KConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(o: { topics: string[]; fromBeginning: boolean }): Promise<void>;
  run(o: { eachMessage: (p: { partition: number; message: { offset: string; value: Buffer | null } }) => Promise<void> }): Promise<void>;
}
interface KAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  createTopics(o: { topics: { topic: string; numPartitions?: number }[] }): Promise<boolean>;
  fetchOffsets(o: { groupId: string; topics: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}
interface KClient {
  producer(o: { transactionalId: string; idempotent: boolean; maxInFlightRequests: number; transactionTimeout?: number }): KProducer;
  consumer(o: { groupId: string; readUncommitted?: boolean; maxWaitTimeInMs?: number }): KConsumer;
  admin(): KAdmin;
}
const { Kafka, logLevel } = require('kafkajs') as { Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number }) => KClient; logLevel: { NOTHING: number } };

const CONFIG = { 'group.initial.rebalance.delay.ms': '0' };

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readCommitted(client: KClient, topic: string, expect: number): Promise<string[]> {
  const seen: string[] = [];
  // a short Fetch wait: the broker holds an empty Fetch for maxWaitTimeInMs (kafkajs' default 5 s),
  // and disconnect() waits for the Fetch in flight to come back
  const consumer = client.consumer({ groupId: `reader-${topic}`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? '') });
  await waitFor(`${expect} committed records of ${topic}`, () => seen.length >= expect);
  // a little longer: nothing beyond the committed records may arrive
  await new Promise((r) => setTimeout(r, 500));
  await consumer.disconnect();
  return seen;
}

describe('kafkajs 2.2.4 transactions against the broker', () => {
  test('transaction(): send, sendOffsets, commit and abort; read_committed sees the committed records; offsets follow the commit', async () => {
    await withBroker({ config: CONFIG }, async (broker) => {
      const client = new Kafka({ clientId: 'kjs-txn', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
      const admin = client.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'kjs-out', numPartitions: 2 }, { topic: 'kjs-in' }] });
      const producer = client.producer({ transactionalId: 'kjs-tid', idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();

      const t1 = await producer.transaction();
      await t1.send({ topic: 'kjs-out', messages: [{ value: 'c1', partition: 0 }, { value: 'c2', partition: 1 }] });
      await t1.sendOffsets({ consumerGroupId: 'kjs-app', topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset: '5' }] }] });
      await t1.commit();

      const t2 = await producer.transaction();
      await t2.send({ topic: 'kjs-out', messages: [{ value: 'a1', partition: 0 }, { value: 'a2', partition: 1 }] });
      await t2.sendOffsets({ consumerGroupId: 'kjs-app', topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset: '9' }] }] });
      await t2.abort();

      const t3 = await producer.transaction();
      await t3.send({ topic: 'kjs-out', messages: [{ value: 'c3', partition: 0 }] });
      await t3.commit();
      await producer.disconnect();

      const seen = await readCommitted(client, 'kjs-out', 3);
      assert.deepEqual(seen.sort(), ['c1', 'c2', 'c3']);
      const offsets = await admin.fetchOffsets({ groupId: 'kjs-app', topics: ['kjs-in'] });
      assert.deepEqual(offsets[0]!.partitions.map((p) => [p.partition, p.offset]), [[0, '5']]);
      for (const p of [0, 1]) {
        const log = broker.logs.getLog('kjs-out', p)!;
        assert.equal(log.lastStableOffset, log.logEndOffset, `kjs-out-${p}: no open transaction`);
      }
      assert.equal(broker.transactions.describe('kjs-tid').txn?.state, 'CompleteCommit');
      await admin.disconnect();
    });
  });

  test('fencing: a second producer with the same transactionalId aborts the first one\'s transaction; its commit fails', async () => {
    await withBroker({ config: CONFIG }, async (broker) => {
        const client = new Kafka({ clientId: 'kjs-fence', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
        const admin = client.admin();
        await admin.connect();
        await admin.createTopics({ topics: [{ topic: 'kjs-fenced' }] });
        const a = client.producer({ transactionalId: 'kjs-fence-tid', idempotent: true, maxInFlightRequests: 1 });
        await a.connect();
        const ta = await a.transaction();
        await ta.send({ topic: 'kjs-fenced', messages: [{ value: 'from-a' }] });

        const b = client.producer({ transactionalId: 'kjs-fence-tid', idempotent: true, maxInFlightRequests: 1 });
        await b.connect();
        const tb = await b.transaction();
        await tb.send({ topic: 'kjs-fenced', messages: [{ value: 'from-b' }] });
        await tb.commit();

        await assert.rejects(ta.commit(), (e: Error & { type?: string }) => e.type === 'INVALID_PRODUCER_EPOCH');
        await a.disconnect();
        await b.disconnect();
        assert.deepEqual(await readCommitted(client, 'kjs-fenced', 1), ['from-b']);
        await admin.disconnect();
    });
  });
});
