/**
 * A failed log directory halts the broker, as Kafka halts one whose only log directory is offline
 * (issue 17, finding 3; `LogDirFailureChannel`, `ReplicaManager.handleLogDirFailure`): what is in
 * flight is answered with KAFKA_STORAGE_ERROR or normally, one log line names the file and the
 * errno, `'error'` is emitted and the broker closes without the clean-shutdown marker, no request
 * takes effect without an answer saying so, and `kafkalite serve` exits non-zero. A restart then
 * has every acknowledged record.
 *
 * The failures are real ones: EPERM from `chattr +i` on the active segment (e2fsprogs) and ENOSPC
 * on a 20 MiB tmpfs (`mount -t tmpfs`), both root-only; CI runs as root.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Broker } from '../../src/broker/broker.js';
import { createLogger } from '../../src/broker/logger.js';
import { formatProblem, verifyPath } from '../../src/cli/verify.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { CLEAN_SHUTDOWN_FILE } from '../../src/storage/file-names.js';
import { storedRecords } from '../helpers/broker.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { encodeRequestFrame, decodeResponseFrame, RawClient } from '../helpers/raw-client.js';
import { MAP_AFTER_WRITES } from '../../src/storage/mapped-tail.js';

const require = createRequire(import.meta.url);
interface KProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(r: { topic: string; acks?: number; messages: { value: string }[] }): Promise<unknown>;
}
interface KConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topic: string; fromBeginning: boolean }): Promise<void>;
  run(r: { eachMessage: (p: { message: { value: Buffer | null } }) => Promise<void> }): Promise<void>;
}
const { Kafka, logLevel } = require('kafkajs') as {
  Kafka: new (o: object) => { producer(o?: object): KProducer; consumer(o: object): KConsumer };
  logLevel: { NOTHING: number };
};

const produce = (topic: string, records: Buffer, acks = -1) => ({ transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
const createTopic = (name: string) => ({ topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
const fetch = (topic: string, offset: bigint) => ({
  replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 8 << 20, isolationLevel: 0,
  topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 8 << 20 }] }],
});

/** A logger that keeps its lines (and prints nothing). */
function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger('warn', (l) => lines.push(l)), lines };
}

function verifyErrors(dataDir: string): string[] {
  return verifyPath(dataDir).problems.filter((p) => p.severity === 'error').map(formatProblem);
}

function values(dataDir: string, topic: string): string[] {
  return storedRecords(dataDir, topic, 0).map((r) => r.value!.toString());
}

describe('a failed log directory', () => {
  test('EPERM on the active segment: the pipelined requests are answered KAFKA_STORAGE_ERROR, none takes effect, and the broker halts', async () => {
    const dataDir = mkdtempSync(join(process.env.KAFKALITE_DISK_TMPDIR ?? tmpdir(), 'kafkalite-logdir-eperm-'));
    const segment = join(dataDir, 'doomed-0', '00000000000000000000.log');
    // more than MAP_AFTER_WRITES: the later ones are copied into the mapped tail (mapped-tail.ts),
    // so the failing append meets the mapping's refused page fault, which must not kill the broker
    const ACKNOWLEDGED = MAP_AFTER_WRITES + 4;
    let immutable = false;
    try {
      const { logger, lines } = capturingLogger();
      const broker = await Broker.start({ dataDir, logger });
      const halted = once(broker, 'error');
      try {
        const c = await RawClient.connect(broker.port);
        for (const t of ['doomed', 'other']) assert.equal(errorName((await c.request(19, 4, createTopic(t))).topics[0].errorCode), 'NONE');
        for (let i = 0; i < ACKNOWLEDGED; i++) {
          const a = await c.request(0, 7, produce('doomed', encodeRecordBatch([{ value: Buffer.from(`acknowledged-${i}`) }])));
          assert.equal(errorName(a.responses[0].partitionResponses[0].errorCode), 'NONE');
        }
        assert.equal(broker.logs.resources.mappedTails?.windows, 1, 'the later appends went through the mapped tail');
        execFileSync('chattr', ['+i', segment]);
        immutable = true;
        // one write: a Produce whose held write fails, then requests that change the log directory
        const ids = [c.correlationId(), c.correlationId(), c.correlationId(), c.correlationId(), c.correlationId()];
        const answers = Array.from({ length: 5 }, () => c.nextFrame());
        c.send([
          encodeRequestFrame(0, 7, ids[0]!, produce('doomed', encodeRecordBatch([{ value: Buffer.from('never acknowledged') }]))),
          encodeRequestFrame(21, 1, ids[1]!, { topics: [{ name: 'doomed', partitions: [{ partitionIndex: 0, offset: -1n }] }], timeoutMs: 5000 }),
          encodeRequestFrame(19, 4, ids[2]!, createTopic('created-after')),
          encodeRequestFrame(20, 4, ids[3]!, { topicNames: ['other'], timeoutMs: 5000 }),
          encodeRequestFrame(18, 3, ids[4]!, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' }),
        ]);
        const [p, d, ct, dt, av] = await Promise.all(answers);
        const body = (key: number, version: number, frame: Buffer, id: number) => {
          const r = decodeResponseFrame(key, version, frame);
          assert.equal(r.correlationId, id);
          return r.body;
        };
        assert.equal(errorName(body(0, 7, p!, ids[0]!).responses[0].partitionResponses[0].errorCode), 'KAFKA_STORAGE_ERROR');
        assert.equal(errorName(body(21, 1, d!, ids[1]!).topics[0].partitions[0].errorCode), 'KAFKA_STORAGE_ERROR');
        assert.equal(errorName(body(19, 4, ct!, ids[2]!).topics[0].errorCode), 'KAFKA_STORAGE_ERROR');
        assert.equal(errorName(body(20, 4, dt!, ids[3]!).responses[0].errorCode), 'KAFKA_STORAGE_ERROR');
        // ApiVersions depends on no log: answered as always
        assert.equal(errorName(body(18, 3, av!, ids[4]!).errorCode), 'NONE');
        const [error] = (await halted) as [Error & { code?: string }];
        assert.equal(error.code, 'STORAGE_ERROR');
        assert.equal(broker.isClosing, true);
        await c.closed;
        // one line names the file and the errno
        const failureLines = lines.filter((l) => l.includes('log directory') && l.includes('failed: EPERM'));
        assert.equal(failureLines.length, 1, lines.join('\n'));
        assert.ok(failureLines[0]!.includes(segment));
      } finally {
        await broker.close();
      }
      assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), false, 'no clean-shutdown marker');
      execFileSync('chattr', ['-i', segment]);
      immutable = false;
      // the restart: what was acknowledged is there, and nothing the failed requests asked for happened
      const again = await Broker.start({ dataDir, logLevel: 'silent' });
      try {
        assert.deepEqual(again.topics.all().map((t) => t.name), ['doomed', 'other']);
        const log = again.logs.getLog('doomed', 0)!;
        assert.equal(log.logStartOffset, 0n, 'DeleteRecords did not take effect');
        assert.equal(log.logEndOffset, BigInt(ACKNOWLEDGED));
      } finally {
        await again.close();
      }
      assert.deepEqual(values(dataDir, 'doomed'), Array.from({ length: ACKNOWLEDGED }, (_, i) => `acknowledged-${i}`));
      assert.deepEqual(verifyErrors(dataDir), []);
    } finally {
      if (immutable) execFileSync('chattr', ['-i', segment]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a full disk (20 MiB tmpfs) under kafkajs load: answers are NONE or KAFKA_STORAGE_ERROR, the broker halts, and a restart with space has every acknowledged record', { timeout: 180_000 }, async () => {
    const mnt = mkdtempSync(join(process.env.KAFKALITE_DISK_TMPDIR ?? tmpdir(), 'kafkalite-logdir-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', mnt]);
    try {
      const dataDir = join(mnt, 'data');
      const { logger, lines } = capturingLogger();
      const broker = await Broker.start({ dataDir, logger, config: { 'log.segment.bytes': String(4 << 20), 'num.partitions': '1' } });
      let failed = false;
      const halted = once(broker, 'error').then(([e]) => {
        failed = true;
        return e as Error & { code?: string };
      });
      const kafka = new Kafka({ clientId: 'disk-full', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000, requestTimeout: 10_000 });
      const producer = kafka.producer({ allowAutoTopicCreation: true });
      await producer.connect();
      const acked: string[] = [];
      const kafkajsFailures: unknown[] = [];
      const filler = 'x'.repeat(1000);
      // four kafkajs sends in flight at a time, each 50 records of 1 KB, until the broker halts
      const sender = async (w: number) => {
        for (let i = 0; !failed; i++) {
          const batch = Array.from({ length: 50 }, (_, k) => `k${w}-${i}-${k}:${filler}`);
          try {
            await producer.send({ topic: 'full', acks: -1, messages: batch.map((value) => ({ value })) });
            acked.push(...batch.map((v) => v.split(':')[0]!));
          } catch (e) {
            kafkajsFailures.push(e);
            return;
          }
        }
      };
      // and a raw client that records every answer's error code, one request at a time
      const rawCodes: string[] = [];
      const rawAcked: string[] = [];
      const raw = async () => {
        const c = await RawClient.connect(broker.port);
        try {
          for (let i = 0; !failed; i++) {
            const batch = Array.from({ length: 20 }, (_, k) => `r-${i}-${k}`);
            let a;
            try {
              a = await c.request(0, 7, produce('full', encodeRecordBatch(batch.map((v) => ({ value: Buffer.from(`${v}:${filler}`) })))));
            } catch {
              return; // closed by the halting broker
            }
            const code = errorName(a.responses[0].partitionResponses[0].errorCode) ?? String(a.responses[0].partitionResponses[0].errorCode);
            rawCodes.push(code);
            if (code === 'NONE') rawAcked.push(...batch);
          }
        } finally {
          c.destroy();
        }
      };
      await Promise.all([sender(0), sender(1), sender(2), sender(3), raw(), halted]);
      const error = await halted;
      assert.equal(error.code, 'STORAGE_ERROR');
      assert.ok(acked.length > 0 && rawAcked.length > 0, 'records were acknowledged before the disk filled');
      assert.deepEqual([...new Set(rawCodes)].filter((c) => c !== 'NONE' && c !== 'KAFKA_STORAGE_ERROR'), []);
      const failureLines = lines.filter((l) => l.includes('log directory') && l.includes('failed: ENOSPC'));
      assert.equal(failureLines.length, 1, lines.join('\n'));
      assert.ok(failureLines[0]!.includes(mnt), 'the line names the file');
      await producer.disconnect().catch(() => undefined);
      await broker.close();
      assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), false, 'no clean-shutdown marker');
      // space freed: the same directory, remounted larger, as a supervisor's restart would find it
      execFileSync('mount', ['-o', 'remount,size=256m', mnt]);
      const again = await Broker.start({ dataDir, logLevel: 'silent' });
      try {
        const consumed = new Set<string>();
        const want = [...acked, ...rawAcked];
        const consumer = new Kafka({ clientId: 'disk-full-check', brokers: [again.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: 'check' });
        await consumer.connect();
        await consumer.subscribe({ topic: 'full', fromBeginning: true });
        const all = new Promise<void>((resolve) => {
          void consumer.run({
            eachMessage: async ({ message }) => {
              consumed.add(message.value!.toString().split(':')[0]!);
              if (want.every((v) => consumed.has(v))) resolve();
            },
          });
        });
        await all;
        await consumer.disconnect();
        assert.deepEqual(want.filter((v) => !consumed.has(v)), [], 'every acknowledged record is there');
        // and the broker works again
        const c = await RawClient.connect(again.port);
        assert.equal(errorName((await c.request(0, 7, produce('full', encodeRecordBatch([{ value: Buffer.from('after') }])))).responses[0].partitionResponses[0].errorCode), 'NONE');
        assert.equal(errorName((await c.request(1, 11, fetch('full', 0n))).responses[0].partitions[0].errorCode), 'NONE');
        c.destroy();
      } finally {
        await again.close();
      }
      assert.deepEqual(verifyErrors(dataDir), []);
    } finally {
      execFileSync('umount', ['-l', mnt]);
      rmSync(mnt, { recursive: true, force: true });
    }
  });

  test('a roll that fails (immutable partition directory) writes no offset twice: verify is clean after the restart and dump-log shows dense offsets', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(process.env.KAFKALITE_DISK_TMPDIR ?? tmpdir(), 'kafkalite-logdir-roll-'));
    const partitionDir = join(dataDir, 'rolling-0');
    let immutable = false;
    try {
      const broker = await Broker.start({ dataDir, logLevel: 'silent', config: { 'log.segment.bytes': '20000', 'num.partitions': '1' } });
      const halted = once(broker, 'error');
      const acked: string[] = [];
      try {
        const kafka = new Kafka({ clientId: 'roll-fail', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000 });
        const producer = kafka.producer({ allowAutoTopicCreation: true });
        await producer.connect();
        const filler = 'y'.repeat(300);
        let i = 0;
        // ten records per request, up to just before the first roll
        const send = async () => {
          const batch = Array.from({ length: 10 }, (_, k) => `m${i}-${k}`);
          i++;
          await producer.send({ topic: 'rolling', acks: -1, messages: batch.map((v) => ({ value: `${v}:${filler}` })) });
          acked.push(...batch);
        };
        while (broker.logs.getLog('rolling', 0) === undefined || broker.logs.getLog('rolling', 0)!.activeSegment.size < 20000 - 2 * 3500) await send();
        assert.equal(broker.logs.getLog('rolling', 0)!.segmentCount, 1);
        execFileSync('chattr', ['+i', partitionDir]);
        immutable = true;
        // the next sends need the roll, which fails with EPERM; none of them is acknowledged
        const failures: unknown[] = [];
        for (let k = 0; k < 8; k++) {
          try {
            await send();
          } catch (e) {
            failures.push(e);
          }
        }
        assert.ok(failures.length > 0);
        await halted;
        assert.match(broker.logDirFailure?.errno ?? '', /^EPERM$/);
        await producer.disconnect().catch(() => undefined);
      } finally {
        await broker.close();
      }
      execFileSync('chattr', ['-i', partitionDir]);
      immutable = false;
      // the restart recovers, a clean one follows, and the segments hold every offset once
      for (let restart = 0; restart < 2; restart++) {
        const again = await Broker.start({ dataDir, logLevel: 'silent', config: { 'log.segment.bytes': '20000' } });
        await again.close();
        const verify = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'verify', dataDir]);
        assert.equal(verify.status, 0, `kafkalite verify after restart ${restart + 1}:\n${verify.stdout.toString()}${verify.stderr.toString()}`);
      }
      const logs = readdirSync(partitionDir).filter((n) => n.endsWith('.log')).sort().map((n) => join(partitionDir, n));
      const dump = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'dump-log', '--files', logs.join(','), '--json']);
      assert.equal(dump.status, 0, dump.stderr.toString());
      const batches = dump.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { baseOffset: number; lastOffset: number });
      let next = 0;
      for (const b of batches) {
        assert.equal(b.baseOffset, next, 'offsets are dense, each once');
        next = b.lastOffset + 1;
      }
      assert.equal(next, acked.length, 'every acknowledged record, and nothing more');
      assert.deepEqual(values(dataDir, 'rolling').map((v) => v.split(':')[0]), acked);
    } finally {
      if (immutable) execFileSync('chattr', ['-i', partitionDir]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('kafkalite serve exits non-zero when its log directory fails', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(process.env.KAFKALITE_DISK_TMPDIR ?? tmpdir(), 'kafkalite-logdir-serve-'));
    const segment = join(dataDir, 'served-0', '00000000000000000000.log');
    let immutable = false;
    try {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /listening on [^:]+:(\d+)/.exec(stdout);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const c = await RawClient.connect(port);
      assert.equal(errorName((await c.request(19, 4, createTopic('served'))).topics[0].errorCode), 'NONE');
      assert.equal(errorName((await c.request(0, 7, produce('served', encodeRecordBatch([{ value: Buffer.from('one') }])))).responses[0].partitionResponses[0].errorCode), 'NONE');
      execFileSync('chattr', ['+i', segment]);
      immutable = true;
      const a = await c.request(0, 7, produce('served', encodeRecordBatch([{ value: Buffer.from('two') }])));
      assert.equal(errorName(a.responses[0].partitionResponses[0].errorCode), 'KAFKA_STORAGE_ERROR');
      assert.equal(await exited, 1);
      assert.match(stderr, /log directory .* failed: EPERM on .*00000000000000000000\.log/);
      c.destroy();
    } finally {
      if (immutable) execFileSync('chattr', ['-i', segment]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
