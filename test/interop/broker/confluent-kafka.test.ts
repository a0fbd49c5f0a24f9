/**
 * confluent-kafka-python 1.7 (Debian; librdkafka 2.0.2) against a kafkalite broker started by the
 * test: producing with acks 0/1/all in every codec, consuming by assign() (no group), multiple
 * partitions, fetching from an offset inside a batch, a consumer long-polling for data produced
 * after it started (read_committed, librdkafka's default isolation.level), AdminClient
 * create/delete topics with configs and DescribeConfigs. What the client produced is compared
 * byte for byte with what it fetches back and with the log on disk (CRCs verified).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { partitionDirName } from '../../../src/storage/topic.js';
import { storedBatches, withBroker } from '../../helpers/broker.js';
import { hex } from '../../helpers/python-peer.js';
import { fetchedRows, runSteps, sentRows, storedRows, topicError, watchFetchWaits, type SentMessage, type StepResult } from './py-steps.js';

const CODEC_IDS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
/** confluent_kafka.admin.ConfigSource values (librdkafka rd_kafka_ConfigSource_t). */
const UNKNOWN_CONFIG = 0;
const DYNAMIC_TOPIC_CONFIG = 1;
const DEFAULT_CONFIG = 5;

const confluent = (broker: Broker, steps: Record<string, unknown>[]): Promise<StepResult[]> => runSteps('broker_confluent.py', broker, steps);

/**
 * Messages with binary keys and values, null keys/values, binary and null header values; values
 * repeat a text so every codec compresses the batch (librdkafka sends a batch uncompressed when
 * compression would not shrink it).
 */
function makeMessages(n: number, partitions = 1): SentMessage[] {
  const salt = randomBytes(6).toString('hex');
  return Array.from({ length: n }, (_, i) => ({
    partition: i % partitions,
    key: i % 11 === 3 ? null : hex(Buffer.concat([Buffer.from(`key-${i % 7}-`), randomBytes(3)])),
    value: i % 13 === 5 ? null : hex(Buffer.concat([randomBytes(8), Buffer.from(`${salt}:${i}:${'payload '.repeat(10 + (i % 20))}`)])),
    headers: i % 4 === 0 ? null : [['trace', hex(randomBytes(i % 9))], ['n', i % 3 === 0 ? null : hex(Buffer.from(String(i)))]],
  }));
}

describe('confluent-kafka-python (librdkafka 2.0.2) against the broker', () => {
  for (const codec of Object.keys(CODEC_IDS)) {
    test(`produce with ${codec} at acks 0, 1 and all; consume by assign() byte for byte`, async () => {
      await withBroker({}, async (broker) => {
        const acksList = ['0', '1', 'all'];
        const sent = makeMessages(150);
        const steps = acksList.flatMap((acks) => [
          { op: 'produce', topic: `ck-${codec}-acks${acks}`, config: { acks, 'compression.type': codec, 'linger.ms': 20 }, messages: sent, knownTopic: true },
        ]);
        const consumeSteps = acksList.map((acks) => ({ op: 'consume', topic: `ck-${codec}-acks${acks}`, assign: [[0, 0]], expect: sent.length }));
        const results = await confluent(broker, [...steps, ...consumeSteps]);
        acksList.forEach((acks, k) => {
          const topic = `ck-${codec}-acks${acks}`;
          const produced = results[k]!;
          assert.equal(produced.undelivered, 0, `${topic}: messages left undelivered`);
          assert.deepEqual(produced.deliveries!.map((d) => d.error), sent.map(() => null), `${topic}: delivery errors`);
          // acks=0 gets no ProduceResponse, so librdkafka cannot know the offsets
          if (acks !== '0') assert.deepEqual(produced.deliveries!.map((d) => d.offset), sent.map((_, i) => i), `${topic}: delivered offsets`);
          const consumed = results[acksList.length + k]!;
          assert.deepEqual(consumed.errors, [], `${topic}: consumer errors`);
          assert.deepEqual(fetchedRows(consumed.messages!, 0), sentRows(sent, 0), `${topic}: consumed`);
          const batches = storedBatches(broker.dataDir, topic, 0);
          for (const b of batches) assert.ok(b.compression === CODEC_IDS[codec] || b.compression === 0, `${topic}: batch ${b.baseOffset} has codec ${b.compression}`);
          assert.ok(batches.some((b) => b.compression === CODEC_IDS[codec]), `${topic}: no batch stored with ${codec}`);
          assert.deepEqual(storedRows(broker, topic, 0), sentRows(sent, 0), `${topic}: stored`);
        });
      });
    });
  }

  test('a three-partition topic: explicit partitions, assign() of all three, dense offsets per partition', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'ck-multi';
      const sent = makeMessages(240, 3);
      const [created, produced, consumed] = await confluent(broker, [
        { op: 'create_topics', topics: [{ name: topic, partitions: 3 }] },
        { op: 'produce', topic, config: { acks: 'all', 'compression.type': 'zstd', 'linger.ms': 10 }, messages: sent },
        { op: 'consume', topic, assign: [[0, 0], [1, 0], [2, 0]], expect: sent.length },
      ]);
      assert.deepEqual(created!.errors, { [topic]: null });
      assert.deepEqual(produced!.deliveries!.map((d) => [d.partition, d.error]), sent.map((m) => [m.partition, null]));
      assert.deepEqual(consumed!.errors, []);
      assert.deepEqual(consumed!.eof, [0, 1, 2]);
      for (const p of [0, 1, 2]) {
        assert.deepEqual(fetchedRows(consumed!.messages!, p), sentRows(sent, p), `partition ${p} consumed`);
        assert.deepEqual(storedRows(broker, topic, p), sentRows(sent, p), `partition ${p} stored`);
      }
    });
  });

  test('assign() at an offset inside a compressed batch delivers from that offset on', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'ck-mid-batch';
      const sent = makeMessages(60);
      const from = 17;
      const [produced] = await confluent(broker, [
        // knownTopic: the messages go straight to the partition and linger there (see broker_confluent.py)
        { op: 'produce', topic, config: { 'compression.type': 'lz4', 'linger.ms': 1000, 'batch.num.messages': 1000 }, messages: sent, knownTopic: true },
      ]);
      assert.equal(produced!.undelivered, 0);
      // the precondition that makes this test mean something: offset 17 is not a batch's first
      const holder = storedBatches(broker.dataDir, topic, 0).find((b) => b.baseOffset <= BigInt(from) && BigInt(from) <= b.lastOffset);
      assert.ok(holder !== undefined && holder.baseOffset < BigInt(from), `offset ${from} should sit inside a batch, batches: ${storedBatches(broker.dataDir, topic, 0).map((b) => `${b.baseOffset}-${b.lastOffset}`)}`);
      const [consumed] = await confluent(broker, [{ op: 'consume', topic, assign: [[0, from]], expect: sent.length - from }]);
      assert.deepEqual(consumed!.errors, []);
      assert.deepEqual(fetchedRows(consumed!.messages!, 0), sentRows(sent, 0).slice(from));
    });
  });

  test('a read_committed consumer long-polls and is woken by data produced after it started', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'ck-long-poll';
      const sent = makeMessages(25);
      const [created] = await confluent(broker, [{ op: 'create_topics', topics: [{ name: topic, partitions: 1 }] }]);
      assert.deepEqual(created!.errors, { [topic]: null });
      // Spies (the real methods still run): which isolation level the consumer's reads use, and
      // whether a fetch parked on the empty log was woken by an append rather than its max wait.
      const log = broker.logs.getLog(topic, 0)!;
      const isolations = new Set<string | undefined>();
      const realRead = log.read.bind(log);
      log.read = (offset, options) => {
        isolations.add(options.isolation);
        return realRead(offset, options);
      };
      const { firstPark, wakes } = watchFetchWaits(broker);
      // isolation.level is left at librdkafka's default (read_committed); fetch.wait.max.ms is far
      // longer than the consumer's budget, so only a fetch woken by the append can deliver in time
      const consumer = confluent(broker, [
        { op: 'consume', topic, config: { 'fetch.wait.max.ms': 30_000 }, assign: [[0, 0]], expect: sent.length, untilEof: false, timeoutS: 20 },
      ]);
      await firstPark;
      assert.equal(log.logEndOffset, 0n, 'nothing is produced before the consumer waits');
      const [produced] = await confluent(broker, [{ op: 'produce', topic, config: { 'enable.idempotence': true }, messages: sent }]);
      assert.equal(produced!.undelivered, 0);
      const [consumed] = await consumer;
      assert.deepEqual(consumed!.errors, []);
      assert.deepEqual(fetchedRows(consumed!.messages!, 0), sentRows(sent, 0));
      assert.ok(wakes.includes(true), `no parked fetch was woken by an append (wake results: ${wakes})`);
      assert.deepEqual([...isolations], ['read_committed']);
      assert.deepEqual(storedRows(broker, topic, 0), sentRows(sent, 0));
      const batches = storedBatches(broker.dataDir, topic, 0);
      assert.ok(batches.every((b) => b.producerId >= 0n), 'idempotent batches carry a producer id');
    });
  });

  test('AdminClient creates topics with configs the log honours, describes them, and deletes them', async () => {
    // DescribeConfigs capped at v0 on purpose: librdkafka then reads is_default (v0's only source
    // information); the uncapped v1 answer with config sources is the next test
    await withBroker({ maxVersions: { 32: 0 } }, async (broker) => {
      const topic = 'ck-admin';
      const configs = { 'segment.bytes': '16384', 'cleanup.policy': 'compact', 'retention.ms': '3600000' };
      const [created, again, invalid, described, listed] = await confluent(broker, [
        { op: 'create_topics', topics: [{ name: topic, partitions: 2, configs }] },
        { op: 'create_topics', topics: [{ name: topic, partitions: 1 }] },
        { op: 'create_topics', topics: [{ name: 'ck-bad-config', partitions: 1, configs: { 'cleanup.policy': 'sometimes' } }] },
        { op: 'describe_configs', topic },
        { op: 'list_topics' },
      ]);
      assert.deepEqual(created!.errors, { [topic]: null });
      assert.match(String(topicError(again!, topic)), /TOPIC_ALREADY_EXISTS/);
      assert.match(String(topicError(invalid!, 'ck-bad-config')), /INVALID_CONFIG/);
      // v0 (the cap above) carries only is_default: librdkafka reports a non-default entry's
      // source as UNKNOWN_CONFIG and a default one as DEFAULT_CONFIG
      for (const [name, value] of Object.entries(configs)) {
        assert.deepEqual(described!.configs![name], { value, source: UNKNOWN_CONFIG, isDefault: false, isReadOnly: false, isSensitive: false }, name);
      }
      assert.deepEqual(described!.configs!['segment.ms'], { value: '604800000', source: DEFAULT_CONFIG, isDefault: true, isReadOnly: false, isSensitive: false });
      assert.deepEqual(listed!.topics![topic], [0, 1]);
      assert.equal(listed!.topics!['ck-bad-config'], undefined);

      const info = broker.topics.get(topic);
      assert.ok(info !== undefined);
      assert.equal(info.partitions, 2);
      for (const p of [0, 1]) {
        const config = broker.logs.getLog(topic, p)!.config;
        assert.deepEqual([config.segmentBytes, config.cleanupPolicy, config.retentionMs], [16384, 'compact', 3_600_000], `partition ${p} log config`);
      }
      // segment.bytes honoured: ~60 KiB produced to partition 0 rolls several 16 KiB segments
      const sent = makeMessages(300).map((m) => ({ ...m, key: hex(randomBytes(8)), partition: 0 }));
      const [produced, consumed] = await confluent(broker, [
        { op: 'produce', topic, config: { 'linger.ms': 5, 'batch.size': 4096 }, messages: sent },
        { op: 'consume', topic, assign: [[0, 0]], expect: sent.length },
      ]);
      assert.equal(produced!.undelivered, 0);
      const segments = readdirSync(join(broker.dataDir, partitionDirName(topic, 0))).filter((f) => f.endsWith('.log'));
      assert.ok(segments.length > 2, `expected several segments, found ${segments}`);
      assert.deepEqual(storedRows(broker, topic, 0), sentRows(sent, 0));
      assert.deepEqual(fetchedRows(consumed!.messages!, 0), sentRows(sent, 0));

      const [deleted, missing, after] = await confluent(broker, [
        { op: 'delete_topics', topics: [topic] },
        { op: 'delete_topics', topics: ['ck-never-created'] },
        { op: 'list_topics' },
      ]);
      assert.deepEqual(deleted!.errors, { [topic]: null });
      assert.match(String(topicError(missing!, 'ck-never-created')), /UNKNOWN_TOPIC_OR_PART/);
      assert.equal(after!.topics![topic], undefined);
      assert.equal(broker.topics.get(topic), undefined);
      assert.equal(broker.logs.getLog(topic, 0), undefined);
    });
  });

  test(
    'DescribeConfigs v1 (librdkafka uncapped) reports config sources',
    async () => {
      await withBroker({}, async (broker) => {
        const topic = 'ck-describe-v1';
        const [created, described] = await confluent(broker, [
          { op: 'create_topics', topics: [{ name: topic, partitions: 1, configs: { 'retention.ms': '3600000' } }] },
          { op: 'describe_configs', topic, timeoutS: 5 },
        ]);
        assert.deepEqual(created!.errors, { [topic]: null });
        assert.deepEqual(described!.configs!['retention.ms'], { value: '3600000', source: DYNAMIC_TOPIC_CONFIG, isDefault: false, isReadOnly: false, isSensitive: false });
        assert.deepEqual(described!.configs!['segment.ms'], { value: '604800000', source: DEFAULT_CONFIG, isDefault: true, isReadOnly: false, isSensitive: false });
      });
    },
  );
});
