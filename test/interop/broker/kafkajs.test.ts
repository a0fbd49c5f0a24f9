/**
 * kafkajs 2.2.4 against a broker started by the test: its producer in every codec (gzip built in;
 * snappy and zstd through the test-side codec plug-ins of test/helpers/kafkajs.ts, lz4 through one
 * registered here), its admin client creating and deleting topics and listing offsets (latest,
 * earliest, by timestamp). What kafkajs wrote on its sockets is captured (socketFactory) and each
 * batch it sent is compared with the batch stored on disk, byte for byte but for the two fields a
 * leader assigns; offsets must be dense. (kafkajs consumers need consumer groups, which the broker
 * does not have yet: records are read back from the log files.)
 */
import assert from 'node:assert/strict';
import { errorName } from '../../../src/protocol/error-codes.js';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { storedBatches, storedRecords, withBroker } from '../../helpers/broker.js';
import { KCompression, registerKafkajsSnappyAndZstd } from '../../helpers/kafkajs.js';
import { partitionDirName } from '../../../src/storage/topic.js';
import { assertStoredAsSent, RequestTap, sentBatches } from './produce-capture.js';

const require = createRequire(import.meta.url);

interface KafkajsProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: {
    topic: string;
    acks?: number;
    compression?: number;
    messages: { key?: Buffer | string | null; value: Buffer | string | null; partition?: number; timestamp?: string; headers?: Record<string, Buffer | string> }[];
  }): Promise<{ topicName: string; partition: number; errorCode: number; baseOffset: string; logStartOffset?: string }[]>;
}
interface KafkajsAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  createTopics(o: { topics: { topic: string; numPartitions?: number; configEntries?: { name: string; value: string }[] }[]; waitForLeaders?: boolean }): Promise<boolean>;
  deleteTopics(o: { topics: string[]; timeout?: number }): Promise<void>;
  listTopics(): Promise<string[]>;
  fetchTopicMetadata(o: { topics: string[] }): Promise<{ topics: { name: string; partitions: { partitionId: number; leader: number }[] }[] }>;
  fetchTopicOffsets(topic: string): Promise<{ partition: number; offset: string; high: string; low: string }[]>;
  fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<{ partition: number; offset: string }[]>;
}
interface KafkaClient {
  producer(o?: { allowAutoTopicCreation?: boolean; idempotent?: boolean; maxInFlightRequests?: number }): KafkajsProducer;
  admin(): KafkajsAdmin;
}
const { Kafka, logLevel } = require('kafkajs') as {
  Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number; socketFactory?: (a: { host: string; port: number; onConnect: () => void }) => unknown }) => KafkaClient;
  logLevel: { NOTHING: number };
};

// kafkajs has no lz4 codec of its own (the kafkajs-lz4 plug-in needs the node-gyp `lz4`
// binding): this stand-in writes and reads one standard LZ4 frame with lz4-napi, which is the
// framing Kafka expects of magic v2 batches (Kafka `Lz4BlockInputStream`).
function registerKafkajsLz4(): void {
  const lz4 = require('lz4-napi') as { compressFrameSync(b: Buffer): Buffer; decompressFrameSync(b: Buffer): Buffer };
  const codecs = (require('kafkajs/src/protocol/message/compression') as { Codecs: Record<number, () => unknown> }).Codecs;
  const codec = {
    compress: async (enc: { buffer: Buffer }) => lz4.compressFrameSync(enc.buffer),
    decompress: async (buf: Buffer) => lz4.decompressFrameSync(buf),
  };
  codecs[KCompression.LZ4] = () => codec;
}
registerKafkajsSnappyAndZstd();
registerKafkajsLz4();

/** A kafkajs client whose sockets copy every byte they write into `taps`. */
function tappedClient(bootstrap: string, taps: RequestTap[]): KafkaClient {
  return new Kafka({
    clientId: 'kafkalite-kafkajs-interop',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    socketFactory: ({ host, port, onConnect }) => {
      const tap = new RequestTap();
      taps.push(tap);
      return tap.attach(connect({ host, port }, onConnect));
    },
  });
}

const CODECS: Record<string, number> = { none: KCompression.None, gzip: KCompression.GZIP, snappy: KCompression.Snappy, lz4: KCompression.LZ4, zstd: KCompression.ZSTD };
const T0 = 1_700_000_000_000;

function message(i: number, salt: string): { key: string | null; value: string; timestamp: string; headers: Record<string, string> } {
  return {
    key: i % 5 === 0 ? null : `key-${i % 7}`,
    value: `value-${i}-${salt}-${'kafkalite '.repeat(5 + (i % 40))}`,
    timestamp: String(T0 + i * 1000),
    headers: { trace: `t-${i}`, codec: salt },
  };
}

describe('kafkajs 2.2.4 producer against the broker', () => {
  for (const [codec, id] of Object.entries(CODECS)) {
    test(`acks=-1, ${codec}: every batch sent is stored byte for byte, offsets dense`, async () => {
      await withBroker({}, async (broker) => {
        const taps: RequestTap[] = [];
        const producer = tappedClient(broker.bootstrap, taps).producer({ allowAutoTopicCreation: true });
        await producer.connect();
        const topic = `kafkajs-${codec}`;
        const sizes = [1, 17, 250, 3];
        const expected: ReturnType<typeof message>[] = [];
        const baseOffsets: string[] = [];
        try {
          for (const n of sizes) {
            const messages = Array.from({ length: n }, (_, j) => message(expected.length + j, codec));
            expected.push(...messages);
            const [meta] = await producer.send({ topic, acks: -1, compression: id, messages });
            assert.equal(errorName(meta?.errorCode), 'NONE');
            baseOffsets.push(meta!.baseOffset);
          }
        } finally {
          await producer.disconnect();
        }
        // kafkajs reports where each send landed: the running record count
        assert.deepEqual(baseOffsets, ['0', '1', '18', '268']);
        const sent = sentBatches(taps.flatMap((t) => t.frames));
        assert.equal(sent.length, sizes.length);
        for (const s of sent) assert.equal(s.acks, -1);
        assertStoredAsSent(broker.dataDir, topic, 0, sent);
        const stored = storedBatches(broker.dataDir, topic, 0);
        assert.deepEqual(stored.map((b) => b.compression), sizes.map(() => id));
        assert.deepEqual(
          stored.flatMap((b) => b.records).map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString(), r.headers.map((h) => `${h.key}=${h.value?.toString()}`)]),
          expected.map((m, i) => [BigInt(i), BigInt(m.timestamp), m.key, m.value, [`trace=t-${i}`, `codec=${codec}`]]),
        );
      });
    });
  }

  test('idempotent producer: one producer id, sequences dense across sends and partitions', async () => {
    await withBroker({ config: { 'num.partitions': '2' } }, async (broker) => {
      const taps: RequestTap[] = [];
      const producer = tappedClient(broker.bootstrap, taps).producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const topic = 'kafkajs-idempotent';
      try {
        for (let round = 0; round < 6; round++) {
          const messages = Array.from({ length: 10 }, (_, j) => ({ ...message(round * 10 + j, 'idem'), partition: round % 2 }));
          await producer.send({ topic, acks: -1, compression: KCompression.ZSTD, messages });
        }
      } finally {
        await producer.disconnect();
      }
      const sent = sentBatches(taps.flatMap((t) => t.frames));
      for (const p of [0, 1]) {
        assertStoredAsSent(broker.dataDir, topic, p, sent);
        const batches = storedBatches(broker.dataDir, topic, p);
        assert.equal(batches.length, 3);
        assert.equal(new Set(batches.map((b) => b.producerId)).size, 1);
        assert.ok(batches[0]!.producerId >= 0n);
        assert.deepEqual(batches.flatMap((b) => b.records.map((r) => r.offset)), Array.from({ length: 30 }, (_, i) => BigInt(i)));
      }
    });
  });
});

describe('kafkajs 2.2.4 admin against the broker', () => {
  test('createTopics, listTopics, fetchTopicMetadata, deleteTopics', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
      const admin = tappedClient(broker.bootstrap, []).admin();
      await admin.connect();
      try {
        assert.equal(await admin.createTopics({ topics: [{ topic: 'admin-a', numPartitions: 3 }, { topic: 'admin-b' }], waitForLeaders: true }), true);
        // kafkajs answers false, not an error, when every topic already exists (TOPIC_ALREADY_EXISTS)
        assert.equal(await admin.createTopics({ topics: [{ topic: 'admin-a', numPartitions: 3 }] }), false);
        assert.deepEqual((await admin.listTopics()).sort(), ['admin-a', 'admin-b']);
        const meta = await admin.fetchTopicMetadata({ topics: ['admin-a'] });
        assert.deepEqual(meta.topics[0]!.partitions.map((p) => [p.partitionId, p.leader]).sort(), [[0, 1], [1, 1], [2, 1]]);
        for (const p of [0, 1, 2]) assert.ok(existsSync(join(broker.dataDir, partitionDirName('admin-a', p))), `partition dir admin-a-${p} missing`);

        await admin.deleteTopics({ topics: ['admin-a'] });
        assert.deepEqual(await admin.listTopics(), ['admin-b']);
        for (const p of [0, 1, 2]) assert.ok(!existsSync(join(broker.dataDir, partitionDirName('admin-a', p))), `partition dir admin-a-${p} still there after delete`);
        // a deleted topic name can be created again, empty
        assert.equal(await admin.createTopics({ topics: [{ topic: 'admin-a', numPartitions: 1 }], waitForLeaders: true }), true);
        assert.deepEqual((await admin.fetchTopicOffsets('admin-a')).map((o) => [o.partition, o.low, o.high]), [[0, '0', '0']]);
      } finally {
        await admin.disconnect();
      }
    });
  });

  test('fetchTopicOffsets and fetchTopicOffsetsByTimestamp match what was stored', async () => {
    await withBroker({}, async (broker) => {
      const client = tappedClient(broker.bootstrap, []);
      const admin = client.admin();
      const producer = client.producer();
      await Promise.all([admin.connect(), producer.connect()]);
      const topic = 'kafkajs-offsets';
      try {
        await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
        // partition 0: 40 records with timestamps T0, T0+1s, ... in batches of 8; partition 1: 5
        for (let b = 0; b < 5; b++) {
          await producer.send({ topic, acks: -1, compression: KCompression.GZIP, messages: Array.from({ length: 8 }, (_, j) => ({ ...message(b * 8 + j, 'ts'), partition: 0 })) });
        }
        await producer.send({ topic, acks: -1, messages: Array.from({ length: 5 }, (_, j) => ({ ...message(j, 'p1'), partition: 1 })) });

        const latest = await admin.fetchTopicOffsets(topic);
        assert.deepEqual(latest.map((o) => [o.partition, o.low, o.high, o.offset]).sort(), [[0, '0', '40', '40'], [1, '0', '5', '5']]);
        assert.equal(storedRecords(broker.dataDir, topic, 0).length, 40);

        const at = async (ts: number): Promise<string | undefined> => (await admin.fetchTopicOffsetsByTimestamp(topic, ts)).find((o) => o.partition === 0)?.offset;
        // ListOffsets by timestamp: the first offset whose timestamp is >= the target
        assert.equal(await at(T0), '0');
        assert.equal(await at(T0 + 500), '1');
        assert.equal(await at(T0 + 17_000), '17');
        assert.equal(await at(T0 + 17_001), '18');
        assert.equal(await at(T0 + 39_000), '39');
        // nothing at or after the target: Kafka answers -1, which kafkajs replaces by the high watermark
        assert.equal(await at(T0 + 39_001), '40');
        assert.equal(await at(T0 - 10_000), '0');
      } finally {
        await Promise.all([admin.disconnect(), producer.disconnect()]);
      }
    });
  });
});
