/**
 * Exactly-once across broker crashes: `kafkalite serve` runs as a child process while a
 * confluent-kafka-python (librdkafka 2.0.2) consume-transform-produce loop runs against it
 * (test/interop/py/broker_txn_confluent.py, scenario ctp_crash: begin, produce, send_offsets,
 * commit; after any error a new producer fences the old one and the consumer rewinds to the
 * group's committed offset). The broker is SIGKILLed at random moments and restarted on the same
 * data directory and port. Afterwards every input record appears exactly once in the committed
 * output, in order, the group's committed offset is the input's end, no partition is left with an
 * open transaction, and after a clean shutdown `kafkalite verify` finds the data directory clean.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/paths.js';
import { runPythonAsync } from '../helpers/python-peer.js';

const BIN = join(REPO_ROOT, 'bin', 'kafkalite.js');

async function startBroker(dataDir: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', '--config', 'auto.create.topics.enable=true'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`broker did not start in 20 s:\n${out}\n${err}`));
    }, 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /kafkalite broker listening on [^\s:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`broker exited (${code ?? signal}) before listening:\n${out}\n${err}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Deterministic pseudo-random delays (mulberry32), the seed reported with the test. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('consume-transform-produce survives SIGKILLs of the broker: every input record exactly once in the committed output', async (t) => {
  const seed = Number(process.env.KAFKALITE_TXN_CRASH_SEED ?? Date.now() % 1_000_000);
  t.diagnostic(`seed ${seed} (KAFKALITE_TXN_CRASH_SEED to replay)`);
  const rand = random(seed);
  const kills = 30;
  const count = 3000;
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-txn-crash-'));
  let broker = await startBroker(dataDir, 0);
  const port = broker.port;
  const bootstrap = `127.0.0.1:${port}`;
  try {
    const input = await runPythonAsync<{ undelivered: number }>('broker_txn_confluent.py', { bootstrap, scenario: 'produce_input', count });
    assert.equal(input.undelivered, 0);
    let loopDone = false;
    const loop = runPythonAsync<{ commits: number; failures: string[]; producers: number; exception?: unknown }>(
      'broker_txn_confluent.py',
      { bootstrap, scenario: 'ctp_crash', count, batch: 5, group: 'crash-app', tid: 'crash-txn', deadline_s: 240 },
      { timeoutMs: 300_000 },
    ).finally(() => (loopDone = true));
    let killed = 0;
    while (killed < kills && !loopDone) {
      await sleep(50 + rand() * 450);
      broker.child.kill('SIGKILL');
      await exited(broker.child);
      killed++;
      await sleep(rand() * 100);
      broker = await startBroker(dataDir, port);
    }
    const r = await loop;
    t.diagnostic(`${killed} kills; ${r.commits} commits; ${r.producers} producers; failures seen: ${[...new Set(r.failures)].join(', ')}`);
    assert.equal(r.exception, undefined, JSON.stringify(r.exception));
    assert.ok(killed >= 1, 'the broker was killed while the loop ran');
    const read = await runPythonAsync<{ output: { value: string }[]; committed_offset: number }>('broker_txn_confluent.py', { bootstrap, scenario: 'read', count, group: 'crash-app' });
    assert.deepEqual(read.output.map((o) => o.value), Array.from({ length: count }, (_, i) => `out-in-${i}`));
    assert.equal(read.committed_offset, count);
    broker.child.kill('SIGTERM');
    await exited(broker.child);
    const verify = spawnSync(process.execPath, [BIN, 'verify', dataDir], { encoding: 'utf8' });
    assert.equal(verify.status, 0, `verify after a clean shutdown:\n${verify.stdout}\n${verify.stderr}`);
  } finally {
    broker.child.kill('SIGKILL');
    await exited(broker.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
