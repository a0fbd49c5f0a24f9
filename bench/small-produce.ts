/**
 * `node dist/bench/small-produce.js` (issues 24 and 18): the broker's CPU time and system calls per
 * small request. A raw client (test/helpers/raw-client.ts) sends Produce v9 requests of one 100 B
 * record (acks=-1) one at a time, each after the previous answer, to a kafkalite broker in its own
 * process. After BENCH_SMALL_WARMUP (6,000) unmeasured requests, BENCH_SMALL_COUNT (5,000) are
 * measured: the broker's CPU time from /proc/<pid>/task/<tid>/schedstat (and the tick-sampled
 * user/system split from /proc/<pid>/stat), and with BENCH_SMALL_STRACE=1 its
 * system calls, counted by `strace -f -c -p <pid>` attached for the measured requests only. Unlike
 * timings on a shared machine, the syscall counts are deterministic enough to compare builds.
 * BENCH_BROKER_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to the broker's node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeRecordBatch } from '../src/record/builder.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { RawClient, encodeRequestFrame } from '../test/helpers/raw-client.js';
import { cpuMsOf } from './proc-cpu.js';

const WARMUP = Number(process.env.BENCH_SMALL_WARMUP ?? 6000);
const COUNT = Number(process.env.BENCH_SMALL_COUNT ?? 5000);
const STRACE = process.env.BENCH_SMALL_STRACE === '1';
const NODE_FLAGS = process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
const PRODUCE = 0;
const CREATE_TOPICS = 19;
const TOPIC = 'small-produce';

function startBroker(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on [^:]+:(\d+)/.exec(line);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`broker exited with ${code} before listening`)));
  });
}

/** [utime, stime] of a process, in µs (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMicros(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) * 10_000, Number(fields[12]) * 10_000];
}

/** One thread's on-CPU time in µs (its schedstat). */
function threadCpuMicros(pid: number, tid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
}

async function produceLoop(client: RawClient, n: number): Promise<void> {
  const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }]);
  for (let i = 0; i < n; i++) {
    const frame = encodeRequestFrame(PRODUCE, 9, client.correlationId(), { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
    client.send(frame);
    await client.nextFrame();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kl-small-'));
  const { child, port } = await startBroker(dataDir);
  const pid = child.pid!;
  try {
    const client = await RawClient.connect(port);
    client.send(encodeRequestFrame(CREATE_TOPICS, 5, client.correlationId(), { topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false }));
    await client.nextFrame();
    await produceLoop(client, WARMUP);
    let strace: ChildProcess | null = null;
    let straceOut = '';
    if (STRACE) {
      strace = spawn('strace', ['-f', '-c', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
      strace.stderr!.on('data', (d: Buffer) => (straceOut += d.toString()));
      await sleep(1000); // strace attaches to every thread before it counts
    }
    const cpu0 = cpuMicros(pid);
    const sched0 = 1000 * cpuMsOf(pid);
    const main0 = threadCpuMicros(pid, pid);
    const t0 = process.hrtime.bigint();
    await produceLoop(client, COUNT);
    const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
    const sched = 1000 * cpuMsOf(pid) - sched0;
    const main = threadCpuMicros(pid, pid) - main0;
    const cpu1 = cpuMicros(pid);
    const user = cpu1[0] - cpu0[0];
    const sys = cpu1[1] - cpu0[1];
    if (strace) {
      const done = new Promise((r) => strace!.once('exit', r));
      strace.kill('SIGINT');
      await done;
    }
    console.log(`${COUNT} Produce requests (1 record of 100 B, acks=-1) one at a time: broker CPU ${(sched / COUNT).toFixed(1)} µs/request, main thread ${(main / COUNT).toFixed(1)} (schedstat; ticks: user ${(user / COUNT).toFixed(1)}, system ${(sys / COUNT).toFixed(1)}), round trip ${(wallUs / COUNT).toFixed(1)} µs/request`);
    if (strace) {
      console.log(straceOut);
      const total = /^\s*100\.00\s+\S+\s+\S+\s+(\d+)\s+(?:\d+\s+)?total$/m.exec(straceOut);
      if (total) console.log(`system calls per request: ${(Number(total[1]) / COUNT).toFixed(2)}`);
    }
    client.socket.destroy();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
