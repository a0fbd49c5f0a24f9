/**
 * `node dist/bench/request-path.js` (issue 24): what the small-request path costs the broker per
 * request and per new client, in figures that do not depend on the machine's load. A `kafkalite
 * serve` child runs with `--trace-deopt --trace-opt --trace-gc-nvp`; a raw client sends Produce v9
 * requests of one 100 B record (acks=-1) one at a time. Phases: client A's warm-up
 * (BENCH_PATH_WARMUP, 15,000), client A measured (BENCH_PATH_COUNT, 40,000), then clients B and C,
 * each a new connection, measured the same way. Per phase: V8 deopts (bailouts) and functions
 * (re)optimized, scavenges and the bytes allocated per request (the sum of `allocated=` over the
 * phase's collections, i.e. up to its last one). BENCH_PATH_DEOPTS=1 lists each bailout.
 *
 * Between client A and client B the broker runs a full collection (test/helpers/gc-on-signal.ts), as V8's
 * memory reducer does when a broker goes idle between a test's clients. The line after it counts the
 * optimized functions V8 dropped then because an object or hidden class their code embeds had died
 * ("weak objects"): each is compiled again while the next client waits. src/v8/map-anchors.ts keeps
 * the request path's hidden classes alive so that count stays near zero.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeRecordBatch } from '../src/record/builder.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { RawClient, encodeRequestFrame } from '../test/helpers/raw-client.js';
import { spawnServe } from '../test/helpers/serve-child.js';

const WARMUP = Number(process.env.BENCH_PATH_WARMUP ?? 15000);
const COUNT = Number(process.env.BENCH_PATH_COUNT ?? 40000);
const LIST = process.env.BENCH_PATH_DEOPTS === '1';
const TOPIC = 'request-path';
/** Another build's bin/kafkalite.js to measure (an A/B against this one). */
const BROKER = process.env.BENCH_PATH_BROKER ?? join(REPO_ROOT, 'bin', 'kafkalite.js');
/** More node flags for the broker (e.g. `--trace-deopt-verbose`). */
const NODE_FLAGS = process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];

async function produceLoop(client: RawClient, n: number): Promise<void> {
  const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }]);
  for (let i = 0; i < n; i++) {
    client.send(encodeRequestFrame(0, 9, client.correlationId(), { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] }));
    await client.nextFrame();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'kl-path-'));
const gcOnSignal = join(REPO_ROOT, 'dist', 'test', 'helpers', 'gc-on-signal.js');
const broker = spawnServe(dataDir, { bin: BROKER, nodeFlags: ['--trace-deopt', '--trace-opt', '--trace-gc-nvp', '--expose-gc', '--import', gcOnSignal, ...NODE_FLAGS] });
/** Runs a phase and reports what the broker's trace printed meanwhile. */
async function phase(name: string, client: RawClient, n: number): Promise<void> {
  await sleep(300);
  const from = broker.stdout().length;
  await produceLoop(client, n);
  await sleep(300);
  const lines = broker.stdout().slice(from).split('\n');
  const bailouts = lines.filter((l) => l.startsWith('[bailout'));
  if (process.env.BENCH_PATH_RAW === '1') console.log(broker.stdout().slice(from));
  const optimized = lines.filter((l) => l.startsWith('[completed optimizing'));
  const gcs = lines.filter((l) => / gc=s /.test(l));
  let allocated = 0;
  for (const l of lines) {
    const m = / allocated=(\d+) /.exec(l);
    if (m) allocated += Number(m[1]);
  }
  console.log(`${name}: ${n} requests, ${bailouts.length} deopts, ${optimized.length} optimized, ${gcs.length} scavenges, ${(allocated / n).toFixed(0)} B allocated per request`);
  if (LIST) {
    for (const b of bailouts) {
      const m = /reason: ([^)]*)\).*?<JSFunction ([^ >]*)/.exec(b);
      console.log(`  ${m ? `${m[2]}: ${m[1]}` : b}`);
    }
  }
}

/** Has the broker run a full collection; reports the optimized code V8 dropped for dead weak objects. */
async function fullCollection(): Promise<void> {
  await sleep(300);
  const from = broker.stdout().length;
  broker.child.kill('SIGUSR2');
  await broker.waitFor('[gc-on-signal: full collection done]', from);
  const dropped = broker.stdout().slice(from).split('\n').filter((l) => l.startsWith('[marking dependent code') && l.includes('reason: weak objects'));
  console.log(`full collection after client A closed: ${dropped.length} optimized functions dropped (weak objects)`);
  if (LIST) {
    const names = dropped.map((l) => /<SharedFunctionInfo ?([^>]*)>/.exec(l)?.[1] || '(anonymous)');
    console.log(`  ${names.sort().join(', ')}`);
  }
}

try {
  const port = await broker.listening;
  const a = await RawClient.connect(port);
  a.send(encodeRequestFrame(19, 5, a.correlationId(), { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false }));
  await a.nextFrame();
  await phase('client A, warm-up', a, WARMUP);
  await phase('client A', a, COUNT);
  a.socket.destroy();
  await fullCollection();
  for (const name of ['client B (new connection)', 'client C (new connection)']) {
    const c = await RawClient.connect(port);
    await phase(name, c, COUNT);
    c.socket.destroy();
  }
} finally {
  await broker.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
