/**
 * kafka-python 2.0.2 (Debian) against a kafkalite broker started by the test: KafkaProducer at
 * acks 0/1/all in every codec, a KafkaConsumer with no group (group_id=None) reading assign()ed
 * partitions from chosen offsets, multiple partitions, an offset inside a batch, a long poll woken
 * by data produced after the consumer started, and KafkaAdminClient create/delete topics. What the
 * client produced is compared byte for byte with what it fetches back and with the log on disk.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { storedBatches, withBroker } from '../../helpers/broker.js';
import { hex } from '../../helpers/python-peer.js';
import { fetchedRows, runSteps, sentRows, storedRows, topicError, watchFetchWaits, type SentMessage, type StepResult } from './py-steps.js';

const CODECS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

const kafkaPython = (broker: Broker, steps: Record<string, unknown>[]): Promise<StepResult[]> => runSteps('broker_kafka_python.py', broker, steps);

/**
 * Binary keys and values, null keys or null values (never both: KafkaProducer.send needs one),
 * binary headers. kafka-python's producer only takes bytes header values, so none is null here.
 */
function records(n: number, partitions = 1): SentMessage[] {
  const tag = randomBytes(5).toString('hex');
  return Array.from({ length: n }, (_, i) => ({
    partition: i % partitions,
    key: i % 10 === 2 ? null : hex(Buffer.concat([Buffer.from(`k${i % 5}:`), randomBytes(4)])),
    value: i % 12 === 7 ? null : hex(Buffer.concat([randomBytes(6), Buffer.from(`${tag}/${i}/${'kafka-python '.repeat(8 + (i % 15))}`)])),
    headers: i % 3 === 0 ? [] : [['h', hex(randomBytes(1 + (i % 6)))], ['seq', hex(Buffer.from(String(i)))]],
  }));
}

/** DescribeConfigsResponse ConfigSource values. */
const DYNAMIC_TOPIC_CONFIG = 1;
const DEFAULT_CONFIG = 5;

describe('kafka-python 2.0.2 against the broker', () => {
  for (const codec of Object.keys(CODECS)) {
    test(`KafkaProducer with ${codec} at acks 0, 1 and all; assigned consumer reads it back byte for byte`, async () => {
      await withBroker({}, async (broker) => {
        const sent = records(120);
        const acksList: (0 | 1 | 'all')[] = [0, 1, 'all'];
        const topicOf = (acks: 0 | 1 | 'all'): string => `kp-${codec}-acks${acks}`;
        const results = await kafkaPython(broker, [
          ...acksList.map((acks) => ({
            op: 'produce',
            topic: topicOf(acks),
            config: { acks, compression_type: codec === 'none' ? null : codec, linger_ms: 20 },
            messages: sent,
          })),
          ...acksList.map((acks) => ({ op: 'consume', topic: topicOf(acks), assign: [[0, 0]], expect: sent.length })),
        ]);
        acksList.forEach((acks, k) => {
          const topic = topicOf(acks);
          const produced = results[k]!;
          assert.deepEqual(produced.deliveries!.map((d) => d.error), sent.map(() => null), `${topic}: send errors`);
          // acks=0 gets no ProduceResponse: kafka-python reports offset -1
          const offsets = acks === 0 ? sent.map(() => -1) : sent.map((_, i) => i);
          assert.deepEqual(produced.deliveries!.map((d) => d.offset), offsets, `${topic}: delivered offsets`);
          const consumed = results[acksList.length + k]!;
          assert.deepEqual(consumed.errors, [], `${topic}: consumer errors`);
          assert.deepEqual(fetchedRows(consumed.messages!, 0), sentRows(sent, 0), `${topic}: consumed`);
          assert.deepEqual(consumed.positions, { '0': sent.length });
          const batches = storedBatches(broker.dataDir, topic, 0);
          // kafka-python compresses every batch it sends with the configured codec
          assert.deepEqual([...new Set(batches.map((b) => b.compression))], [CODECS[codec]], `${topic}: stored codecs`);
          assert.deepEqual(storedRows(broker, topic, 0), sentRows(sent, 0), `${topic}: stored`);
        });
      });
    });
  }

  test('a four-partition topic made by KafkaAdminClient: explicit partitions, dense offsets, all assigned at once', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kp-multi';
      const sent = records(200, 4);
      const [created, produced, consumed, listed] = await kafkaPython(broker, [
        { op: 'create_topics', topics: [{ name: topic, partitions: 4 }] },
        { op: 'produce', topic, config: { acks: 'all', compression_type: 'gzip', linger_ms: 10 }, messages: sent },
        { op: 'consume', topic, assign: [[0, 0], [1, 0], [2, 0], [3, 0]], expect: sent.length },
        { op: 'list_topics' },
      ]);
      assert.deepEqual(created!.errors, { [topic]: null });
      assert.deepEqual(listed!.topics![topic], [0, 1, 2, 3]);
      assert.deepEqual(produced!.deliveries!.map((d) => [d.partition, d.error]), sent.map((m) => [m.partition, null]));
      assert.deepEqual(consumed!.errors, []);
      for (const p of [0, 1, 2, 3]) {
        assert.deepEqual(fetchedRows(consumed!.messages!, p), sentRows(sent, p), `partition ${p} consumed`);
        assert.deepEqual(storedRows(broker, topic, p), sentRows(sent, p), `partition ${p} stored`);
      }
    });
  });

  test('seek() to an offset inside a batch, and to the log end', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kp-mid-batch';
      const sent = records(50);
      const from = 23;
      const [produced] = await kafkaPython(broker, [
        { op: 'produce', topic, config: { compression_type: 'snappy', linger_ms: 200, batch_size: 1 << 20 }, messages: sent },
      ]);
      assert.deepEqual(produced!.deliveries!.map((d) => d.error), sent.map(() => null));
      const batches = storedBatches(broker.dataDir, topic, 0);
      const holder = batches.find((b) => b.baseOffset <= BigInt(from) && BigInt(from) <= b.lastOffset);
      assert.ok(holder !== undefined && holder.baseOffset < BigInt(from), `offset ${from} should sit inside a batch: ${batches.map((b) => `${b.baseOffset}-${b.lastOffset}`)}`);
      const [mid, atEnd] = await kafkaPython(broker, [
        { op: 'consume', topic, assign: [[0, from]], expect: sent.length - from },
        { op: 'consume', topic, assign: [[0, sent.length]], expect: 0 },
      ]);
      assert.deepEqual(mid!.errors, []);
      assert.deepEqual(fetchedRows(mid!.messages!, 0), sentRows(sent, 0).slice(from));
      assert.deepEqual(atEnd!.messages, []);
      assert.deepEqual(atEnd!.positions, { '0': sent.length });
    });
  });

  test('a fetch whose budget ends inside a later partition\'s first batch: that partition answers no records, not a partial batch (KIP-74)', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kp-fetch-budget';
      // two partitions, one uncompressed batch of about 60 KB in each; fetch_max_bytes 100,000 lets
      // the first partition's batch through whole and leaves 40 KB: Kafka answers the second
      // partition with no records, where its first 40 KB alone make kafka-python raise RecordTooLargeError
      const sent: SentMessage[] = Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, key: null, value: hex(randomBytes(6000)), headers: [] }));
      const [created, produced] = await kafkaPython(broker, [
        { op: 'create_topics', topics: [{ name: topic, partitions: 2 }] },
        { op: 'produce', topic, config: { acks: 1, linger_ms: 200, batch_size: 1 << 20 }, messages: sent },
      ]);
      assert.deepEqual(created!.errors, { [topic]: null });
      assert.deepEqual(produced!.deliveries!.map((d) => d.error), sent.map(() => null));
      for (const p of [0, 1]) {
        const batches = storedBatches(broker.dataDir, topic, p);
        assert.deepEqual(batches.map((b) => b.records.length), [10], `partition ${p} holds one batch of the 10 records`);
      }
      const [consumed] = await kafkaPython(broker, [
        { op: 'consume', topic, config: { fetch_max_bytes: 100_000 }, assign: [[0, 0], [1, 0]], expect: sent.length },
      ]);
      assert.deepEqual(consumed!.errors, []);
      for (const p of [0, 1]) assert.deepEqual(fetchedRows(consumed!.messages!, p), sentRows(sent, p), `partition ${p}`);
      assert.deepEqual(consumed!.positions, { '0': 10, '1': 10 });
    });
  });

  test('a consumer long-polling an empty partition is woken by data produced after it started', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kp-long-poll';
      const sent = records(15);
      const [created] = await kafkaPython(broker, [{ op: 'create_topics', topics: [{ name: topic, partitions: 1 }] }]);
      assert.deepEqual(created!.errors, { [topic]: null });
      const { firstPark, wakes } = watchFetchWaits(broker);
      // fetch_max_wait_ms is longer than the consumer's budget: only a woken fetch delivers in time
      const consumer = kafkaPython(broker, [
        { op: 'consume', topic, config: { fetch_max_wait_ms: 30_000 }, assign: [[0, 0]], expect: sent.length, timeoutS: 20 },
      ]);
      await firstPark;
      assert.equal(broker.logs.getLog(topic, 0)!.logEndOffset, 0n, 'nothing is produced before the consumer waits');
      const [produced] = await kafkaPython(broker, [{ op: 'produce', topic, config: { acks: 1 }, messages: sent }]);
      assert.deepEqual(produced!.deliveries!.map((d) => d.offset), sent.map((_, i) => i));
      const [consumed] = await consumer;
      assert.deepEqual(consumed!.errors, []);
      assert.deepEqual(fetchedRows(consumed!.messages!, 0), sentRows(sent, 0));
      assert.ok(wakes.includes(true), `no parked fetch was woken by an append (wake results: ${wakes})`);
      assert.deepEqual(storedRows(broker, topic, 0), sentRows(sent, 0));
    });
  });

  test('KafkaAdminClient creates topics with configs, describes them, and deletes them', async () => {
    // kafka-python's admin takes min(its max 2, the broker's max): DescribeConfigs v2, with sources
    await withBroker({}, async (broker) => {
      const topic = 'kp-admin';
      const configs = { 'segment.bytes': '65536', 'cleanup.policy': 'compact,delete', 'retention.ms': '7200000' };
      const [created, again, described] = await kafkaPython(broker, [
        { op: 'create_topics', topics: [{ name: topic, partitions: 3, configs }] },
        { op: 'create_topics', topics: [{ name: topic, partitions: 1 }] },
        { op: 'describe_configs', topic },
      ]);
      assert.deepEqual(created!.errors, { [topic]: null });
      assert.match(String(topicError(again!, topic)), /TopicAlreadyExistsError/);
      assert.deepEqual(described!.errors, []);
      for (const [name, value] of Object.entries(configs)) {
        assert.deepEqual(described!.configs![name], { value, isDefault: false, source: DYNAMIC_TOPIC_CONFIG, isReadOnly: false, isSensitive: false }, name);
      }
      assert.deepEqual(described!.configs!['retention.bytes'], { value: '-1', isDefault: true, source: DEFAULT_CONFIG, isReadOnly: false, isSensitive: false });
      assert.equal(described!.version, 2);
      assert.equal(broker.topics.get(topic)?.partitions, 3);
      for (const p of [0, 1, 2]) {
        const c = broker.logs.getLog(topic, p)!.config;
        assert.deepEqual([c.segmentBytes, c.cleanupPolicy, c.retentionMs], [65536, 'compact,delete', 7_200_000], `partition ${p} log config`);
      }

      const [deleted, missing, listed] = await kafkaPython(broker, [
        { op: 'delete_topics', topics: [topic] },
        { op: 'delete_topics', topics: ['kp-never-created'] },
        { op: 'list_topics' },
      ]);
      assert.deepEqual(deleted!.errors, { [topic]: null });
      assert.match(String(topicError(missing!, 'kp-never-created')), /UnknownTopicOrPartitionError/);
      assert.equal(listed!.topics![topic], undefined);
      assert.equal(broker.topics.get(topic), undefined);
      for (const p of [0, 1, 2]) assert.equal(broker.logs.getLog(topic, p), undefined);
    });
  });
});
