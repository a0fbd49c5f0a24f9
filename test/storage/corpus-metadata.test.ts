/**
 * The metadata files of real Kafka log directories (corpora/kafka-tester, every @version): each is
 * read, and where the format is deterministic it is written back and compared byte for byte
 * (checkpoints, partition.metadata, .kafka_cleanshutdown). meta.properties is compared line by line
 * except its JDK date comment. Corpus files are read in place, never copied into the repository.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { readLeaderEpochCheckpoint, readOffsetCheckpoint, writeLeaderEpochCheckpoint, writeOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { consumeCleanShutdownFile, readCleanShutdownFile, writeCleanShutdownFile } from '../../src/storage/clean-shutdown.js';
import { LeaderEpochFileCache } from '../../src/storage/leader-epoch-cache.js';
import { readMetaProperties, writeMetaProperties } from '../../src/storage/meta-properties.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../src/storage/partition-metadata.js';
import { parseTopicPartitionName } from '../../src/storage/topic.js';
import { METADATA_TOPIC_ID } from '../../src/storage/uuid.js';
import { CORPORA } from '../helpers/paths.js';

const CORPUS = join(CORPORA, 'kafka-tester');
const OFFSET_CHECKPOINTS = [
  'recovery-point-offset-checkpoint',
  'log-start-offset-checkpoint',
  'replication-offset-checkpoint',
  'cleaner-offset-checkpoint',
];

const tmp = mkdtempSync(join(tmpdir(), 'kafkalite-corpus-meta-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const scratch = (name: string) => join(tmp, `${n++}-${name}`);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

const versions = readdirSync(CORPUS).filter((v) => v.startsWith('@')).sort();

describe('kafka-tester corpora: metadata files', () => {
  test('the corpus is present with its three versions', () => {
    assert.equal(versions.length, 3, `versions in ${CORPUS}: ${versions.join(', ')}`);
  });

  for (const version of versions) {
    describe(version, () => {
      const files = walk(join(CORPUS, version)).filter((f) => f.includes('kraft-combined-logs'));
      const named = (name: string) => files.filter((f) => basename(f) === name);
      const label = (f: string) => relative(join(CORPUS, version), f);

      test('has meta.properties and partition.metadata files', () => {
        assert.equal(named('meta.properties').length, 1);
        assert.ok(named('partition.metadata').length >= 1);
      });

      for (const file of OFFSET_CHECKPOINTS.flatMap(named)) {
        test(`${label(file)}: read, write back byte-exact`, () => {
          const original = readFileSync(file);
          const entries = readOffsetCheckpoint(file);
          const out = scratch(basename(file));
          writeOffsetCheckpoint(out, entries);
          if (original.length === 0) {
            // Kafka's CheckpointFile creates the file empty and writes it only later: a 0-byte
            // file reads as no entries, and writing no entries gives the canonical "0\n0\n".
            assert.deepEqual(entries, []);
            assert.equal(readFileSync(out, 'utf8'), '0\n0\n');
          } else {
            assert.ok(entries.length > 0 || original.toString() === '0\n0\n');
            assert.deepEqual(readFileSync(out), original);
          }
          for (const e of entries) assert.deepEqual(parseTopicPartitionName(`${e.topic}-${e.partition}`).topic, e.topic);
        });
      }

      for (const file of named('leader-epoch-checkpoint')) {
        test(`${label(file)}: read, write back byte-exact, load into the cache`, () => {
          const original = readFileSync(file);
          const entries = readLeaderEpochCheckpoint(file);
          assert.ok(entries.length > 0);
          for (let i = 1; i < entries.length; i++) {
            assert.ok(entries[i]!.epoch > entries[i - 1]!.epoch && entries[i]!.startOffset > entries[i - 1]!.startOffset);
          }
          const out = scratch('leader-epoch-checkpoint');
          writeLeaderEpochCheckpoint(out, entries);
          assert.deepEqual(readFileSync(out), original);
          // The cache loads the checkpoint without rewriting it; a no-op assign keeps the bytes.
          const cache = new LeaderEpochFileCache(out);
          assert.deepEqual(cache.epochEntries(), entries);
          const latest = entries[entries.length - 1]!;
          cache.assign(latest.epoch, latest.startOffset + 1n);
          assert.deepEqual(readFileSync(out), original);
          assert.deepEqual(cache.endOffsetFor(latest.epoch, 1000n), { epoch: latest.epoch, endOffset: 1000n });
        });
      }

      for (const file of named('partition.metadata')) {
        test(`${label(file)}: read, write back byte-exact`, () => {
          const original = readFileSync(file);
          const meta = readPartitionMetadata(file);
          assert.equal(meta.version, 0);
          const dir = parseTopicPartitionName(basename(dirname(file)));
          assert.equal(dir.kind, 'normal');
          if (dir.topic === '__cluster_metadata') assert.equal(meta.topicId, METADATA_TOPIC_ID);
          const out = scratch('partition.metadata');
          writePartitionMetadata(out, meta.topicId);
          assert.deepEqual(readFileSync(out), original);
        });
      }

      for (const file of named('meta.properties')) {
        test(`${label(file)}: read, write back equal but for the date comment`, () => {
          const meta = readMetaProperties(file);
          assert.equal(meta.version, 1);
          assert.equal(typeof meta.clusterId, 'string');
          assert.ok(Number.isInteger(meta.nodeId));
          const out = scratch('meta.properties');
          writeMetaProperties(out, {
            clusterId: meta.clusterId,
            nodeId: meta.nodeId,
            ...(meta.directoryId === undefined ? {} : { directoryId: meta.directoryId }),
          });
          const ours = readFileSync(out, 'utf8').split('\n');
          const theirs = readFileSync(file, 'utf8').split('\n');
          assert.equal(ours.length, theirs.length);
          assert.match(theirs[1]!, /^#\w{3} \w{3} \d\d \d\d:\d\d:\d\d \S+ \d{4}$/);
          assert.match(ours[1]!, /^#\w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC \d{4}$/);
          assert.deepEqual([ours[0], ...ours.slice(2)], [theirs[0], ...theirs.slice(2)]);
          assert.deepEqual(readMetaProperties(out), meta);
        });
      }

      for (const file of named('.kafka_cleanshutdown')) {
        test(`${label(file)}: read the broker epoch, write back byte-exact, consume`, () => {
          const logDir = dirname(file);
          const read = readCleanShutdownFile(logDir);
          assert.ok(read !== undefined && read.brokerEpoch > 0n);
          const target = mkdtempSync(join(tmp, 'logdir-'));
          writeCleanShutdownFile(target, read.brokerEpoch);
          assert.deepEqual(readFileSync(join(target, '.kafka_cleanshutdown')), readFileSync(file));
          assert.equal(consumeCleanShutdownFile(target), true);
          assert.ok(existsSync(file) && statSync(file).size > 0, 'the corpus file itself is never touched');
        });
      }
    });
  }
});
