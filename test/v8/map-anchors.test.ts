/**
 * src/v8/map-anchors.ts: the anchors share the hidden classes of the instances the request path
 * builds, and with them in place a full collection after a client leaves drops none of the Produce
 * path's optimized code (V8's "marking dependent code ... reason: weak objects").
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { RawClient, encodeRequestFrame } from '../helpers/raw-client.js';
import { spawnServe } from '../helpers/serve-child.js';

const DIST = join(REPO_ROOT, 'dist', 'src');

test('each anchor has the hidden class of the instances the request path builds', () => {
  // V8's %HaveSameMap needs --allow-natives-syntax, so the comparison runs in a child process
  const script = `
    const { anchoredInstances } = await import(${JSON.stringify(join(DIST, 'v8', 'map-anchors.js'))});
    const { RecordBatch } = await import(${JSON.stringify(join(DIST, 'record', 'batch.js'))});
    const { BatchReader } = await import(${JSON.stringify(join(DIST, 'record', 'batches.js'))});
    const { ByteReader } = await import(${JSON.stringify(join(DIST, 'bytes', 'varint.js'))});
    const { encodeRecordBatch } = await import(${JSON.stringify(join(DIST, 'record', 'builder.js'))});
    const records = encodeRecordBatch([{ key: Buffer.from('k'), value: Buffer.alloc(100, 1) }]);
    // as the Produce path builds them: a reader over the request's records, its batches, their records' readers
    const reader = new BatchReader(records, { verifyCrc: false });
    const batch = reader.nextBatch();
    const built = { RecordBatch: batch, BatchReader: reader, ByteReader: new ByteReader(records, 0, records.length) };
    const result = {};
    for (const [name, instance] of Object.entries(built)) {
      const anchor = anchoredInstances().find((a) => a.constructor === instance.constructor);
      result[name] = anchor === undefined ? 'no anchor' : %HaveSameMap(anchor, instance) ? 'same' : 'different';
    }
    console.log(JSON.stringify(result));
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { RecordBatch: 'same', BatchReader: 'same', ByteReader: 'same' });
});

/** The Produce path's functions (ours) whose optimized code a full collection must not drop. */
const PRODUCE_PATH = /^(get (magic|baseOffset|length|sizeInBytes|lastOffsetDelta|attributeByte|recordsCount)|validateAndAssignOffsets|assignOffsetsNonCompressed|validateBatch|scanV2|nextBatch|appendToLog|handleFrame|flushAllAtTurnEnd|scheduleFlush|readStruct|writeStruct|ByteReader|Cursor|ChunkWriter|Validator)$/;

test('a full collection after the only client left drops none of the Produce path optimized code', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kl-anchors-'));
  const gcOnSignal = join(REPO_ROOT, 'dist', 'test', 'helpers', 'gc-on-signal.js');
  const broker = spawnServe(dataDir, { nodeFlags: ['--trace-opt', '--trace-deopt', '--expose-gc', '--import', gcOnSignal] });
  try {
    const port = await broker.listening;
    const client = await RawClient.connect(port);
    client.send(encodeRequestFrame(19, 5, client.correlationId(), { topics: [{ name: 'anchors', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false }));
    await client.nextFrame();
    const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }]);
    // enough one-at-a-time requests for V8 to optimize the path (it does within about 1,000)
    for (let i = 0; i < 4000; i++) {
      client.send(encodeRequestFrame(0, 9, client.correlationId(), { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: 'anchors', partitionData: [{ index: 0, records }] }] }));
      await client.nextFrame();
    }
    client.socket.destroy();
    await sleep(300);
    const from = broker.stdout().length;
    broker.child.kill('SIGUSR2');
    await broker.waitFor('[gc-on-signal: full collection done]', from);
    const out = broker.stdout();
    const optimized = new Set([...out.slice(0, from).matchAll(/\[completed (?:optimizing|compiling) [^<]*<JSFunction ([^ >]+)/g)].map((m) => m[1]));
    assert.ok([...optimized].some((n) => PRODUCE_PATH.test(n!)), 'the trace shows the Produce path (the test would prove nothing otherwise)');
    const dropped = out
      .slice(from)
      .split('\n')
      .filter((l) => l.startsWith('[marking dependent code') && l.includes('reason: weak objects'))
      .map((l) => /<SharedFunctionInfo ?([^>]*)>/.exec(l)?.[1] ?? '')
      .filter((n) => PRODUCE_PATH.test(n));
    assert.deepEqual(dropped, []);
  } finally {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
