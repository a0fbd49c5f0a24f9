/**
 * CreatePartitions (37), AlterConfigs (33) and IncrementalAlterConfigs (44) driven through their
 * handlers at every version served: Kafka's error codes for each bad request, validate_only
 * leaving everything as it was, new partitions and config overrides persisting across a restart,
 * and a changed config reaching the live partition log.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const CREATE_PARTITIONS = 37;
const ALTER_CONFIGS = 33;
const INCREMENTAL = 44;
const DESCRIBE_CONFIGS = 32;
const TOPIC = 2;
const BROKER = 4;

const names = (r: { results?: { name: string; errorCode: number }[] }) => (r.results ?? []).map((x) => [x.name, errorName(x.errorCode)]);

describe('CreatePartitions', () => {
  for (const version of [0, 1, 2, 3]) {
    test(`v${version}: raises counts, Kafka's errors for the rest, validate_only changes nothing`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('a', 1, {}, broker.logs);
        broker.topics.create('b', 3, {}, broker.logs);
        const req = (topics: unknown[], validateOnly = false) => call(broker, CREATE_PARTITIONS, version, { topics, timeoutMs: 5000, validateOnly });
        const dry = await req([{ name: 'a', count: 4, assignments: null }], true);
        assert.deepEqual(names(dry), [['a', 'NONE']]);
        assert.equal(broker.topics.get('a')!.partitions, 1);
        assert.equal(broker.logs.getLog('a', 1), undefined);
        const r = await req([
          { name: 'a', count: 4, assignments: null },
          { name: 'b', count: 2, assignments: null },
          { name: 'b', count: 5, assignments: null },
          { name: 'nope', count: 2, assignments: null },
        ]);
        assert.deepEqual(names(r), [['a', 'NONE'], ['b', 'INVALID_REQUEST'], ['b', 'INVALID_REQUEST'], ['nope', 'UNKNOWN_TOPIC_OR_PARTITION']]);
        assert.equal(broker.topics.get('a')!.partitions, 4);
        for (const p of [1, 2, 3]) assert.notEqual(broker.logs.getLog('a', p), undefined);
        const bad = await req([
          { name: 'b', count: 2, assignments: null },
          { name: 'a', count: 4, assignments: null },
        ]);
        assert.deepEqual(names(bad), [['b', 'INVALID_PARTITIONS'], ['a', 'INVALID_PARTITIONS']]);
        assert.match(bad.results[0].errorMessage, /would not be an increase/);
        const nodeId = broker.config.nodeId;
        const assigned = await req([
          { name: 'b', count: 5, assignments: [{ brokerIds: [nodeId] }] },
          { name: 'a', count: 6, assignments: [{ brokerIds: [nodeId + 1] }, { brokerIds: [nodeId] }] },
        ]);
        assert.deepEqual(names(assigned), [['b', 'INVALID_REPLICA_ASSIGNMENT'], ['a', 'INVALID_REPLICA_ASSIGNMENT']]);
        const ok = await req([{ name: 'b', count: 4, assignments: [{ brokerIds: [nodeId] }] }]);
        assert.deepEqual(names(ok), [['b', 'NONE']]);
        const meta = await call(broker, 3, 9, { topics: [{ name: 'a' }, { name: 'b' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        assert.deepEqual(meta.topics.map((t: { name: string; partitions: unknown[] }) => [t.name, t.partitions.length]), [['a', 4], ['b', 4]]);
      });
    });
  }

  test('the new partitions persist across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-partitions-'));
    await withBroker({ dataDir }, async (broker) => {
      broker.topics.create('p', 2, {}, broker.logs);
      const r = await call(broker, CREATE_PARTITIONS, 3, { topics: [{ name: 'p', count: 7, assignments: null }], timeoutMs: 5000, validateOnly: false });
      assert.deepEqual(names(r), [['p', 'NONE']]);
    });
    await withBroker({ dataDir }, async (broker) => {
      assert.equal(broker.topics.get('p')!.partitions, 7);
      assert.notEqual(broker.logs.getLog('p', 6), undefined);
    });
  });
});

type AlterResult = { responses: { resourceName: string; errorCode: number; errorMessage: string | null }[] };
const codes = (r: AlterResult) => r.responses.map((x) => [x.resourceName, errorName(x.errorCode)]);

async function topicConfig(broker: Parameters<typeof call>[0], topic: string, name: string): Promise<{ value: string; configSource: number } | undefined> {
  const r = await call(broker, DESCRIBE_CONFIGS, 4, { resources: [{ resourceType: TOPIC, resourceName: topic, configurationKeys: [name] }], includeSynonyms: false, includeDocumentation: false });
  return r.results[0].configs[0];
}

describe('AlterConfigs and IncrementalAlterConfigs on topics', () => {
  for (const version of [0, 1, 2]) {
    test(`AlterConfigs v${version}: replaces the whole set of overrides; errors; validate_only`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('t', 2, { 'retention.ms': '1000', 'cleanup.policy': 'compact' }, broker.logs);
        const alter = (resources: unknown[], validateOnly = false) => call(broker, ALTER_CONFIGS, version, { resources, validateOnly }) as Promise<AlterResult>;
        const dry = await alter([{ resourceType: TOPIC, resourceName: 't', configs: [{ name: 'segment.bytes', value: '1048576' }] }], true);
        assert.deepEqual(codes(dry), [['t', 'NONE']]);
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'retention.ms': '1000', 'cleanup.policy': 'compact' });
        const r = await alter([
          { resourceType: TOPIC, resourceName: 't', configs: [{ name: 'segment.bytes', value: '1048576' }] },
          { resourceType: TOPIC, resourceName: 'missing', configs: [{ name: 'segment.bytes', value: '1048576' }] },
        ]);
        assert.deepEqual(codes(r), [['t', 'NONE'], ['missing', 'UNKNOWN_TOPIC_OR_PARTITION']]);
        // the set replaced the old one: retention.ms and cleanup.policy are back to their defaults
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'segment.bytes': '1048576' });
        assert.equal(broker.logs.getLog('t', 1)!.config.segmentBytes, 1048576);
        assert.equal(broker.logs.getLog('t', 0)!.config.cleanupPolicy, 'delete');
        assert.deepEqual(await topicConfig(broker, 't', 'segment.bytes'), { ...(await topicConfig(broker, 't', 'segment.bytes')), value: '1048576', configSource: 1 });
        const bad = await alter([
          { resourceType: TOPIC, resourceName: 't', configs: [{ name: 'no.such.config', value: '1' }] },
          { resourceType: TOPIC, resourceName: 't', configs: [] },
        ]);
        assert.deepEqual(codes(bad), [['t', 'INVALID_REQUEST'], ['t', 'INVALID_REQUEST']]);
        const invalid = await alter([{ resourceType: TOPIC, resourceName: 't', configs: [{ name: 'no.such.config', value: '1' }] }]);
        assert.deepEqual(codes(invalid), [['t', 'INVALID_CONFIG']]);
        const badValue = await alter([{ resourceType: TOPIC, resourceName: 't', configs: [{ name: 'segment.bytes', value: 'big' }] }]);
        assert.deepEqual(codes(badValue), [['t', 'INVALID_CONFIG']]);
        const dupKey = await alter([{ resourceType: TOPIC, resourceName: 't', configs: [{ name: 'retention.ms', value: '1' }, { name: 'retention.ms', value: '2' }] }]);
        assert.deepEqual(codes(dupKey), [['t', 'INVALID_REQUEST']]);
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'segment.bytes': '1048576' });
        const brokerRes = await alter([
          { resourceType: BROKER, resourceName: String(broker.config.nodeId), configs: [{ name: 'num.partitions', value: '3' }] },
          { resourceType: BROKER, resourceName: '99', configs: [{ name: 'log.retention.ms', value: '3' }] },
          { resourceType: 99, resourceName: 'x', configs: [] },
        ]);
        assert.deepEqual(codes(brokerRes), [[String(broker.config.nodeId), 'INVALID_REQUEST'], ['99', 'INVALID_REQUEST'], ['x', 'INVALID_REQUEST']]);
      });
    });
  }

  for (const version of [0, 1]) {
    test(`IncrementalAlterConfigs v${version}: SET, DELETE, APPEND, SUBTRACT; errors; validate_only`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('t', 1, { 'retention.ms': '1000' }, broker.logs);
        const inc = (configs: unknown[], validateOnly = false, resourceName = 't') =>
          call(broker, INCREMENTAL, version, { resources: [{ resourceType: TOPIC, resourceName, configs }], validateOnly }) as Promise<AlterResult>;
        assert.deepEqual(codes(await inc([{ name: 'max.message.bytes', configOperation: 0, value: '2048' }], true)), [['t', 'NONE']]);
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'retention.ms': '1000' });
        assert.deepEqual(codes(await inc([{ name: 'max.message.bytes', configOperation: 0, value: '2048' }, { name: 'retention.ms', configOperation: 1, value: null }])), [['t', 'NONE']]);
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'max.message.bytes': '2048' });
        assert.equal(broker.logs.getLog('t', 0)!.config.maxMessageBytes, 2048);
        assert.deepEqual(codes(await inc([{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }])), [['t', 'NONE']]);
        assert.equal(broker.topics.get('t')!.overrides['cleanup.policy'], 'delete,compact');
        assert.deepEqual(codes(await inc([{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }])), [['t', 'NONE']]);
        assert.equal(broker.topics.get('t')!.overrides['cleanup.policy'], 'compact');
        assert.equal(broker.logs.getLog('t', 0)!.config.cleanupPolicy, 'compact');
        assert.equal((await topicConfig(broker, 't', 'cleanup.policy'))!.configSource, 1);
        assert.deepEqual(codes(await inc([{ name: 'retention.ms', configOperation: 2, value: '5' }])), [['t', 'INVALID_CONFIG']]);
        assert.deepEqual(codes(await inc([{ name: 'bogus', configOperation: 0, value: '5' }])), [['t', 'INVALID_CONFIG']]);
        assert.deepEqual(codes(await inc([{ name: 'retention.ms', configOperation: 0, value: 'soon' }])), [['t', 'INVALID_CONFIG']]);
        assert.deepEqual(codes(await inc([{ name: 'retention.ms', configOperation: 7, value: '5' }])), [['t', 'INVALID_REQUEST']]);
        assert.deepEqual(codes(await inc([{ name: 'retention.ms', configOperation: 0, value: '5' }], false, 'gone')), [['gone', 'UNKNOWN_TOPIC_OR_PARTITION']]);
        assert.deepEqual(broker.topics.get('t')!.overrides, { 'max.message.bytes': '2048', 'cleanup.policy': 'compact' });
      });
    });
  }

  test('lowering retention.bytes through IncrementalAlterConfigs deletes segments at the next retention check', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('r', 1, { 'segment.bytes': '1024' }, broker.logs);
      const log = broker.logs.getLog('r', 0)!;
      for (let i = 0; i < 20; i++) log.append(encodeRecordBatch([{ key: `k${i}`, value: 'v'.repeat(300) }]));
      const before = log.segmentCount;
      assert.ok(before >= 5, `segments: ${before}`);
      // the default retention.bytes (-1) keeps everything
      assert.equal(log.deleteOldSegments(), 0);
      const r = (await call(broker, INCREMENTAL, 1, { resources: [{ resourceType: TOPIC, resourceName: 'r', configs: [{ name: 'retention.bytes', configOperation: 0, value: '1500' }] }], validateOnly: false })) as AlterResult;
      assert.deepEqual(codes(r), [['r', 'NONE']]);
      // what the broker's periodic retention task runs
      const deleted = log.deleteOldSegments();
      assert.ok(deleted > 0 && log.segmentCount < before, `deleted ${deleted}, ${log.segmentCount} of ${before} left`);
      assert.ok(log.logStartOffset > 0n);
    });
  });

  test('overrides set by IncrementalAlterConfigs persist across a restart and apply to the reopened logs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-configs-'));
    await withBroker({ dataDir }, async (broker) => {
      broker.topics.create('k', 2, {}, broker.logs);
      const r = (await call(broker, INCREMENTAL, 1, { resources: [{ resourceType: TOPIC, resourceName: 'k', configs: [{ name: 'retention.bytes', configOperation: 0, value: '4096' }] }], validateOnly: false })) as AlterResult;
      assert.deepEqual(codes(r), [['k', 'NONE']]);
    });
    await withBroker({ dataDir }, async (broker) => {
      assert.deepEqual(broker.topics.get('k')!.overrides, { 'retention.bytes': '4096' });
      assert.equal(broker.logs.getLog('k', 1)!.config.retentionBytes, 4096);
      assert.deepEqual(await topicConfig(broker, 'k', 'retention.bytes').then((c) => [c?.value, c?.configSource]), ['4096', 1]);
    });
  });
});
