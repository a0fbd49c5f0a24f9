/**
 * Broker properties: Kafka's names, Kafka's precedence, the log.* defaults flowing into topic
 * configs; kafkalite's own `kafkalite.*` properties, checked at start, and two brokers in one
 * process each keeping the budgets their properties set.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errorName } from '../../src/protocol/error-codes.js';
import { describe, test } from 'node:test';
import { startBroker } from '../../src/broker/broker.js';
import { brokerConfigFromProperties, DEFAULT_BROKER_CONFIG } from '../../src/broker/config.js';
import { describeTopicConfigs, ConfigSource } from '../../src/broker/topic-configs.js';
import { InvalidConfigError } from '../../src/errors.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { DEFAULT_LOG_CONFIG, logConfigFromProperties } from '../../src/storage/log-config.js';
import { WRITEBACK_CHUNK_BYTES, type PageCacheCalls } from '../../src/storage/page-cache-budget.js';
import { withBroker } from '../helpers/broker.js';
import { RawClient } from '../helpers/raw-client.js';

describe('broker config', () => {
  test("Kafka's defaults where nothing is set", () => {
    const c = brokerConfigFromProperties({});
    assert.equal(c.autoCreateTopics, true);
    assert.equal(c.numPartitions, 1);
    assert.equal(c.socketRequestMaxBytes, 104857600);
    assert.equal(c.groupInitialRebalanceDelayMs, 3000);
    assert.deepEqual(c.logConfig, DEFAULT_LOG_CONFIG);
  });

  test('broker log.* properties set the topic defaults (LogConfig synonyms)', () => {
    const c = brokerConfigFromProperties({
      'log.segment.bytes': '1048576',
      'message.max.bytes': '2000000',
      'log.cleanup.policy': 'compact',
      'log.message.timestamp.type': 'LogAppendTime',
      'compression.type': 'zstd',
    });
    assert.equal(c.logConfig.segmentBytes, 1048576);
    assert.equal(c.logConfig.maxMessageBytes, 2000000);
    assert.equal(c.logConfig.cleanupPolicy, 'compact');
    assert.equal(c.logConfig.messageTimestampType, 'LogAppendTime');
    assert.equal(c.logConfig.compressionType, 'zstd');
  });

  test('log.retention.ms beats .minutes beats .hours (KafkaConfig precedence)', () => {
    assert.equal(brokerConfigFromProperties({ 'log.retention.hours': '2' }).logConfig.retentionMs, 7200000);
    assert.equal(brokerConfigFromProperties({ 'log.retention.hours': '2', 'log.retention.minutes': '3' }).logConfig.retentionMs, 180000);
    assert.equal(brokerConfigFromProperties({ 'log.retention.hours': '2', 'log.retention.minutes': '3', 'log.retention.ms': '5000' }).logConfig.retentionMs, 5000);
  });

  test('unknown names and values Kafka refuses are INVALID_CONFIG', () => {
    for (const props of <Record<string, string>[]>[{ 'no.such.thing': '1' }, { 'num.partitions': '0' }, { 'auto.create.topics.enable': 'yes' }, { 'log.segment.bytes': '10' }, { 'node.id': 'x' }]) {
      assert.throws(() => brokerConfigFromProperties(props), (e: unknown) => e instanceof InvalidConfigError && errorName(e.kafkaErrorCode) === 'INVALID_CONFIG', JSON.stringify(props));
    }
  });

  test('the given base is kept where the properties are silent', () => {
    const c = brokerConfigFromProperties({ 'num.partitions': '4' }, { ...DEFAULT_BROKER_CONFIG, port: 0 });
    assert.equal(c.numPartitions, 4);
    assert.equal(c.port, 0);
  });
});

describe('DescribeConfigs view of topic configs', () => {
  test('every Kafka topic config is listed; sources say topic override, broker property or default', () => {
    const broker = { 'log.segment.bytes': '1048576' };
    const base = brokerConfigFromProperties(broker).logConfig;
    const overrides = { 'retention.ms': '1000' };
    const described = describeTopicConfigs(overrides, logConfigFromProperties(overrides, base), broker);
    const byName = new Map(described.map((d) => [d.name, d]));
    for (const name of ['cleanup.policy', 'compression.type', 'max.message.bytes', 'min.insync.replicas', 'retention.bytes', 'segment.ms']) {
      assert.ok(byName.has(name), name);
    }
    assert.deepEqual([byName.get('retention.ms')!.value, byName.get('retention.ms')!.source], ['1000', ConfigSource.DYNAMIC_TOPIC_CONFIG]);
    assert.deepEqual([byName.get('segment.bytes')!.value, byName.get('segment.bytes')!.source], ['1048576', ConfigSource.STATIC_BROKER_CONFIG]);
    assert.deepEqual(byName.get('segment.bytes')!.synonyms.map((s) => s.name), ['log.segment.bytes', 'log.segment.bytes']);
    assert.deepEqual([byName.get('max.message.bytes')!.value, byName.get('max.message.bytes')!.source], ['1048588', ConfigSource.DEFAULT_CONFIG]);
    assert.equal(byName.get('max.compaction.lag.ms')!.value, '9223372036854775807');
  });
});

describe("kafkalite's own properties", () => {
  test('page-cache and index-cache budgets, background flush, the mapped tail and socket reads: defaults, values, refusals', () => {
    const d = brokerConfigFromProperties({});
    assert.deepEqual([d.pageCacheBudgetBytes, d.indexCacheBudgetBytes, d.backgroundFlush, d.mappedTail, d.socketReads], [64 * 1024 * 1024, 64 * 1024 * 1024, true, true, 'direct']);
    const c = brokerConfigFromProperties({
      'kafkalite.page.cache.budget.bytes': '0',
      'kafkalite.index.cache.budget.bytes': '8589934592',
      'kafkalite.background.flush.enable': 'false',
      'kafkalite.mapped.tail.enable': 'false',
      'kafkalite.socket.reads': 'stream',
    });
    assert.deepEqual([c.pageCacheBudgetBytes, c.indexCacheBudgetBytes, c.backgroundFlush, c.mappedTail, c.socketReads], [0, 8589934592, false, false, 'stream']);
    for (const [name, value] of [
      ['kafkalite.page.cache.budget.bytes', '-1'],
      ['kafkalite.page.cache.budget.bytes', '64MB'],
      ['kafkalite.index.cache.budget.bytes', '1.5'],
      ['kafkalite.background.flush.enable', 'off'],
      ['kafkalite.mapped.tail.enable', 'yes'],
      ['kafkalite.socket.reads', 'mmap'],
    ] as const) {
      assert.throws(
        () => brokerConfigFromProperties({ [name]: value }),
        (e: unknown) => e instanceof InvalidConfigError && e.message.includes(`Invalid value ${value} for configuration ${name}`),
        `${name}=${value}`,
      );
    }
  });

  test('kafkalite.protocol.compat: 3.9 by default, 4.0 when set, anything else refused', () => {
    assert.equal(brokerConfigFromProperties({}).protocolCompat, '3.9');
    assert.equal(brokerConfigFromProperties({ 'kafkalite.protocol.compat': '4.0' }).protocolCompat, '4.0');
    assert.throws(
      () => brokerConfigFromProperties({ 'kafkalite.protocol.compat': '3.0' }),
      (e: unknown) => e instanceof InvalidConfigError && e.message.includes('Invalid value 3.0 for configuration kafkalite.protocol.compat'),
    );
  });

  test('a broker does not start with a bad value', async () => {
    await assert.rejects(
      startBroker({ config: { 'kafkalite.page.cache.budget.bytes': '-5' }, logLevel: 'silent' }),
      (e: unknown) => e instanceof InvalidConfigError && e.message.includes('kafkalite.page.cache.budget.bytes'),
    );
  });

  test('metadata.log.max.record.bytes.between.snapshots: Kafka\'s 20 MiB by default, a LONG of at least 1, and the metadata log snapshots past it', async () => {
    assert.equal(brokerConfigFromProperties({}).metadataMaxBytesBetweenSnapshots, 20 * 1024 * 1024);
    assert.equal(brokerConfigFromProperties({ 'metadata.log.max.record.bytes.between.snapshots': '4096' }).metadataMaxBytesBetweenSnapshots, 4096);
    for (const bad of ['0', '-1', 'lots', '1.5']) {
      assert.throws(
        () => brokerConfigFromProperties({ 'metadata.log.max.record.bytes.between.snapshots': bad }),
        (e: unknown) => e instanceof InvalidConfigError && e.message.includes(`Invalid value ${bad} for configuration metadata.log.max.record.bytes.between.snapshots`),
      );
    }
    await assert.rejects(startBroker({ config: { 'metadata.log.max.record.bytes.between.snapshots': '0' }, logLevel: 'silent' }), (e: unknown) => e instanceof InvalidConfigError);
    const snapshots = (dir: string): string[] => readdirSync(join(dir, '__cluster_metadata-0')).filter((n) => n.endsWith('.checkpoint'));
    await withBroker({ config: { 'metadata.log.max.record.bytes.between.snapshots': '4096' } }, async (broker) => {
      for (let i = 0; i < 30; i++) broker.topics.create(`t${i}`, 2, {}, broker.logs);
      assert.equal(snapshots(broker.dataDir).length, 1, 'past 4096 bytes the image was snapshotted');
    });
    await withBroker({}, async (broker) => {
      for (let i = 0; i < 30; i++) broker.topics.create(`t${i}`, 2, {}, broker.logs);
      assert.deepEqual(snapshots(broker.dataDir), [], 'the default threshold is far away');
    });
  });

  test('two brokers in one process keep separate budgets, each from its own properties', async () => {
    const counting = (): PageCacheCalls & { writebacks: number } => {
      const calls = { writebacks: 0, startWriteback: () => (calls.writebacks++, 0), dropPages: () => 0 };
      return calls;
    };
    const own = { 'kafkalite.page.cache.budget.bytes': String(WRITEBACK_CHUNK_BYTES), 'kafkalite.index.cache.budget.bytes': '1048576' };
    await withBroker({ config: own }, async (a) => {
      await withBroker({}, async (b) => {
        const [pa, pb] = [a.logs.resources.pageCache, b.logs.resources.pageCache];
        assert.notEqual(pa, pb);
        assert.deepEqual([pa.limitBytes, pb.limitBytes], [WRITEBACK_CHUNK_BYTES, 64 * 1024 * 1024]);
        assert.deepEqual([a.logs.resources.indexCache.limitBytes, b.logs.resources.indexCache.limitBytes], [1048576, 64 * 1024 * 1024]);
        const [ca, cb] = [(pa.os = counting()), (pb.os = counting())];
        // one writeback chunk produced to a, in batches of exactly 1 MiB
        const overhead = encodeRecordBatch([{ value: Buffer.alloc(1_000_000) }]).length - 1_000_000;
        const client = await RawClient.connect(a.port);
        assert.equal((await client.request(3, 1, { topics: [{ name: 'budgeted' }] })).topics[0].errorCode, 0);
        for (let i = 0; i < WRITEBACK_CHUNK_BYTES / (1024 * 1024); i++) {
          const records = encodeRecordBatch([{ value: Buffer.alloc(1024 * 1024 - overhead, i) }]);
          const answer = await client.request(0, 7, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'budgeted', partitionData: [{ index: 0, records }] }] });
          assert.equal(answer.responses[0].partitionResponses[0].errorCode, 0);
        }
        client.destroy();
        assert.equal(ca.writebacks, 1);
        assert.equal(pa.heldBytes, WRITEBACK_CHUNK_BYTES);
        assert.deepEqual([cb.writebacks, pb.heldBytes], [0, 0], "a's appends are not in b's budget");
      });
    });
  });
});
