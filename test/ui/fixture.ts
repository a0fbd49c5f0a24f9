/**
 * A broker with the console, filled by a real client (kafkajs): topic `orders` with a gzip batch
 * of JSON values and headers (one header key is HTML, which the console must show as text), then
 * a plain batch with later timestamps, and a consumer group `billing` with a committed offset
 * (a kafkajs consumer in the group commits it, then leaves: the group is Empty).
 */
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker } from '../../src/broker/broker.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const { Kafka, logLevel, CompressionTypes } = require('kafkajs') as { Kafka: new (o: Any) => Any; logLevel: { NOTHING: number }; CompressionTypes: { GZIP: number; None: number } };

export const HTML_HEADER = '<img src=x onerror="window.__xss=1">';
/** Timestamps of the first batch (two hours ago) and the second (one hour ago): the timestamp browse starts there. */
export const EARLY_TS = BigInt(Math.floor(Date.now() / 1000) * 1000 - 7_200_000);
export const LATER_TS = EARLY_TS + 3_600_000n;

export async function filledBroker(): Promise<Broker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-ui-'));
  const broker = await Broker.start({ dataDir, ui: true, config: { 'group.initial.rebalance.delay.ms': '0' } });
  const kafka = new Kafka({ clientId: 'ui-fill', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 1 }] });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: 'orders',
    compression: CompressionTypes.GZIP,
    messages: [
      { key: 'o-1', value: JSON.stringify({ id: 1, item: 'book' }), headers: { trace: 'abc', [HTML_HEADER]: '<b>bold</b>' }, timestamp: String(EARLY_TS) },
      { key: 'o-2', value: JSON.stringify({ id: 2, item: 'pen' }), timestamp: String(EARLY_TS) },
      { key: 'o-3', value: JSON.stringify({ id: 3, item: 'ink' }), timestamp: String(EARLY_TS) },
    ],
  });
  await producer.send({
    topic: 'orders',
    messages: [
      { key: 'o-4', value: 'later-4', timestamp: String(LATER_TS) },
      { key: 'o-5', value: 'later-5', timestamp: String(LATER_TS + 1000n) },
    ],
  });
  await producer.disconnect();
  // admin.setOffsets would do the same through a paused consumer, which waits out kafkajs' 5 s
  // fetch wait (maxWaitTimeInMs, which the admin client does not let one set) before it commits
  const consumer = kafka.consumer({ groupId: 'billing', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch }: Any) => {
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: '1' }]);
          resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  await admin.disconnect();
  return broker;
}

/** A kafkajs consumer that joined `groupId` and read a message (state Stable while it runs); `stop` leaves the group. */
export async function activeConsumer(broker: Broker, groupId: string, topic: string): Promise<{ stop(): Promise<void>; received: string[] }> {
  const kafka = new Kafka({ clientId: 'ui-consumer', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5 } });
  // 100 ms Fetch waits: stop() (disconnect) waits for the Fetch in flight, 5 s with kafkajs' default
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
  const received: string[] = [];
  await consumer.connect();
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }: Any) => void received.push(String(message.offset)) });
  await joined;
  // past SyncGroup and fetching: a disconnect now leaves the group (LeaveGroup) rather than racing the join
  for (let i = 0; i < 400 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  return { received, stop: () => consumer.disconnect() };
}

/** A kafkajs transactional producer with a transaction left open on `topic` (one message sent in it). */
export async function openTransaction(broker: Broker, transactionalId: string, topic: string): Promise<{ commit(): Promise<void>; disconnect(): Promise<void> }> {
  const kafka = new Kafka({ clientId: 'ui-txn', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const txn = await producer.transaction();
  await txn.send({ topic, messages: [{ key: 'txn-key', value: 'in a transaction' }] });
  return { commit: () => txn.commit(), disconnect: () => producer.disconnect() };
}
