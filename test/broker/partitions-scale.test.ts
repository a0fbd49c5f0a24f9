/**
 * Issue 21's scale proof: `kafkalite serve` under `ulimit -n 4096` (set for the child only) takes
 * 25,000 partitions through CreateTopics from confluent-kafka's AdminClient and one record on each
 * from its Producer, is stopped and started again, and serves every record back. Then more topics
 * are created and written, 27,500 partitions in all (82,500 segment and index files, 20 times the
 * limit: without the descriptor budget the limit was hit at 1,358 partitions), the broker is
 * killed and loads the directory again. Last, a start whose descriptors run out midway through
 * loading (a budget set above the limit) fails with one error naming the limit before it
 * listens, and the next start loads the whole directory: never a half-loaded broker.
 *
 * Needs confluent-kafka (test/tiers.ts: peers tier); minutes long, so not a unit test. The data
 * directory is on /dev/shm when there is one: descriptors count the same there, and the shared
 * machine's disk would make the run's length depend on other jobs' fsyncs.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { runPythonAsync } from '../helpers/python-peer.js';
import { RawClient } from '../helpers/raw-client.js';
import { serveUnderLimit, type Served } from '../helpers/serve-under-limit.js';

const NOFILE = 4096;
const PARTITIONS = 25;
const FIRST_TOPICS = 1000; // 25,000 partitions
const MORE_TOPICS = 100; // 2,500 more
const PREFIX = 'scale-';
const topicName = (t: number) => `${PREFIX}${String(t).padStart(5, '0')}`;

/** `kafkalite serve` under this file's `ulimit -n`. */
function serve(dataDir: string, nofile = NOFILE, extra: string[] = []): Promise<Served> {
  return serveUnderLimit(dataDir, nofile, extra);
}

async function stop(s: Served, signal: NodeJS.Signals): Promise<void> {
  s.child.kill(signal);
  const code = await s.exited;
  if (signal === 'SIGTERM') assert.equal(code, 0, s.stderr());
}

async function createAndProduce(port: number, first: number, topics: number): Promise<void> {
  const r = await runPythonAsync<{ created: number; produced: number; unsent: number; errors: string[] }>(
    'partitions_scale.py',
    { bootstrap: `127.0.0.1:${port}`, prefix: PREFIX, first, topics, partitions: PARTITIONS, per_request: 100 },
    { timeoutMs: 240_000 },
  );
  assert.deepEqual(r.errors, []);
  assert.equal(r.created, topics);
  assert.equal(r.produced, topics * PARTITIONS);
  assert.equal(r.unsent, 0);
}

/** Fetches every partition of topics [first, first + count) and checks its one record. */
async function readAll(port: number, first: number, count: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    for (let t = first; t < first + count; t += 40) {
      const names = Array.from({ length: Math.min(40, first + count - t) }, (_, i) => topicName(t + i));
      const f = await c.request(1, 11, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 64 << 20, isolationLevel: 0,
        topics: names.map((topic) => ({ topic, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, fetchOffset: 0n, partitionMaxBytes: 1 << 16 })) })),
      });
      assert.equal(errorName(f.errorCode), 'NONE');
      assert.equal(f.responses.length, names.length);
      for (const topic of f.responses) {
        for (const part of topic.partitions) {
          const tp = `${topic.topic}-${part.partitionIndex}`;
          assert.equal(errorName(part.errorCode), 'NONE', tp);
          const values: string[] = [];
          for (const batch of readRecordBatches(part.records as Buffer, { verifyCrc: true })) for (const r of batch.records()) values.push(r.value!.toString());
          assert.deepEqual(values, [`${topic.topic}/${part.partitionIndex}`], `${tp} holds its one record`);
        }
      }
    }
  } finally {
    c.destroy();
  }
}

async function topicCount(port: number): Promise<number> {
  const c = await RawClient.connect(port);
  try {
    const m = await c.request(3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return (m.topics as { name: string }[]).filter((t) => t.name.startsWith(PREFIX)).length;
  } finally {
    c.destroy();
  }
}

const openDescriptors = (s: Served) => readdirSync(`/proc/${s.child.pid}/fd`).length;

describe('25,000 partitions under ulimit -n 4096', () => {
  test('created by CreateTopics, one record each, read back after a restart; 27,500 after more topics and a kill; running out midway through loading fails whole', { timeout: 600_000 }, async () => {
    const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'kafkalite-scale-'));
    let running: Served | undefined;
    try {
      running = await serve(dataDir);
      await createAndProduce(running.port, 0, FIRST_TOPICS);
      assert.ok(openDescriptors(running) <= NOFILE);
      await stop(running, 'SIGTERM');
      running = await serve(dataDir);
      assert.equal(await topicCount(running.port), FIRST_TOPICS);
      await readAll(running.port, 0, FIRST_TOPICS);
      assert.ok(openDescriptors(running) <= NOFILE, `${openDescriptors(running)} descriptors after reading every partition`);

      // more topics, far past where the limit was hit before the budget, then a kill
      await createAndProduce(running.port, FIRST_TOPICS, MORE_TOPICS);
      const files = readdirSync(dataDir).filter((d) => d.startsWith(PREFIX)).length * 3;
      assert.equal(files, (FIRST_TOPICS + MORE_TOPICS) * PARTITIONS * 3);
      assert.ok(files >= 20 * NOFILE, `${files} segment and index files`);
      await stop(running, 'SIGKILL');
      running = await serve(dataDir);
      assert.equal(await topicCount(running.port), FIRST_TOPICS + MORE_TOPICS);
      await readAll(running.port, FIRST_TOPICS, MORE_TOPICS);
      await stop(running, 'SIGTERM');
      running = undefined;

      // a budget above the limit (kafkalite.open.files.budget=100000 under ulimit -n 4096): the
      // descriptors run out midway through loading. One error naming the limit before listening,
      // the lock released; or, should loading need fewer, every record served
      let over: Served | undefined;
      try {
        over = await serve(dataDir, NOFILE, ['--config', 'kafkalite.open.files.budget=100000']);
      } catch (e) {
        const failure = e as { code: number | null; stderr: string; stdout: string };
        assert.equal(failure.code, 1);
        assert.doesNotMatch(failure.stdout, /listening on/);
        assert.match(failure.stderr, /^kafkalite serve: Out of file descriptors \(the process may open 4096 files, ulimit -n\): .*Raise the limit or lower kafkalite\.open\.files\.budget\.\n$/);
        assert.equal(failure.stderr.split('\n').length, 2, 'one line');
      }
      if (over !== undefined) {
        running = over;
        assert.equal(await topicCount(running.port), FIRST_TOPICS + MORE_TOPICS);
        await readAll(running.port, 0, FIRST_TOPICS + MORE_TOPICS);
        await stop(running, 'SIGTERM');
        running = undefined;
      }
      // and the directory loads whole again under the usual limit
      running = await serve(dataDir);
      assert.equal(await topicCount(running.port), FIRST_TOPICS + MORE_TOPICS);
      await readAll(running.port, 0, 40);
      await stop(running, 'SIGTERM');
      running = undefined;
    } finally {
      if (running) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
