/**
 * kafka-python 2.0.2 (KafkaAdminClient) and confluent-kafka-python 1.7.0 on librdkafka 2.0.2
 * (AdminClient) against the broker: create_partitions (CreatePartitions 37) with validate_only,
 * for real and with a manual assignment, and the Kafka errors each client reports
 * (INVALID_PARTITIONS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT); the client's
 * producer and kcat writing to a new partition; alter_configs (AlterConfigs 33) changing the live
 * log's config, INVALID_CONFIG for a bad value, and on the broker resource a dynamic log default;
 * describe_configs reporting DYNAMIC_TOPIC_CONFIG.
 * (These client versions have no incremental_alter_configs.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { storedRecords, withBroker } from '../../helpers/broker.js';
import { runCommand, runPythonAsync } from '../../helpers/python-peer.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

async function kcat(args: string[], input?: string): Promise<string> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}

describe('python admin clients: create_partitions and alter_configs', () => {
  for (const client of ['kafka-python', 'confluent']) {
    test(client, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('grow', 1, {}, broker.logs);
        const nodeId = broker.config.nodeId;
        const { results: r } = await runPythonAsync<{ results: Result[] }>('broker_admin.py', {
          client,
          bootstrap: broker.bootstrap,
          steps: [
            { op: 'create_partitions', topic: 'grow', count: 3, validate_only: true },
            { op: 'create_partitions', topic: 'grow', count: 3 },
            { op: 'create_partitions', topic: 'grow', count: 2 },
            { op: 'create_partitions', topic: 'missing', count: 2 },
            { op: 'create_partitions', topic: 'grow', count: 4, assignments: [[nodeId + 7]] },
            { op: 'create_partitions', topic: 'grow', count: 4, assignments: [[nodeId]] },
            { op: 'produce', topic: 'grow', partition: 3, value: `from-${client}` },
            { op: 'alter_configs', topic: 'grow', configs: { 'retention.ms': 'soon' } },
            { op: 'alter_configs', topic: 'grow', configs: { 'retention.ms': '3600000', 'cleanup.policy': 'compact' } },
            { op: 'describe_configs', topic: 'grow', names: ['retention.ms', 'cleanup.policy'] },
            { op: 'alter_configs', type: 'broker', topic: String(nodeId), configs: { 'log.retention.bytes': '123456789' } },
            { op: 'alter_configs', type: 'broker', topic: String(nodeId), configs: { 'num.partitions': '9' } },
          ],
        }, { timeoutMs: 90_000 });
        const errors = (rs: Result[]) => rs.map((x) => ({ error: x.error === null ? null : errorName(x.error) }));
        assert.deepEqual(errors(r.slice(0, 6)), [
          { error: null },
          { error: null },
          { error: 'INVALID_PARTITIONS' },
          { error: 'UNKNOWN_TOPIC_OR_PARTITION' },
          { error: 'INVALID_REPLICA_ASSIGNMENT' },
          { error: null },
        ]);
        assert.equal(broker.topics.get('grow')!.partitions, 4);
        assert.deepEqual(r[6], { partition: 3, offset: 0 });
        await kcat(['-b', broker.bootstrap, '-t', 'grow', '-P', '-p', '2', '-K:'], 'k:from-kcat\n');
        assert.deepEqual(storedRecords(broker.dataDir, 'grow', 2).map((x) => x.value?.toString()), ['from-kcat']);
        assert.equal((await kcat(['-b', broker.bootstrap, '-t', 'grow', '-C', '-p', '3', '-o', 'beginning', '-e', '-q'])).trim(), `from-${client}`);
        assert.deepEqual(errors(r.slice(7, 9)), [{ error: 'INVALID_CONFIG' }, { error: null }]);
        assert.equal(broker.logs.getLog('grow', 3)!.config.cleanupPolicy, 'compact');
        assert.equal(broker.logs.getLog('grow', 0)!.config.retentionMs, 3600000);
        // both ask DescribeConfigs v1+, which carries the source: DYNAMIC_TOPIC_CONFIG (1)
        assert.deepEqual(r[9], { configs: { 'retention.ms': ['3600000', 1], 'cleanup.policy': ['compact', 1] } });
        // a dynamic broker config: the node's log.retention.bytes reaches the topic's live logs
        assert.deepEqual(errors(r.slice(10, 12)), [{ error: null }, { error: 'INVALID_REQUEST' }]);
        assert.equal(broker.logs.getLog('grow', 1)!.config.retentionBytes, 123456789);
      });
    });
  }
});
