/**
 * Restart durability: `kafkalite serve` runs as a child process while kafkajs 2.2.4 (in this
 * process) produces with acks=all without pause; the broker is killed at random moments — SIGKILL
 * (a crash: recovery from the segment files) and SIGTERM (a clean shutdown, which must leave
 * `.kafka_cleanshutdown`, Kafka `CleanShutdownFileHandler`) — and restarted on the same data directory and port.
 *
 * What must hold at the end, read from the log files (CRCs verified):
 *  - every acknowledged record is stored, at the offset the broker acknowledged it at;
 *  - offsets are dense from 0;
 *  - no record is stored more often than the client sent it (a send that failed with the
 *    connection may have been appended before the kill, and is then stored once more when it
 *    is retried: that duplicate, and only that, is allowed);
 *  - with the idempotent producer, no record is stored twice at all: the retried batch carries
 *    the same producer id and sequence, and the restarted broker, having rebuilt its producer
 *    state from the log and snapshots, answers it as a duplicate (Kafka `ProducerStateManager`,
 *    `UnifiedLog.analyzeAndValidateProducerState`).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { storedRecords } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { UNIT_TIER } from '../../helpers/tier.js';
import { CLEAN_SHUTDOWN_FILE } from '../../../src/storage/file-names.js';

const require = createRequire(import.meta.url);

interface KafkajsProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; acks: number; messages: { key: string; value: string; partition: number; timestamp: string }[] }): Promise<{ errorCode: number; baseOffset: string }[]>;
}
const { Kafka, logLevel } = require('kafkajs') as {
  Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number; retry: { retries: number }; connectionTimeout: number; requestTimeout: number }) => {
    producer(o: { idempotent?: boolean; maxInFlightRequests?: number; retry?: { retries: number; initialRetryTime?: number; maxRetryTime?: number } }): KafkajsProducer;
  };
  logLevel: { NOTHING: number };
};

const BIN = join(REPO_ROOT, 'bin', 'kafkalite.js');
const TOPIC = 'durable';
/**
 * Record timestamps: T0 + record id. T0 is now, not a fixed date: a producer whose last batch is
 * older than producer.id.expiration.ms (1 day) is dropped when its state is loaded from a snapshot
 * (Kafka `ProducerStateManager.isProducerExpired`, on the batch's CreateTime). With a 2023 T0 a
 * restart whose snapshot sat at the log end forgot the producer, and the retry of a batch appended
 * just before a kill was stored again, as Kafka would store it: about 1 run in 10 under load.
 */
const T0 = Date.now();
const PER_SEND = 7;

/** A `kafkalite serve` child; resolves once it printed its listening line. */
async function startBroker(dataDir: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', '--config', 'log.segment.bytes=65536'], {
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

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
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

const idOf = (value: string): number => Number(/^rec-(\d+)-/.exec(value)![1]);

async function killAndRestart(t: TestContext, idempotent: boolean): Promise<void> {
  const seed = Number(process.env.KAFKALITE_RESTART_SEED ?? Date.now() % 1_000_000);
  t.diagnostic(`seed ${seed} (KAFKALITE_RESTART_SEED to replay)`);
  const rand = random(seed);
  const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-restart-'));
  let broker = await startBroker(dataDir, 0);
  const port = broker.port;
  const attempts = new Map<number, number>();
  const acked = new Map<number, bigint>(); // id -> offset the broker acknowledged it at
  let stop = false;
  let producerError: unknown;
  const kafka = new Kafka({ clientId: 'kafkalite-restart', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 1000, requestTimeout: 5000 });
  const producer = kafka.producer({ idempotent, maxInFlightRequests: 1, // the idempotent producer retries inside kafkajs, keeping its sequence numbers (a send given up
  // and sent again by the application would get new ones)
  retry: idempotent ? { retries: 1_000_000, initialRetryTime: 50, maxRetryTime: 300 } : { retries: 0 } });

  // connected first: the idempotent producer gets its producer id in connect(), and a send that
  // raced ahead of it went out without one (not idempotent, so a retry could store it twice)
  await producer.connect();
  // produce without pause: each send is retried (same messages, same bytes) until acknowledged
  const producing = (async () => {
    let next = 0;
    while (!stop) {
      const ids = Array.from({ length: PER_SEND }, (_, j) => next + j);
      const messages = ids.map((id) => ({ key: `k${id % 11}`, value: `rec-${id}-${'d'.repeat(40 + (id % 90))}`, partition: 0, timestamp: String(T0 + id) }));
      for (;;) {
        for (const id of ids) attempts.set(id, (attempts.get(id) ?? 0) + 1);
        try {
          const [r] = await producer.send({ topic: TOPIC, acks: -1, messages });
          assert.equal(errorName(r?.errorCode), 'NONE');
          ids.forEach((id, j) => acked.set(id, BigInt(r!.baseOffset) + BigInt(j)));
          break;
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          await sleep(50);
        }
      }
      next += PER_SEND;
    }
  })().catch((e: unknown) => {
    producerError = e;
  });

  try {
    // the unit tier (test/tiers.ts) kills once each way
    const kills: NodeJS.Signals[] = UNIT_TIER ? ['SIGKILL', 'SIGTERM'] : ['SIGKILL', 'SIGKILL', 'SIGTERM', 'SIGKILL'];
    // the unit tier kills sooner: producing runs both processes flat out, so the window is its CPU
    // (the kill still lands at a random moment: after at least five acknowledged sends, then 0-200 ms)
    const [minDelay, spread] = UNIT_TIER ? [0, 200] : [300, 1200];
    for (const signal of kills) {
      const before = acked.size;
      await sleep(minDelay + Math.floor(rand() * spread));
      // at least some progress between kills, or the kill proves nothing
      for (let waited = 0; acked.size < before + PER_SEND * 5 && waited < 20_000; waited += 50) await sleep(50);
      assert.ok(acked.size >= before + PER_SEND * 5, `no progress before ${signal}: ${acked.size} acknowledged`);
      broker.child.kill(signal);
      const end = await exited(broker.child);
      if (signal === 'SIGTERM') {
        assert.equal(end.code, 0, `clean shutdown exited ${end.code ?? end.signal}`);
        assert.ok(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), `${CLEAN_SHUTDOWN_FILE} missing after SIGTERM`);
      } else {
        assert.equal(end.signal, 'SIGKILL');
        assert.ok(!existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), `${CLEAN_SHUTDOWN_FILE} present after a crash`);
      }
      // the producer's sends fail meanwhile, each retried after 50 ms
      await sleep(Math.floor(rand() * (UNIT_TIER ? 100 : 300)));
      broker = await startBroker(dataDir, port);
    }
    const before = acked.size;
    for (let waited = 0; acked.size < before + PER_SEND * 5 && waited < 20_000; waited += 50) await sleep(50);
  } finally {
    stop = true;
    await producing;
    await producer.disconnect().catch(() => {});
    broker.child.kill('SIGTERM');
    await exited(broker.child);
  }
  try {
    assert.equal(producerError, undefined);
    const records = storedRecords(dataDir, TOPIC, 0);
    t.diagnostic(`${acked.size} records acknowledged, ${records.length} stored, ${[...attempts.values()].filter((n) => n > 1).length} sent more than once`);
    assert.deepEqual(records.map((r) => r.offset), records.map((_, i) => BigInt(i)), 'offsets are not dense');
    const storedAt = new Map<bigint, number>();
    const copies = new Map<number, number>();
    for (const r of records) {
      const value = r.value!.toString();
      const id = idOf(value);
      storedAt.set(r.offset, id);
      copies.set(id, (copies.get(id) ?? 0) + 1);
      assert.equal(r.timestamp, BigInt(T0 + id));
    }
    for (const [id, offset] of acked) assert.equal(storedAt.get(offset), id, `acknowledged record ${id} is not at offset ${offset}`);
    for (const [id, n] of copies) {
      assert.ok(n <= (attempts.get(id) ?? 0), `record ${id} stored ${n} times but sent ${attempts.get(id) ?? 0} times`);
      if (idempotent) assert.equal(n, 1, `idempotent producer: record ${id} stored ${n} times`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('kill -9 and SIGTERM during acks=all producing: nothing acknowledged is lost, offsets dense', async (t) => {
  await killAndRestart(t, false);
});

test('idempotent producer across crashes and restarts: nothing lost, nothing duplicated', async (t) => {
  await killAndRestart(t, true);
});
