/**
 * The KRaft metadata log kafkalite keeps in `__cluster_metadata-0`, compared record by record with
 * the one a real Kafka broker wrote (corpora/kafka-tester @e856b9a, metadata.version 20): the same
 * facts (topic `foo` with Kafka's topic id, one partition on node 1 in Kafka's directory id) give
 * the same record types, versions and value bytes, and `dump-log --cluster-metadata-decoder` prints
 * the same payloads. Then: changes appended and replayed, snapshots bounding the log, the previous
 * format's migration with its ids, and recovery of a torn tail.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TopicRegistry, TOPICS_FILE } from '../../src/broker/topic-registry.js';
import { decodeMetadataRecord } from '../../src/internal-topics/cluster-metadata.js';
import type { ClusterMetadataLog } from '../../src/internal-topics/metadata-log.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { parseControlRecordKey } from '../../src/record/control.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { writePartitionMetadata } from '../../src/storage/partition-metadata.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const KAFKA_DIR = join(CORPORA, 'kafka-tester/@e856b9a/internal/test_helpers/pass_all/kraft-combined-logs');
const FIRST_SEGMENT = '00000000000000000000.log';

function open(dir: string, options: { maxBytesBetweenSnapshots?: number } = {}): { logs: LogManager; topics: TopicRegistry; metadata: ClusterMetadataLog } {
  let metadata: ClusterMetadataLog | undefined;
  const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m, options)), DEFAULT_LOG_CONFIG) });
  const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
  topics.load(logs);
  return { logs, topics, metadata: metadata! };
}

interface Entry {
  offset: bigint;
  control?: string;
  type?: string;
  version?: number;
  value: Buffer;
  epoch: number;
}

/** Every record of a metadata log file or snapshot, decoded independently of the broker's replay. */
function entries(path: string): Entry[] {
  const out: Entry[] = [];
  for (const b of readRecordBatches(readFileSync(path), { verifyCrc: true })) {
    assert.equal(b.kind, 'v2');
    if (b.kind !== 'v2') continue;
    for (const r of b.records()) {
      const value = Buffer.from(r.value ?? Buffer.alloc(0));
      if (b.isControl) out.push({ offset: r.offset, control: parseControlRecordKey(r.key).type, value, epoch: b.partitionLeaderEpoch });
      else {
        const d = decodeMetadataRecord(value);
        out.push({ offset: r.offset, type: d.schema.name, version: d.version, value, epoch: b.partitionLeaderEpoch });
      }
    }
  }
  return out;
}

const dumpPayloads = (path: string) =>
  spawnSync(process.execPath, [CLI, 'dump-log', '--cluster-metadata-decoder', '--files', path], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) => l.replace(/^.*?(payload: |controlType: )/, '$1'));

describe('the KRaft metadata log', () => {
  const dirs: (() => void)[] = [];
  const fresh = () => {
    const d = tempDir('metalog');
    dirs.push(d.cleanup);
    return d.dir;
  };
  after(() => {
    for (const cleanup of dirs) cleanup();
  });

  it("records the same facts with the same record types, versions and bytes as Kafka's own log", () => {
    const kafka = entries(join(KAFKA_DIR, '__cluster_metadata-0', FIRST_SEGMENT));
    const kafkaTopic = kafka.find((e) => e.type === 'TopicRecord')!;
    const topicId = decodeMetadataRecord(kafkaTopic.value).value['topicId'] as Buffer;
    const dir = fresh();
    // the same node and directory as Kafka's: meta.properties copied
    cpSync(join(KAFKA_DIR, 'meta.properties'), join(dir, 'meta.properties'));
    const { logs, topics } = open(dir);
    logs.assignTopicId('foo', topicId.toString('base64url'));
    topics.batch(() => topics.create('foo', 1, {}, logs));
    logs.close();

    const ours = entries(join(dir, '__cluster_metadata-0', FIRST_SEGMENT));
    // offset 0: the leader's LEADER_CHANGE in epoch 1, as Kafka's
    assert.equal(ours[0]!.control, 'LEADER_CHANGE');
    assert.equal(kafka[0]!.control, 'LEADER_CHANGE');
    assert.equal(ours[0]!.epoch, 1);
    // the bootstrap transaction at offsets 1-4, byte for byte
    const bootstrap = (list: Entry[]) => list.filter((e) => e.offset >= 1n && e.offset <= 4n).map((e) => [e.offset, e.type, e.version, e.value.toString('hex')]);
    assert.deepEqual(bootstrap(ours), bootstrap(kafka));
    assert.deepEqual(
      bootstrap(ours).map((e) => e[1]),
      ['BeginTransactionRecord', 'FeatureLevelRecord', 'ZkMigrationStateRecord', 'EndTransactionRecord'],
    );
    // the topic's records: types, versions and value bytes equal (Kafka's broker registration records in between are its own)
    const topicRecords = (list: Entry[]) => list.filter((e) => e.type === 'TopicRecord' || e.type === 'PartitionRecord').map((e) => [e.type, e.version, e.value.toString('hex')]);
    assert.deepEqual(topicRecords(ours), topicRecords(kafka));
    assert.deepEqual(
      topicRecords(ours).map((e) => [e[0], e[1]]),
      [
        ['TopicRecord', 0],
        ['PartitionRecord', 1],
      ],
    );
    // dump-log prints the same payloads for them
    const shown = (lines: string[]) => lines.filter((l) => /TOPIC_RECORD|PARTITION_RECORD|FEATURE_LEVEL|TRANSACTION_RECORD|ZK_MIGRATION/.test(l));
    assert.deepEqual(shown(dumpPayloads(join(dir, '__cluster_metadata-0', FIRST_SEGMENT))), shown(dumpPayloads(join(KAFKA_DIR, '__cluster_metadata-0', FIRST_SEGMENT))));
    // the files beside the log, as a Kafka-formatted directory has them
    assert.equal(readFileSync(join(dir, '__cluster_metadata-0', 'partition.metadata'), 'utf8'), readFileSync(join(KAFKA_DIR, '__cluster_metadata-0', 'partition.metadata'), 'utf8'));
    const quorum = JSON.parse(readFileSync(join(dir, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as Record<string, unknown>;
    const kafkaQuorum = JSON.parse(readFileSync(join(KAFKA_DIR, '__cluster_metadata-0', 'quorum-state'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(quorum).sort(), Object.keys(kafkaQuorum).sort());
    assert.deepEqual(quorum['currentVoters'], kafkaQuorum['currentVoters']);
    const boot = (p: string) => entries(p).map((e) => [e.offset, e.control ?? e.type, e.type === undefined ? '' : e.value.toString('hex')]);
    assert.deepEqual(boot(join(dir, 'bootstrap.checkpoint')), boot(join(KAFKA_DIR, 'bootstrap.checkpoint')));
  });

  it('appends ConfigRecord, PartitionRecord and RemoveTopicRecord per change, never rewriting, and replays them at load', () => {
    const dir = fresh();
    let { logs, topics } = open(dir);
    const segment = join(dir, '__cluster_metadata-0', FIRST_SEGMENT);
    const t = topics.create('t', 2, { 'retention.ms': '1000' }, logs);
    const prefix = readFileSync(segment);
    topics.setOverrides('t', { 'segment.bytes': '65536' }, logs);
    topics.addPartitions('t', 4, logs);
    topics.create('gone', 1, {}, logs);
    topics.delete('gone', logs);
    assert.ok(readFileSync(segment).subarray(0, prefix.length).equals(prefix), 'appended, not rewritten');
    logs.close();
    const after = entries(segment).filter((e) => e.offset >= 5n);
    assert.deepEqual(
      after.map((e) => e.type),
      ['TopicRecord', 'ConfigRecord', 'PartitionRecord', 'PartitionRecord', 'ConfigRecord', 'ConfigRecord', 'PartitionRecord', 'PartitionRecord', 'TopicRecord', 'PartitionRecord', 'RemoveTopicRecord'],
    );
    const configs = after.filter((e) => e.type === 'ConfigRecord').map((e) => decodeMetadataRecord(e.value).value);
    assert.deepEqual(configs, [
      { resourceType: 2, resourceName: 't', name: 'retention.ms', value: '1000' },
      { resourceType: 2, resourceName: 't', name: 'segment.bytes', value: '65536' },
      { resourceType: 2, resourceName: 't', name: 'retention.ms', value: null },
    ]);
    ({ logs, topics } = open(dir));
    const back = topics.get('t')!;
    assert.equal(back.topicId, t.topicId);
    assert.equal(back.partitions, 4);
    assert.deepEqual(back.overrides, { 'segment.bytes': '65536' });
    assert.equal(logs.getLog('t', 3)!.config.segmentBytes, 65536);
    assert.equal(topics.get('gone'), undefined);
    logs.close();
  });

  it('takes a snapshot (.checkpoint) past the byte threshold, deletes the segments before it, and loads from it', () => {
    const dir = fresh();
    let { logs, topics, metadata } = open(dir, { maxBytesBetweenSnapshots: 4096 });
    const ids = new Map<string, string>();
    for (let i = 0; i < 40; i++) ids.set(`s${i}`, topics.create(`s${i}`, 3, i % 2 === 0 ? { 'cleanup.policy': 'compact' } : {}, logs).topicId);
    for (let i = 0; i < 40; i += 4) topics.delete(`s${i}`, logs);
    const mdir = join(dir, '__cluster_metadata-0');
    const snaps = readdirSync(mdir).filter((n) => n.endsWith('.checkpoint'));
    assert.equal(snaps.length, 1, `one snapshot kept: ${readdirSync(mdir).join(' ')}`);
    const segments = readdirSync(mdir).filter((n) => n.endsWith('.log'));
    assert.ok(!segments.includes(FIRST_SEGMENT), 'the first segment was deleted');
    const snapEnd = BigInt(snaps[0]!.slice(0, 20));
    assert.equal(metadata.log.logStartOffset, snapEnd);
    // the snapshot: header, features, topics with partitions, configs, footer
    const snap = entries(join(mdir, snaps[0]!));
    assert.equal(snap[0]!.control, 'SNAPSHOT_HEADER');
    assert.equal(snap.at(-1)!.control, 'SNAPSHOT_FOOTER');
    assert.equal(snap[1]!.type, 'FeatureLevelRecord');
    assert.ok(dumpPayloads(join(mdir, snaps[0]!)).some((l) => l.includes('"type":"TOPIC_RECORD"')));
    logs.close();
    ({ logs, topics } = open(dir, { maxBytesBetweenSnapshots: 4096 }));
    for (let i = 0; i < 40; i++) {
      const t = topics.get(`s${i}`);
      if (i % 4 === 0) assert.equal(t, undefined);
      else {
        assert.equal(t!.topicId, ids.get(`s${i}`));
        assert.equal(t!.partitions, 3);
        assert.deepEqual(t!.overrides, i % 2 === 0 ? { 'cleanup.policy': 'compact' } : {});
      }
    }
    // churn does not grow the directory: create and delete 200 more topics
    for (let i = 0; i < 200; i++) {
      topics.create('churn', 3, {}, logs);
      topics.delete('churn', logs);
    }
    // the segments and snapshots hold the live topics plus at most the threshold
    const bytes = readdirSync(mdir)
      .filter((f) => f.endsWith('.log') || f.endsWith('.checkpoint'))
      .reduce((n, f) => n + statSync(join(mdir, f)).size, 0);
    assert.ok(bytes < 16 * 1024, `bounded: ${bytes} bytes after 200 creations and deletions`);
    logs.close();
  });

  it('migrates a directory of the previous format (kafkalite-topics.json): topics keep their ids', () => {
    const dir = fresh();
    // the previous format: partition directories with partition.metadata, and the JSON file
    const ids = { a: 'p2x0Yq3GRjKsvw1R0jzOkQ', b: 'bbGJ2nrSQ5qGDe3yM8mU3w' };
    for (const [name, n] of [['a', 2], ['b', 1]] as const) {
      for (let p = 0; p < n; p++) {
        mkdirSync(join(dir, `${name}-${p}`), { recursive: true });
        writePartitionMetadata(join(dir, `${name}-${p}`, 'partition.metadata'), ids[name]);
      }
    }
    writeFileSync(join(dir, TOPICS_FILE), JSON.stringify({ version: 1, topics: { a: { partitions: 2, configs: { 'retention.ms': '5000' } }, b: { partitions: 1, configs: {} } } }));
    let { logs, topics } = open(dir);
    assert.equal(topics.get('a')!.topicId, ids.a);
    assert.equal(topics.get('b')!.topicId, ids.b);
    assert.ok(!existsSync(join(dir, TOPICS_FILE)));
    assert.ok(existsSync(join(dir, `${TOPICS_FILE}.migrated`)));
    logs.close();
    const recorded = entries(join(dir, '__cluster_metadata-0', FIRST_SEGMENT)).filter((e) => e.type === 'TopicRecord');
    assert.deepEqual(
      recorded.map((e) => {
        const v = decodeMetadataRecord(e.value).value;
        return [v['name'], (v['topicId'] as Buffer).toString('base64url')];
      }),
      [
        ['a', ids.a],
        ['b', ids.b],
      ],
    );
    ({ logs, topics } = open(dir));
    assert.deepEqual(topics.get('a')!.overrides, { 'retention.ms': '5000' });
    assert.equal(topics.get('a')!.partitions, 2);
    logs.close();
  });

  it('after an unclean shutdown, a torn tail is truncated by recovery and the complete records load', () => {
    const dir = fresh();
    let { logs, topics } = open(dir);
    topics.create('kept', 2, {}, logs);
    logs.closeUnclean();
    const segment = join(dir, '__cluster_metadata-0', FIRST_SEGMENT);
    const good = statSync(segment).size;
    // half a batch more, as a crash mid-write leaves it
    appendFileSync(segment, readFileSync(segment).subarray(good - 40));
    ({ logs, topics } = open(dir));
    assert.equal(topics.get('kept')!.partitions, 2);
    assert.equal(statSync(segment).size, good);
    const next = topics.create('next', 1, {}, logs);
    logs.closeUnclean();
    const whole = statSync(segment).size;
    truncateSync(segment, whole - 3);
    let metadata;
    ({ logs, topics, metadata } = open(dir));
    assert.deepEqual(
      metadata.log.recoveryReports.map((r) => r.bytesTruncated > 0),
      [true],
      'recovery dropped the torn batch',
    );
    // its directory was made before its records: adopted, with the id its partition.metadata holds
    assert.equal(topics.get('next')!.topicId, next.topicId);
    assert.equal(topics.get('kept')!.partitions, 2);
    logs.close();
  });
});
