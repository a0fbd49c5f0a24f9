/**
 * Dynamic broker configs through AlterConfigs (33) and IncrementalAlterConfigs (44) on the BROKER
 * resource: the cluster-wide default ("") and the per-node set (node id, which wins), reaching
 * the live logs of topics without an override of their own, reported by DescribeConfigs with
 * their sources, kept across a restart; Kafka's errors for a config that cannot change at runtime,
 * a bad value and another node's id; validate_only changing nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const ALTER_CONFIGS = 33;
const INCREMENTAL = 44;
const DESCRIBE_CONFIGS = 32;
const TOPIC = 2;
const BROKER = 4;

type Op = { name: string; configOperation: number; value: string | null };

async function incBroker(broker: Broker, resourceName: string, configs: Op[], validateOnly = false): Promise<string> {
  const r = await call(broker, INCREMENTAL, 1, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly });
  return errorName(r.responses[0].errorCode)!;
}

async function retentionSynonyms(broker: Broker, topic: string): Promise<[string, string, number][]> {
  const r = await call(broker, DESCRIBE_CONFIGS, 4, { resources: [{ resourceType: TOPIC, resourceName: topic, configurationKeys: ['retention.ms'] }], includeSynonyms: true, includeDocumentation: false });
  const c = r.results[0].configs[0];
  return [[c.name, c.value, c.configSource], ...c.synonyms.map((s: { name: string; value: string; source: number }) => [s.name, s.value, s.source] as [string, string, number])];
}

describe('dynamic broker configs', () => {
  test('cluster default and per-node log defaults reach the live logs; sources; errors; restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-dynamic-'));
    await withBroker({ dataDir }, async (broker) => {
      const node = String(broker.config.nodeId);
      broker.topics.create('plain', 2, {}, broker.logs);
      broker.topics.create('own', 1, { 'retention.ms': '1000' }, broker.logs);
      assert.equal(await incBroker(broker, '', [{ name: 'log.retention.ms', configOperation: 0, value: '5000' }], true), 'NONE');
      assert.equal(broker.logs.getLog('plain', 0)!.config.retentionMs, 604800000);

      assert.equal(await incBroker(broker, '', [{ name: 'log.retention.ms', configOperation: 0, value: '5000' }]), 'NONE');
      assert.equal(broker.logs.getLog('plain', 1)!.config.retentionMs, 5000);
      assert.equal(broker.logs.getLog('own', 0)!.config.retentionMs, 1000);
      assert.deepEqual(await retentionSynonyms(broker, 'plain'), [['retention.ms', '5000', 3], ['log.retention.ms', '5000', 3], ['log.retention.ms', '604800000', 5]]);

      assert.equal(await incBroker(broker, node, [{ name: 'log.retention.ms', configOperation: 0, value: '7000' }, { name: 'log.cleanup.policy', configOperation: 2, value: 'compact' }]), 'NONE');
      const log = broker.logs.getLog('plain', 0)!;
      assert.deepEqual([log.config.retentionMs, log.config.cleanupPolicy], [7000, 'compact,delete']);
      assert.deepEqual((await retentionSynonyms(broker, 'plain')).slice(0, 3), [['retention.ms', '7000', 2], ['log.retention.ms', '7000', 2], ['log.retention.ms', '5000', 3]]);
      const described = await call(broker, DESCRIBE_CONFIGS, 4, { resources: [{ resourceType: BROKER, resourceName: node, configurationKeys: ['log.retention.ms', 'num.partitions'] }], includeSynonyms: false, includeDocumentation: false });
      assert.deepEqual(
        described.results[0].configs.map((c: { name: string; value: string; configSource: number; readOnly: boolean }) => [c.name, c.value, c.configSource, c.readOnly]),
        [['num.partitions', '1', 5, true], ['log.retention.ms', '7000', 2, false]],
      );
      // a topic created now takes the dynamic defaults too
      broker.topics.create('later', 1, {}, broker.logs);
      assert.equal(broker.logs.getLog('later', 0)!.config.retentionMs, 7000);

      assert.equal(await incBroker(broker, node, [{ name: 'num.partitions', configOperation: 0, value: '3' }]), 'INVALID_REQUEST');
      assert.equal(await incBroker(broker, node, [{ name: 'log.segment.bytes', configOperation: 0, value: 'huge' }]), 'INVALID_CONFIG');
      assert.equal(await incBroker(broker, node, [{ name: 'log.retention.ms', configOperation: 2, value: '1' }]), 'INVALID_CONFIG');
      assert.equal(await incBroker(broker, String(broker.config.nodeId + 1), [{ name: 'log.retention.ms', configOperation: 0, value: '1' }]), 'INVALID_REQUEST');
      assert.equal(broker.logs.getLog('plain', 0)!.config.retentionMs, 7000);

      // AlterConfigs replaces the node's whole set: the cluster default applies again
      const r = await call(broker, ALTER_CONFIGS, 2, { resources: [{ resourceType: BROKER, resourceName: node, configs: [{ name: 'message.max.bytes', value: '2048' }] }], validateOnly: false });
      assert.equal(errorName(r.responses[0].errorCode), 'NONE');
      assert.deepEqual([log.config.retentionMs, log.config.cleanupPolicy, log.config.maxMessageBytes], [5000, 'delete', 2048]);
    });
    await withBroker({ dataDir }, async (broker) => {
      const log = broker.logs.getLog('plain', 0)!;
      assert.deepEqual([log.config.retentionMs, log.config.maxMessageBytes], [5000, 2048]);
      assert.equal(broker.logs.getLog('own', 0)!.config.retentionMs, 1000);
      assert.equal((await retentionSynonyms(broker, 'plain'))[0]![2], 3);
    });
  });
});
