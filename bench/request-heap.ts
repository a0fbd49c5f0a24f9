/**
 * `node dist/bench/request-heap.js` (issue 24): where the broker allocates on the small-request
 * path. A `kafkalite serve` child runs with V8's sampling heap profiler (bench/heap-sampling.ts,
 * 256 B interval, collected objects included); a raw client sends Produce v9 requests of one 100 B
 * record (acks=-1) one at a time: BENCH_HEAP_WARMUP (15,000) unprofiled, then BENCH_HEAP_COUNT
 * (10,000) profiled. Prints the bytes allocated per request and the allocation sites (function and
 * its caller, bytes per request), BENCH_HEAP_TOP (30) of them. BENCH_HEAP_BROKER=<other
 * build>/bin/kafkalite.js profiles another build (an A/B). The sampled total varies by about ±2%
 * from run to run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeRecordBatch } from '../src/record/builder.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { RawClient, encodeRequestFrame } from '../test/helpers/raw-client.js';
import { spawnServe } from '../test/helpers/serve-child.js';

const WARMUP = Number(process.env.BENCH_HEAP_WARMUP ?? 15000);
const COUNT = Number(process.env.BENCH_HEAP_COUNT ?? 10000);
const TOP = Number(process.env.BENCH_HEAP_TOP ?? 30);
const BROKER = process.env.BENCH_HEAP_BROKER ?? join(REPO_ROOT, 'bin', 'kafkalite.js');
const TOPIC = 'request-heap';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const dataDir = mkdtempSync(join(tmpdir(), 'kl-heap-'));
const profileFile = join(dataDir, 'profile.json');
const preload = join(dirname(fileURLToPath(import.meta.url)), 'heap-sampling.js');
const broker = spawnServe(join(dataDir, 'data'), { bin: BROKER, nodeFlags: ['--import', preload], env: { ...process.env, KAFKALITE_HEAP_PROFILE_OUT: profileFile } });

try {
  const port = await broker.listening;
  const client = await RawClient.connect(port);
  client.send(encodeRequestFrame(19, 5, client.correlationId(), { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false }));
  await client.nextFrame();
  const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }]);
  const produce = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      client.send(encodeRequestFrame(0, 9, client.correlationId(), { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] }));
      await client.nextFrame();
    }
  };
  await produce(WARMUP);
  await sleep(200);
  broker.child.kill('SIGUSR2');
  await sleep(200);
  await produce(COUNT);
  broker.child.kill('SIGUSR2');
  while (!existsSync(profileFile)) {
    if (broker.child.exitCode !== null || broker.child.signalCode !== null) throw new Error('kafkalite serve exited before it wrote its heap profile');
    await sleep(50);
  }
  await sleep(300);
  client.socket.destroy();

  const head = (JSON.parse(readFileSync(profileFile, 'utf8')) as { head: ProfileNode }).head;
  const sites = new Map<string, number>();
  let total = 0;
  const name = (n: ProfileNode): string => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/dist\//, '')}:${n.callFrame.lineNumber + 1}`;
  const walk = (n: ProfileNode, caller: string): void => {
    const self = name(n);
    if (n.selfSize > 0) {
      total += n.selfSize;
      const key = `${self} < ${caller}`;
      sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, self);
  };
  walk(head, '(root)');
  console.log(`${COUNT} Produce requests (1 record of 100 B, acks=-1) one at a time: ${(total / COUNT).toFixed(0)} B allocated per request (sampling heap profile)`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${(bytes / COUNT).toFixed(0).padStart(6)} B  ${site}`);
} finally {
  await broker.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
