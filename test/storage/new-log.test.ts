/**
 * A partition log created in a new directory (LogManager.getOrCreateLog; Kafka `getOrCreateLog`
 * with `isNew`, issue 21): its files are made without looking for existing ones, the indexes empty
 * with their preallocation made at the first append, and no descriptor kept; what is on disk is
 * what a loaded empty log leaves, so a restart (or a Kafka broker) opens it as any other.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { DEFAULT_LOG_CONFIG, logConfigFromProperties } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../src/storage/partition-metadata.js';
import { randomUuid } from '../../src/storage/uuid.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kafkalite-new-log-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SEGMENT = '00000000000000000000';

function sizes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of readdirSync(dir).sort()) out[name] = statSync(join(dir, name)).size;
  return out;
}

describe('a new partition log', () => {
  test('has its files, empty, and holds no descriptor', () => {
    const logs = LogManager.open(root);
    try {
      const before = logs.resources.descriptors.openCount;
      const log = logs.getOrCreateLog('t', 0);
      assert.deepEqual(sizes(log.dir), {
        [`${SEGMENT}.index`]: 0,
        [`${SEGMENT}.log`]: 0,
        [`${SEGMENT}.timeindex`]: 0,
        'leader-epoch-checkpoint': 0,
        'partition.metadata': 43,
      });
      assert.equal(readPartitionMetadata(join(log.dir, 'partition.metadata')).topicId, logs.topicId('t'));
      assert.equal(logs.resources.descriptors.openCount, before, 'no file of the new log stays open');
      // the capacity Kafka's loader gives the active segment (resizeIndexes(maxIndexSize))
      assert.equal(log.activeSegment.offsetIndex.maxEntries, DEFAULT_LOG_CONFIG.segmentIndexBytes / 8);
      assert.equal(log.activeSegment.offsetIndex.length, DEFAULT_LOG_CONFIG.segmentIndexBytes);
      assert.equal(log.activeSegment.timeIndex.maxEntries, Math.floor(DEFAULT_LOG_CONFIG.segmentIndexBytes / 12));
      assert.equal(logs.getOrCreateLog('t', 1).dir, join(root, 't-1'));
      assert.equal(readPartitionMetadata(join(root, 't-1', 'partition.metadata')).topicId, logs.topicId('t'), 'one id for the topic');
    } finally {
      logs.close();
    }
  });

  test('grows its indexes at the first append, and trims them at close', () => {
    const config = logConfigFromProperties({ 'index.interval.bytes': '1', 'segment.index.bytes': '4096' }, DEFAULT_LOG_CONFIG);
    const logs = LogManager.open(root);
    const log = logs.getOrCreateLog('t', 0, config);
    for (let i = 0; i < 3; i++) log.append(encodeRecordBatch([{ value: Buffer.from(`v${i}`), timestamp: 1000 + i }]));
    log.flush();
    const dir = log.dir;
    assert.equal(statSync(join(dir, `${SEGMENT}.index`)).size, 4096, 'preallocated at the first append');
    assert.equal(statSync(join(dir, `${SEGMENT}.timeindex`)).size, 4092);
    assert.equal(log.activeSegment.offsetIndex.entries, 2, 'an entry per append after the first (index.interval.bytes 1)');
    logs.close();
    assert.equal(statSync(join(dir, `${SEGMENT}.index`)).size, 16);
    assert.equal(statSync(join(dir, `${SEGMENT}.timeindex`)).size, 24);
    const again = LogManager.open(root, { topicConfigs: new Map([['t', config]]) });
    try {
      const reopened = again.getLog('t', 0)!;
      assert.equal(reopened.logEndOffset, 3n);
      assert.ok(reopened.read(1n, { maxBytes: 1 << 20 }).records.length > 0);
    } finally {
      again.close();
    }
  });

  test('never written, it is closed without touching its files, and loads again', () => {
    const logs = LogManager.open(root);
    const dir = logs.getOrCreateLog('t', 0).dir;
    const created = sizes(dir);
    logs.close();
    assert.deepEqual(sizes(dir), created);
    for (const [i, clean] of [true, false].entries()) {
      const again = LogManager.open(root);
      const log = again.getLog('t', 0)!;
      assert.equal(log.logEndOffset, BigInt(i));
      log.append(encodeRecordBatch([{ value: Buffer.from('after') }]));
      if (clean) again.close();
      else again.closeUnclean();
    }
    const last = LogManager.open(root);
    try {
      assert.equal(last.getLog('t', 0)!.logEndOffset, 2n, 'recovered after the unclean close');
    } finally {
      last.close();
    }
  });

  test('a directory already there is loaded as found, not made anew', () => {
    const logs = LogManager.open(root);
    try {
      // left behind (a crash between the directory and the records, or made by hand) after the load
      const dir = join(root, 't-0');
      mkdirSync(dir);
      const id = randomUuid();
      writePartitionMetadata(join(dir, 'partition.metadata'), id);
      writeFileSync(join(dir, 'leader-epoch-checkpoint'), '0\n1\n4 0\n');
      writeFileSync(join(dir, `${SEGMENT}.log`), encodeRecordBatch([{ value: Buffer.from('found') }], { partitionLeaderEpoch: 4 }));
      const log = logs.getOrCreateLog('t', 0);
      assert.equal(logs.topicId('t'), id, "the directory's topic id is kept");
      assert.equal(log.logEndOffset, 1n, 'its segment is loaded');
      assert.equal(log.leaderEpochCache.latestEpoch(), 4, 'its leader-epoch checkpoint is read');
      assert.equal(readFileSync(join(dir, 'partition.metadata'), 'utf8'), `version: 0\ntopic_id: ${id}`);
    } finally {
      logs.close();
    }
  });
});
