/**
 * An in-process broker (`startBroker()`, one per test file or per test in a user's suite) is
 * garbage once `close()` has resolved and the caller dropped it: nothing the process keeps (timers,
 * module-level state, the hidden-class anchors of src/v8/map-anchors.ts) reaches the Broker or its
 * LogManager. Collection is only observable with `--expose-gc`, so each check runs in a child
 * process on the built broker (dist/), and the brokers are made in functions that return only
 * WeakRefs, so no stale variable of the script itself holds one.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/paths.js';

const DIST = join(REPO_ROOT, 'dist');
const url = (path: string): string => JSON.stringify(join(DIST, path));

/** The child's imports and one broker life per scenario; each returns what it checked and WeakRefs. */
const PRELUDE = `
  import { mkdtempSync, rmSync } from 'node:fs';
  import { tmpdir } from 'node:os';
  import { join } from 'node:path';
  import { setTimeout as sleep } from 'node:timers/promises';
  const { startBroker } = await import(${url('src/index.js')});
  const { RawClient, encodeRequestFrame } = await import(${url('test/helpers/raw-client.js')});
  const { encodeRecordBatch } = await import(${url('src/record/builder.js')});
  const { errorName } = await import(${url('src/protocol/error-codes.js')});

  const refs = (b) => ({ broker: new WeakRef(b), logs: new WeakRef(b.logs) });
  const createTopic = (c) => c.request(19, 5, { topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
  const produce = async (c, options) => {
    const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }], options);
    const r = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] });
    return errorName(r.responses[0].partitionResponses[0].errorCode);
  };
  const fetchBody = (maxWaitMs, minBytes) => ({ replicaId: -1, maxWaitMs, minBytes, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, lastFetchedEpoch: -1 }] }], forgottenTopicsData: [], rackId: '' });
  const settle = async () => { for (let i = 0; i < 5; i++) { await sleep(50); globalThis.gc(); } };

  /** A client creates a topic, produces, fetches and leaves; then the broker closes. */
  async function clientLeftFirst() {
    const b = await startBroker();
    const c = await RawClient.connect(b.port);
    await createTopic(c);
    const checked = [await produce(c)];
    const f = await c.request(1, 12, fetchBody(0, 0));
    checked.push(errorName(f.responses[0].partitions[0].errorCode));
    c.destroy();
    await c.closed;
    await b.close();
    return { checked, ...refs(b) };
  }
`;

function runChild(flags: string[], body: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', PRELUDE + body], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `child failed (${r.signal ?? r.status}): ${r.stderr}`);
  const last = r.stdout.trim().split('\n').at(-1)!;
  return JSON.parse(last) as Record<string, unknown>;
}

test('a closed broker and its LogManager are collected, whatever its clients did', { timeout: 150_000 }, () => {
  const result = runChild(
    ['--expose-gc'],
    `
    /** Never connected to. */
    async function idle() {
      const b = await startBroker();
      await b.close();
      return { checked: [], ...refs(b) };
    }
    /** Closed with its client still connected and a long-poll Fetch waiting. */
    async function clientConnectedAtClose() {
      const b = await startBroker();
      const c = await RawClient.connect(b.port);
      await createTopic(c);
      const checked = [await produce(c)];
      c.send(encodeRequestFrame(1, 12, c.correlationId(), fetchBody(30000, 1 << 20)));
      await sleep(50);
      checked.push(c.unclaimed.length === 0 ? 'fetch waiting' : 'fetch answered early');
      await b.close();
      c.destroy();
      return { checked, ...refs(b) };
    }
    /**
     * Restarted on its data directory (its logs reopened, with the broker's log sink) and given an
     * idempotent append: the last ProducerAppendInfo, which map-anchors.ts keeps, holds that sink.
     */
    async function reopenedDataDir(dataDir) {
      const first = await startBroker({ dataDir });
      let c = await RawClient.connect(first.port);
      await createTopic(c);
      c.destroy();
      await first.close();
      const b = await startBroker({ dataDir });
      c = await RawClient.connect(b.port);
      const pid = await c.request(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
      const checked = [errorName(pid.errorCode), await produce(c, { producerId: pid.producerId, producerEpoch: pid.producerEpoch, baseSequence: 0 })];
      c.destroy();
      await c.closed;
      await b.close();
      return { checked, ...refs(b) };
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-close-releases-'));
    const runs = {};
    try {
      // the order matters: map-anchors.ts keeps the last closed connection and the last append's
      // producer state, so the scenario those would come from runs last of those that make them
      runs.idle = await idle();
      runs.reopenedDataDir = await reopenedDataDir(dataDir);
      runs.clientConnectedAtClose = await clientConnectedAtClose();
      runs.clientLeftFirst = await clientLeftFirst();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    await settle();
    const out = {};
    for (const [name, r] of Object.entries(runs)) out[name] = { checked: r.checked, broker: r.broker.deref() !== undefined, logs: r.logs.deref() !== undefined };
    console.log(JSON.stringify(out));
    `,
  );
  // what each scenario did, so a broken request path cannot pass as a collected broker
  const alive = { broker: false, logs: false };
  assert.deepEqual(result, {
    idle: { checked: [], ...alive },
    clientLeftFirst: { checked: ['NONE', 'NONE'], ...alive },
    clientConnectedAtClose: { checked: ['NONE', 'fetch waiting'], ...alive },
    reopenedDataDir: { checked: ['NONE', 'NONE'], ...alive },
  });
});

test('start/close cycles leave no heap behind', { timeout: 150_000 }, (t) => {
  // --jitless: optimized code and its feedback (V8 tiering up over the first few hundred cycles)
  // would otherwise grow the heap by 1-4 KB a cycle that is no broker's. Measured on this layout:
  // 0.3-0.6 KB/cycle in each round after the warm-up; one closed broker kept costs about 28 KB.
  // A round can come out low (a collection freed something older) but not high for long, so the
  // smallest of three rounds is compared: a broker's objects kept each cycle raise all three.
  const result = runChild(
    ['--expose-gc', '--jitless', '--no-warnings'],
    `
    const WARM_UP = 30, ROUND = 20, ROUNDS = 3;
    const brokers = [];
    for (let i = 0; i < WARM_UP; i++) await clientLeftFirst();
    await settle();
    let before = process.memoryUsage().heapUsed;
    const perCycle = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < ROUND; i++) brokers.push((await clientLeftFirst()).broker);
      await settle();
      const after = process.memoryUsage().heapUsed;
      perCycle.push((after - before) / ROUND);
      before = after;
    }
    console.log(JSON.stringify({ perCycle, alive: brokers.filter((w) => w.deref() !== undefined).length }));
    `,
  );
  const perCycle = result['perCycle'] as number[];
  assert.equal(perCycle.length, 3);
  assert.equal(result['alive'], 0);
  t.diagnostic(`heap per start/close cycle, by round: ${perCycle.map((b) => (b / 1024).toFixed(2)).join(', ')} KB`);
  const least = Math.min(...perCycle);
  assert.ok(least < 4096, `heap grew by ${perCycle.map((b) => (b / 1024).toFixed(2)).join(', ')} KB per start/close cycle`);
});
