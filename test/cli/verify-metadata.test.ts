/**
 * `kafkalite verify` decodes every record of the KRaft metadata log (`__cluster_metadata-0`) as
 * Kafka's metadata loader reads it: a record whose batch CRC holds but whose value is not a
 * metadata record (a truncated TopicRecord, an unknown record type, a control record of the wrong
 * kind) is an error naming the segment, the batch's byte position and the record's offset. Every
 * Kafka-written metadata log of the kafka-tester corpus decodes clean.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TopicRegistry } from '../../src/broker/topic-registry.js';
import { verifyPath } from '../../src/cli/verify.js';
import { encodeMetadataRecord } from '../../src/internal-topics/cluster-metadata.js';
import type { ClusterMetadataLog } from '../../src/internal-topics/metadata-log.js';
import { TopicRecord } from '../../src/protocol/schemas/internal/metadata.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { ControlRecordType, encodeControlRecordKey } from '../../src/record/control.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { CORPORA } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const errors = (path: string) => verifyPath(path).problems.filter((p) => p.severity === 'error');

/** A kafkalite data dir with a topic, then `bad` appended to its metadata log as one CRC-valid batch; returns the bad record's offset. */
function withBadRecord(dir: string, bad: { value: Buffer; key?: Buffer; control?: boolean }): bigint {
  let metadata: ClusterMetadataLog | undefined;
  const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m)), DEFAULT_LOG_CONFIG) });
  const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
  topics.load(logs);
  topics.create('orders', 2, {}, logs);
  const offset = metadata!.log.logEndOffset;
  const batch = encodeRecordBatch([{ value: bad.value, ...(bad.key ? { key: bad.key } : {}) }], { baseOffset: offset, partitionLeaderEpoch: 1, ...(bad.control ? { isControl: true } : {}) });
  metadata!.log.append(batch, { leaderEpoch: 1, origin: 'coordinator' });
  logs.close();
  return offset;
}

describe('kafkalite verify decodes the metadata log', () => {
  it('a kafkalite-written metadata log decodes clean', () => {
    const { dir, cleanup } = tempDir('verify-metadata');
    let metadata: ClusterMetadataLog | undefined;
    const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m, { maxBytesBetweenSnapshots: 4096 })), DEFAULT_LOG_CONFIG) });
    const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
    topics.load(logs);
    for (let i = 0; i < 40; i++) topics.create(`t${i}`, 2, i % 2 ? { 'cleanup.policy': 'compact' } : {}, logs);
    for (let i = 0; i < 40; i += 3) topics.delete(`t${i}`, logs);
    logs.close();
    assert.ok(readdirSync(join(dir, '__cluster_metadata-0')).some((n) => n.endsWith('.checkpoint')), 'a snapshot is verified too');
    assert.deepEqual(errors(dir), []);
    cleanup();
  });

  const cases: [string, { value: Buffer; key?: Buffer; control?: boolean }, RegExp][] = [
    ['a TopicRecord cut short', { value: encodeMetadataRecord(TopicRecord, 0, { name: 'lost', topicId: Buffer.alloc(16, 7) }).subarray(0, 8) }, /Cannot decode __cluster_metadata TopicRecord v0/],
    ['an unknown metadata record type', { value: Buffer.from([1, 0x7f, 0]) }, /unknown metadata record type 127/],
    ['a frame version Kafka does not write', { value: Buffer.from([9, 2, 0]) }, /unknown frame version 9/],
    ['a transaction marker in the metadata log', { key: encodeControlRecordKey(ControlRecordType.COMMIT), value: Buffer.from([0, 0, 0, 0, 0, 0]), control: true }, /control type COMMIT has no place in the metadata log/],
    ['a LEADER_CHANGE whose message is cut short', { key: encodeControlRecordKey(ControlRecordType.LEADER_CHANGE), value: Buffer.from([0, 0]), control: true }, /Cannot decode LeaderChangeMessage/],
  ];
  for (const [name, bad, reason] of cases) {
    it(`${name}: an error at its batch, naming the record's offset`, () => {
      const { dir, cleanup } = tempDir('verify-metadata');
      const offset = withBadRecord(dir, bad);
      const found = errors(dir);
      assert.equal(found.length, 1, JSON.stringify(found));
      assert.equal(found[0]!.file, join(dir, '__cluster_metadata-0', '00000000000000000000.log'));
      assert.equal(typeof found[0]!.position, 'number');
      assert.match(found[0]!.reason, new RegExp(`^batch at ${found[0]!.position}: metadata record at offset ${offset}: `));
      assert.match(found[0]!.reason, reason);
      // the same bytes in another topic are only a record value: not checked
      assert.deepEqual(errors(join(dir, 'orders-0')), []);
      cleanup();
    });
  }

  it('every Kafka-written metadata log and bootstrap.checkpoint of the kafka-tester corpus decodes clean', () => {
    const tester = join(CORPORA, 'kafka-tester');
    const dirs = readdirSync(tester).map((v) => join(tester, v, 'internal/test_helpers/pass_all/kraft-combined-logs'));
    assert.equal(dirs.length, 3);
    for (const dir of dirs) {
      const report = verifyPath(join(dir, '__cluster_metadata-0'));
      assert.deepEqual(report.problems.filter((p) => p.severity === 'error'), [], dir);
      assert.ok(report.records > 0, `${dir}: metadata records were read`);
      // the whole data dir too (bootstrap.checkpoint where the version wrote one)
      assert.deepEqual(errors(dir), [], dir);
    }
    assert.ok(dirs.some((d) => readdirSync(d).includes('bootstrap.checkpoint')));
  });
});
