/**
 * A metadata change larger than one batch is a KIP-868 metadata transaction, and it is atomic:
 * a crash (or a failed append) between its batches leaves records in the log that replay never
 * applies, and the log is closed with an AbortTransactionRecord before anything else is written
 * (Kafka `MetadataBatchLoader`, `ActivationRecordsGenerator`). Every log these tests leave obeys
 * the rules Kafka's loader enforces: no BeginTransactionRecord inside an open transaction, no
 * End or Abort outside one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StorageError } from '../../src/errors.js';
import { decodeMetadataRecord, encodeMetadataRecord } from '../../src/internal-topics/cluster-metadata.js';
import { createTopicRecords, partitionRecord, topicRecord } from '../../src/internal-topics/metadata-image.js';
import { ClusterMetadataLog, MAX_BATCH_RECORDS } from '../../src/internal-topics/metadata-log.js';
import { BeginTransactionRecord, EndTransactionRecord } from '../../src/protocol/schemas/internal/metadata.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { randomUuid } from '../../src/storage/uuid.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const DIRECTORY_ID = randomUuid();

function open(dataDir: string, warnings: string[] = []): ClusterMetadataLog {
  return ClusterMetadataLog.open({ dataDir, nodeId: 1, directoryId: DIRECTORY_ID, hadCleanShutdown: false, logger: (level, message) => void (level === 'warn' && warnings.push(message)) });
}

/** Every data record of the metadata log: offset, record name, value. */
function logRecords(dataDir: string): { offset: bigint; name: string; value: { [k: string]: unknown } }[] {
  const dir = join(dataDir, '__cluster_metadata-0');
  const out = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    for (const b of readRecordBatches(readFileSync(join(dir, f)), { verifyCrc: true })) {
      if (b.kind !== 'v2' || b.isControl) continue;
      for (const r of b.records()) {
        const d = decodeMetadataRecord(r.value!);
        out.push({ offset: r.offset, name: d.schema.name, value: d.value });
      }
    }
  }
  return out;
}

/** MetadataBatchLoader.replay's transaction rules over the whole log. */
function assertKafkaLoadable(dataDir: string): void {
  let open: bigint | undefined;
  for (const r of logRecords(dataDir)) {
    if (r.name === 'BeginTransactionRecord') {
      assert.equal(open, undefined, `BeginTransactionRecord at ${r.offset} while the transaction at ${open} is open`);
      open = r.offset;
    } else if (r.name === 'EndTransactionRecord' || r.name === 'AbortTransactionRecord') {
      assert.notEqual(open, undefined, `${r.name} at ${r.offset} outside a transaction`);
      open = undefined;
    }
  }
}

const bigTopic = (topicId: string, partitions: number) => createTopicRecords('big', topicId, partitions, {}, 1, DIRECTORY_ID);

/** Makes the log's appends fail from the `n`th call on (`once`: only that call). */
function failAppendsFrom(metadata: ClusterMetadataLog, n: number, once = false): void {
  const real = metadata.log.append.bind(metadata.log);
  let calls = 0;
  metadata.log.append = (...args: Parameters<typeof real>) => {
    calls++;
    if (calls === n || (!once && calls > n)) throw new StorageError('the disk went away (test)');
    return real(...args);
  };
}

/** One batch as a kafkalite before aborts wrote it: every batch of a change with that change's one timestamp. */
function appendAsEarlierWriter(metadata: ClusterMetadataLog, values: Buffer[], timestamp: number): void {
  metadata.log.append(encodeRecordBatch(values.map((value) => ({ value, timestamp })), { partitionLeaderEpoch: 1 }), { leaderEpoch: 1, origin: 'coordinator' });
}

describe('metadata transactions', () => {
  it('a crash between the batches of a change: nothing of it is applied, and the reopened log is closed with an AbortTransactionRecord', () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      let metadata = open(dir);
      const small = randomUuid();
      metadata.append([topicRecord('small', small), partitionRecord(small, 0, 1, DIRECTORY_ID)]);
      const big = randomUuid();
      const records = bigTopic(big, 2500);
      assert.ok(records.length > 2 * MAX_BATCH_RECORDS);
      // Begin and the first 1,000 records reach the log, then the process dies
      failAppendsFrom(metadata, 3);
      assert.throws(() => metadata.append(records), StorageError);
      assert.equal(metadata.image.topic('big'), undefined);
      metadata.closeUnclean();
      const written = logRecords(dir);
      assert.equal(written.at(-1)!.name, 'PartitionRecord', 'the first part of the change is in the log');
      assert.equal(written.filter((r) => r.name === 'BeginTransactionRecord').length, 2, 'the bootstrap transaction and this one');

      const warnings: string[] = [];
      metadata = open(dir, warnings);
      assert.equal(metadata.image.topic('big'), undefined, 'none of the cut-short change is applied');
      assert.equal(metadata.image.topic('small')?.partitions, 1);
      const after = logRecords(dir);
      assert.deepEqual([after.at(-1)!.name, after.at(-1)!.value['reason']], ['AbortTransactionRecord', 'Controller failover']);
      assert.equal(after.length, written.length + 1);
      assert.ok(warnings.some((w) => /aborting the metadata transaction at offset \d+/.test(w)), warnings.join('\n'));
      assertKafkaLoadable(dir);

      // the same change again, whole this time
      metadata.append(records);
      assert.equal(metadata.image.topic('big')?.partitions, 2500);
      metadata.close();
      metadata = open(dir);
      assert.equal(metadata.image.topic('big')?.partitions, 2500);
      assert.equal(metadata.image.topic('big')?.topicId, big);
      assert.equal(metadata.image.topic('small')?.partitions, 1);
      metadata.close();
      assertKafkaLoadable(dir);
    } finally {
      cleanup();
    }
  });

  it('a process killed (SIGKILL) between the batches of a change: the reopened log applies none of it', async () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      const small = randomUuid();
      const big = randomUuid();
      const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'test', 'crash', 'metadata-txn-child.js'), dir, DIRECTORY_ID, small, big], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      assert.equal(signal, 'SIGKILL', `the child exited ${code}: ${stderr}`);
      const written = logRecords(dir);
      assert.equal(written.filter((r) => r.name === 'PartitionRecord').length, 1 + 999, 'small, and the first batch of big');
      const metadata = open(dir);
      assert.equal(metadata.image.topic('big'), undefined);
      assert.equal(metadata.image.topic('small')?.topicId, small);
      assert.equal(logRecords(dir).at(-1)!.name, 'AbortTransactionRecord');
      metadata.close();
      assertKafkaLoadable(dir);
    } finally {
      cleanup();
    }
  });

  it('an append that fails between the batches of a change: the next change first aborts it, and replay agrees with the image', () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      let metadata = open(dir);
      failAppendsFrom(metadata, 4, true);
      assert.throws(() => metadata.append(bigTopic(randomUuid(), 2500)), StorageError);
      const other = randomUuid();
      metadata.append([topicRecord('other', other), partitionRecord(other, 0, 1, DIRECTORY_ID), partitionRecord(other, 1, 1, DIRECTORY_ID)]);
      const names = logRecords(dir).map((r) => r.name);
      assert.deepEqual(names.slice(-4), ['AbortTransactionRecord', 'TopicRecord', 'PartitionRecord', 'PartitionRecord']);
      assert.deepEqual([...metadata.image.topics()].map((t) => t.name), ['other']);
      metadata.close();
      metadata = open(dir);
      assert.deepEqual([...metadata.image.topics()].map((t) => [t.name, t.partitions]), [['other', 2]]);
      metadata.close();
      assertKafkaLoadable(dir);
    } finally {
      cleanup();
    }
  });

  it('a log written before aborts existed (a change cut short, then a later transaction): the unfinished change is dropped with a warning, the later one applied', () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      let metadata = open(dir);
      const lost = randomUuid();
      const whole = randomUuid();
      const append = (values: Buffer[], timestamp: number) => appendAsEarlierWriter(metadata, values, timestamp);
      const begin = encodeMetadataRecord(BeginTransactionRecord, 0, {});
      append([begin], 1_000);
      append([topicRecord('lost', lost).bytes, partitionRecord(lost, 0, 1, DIRECTORY_ID).bytes], 1_000);
      append([begin], 2_000);
      append(createTopicRecords('whole', whole, 3, {}, 1, DIRECTORY_ID).map((r) => r.bytes), 2_000);
      append([encodeMetadataRecord(EndTransactionRecord, 0, {})], 2_000);
      metadata.close();
      const warnings: string[] = [];
      metadata = open(dir, warnings);
      assert.ok(warnings.some((w) => /the metadata transaction at offset \d+ was never closed; its 2 records are dropped/.test(w)), warnings.join('\n'));
      assert.equal(metadata.image.topic('lost'), undefined);
      assert.equal(metadata.image.topic('whole')?.partitions, 3);
      metadata.close();
      assertKafkaLoadable(dir);
    } finally {
      cleanup();
    }
  });

  it('a log written before aborts existed (a change cut short, then small changes written later): the later changes apply, and a snapshot leaves a log Kafka loads', () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      let metadata = open(dir);
      const big = randomUuid();
      const later = randomUuid();
      const append = (values: Buffer[], timestamp: number) => appendAsEarlierWriter(metadata, values, timestamp);
      append([encodeMetadataRecord(BeginTransactionRecord, 0, {})], 1_000);
      append(bigTopic(big, 1000).map((r) => r.bytes), 1_000);
      // the writer died here and, restarted, wrote on as if that change were closed
      append(createTopicRecords('later', later, 2, { 'cleanup.policy': 'compact' }, 1, DIRECTORY_ID).map((r) => r.bytes), 5_000);
      metadata.close();
      const warnings: string[] = [];
      metadata = open(dir, warnings);
      assert.ok(warnings.some((w) => /was never closed; its 1001 records are dropped \(a change written later/.test(w)), warnings.join('\n'));
      assert.equal(metadata.image.topic('big'), undefined, 'the change cut short is dropped, as an abort would drop it');
      assert.equal(metadata.image.topic('later')?.partitions, 2);
      assert.deepEqual(metadata.image.configs('later'), { 'cleanup.policy': 'compact' });
      metadata.close();
      assertKafkaLoadable(dir);
      metadata = open(dir);
      assert.equal(metadata.image.topic('later')?.partitions, 2, 'the snapshot holds the later change');
      assert.deepEqual(metadata.image.configs('later'), { 'cleanup.policy': 'compact' });
      metadata.close();
    } finally {
      cleanup();
    }
  });

  it('an EndTransactionRecord outside a transaction is a StorageError naming its offset, as Kafka\'s loader refuses it', () => {
    const { dir, cleanup } = tempDir('metadata-txn');
    try {
      const metadata = open(dir);
      const end = metadata.log.logEndOffset;
      metadata.log.append(encodeRecordBatch([{ value: encodeMetadataRecord(EndTransactionRecord, 0, {}) }], { partitionLeaderEpoch: 1 }), { leaderEpoch: 1, origin: 'coordinator' });
      metadata.close();
      assert.throws(() => open(dir), (e: unknown) => e instanceof StorageError && e.message.includes(`EndTransactionRecord at offset ${end} without a BeginTransactionRecord`));
    } finally {
      cleanup();
    }
  });
});
