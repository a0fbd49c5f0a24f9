/**
 * kcat 1.7.1 (Debian; librdkafka 2.0.2) against a kafkalite broker started by the test: produce in
 * every codec with keys and headers, consume from beginning / an offset / relative to the end,
 * metadata listing, idempotent producing. What kcat produced is checked against the log files on
 * disk (decoded by the record codec, CRCs verified) and against what kcat consumes back.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { runCommand } from '../../helpers/python-peer.js';
import { storedBatches, storedRecords, withBroker } from '../../helpers/broker.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const CODEC_IDS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

interface KcatMessage {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  payload: string | null;
  headers?: string[];
}

async function kcat(args: string[], input?: string): Promise<string> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}

function parseJsonLines(out: string): KcatMessage[] {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as KcatMessage);
}

function makeLines(n: number): { key: string; value: string }[] {
  const salt = randomBytes(4).toString('hex');
  return Array.from({ length: n }, (_, i) => ({ key: `key-${i % 7}`, value: `value-${i}-${salt}-${'x'.repeat(100 + i * 13)}` }));
}

describe('kcat (librdkafka 2.0.2) against the broker', () => {
  for (const codec of Object.keys(CODEC_IDS)) {
    test(`produce with ${codec}, keys and headers; consume from the beginning byte for byte`, async () => {
      await withBroker({}, async (broker) => {
        const topic = `kcat-${codec}`;
        const lines = makeLines(200);
        await kcat(
          ['-b', broker.bootstrap, '-t', topic, '-P', '-K', ':', '-z', codec, '-H', 'h1=v1', '-H', 'trace=abc', '-X', 'linger.ms=20'],
          lines.map((l) => `${l.key}:${l.value}`).join('\n') + '\n',
        );
        const stored = storedBatches(broker.dataDir, topic, 0);
        assert.ok(stored.length >= 1);
        // librdkafka sends a batch uncompressed when compressing would not make it smaller
        // (rd_kafka_msgset_writer_compress), so a small first batch may be plain
        for (const b of stored) assert.ok(b.compression === CODEC_IDS[codec] || b.compression === 0, `batch at ${b.baseOffset} stored with codec ${b.compression}`);
        assert.ok(stored.some((b) => b.compression === CODEC_IDS[codec]), `no batch stored with ${codec}`);
        const records = stored.flatMap((b) => b.records);
        assert.deepEqual(
          records.map((r) => [r.offset, r.key?.toString(), r.value?.toString(), r.headers.map((h) => `${h.key}=${h.value?.toString()}`)]),
          lines.map((l, i) => [BigInt(i), l.key, l.value, ['h1=v1', 'trace=abc']]),
        );
        const consumed = parseJsonLines(await kcat(['-b', broker.bootstrap, '-t', topic, '-C', '-o', 'beginning', '-e', '-J', '-X', 'check.crcs=true']));
        assert.deepEqual(
          consumed.map((m) => [m.offset, m.key, m.payload, m.headers]),
          lines.map((l, i) => [i, l.key, l.value, ['h1', 'v1', 'trace', 'abc']]),
        );
      });
    });
  }

  test('-o <offset>, -o -N (relative to end) and -o end', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kcat-offsets';
      const lines = makeLines(30);
      await kcat(['-b', broker.bootstrap, '-t', topic, '-P', '-K', ':'], lines.map((l) => `${l.key}:${l.value}`).join('\n') + '\n');
      const from12 = parseJsonLines(await kcat(['-b', broker.bootstrap, '-t', topic, '-p', '0', '-C', '-o', '12', '-e', '-J']));
      assert.deepEqual(from12.map((m) => m.offset), Array.from({ length: 18 }, (_, i) => 12 + i));
      assert.deepEqual(from12.map((m) => m.payload), lines.slice(12).map((l) => l.value));
      const last5 = parseJsonLines(await kcat(['-b', broker.bootstrap, '-t', topic, '-p', '0', '-C', '-o', '-5', '-e', '-J']));
      assert.deepEqual(last5.map((m) => m.offset), [25, 26, 27, 28, 29]);
      const atEnd = parseJsonLines(await kcat(['-b', broker.bootstrap, '-t', topic, '-p', '0', '-C', '-o', 'end', '-e', '-J']));
      assert.deepEqual(atEnd, []);
    });
  });

  test('-L lists the broker, the topics and their partitions', async () => {
    await withBroker({ config: { 'num.partitions': '3' } }, async (broker) => {
      await kcat(['-b', broker.bootstrap, '-t', 'listed-a', '-P'], 'a\n');
      await kcat(['-b', broker.bootstrap, '-t', 'listed-b', '-P', '-p', '2'], 'b\n');
      const meta = JSON.parse(await kcat(['-b', broker.bootstrap, '-L', '-J'])) as {
        brokers: { id: number; name: string }[];
        topics: { topic: string; partitions: { partition: number; leader: number; replicas: { id: number }[] }[] }[];
      };
      assert.deepEqual(meta.brokers.map((b) => [b.id, b.name]), [[1, broker.bootstrap]]);
      const topics = meta.topics.map((t) => [t.topic, t.partitions.map((p) => [p.partition, p.leader])]).sort();
      assert.deepEqual(topics, [
        ['listed-a', [[0, 1], [1, 1], [2, 1]]],
        ['listed-b', [[0, 1], [1, 1], [2, 1]]],
      ]);
      assert.equal(storedRecords(broker.dataDir, 'listed-b', 2)[0]?.value?.toString(), 'b');
    });
  });

  test('idempotent producing (-X enable.idempotence=true) stores batches with a producer id and dense sequences', async () => {
    await withBroker({}, async (broker) => {
      const topic = 'kcat-idempotent';
      const lines = makeLines(500);
      await kcat(
        ['-b', broker.bootstrap, '-t', topic, '-P', '-K', ':', '-z', 'lz4', '-X', 'enable.idempotence=true', '-X', 'linger.ms=5', '-X', 'batch.num.messages=50'],
        lines.map((l) => `${l.key}:${l.value}`).join('\n') + '\n',
      );
      const batches = storedBatches(broker.dataDir, topic, 0);
      assert.ok(batches.length > 1);
      for (const b of batches) assert.ok(b.producerId >= 0n, `batch at ${b.baseOffset} has producerId ${b.producerId}`);
      assert.equal(new Set(batches.map((b) => b.producerId)).size, 1);
      const consumed = parseJsonLines(await kcat(['-b', broker.bootstrap, '-t', topic, '-C', '-o', 'beginning', '-e', '-J']));
      assert.deepEqual(consumed.map((m) => m.payload), lines.map((l) => l.value));
    });
  });
});
