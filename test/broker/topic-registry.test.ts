/** Topics: Kafka's CreateTopics checks, persistence across restarts, adoption of Kafka-written partition dirs. */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/broker/api-error.js';
import { TopicRegistry, TOPICS_FILE } from '../../src/broker/topic-registry.js';
import type { ClusterMetadataLog } from '../../src/internal-topics/metadata-log.js';
import { InvalidConfigError, InvalidTopicError } from '../../src/errors.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { CORPORA } from '../helpers/paths.js';

function open(dir: string): { logs: LogManager; topics: TopicRegistry } {
  let metadata: ClusterMetadataLog | undefined;
  const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m)), DEFAULT_LOG_CONFIG) });
  const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
  topics.load(logs);
  return { logs, topics };
}

const code = (expected: number) => (e: unknown) => (e instanceof ApiError ? e.errorCode : (e as { kafkaErrorCode?: number }).kafkaErrorCode) === expected;

describe('TopicRegistry', () => {
  test('create checks names, collisions, partitions, replication factor and configs as Kafka does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-topics-'));
    try {
      const { logs, topics } = open(dir);
      topics.create('a.b', 2, {}, logs);
      assert.throws(() => topics.validateCreate('a.b', 1, 1, {}), code(36)); // TOPIC_ALREADY_EXISTS
      assert.throws(() => topics.validateCreate('a_b', 1, 1, {}), (e: unknown) => e instanceof InvalidTopicError && /collides/.test((e as Error).message));
      assert.throws(() => topics.validateCreate('../escape', 1, 1, {}), (e: unknown) => e instanceof InvalidTopicError);
      assert.throws(() => topics.validateCreate('x', 0, 1, {}), code(37)); // INVALID_PARTITIONS
      assert.throws(() => topics.validateCreate('x', 1, 3, {}), code(38)); // INVALID_REPLICATION_FACTOR
      assert.throws(() => topics.validateCreate('x', 1, 1, { 'segment.bytes': '1' }), (e: unknown) => e instanceof InvalidConfigError);
      assert.throws(() => topics.validateCreate('x', 1, 1, { 'no.such.config': '1' }), (e: unknown) => e instanceof InvalidConfigError);
      assert.equal(topics.validateCreate('x', -1, -1, { 'cleanup.policy': 'compact' }).cleanupPolicy, 'compact');
      logs.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('topics, partition counts, ids and configs survive a restart; deleted topics stay deleted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-topics-'));
    try {
      let { logs, topics } = open(dir);
      const created = topics.create('kept', 3, { 'segment.bytes': '65536', 'retention.ms': '1000' }, logs);
      topics.create('gone', 1, {}, logs);
      assert.ok(topics.delete('gone', logs));
      logs.close();
      // kept in the KRaft metadata log, not in the previous format's file
      assert.ok(existsSync(join(dir, '__cluster_metadata-0', '00000000000000000000.log')));
      assert.ok(!existsSync(join(dir, TOPICS_FILE)));
      ({ logs, topics } = open(dir));
      const t = topics.get('kept')!;
      assert.equal(t.partitions, 3);
      assert.equal(t.topicId, created.topicId);
      assert.deepEqual(t.overrides, { 'segment.bytes': '65536', 'retention.ms': '1000' });
      assert.equal(logs.getLog('kept', 2)!.config.segmentBytes, 65536);
      assert.equal(topics.get('gone'), undefined);
      // its renamed directory is removed off the event loop (background-delete.ts): by the first
      // manager, or at the latest by this one, which finishes a removal left over at its open
      await logs.removalsDone();
      assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('gone')), []);
      logs.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a Kafka-written data dir's partitions are adopted as topics with their ids", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-topics-'));
    try {
      cpSync(join(CORPORA, 'kafka-tester/@e856b9a/internal/test_helpers/pass_all/kraft-combined-logs'), dir, { recursive: true });
      const { logs, topics } = open(dir);
      const foo = topics.get('foo')!;
      assert.equal(foo.partitions, 1);
      assert.equal(foo.topicId, logs.topicId('foo'));
      assert.equal(topics.get('__cluster_metadata'), undefined); // KRaft's log is not a topic here (LogManager.loadLogs skips it)
      logs.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('__cluster_metadata is never a topic: creation refused (INVALID_REQUEST), a stored entry of the previous format ignored and the log left alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-topics-'));
    try {
      cpSync(join(CORPORA, 'kafka-tester/@e856b9a/internal/test_helpers/pass_all/kraft-combined-logs'), dir, { recursive: true });
      const metaLog = join(dir, '__cluster_metadata-0', '00000000000000000000.log');
      const before = readFileSync(metaLog);
      let { logs, topics } = open(dir);
      assert.throws(() => topics.validateCreate('__cluster_metadata', 1, 1, {}), (e: unknown) => code(42)(e) && /Creation of internal topic __cluster_metadata is prohibited\./.test((e as Error).message));
      logs.close();
      // the entry an older kafkalite's CreateTopics could store, migrated from its file
      writeFileSync(join(dir, TOPICS_FILE), JSON.stringify({ version: 1, topics: { __cluster_metadata: { partitions: 1, configs: {} } } }));
      ({ logs, topics } = open(dir));
      assert.equal(topics.get('__cluster_metadata'), undefined);
      assert.equal(logs.getLog('__cluster_metadata', 0), undefined);
      logs.close();
      assert.ok(readFileSync(metaLog).equals(before), "Kafka's metadata log is untouched: it already holds every topic");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
