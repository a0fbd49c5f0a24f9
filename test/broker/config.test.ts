/** Broker properties: Kafka's names, Kafka's precedence, the log.* defaults flowing into topic configs. */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { describe, test } from 'node:test';
import { brokerConfigFromProperties, DEFAULT_BROKER_CONFIG } from '../../src/broker/config.js';
import { describeTopicConfigs, ConfigSource } from '../../src/broker/topic-configs.js';
import { InvalidConfigError } from '../../src/errors.js';
import { DEFAULT_LOG_CONFIG, logConfigFromProperties } from '../../src/storage/log-config.js';

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
