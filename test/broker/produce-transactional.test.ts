/**
 * A Produce with a null transactional_id carrying transactional records (issue 17, finding 2).
 * Kafka refuses the whole request before any append (`KafkaApis.handleProduceRequest`:
 * `RequestUtils.hasTransactionalRecords` without a transactionalId): every topic-partition of the
 * request answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED with no error message (ApiError drops
 * Kafka's default one) and invalid offsets (`ProduceRequest.getErrorResponse`); with acks=0 there
 * is no answer and the connection is closed. Accepting it instead opened a transaction no
 * coordinator would ever end, so the partition's last stable offset stayed at that batch and
 * read_committed consumers read nothing past it, across restarts too. Such a log is freed by
 * `kafkalite transactions abort`: kcat and kafkajs read_committed consumers then read past it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch, type RecordBatchOptions } from '../../src/record/builder.js';
import { storedBatches, withBroker } from '../helpers/broker.js';
import { runCommand } from '../helpers/python-peer.js';
import { encodeRequestFrame, RawClient, type Msg } from '../helpers/raw-client.js';
import type { Broker } from '../../src/broker/broker.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';

interface KConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(o: { topics: string[]; fromBeginning: boolean }): Promise<void>;
  run(o: { eachMessage: (p: { partition: number; message: { offset: string; value: Buffer | null } }) => Promise<void> }): Promise<void>;
}
const { Kafka, logLevel } = createRequire(import.meta.url)('kafkajs') as {
  Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number }) => { consumer(o: { groupId: string; readUncommitted: boolean; maxWaitTimeInMs: number }): KConsumer };
  logLevel: { NOTHING: number };
};

/** What a kafkajs 2.2.4 read_committed consumer (its default isolation) gets of partition 0, once `last` arrived. */
async function kafkajsReadCommitted(broker: Broker, topic: string, last: string): Promise<string[]> {
  const consumer = new Kafka({ clientId: 'rc', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: 'rc', readUncommitted: false, maxWaitTimeInMs: 100 });
  const got: string[] = [];
  let done!: () => void;
  const arrived = new Promise<void>((resolve) => (done = resolve));
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        if (partition !== 0) return;
        got.push(`${message.offset}:${message.value?.toString()}`);
        if (message.value?.toString() === last) done();
      },
    });
    // a hang guard, not a timing claim: a consumer stuck at the LSO fails the test instead of hanging it
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`kafkajs read_committed never got '${last}'; got ${got.join(', ')}`)), 60_000)));
    await Promise.race([arrived, stuck]).finally(() => clearTimeout(timer));
  } finally {
    await consumer.disconnect();
  }
  return got;
}

const batch = (values: string[], o: RecordBatchOptions = {}) => encodeRecordBatch(values.map((v, i) => ({ key: null, value: v, timestamp: 1700000000000 + i })), o);
const TXN = { isTransactional: true, producerId: 4242n, producerEpoch: 0, baseSequence: 0 };

/** The partition's last stable offset as a read_committed Fetch v11 reports it. */
async function lastStableOffset(c: RawClient, topic: string, partition: number): Promise<bigint> {
  const r = await c.request(1, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 1,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [],
    rackId: '',
  });
  const p = r.responses[0].partitions[0];
  assert.equal(errorName(p.errorCode), 'NONE');
  return p.lastStableOffset as bigint;
}

async function withTopic(body: (c: RawClient, broker: Broker) => Promise<void>): Promise<void> {
  await withBroker({}, async (broker) => {
    broker.topics.create('t', 2, {}, broker.logs);
    broker.topics.create('u', 1, {}, broker.logs);
    const c = await RawClient.connect(broker.port);
    try {
      await body(c, broker);
    } finally {
      c.socket.destroy();
    }
  });
}

describe('Produce with transactional records and no transactional id', () => {
  for (const version of [3, 7, 9]) {
    test(`v${version}: every partition of the request gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED and nothing is appended`, async () => {
      await withTopic(async (c, broker) => {
        assert.equal(errorName((await c.request(0, version, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['before']) }] }] })).responses[0].partitionResponses[0].errorCode), 'NONE');
        const r = await c.request(0, version, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [
            // the first partition's batch is plain: Kafka looks at every partition's first batch
            { name: 't', partitionData: [{ index: 1, records: batch(['plain']) }, { index: 0, records: batch(['txn'], TXN) }] },
            { name: 'u', partitionData: [{ index: 0, records: batch(['plain too']) }] },
            { name: 'no-such-topic', partitionData: [{ index: 0, records: batch(['x']) }] },
          ],
        });
        const answers = r.responses.flatMap((t: Msg) => t.partitionResponses.map((p: Msg) => [t.name, p.index, errorName(p.errorCode), p.baseOffset, p.logStartOffset, p.logAppendTimeMs, p.errorMessage ?? null]));
        const sorted = [...answers].sort((a, b) => `${a[0]}-${a[1]}`.localeCompare(`${b[0]}-${b[1]}`));
        const refused = (topic: string, index: number) => [topic, index, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', -1n, -1n, -1n, null];
        assert.deepEqual(sorted, [refused('no-such-topic', 0), refused('t', 0), refused('t', 1), refused('u', 0)]);
        assert.deepEqual(storedBatches(broker.dataDir, 't', 0).map((b) => b.records.map((x) => x.value?.toString())), [['before']]);
        assert.deepEqual(storedBatches(broker.dataDir, 't', 1), []);
        assert.deepEqual(storedBatches(broker.dataDir, 'u', 0), []);
        assert.equal(await lastStableOffset(c, 't', 0), 1n, 'the LSO is the log end: no transaction was opened');
      });
    });
  }

  test('an idempotent batch (not transactional) with a null transactional id is accepted', async () => {
    await withTopic(async (c) => {
      const r = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['idempotent'], { producerId: 4242n, producerEpoch: 0, baseSequence: 0 }) }] }] });
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE', 'an idempotent, non-transactional batch is accepted');
    });
  });

  test('acks=0: no answer, the connection is closed, nothing is appended', async () => {
    await withTopic(async (c, broker) => {
      const id = c.correlationId();
      c.send(encodeRequestFrame(0, 9, id, { transactionalId: null, acks: 0, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['txn'], TXN) }] }] }));
      assert.equal(await c.closesWithin(10_000), true, 'the broker closes the connection');
      assert.deepEqual(c.unclaimed, []);
      assert.deepEqual(storedBatches(broker.dataDir, 't', 0), []);
    });
  });

  test('kcat read_committed reads a record produced after the refused request (the LSO did not stall)', async () => {
    await withTopic(async (c, broker) => {
      const refused = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['stuck?'], TXN) }] }] });
      assert.equal(errorName(refused.responses[0].partitionResponses[0].errorCode), 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
      const ok = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(['after']) }] }] });
      assert.equal(errorName(ok.responses[0].partitionResponses[0].errorCode), 'NONE');
      const r = await runCommand(KCAT, ['-b', broker.bootstrap, '-t', 't', '-p', '0', '-C', '-o', 'beginning', '-e', '-q', '-f', '%o:%s\\n', '-X', 'isolation.level=read_committed'], { timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr.toString());
      assert.equal(r.stdout.toString(), '0:after\n');
    });
  });

  test('a log stuck before the fix: kcat read_committed stops at it; `kafkalite transactions abort` frees it, and kcat reads past it', async () => {
    // what an accepted request used to leave: a transactional batch no marker will ever end
    const { dir, cleanup } = tempDir('stuck-lso');
    try {
      const m = LogManager.open(dir);
      const log = m.getOrCreateLog('t', 0);
      log.append(batch(['before']));
      log.append(batch(['stuck'], TXN));
      log.append(batch(['after']));
      m.close();
      const consume = async (broker: Broker) => {
        const r = await runCommand(KCAT, ['-b', broker.bootstrap, '-t', 't', '-p', '0', '-C', '-o', 'beginning', '-e', '-q', '-f', '%o:%s\\n', '-X', 'isolation.level=read_committed'], { timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stderr.toString());
        return r.stdout.toString();
      };
      await withBroker({ dataDir: dir }, async (broker) => assert.equal(await consume(broker), '0:before\n', 'stuck at the open transaction'));
      const abort = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'transactions', dir, 'abort', '--topic', 't', '--partition', '0', '--start-offset', '1'], { encoding: 'utf8' });
      assert.equal(abort.status, 0, abort.stderr);
      assert.match(abort.stdout, /last stable offset 1 -> 4\n$/);
      // the aborted record is dropped by the consumer (the marker at 3 is not a record)
      await withBroker({ dataDir: dir }, async (broker) => {
        assert.equal(await consume(broker), '0:before\n2:after\n');
        assert.deepEqual(await kafkajsReadCommitted(broker, 't', 'after'), ['0:before', '2:after']);
      });
    } finally {
      cleanup();
    }
  });
});
