/**
 * A broker with more partitions than its process may open files (issue 21): `kafkalite serve`
 * under `ulimit -n 256` creates 600 partitions (1,800 segment and index files), takes a record on
 * each and serves every one back; after a clean stop, and again after a kill, it starts on that
 * directory under the same limit and serves every record. Without the descriptor budget
 * (src/storage/descriptor-budget.ts) CreateTopics failed with EMFILE and the directory could not be
 * loaded at all. The unit tier (test/tiers.ts) runs 300 partitions (900 files) under the same
 * `ulimit -n 256`, half the work, still more than three times the limit in files (a lower
 * limit is not the broker's to meet: Node's module loader alone opened more than 128 files at once).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { RawClient } from '../helpers/raw-client.js';
import { serveUnderLimit, type Served } from '../helpers/serve-under-limit.js';
import { tierCount } from '../helpers/tier.js';

const NOFILE = 256;
/** Created 20 at a time. */
const TOPICS = tierCount(60, 30);
const PARTITIONS = 10;
const topicName = (t: number) => `many-${String(t).padStart(3, '0')}`;
const valueOf = (t: number, p: number) => `${topicName(t)}/${p}`;

/** `kafkalite serve` under this file's `ulimit -n`. */
function serve(dataDir: string): Promise<Served> {
  return serveUnderLimit(dataDir, NOFILE);
}

async function readAll(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    for (let t = 0; t < TOPICS; t++) {
      const f = await c.request(1, 11, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
        topics: [{ topic: topicName(t), partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, fetchOffset: 0n, partitionMaxBytes: 1 << 16 })) }],
      });
      assert.equal(errorName(f.errorCode), 'NONE');
      for (const part of f.responses[0].partitions) {
        assert.equal(errorName(part.errorCode), 'NONE', `${topicName(t)}-${part.partitionIndex}`);
        const values: string[] = [];
        for (const batch of readRecordBatches(part.records as Buffer, { verifyCrc: true })) {
          for (const r of batch.records()) values.push(r.value!.toString());
        }
        assert.deepEqual(values, [valueOf(t, part.partitionIndex)], `${topicName(t)}-${part.partitionIndex} holds its one record`);
      }
    }
  } finally {
    c.destroy();
  }
}

describe('more partitions than the process may open files', () => {
  test(`${TOPICS * PARTITIONS} partitions under ulimit -n ${NOFILE}: created, written, read, and loaded again after a clean stop and after a kill`, { timeout: 240_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-many-partitions-'));
    let running: Served | undefined;
    try {
      running = await serve(dataDir);
      const c = await RawClient.connect(running.port);
      for (let t = 0; t < TOPICS; t += 20) {
        const names = Array.from({ length: 20 }, (_, i) => topicName(t + i));
        const r = await c.request(19, 4, {
          topics: names.map((name) => ({ name, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] })),
          timeoutMs: 30_000, validateOnly: false,
        });
        for (const topic of r.topics) assert.equal(errorName(topic.errorCode), 'NONE', `${topic.name}: ${topic.errorMessage}`);
      }
      for (let t = 0; t < TOPICS; t++) {
        const r = await c.request(0, 7, {
          transactionalId: null, acks: -1, timeoutMs: 5000,
          topicData: [{ name: topicName(t), partitionData: Array.from({ length: PARTITIONS }, (_, p) => ({ index: p, records: encodeRecordBatch([{ value: Buffer.from(valueOf(t, p)) }]) })) }],
        });
        for (const p of r.responses[0].partitionResponses) assert.equal(errorName(p.errorCode), 'NONE', `${topicName(t)}-${p.index}`);
      }
      // the directory holds far more files than the limit: the budget, not luck, kept it serving
      const files = readdirSync(dataDir).filter((d) => d.startsWith('many-')).length * 3;
      assert.ok(files > NOFILE * 3, `${files} segment and index files`);
      const open = readdirSync(`/proc/${running.child.pid}/fd`).length;
      assert.ok(open <= NOFILE, `${open} descriptors open`);
      c.destroy();
      await readAll(running.port);

      running.child.kill('SIGTERM');
      assert.equal(await running.exited, 0, running.stderr());
      running = await serve(dataDir);
      await readAll(running.port);

      running.child.kill('SIGKILL');
      await running.exited;
      running = await serve(dataDir);
      await readAll(running.port);
      running.child.kill('SIGTERM');
      assert.equal(await running.exited, 0, running.stderr());
      running = undefined;
    } finally {
      running?.child.kill('SIGKILL');
      if (running) await running.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
