/**
 * Restart time with many partitions (issue 21):
 * `node dist/bench/partitions-restart.js <parent-dir> <topics> [rounds=3] [--warm]`
 *
 * Fills `<parent-dir>/kafkalite-restart-<topics>` once (kept for later runs): `topics` topics of 5
 * partitions through `TopicRegistry.create` and one record appended to each partition, then a clean
 * close. Each round then starts `kafkalite serve` on it (`KAFKALITE_ROOT=<checkout>` runs another
 * build) and reports, at the first successful TCP connect:
 *   - clean: a start after a clean stop (SIGTERM);
 *   - unclean: a start after a SIGKILL of a broker that was listening.
 * Figures: wall time to listen, the process's CPU time (user + system, /proc/<pid>/stat) by then,
 * RSS and open descriptors. With `--warm`, the clean start is also followed
 * until the broker logs that the logs left for first use are all open, with its CPU and RSS then.
 * The first start after filling is untimed (it writes `kafkalite-producer-ids`, which a directory
 * filled without a broker lacks).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { TopicRegistry } from '../src/broker/topic-registry.js';
import type { ClusterMetadataLog } from '../src/internal-topics/metadata-log.js';
import { encodeRecordBatch } from '../src/record/builder.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { LogManager } from '../src/storage/log-manager.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const warm = process.argv.includes('--warm');
const parent = args[0] ?? '/dev/shm';
const topicCount = Number(args[1] ?? 200);
const rounds = Number(args[2] ?? 3);
const root = process.env['KAFKALITE_ROOT'] ?? join(import.meta.dirname, '..', '..');
const dir = join(parent, `kafkalite-restart-${topicCount}`);
const FILLED = '.bench-filled';

function fill(): void {
  let metadata: ClusterMetadataLog | undefined;
  const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m)), DEFAULT_LOG_CONFIG) });
  const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
  topics.load(logs);
  const began = performance.now();
  for (let i = 0; i < topicCount; i += 100) {
    topics.batch(() => {
      for (let j = i; j < i + 100 && j < topicCount; j++) topics.create(`t${j}`, 5, {}, logs);
    });
    for (let j = i; j < i + 100 && j < topicCount; j++) {
      for (let p = 0; p < 5; p++) logs.getLog(`t${j}`, p)!.append(encodeRecordBatch([{ key: null, value: `t${j}-${p}`, timestamp: BigInt(Date.now()) }]));
    }
  }
  logs.close();
  writeFileSync(join(dir, FILLED), '');
  console.log(`filled ${dir}: ${topicCount * 5} partitions in ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
}

function usage(pid: number): { rssMiB: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round(rss / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
}

interface Started {
  child: ChildProcess;
  seconds: number;
  cpu: number;
  rssMiB: number;
  fds: number;
}

async function start(watch = false): Promise<Started> {
  const port = await freePort();
  const began = performance.now();
  const level = watch ? 'info' : 'warn';
  const child = spawn('node', [join(root, 'bin', 'kafkalite.js'), 'serve', '--port', String(port), '--data-dir', dir, '--log-level', level], { stdio: ['ignore', 'ignore', watch ? 'pipe' : 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  while (!(await canConnect(port))) {
    if (exited) throw new Error(`kafkalite serve exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - began) / 1000;
  return { child, seconds, cpu: cpuSeconds(child.pid!), ...usage(child.pid!) };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // serve takes SIGTERM once it is up; a signal in the moment after the listener opens would kill it
  if (signal === 'SIGTERM') await new Promise((r) => setTimeout(r, 1000));
  child.kill(signal);
  const code = await exited;
  if (signal === 'SIGTERM' && code !== 0) throw new Error(`kafkalite serve exited with ${code} after SIGTERM: not a clean stop`);
}

/** Waits for the broker's line saying the logs left for first use are open (serve at --log-level info). */
async function settle(child: ChildProcess, since: number): Promise<{ seconds: number; cpu: number; rssMiB: number }> {
  await new Promise<void>((resolve) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('Opened the logs left for first use')) resolve();
      text = text.slice(-200);
    });
  });
  return { seconds: (performance.now() - since) / 1000, cpu: cpuSeconds(child.pid!), rssMiB: usage(child.pid!).rssMiB };
}

if (!existsSync(join(dir, FILLED))) fill();
await stop((await start()).child, 'SIGTERM');
const fmt = (s: Started) => `${s.seconds.toFixed(2)} s (CPU ${s.cpu.toFixed(2)} s), RSS ${s.rssMiB} MiB, ${s.fds} fds`;
for (let r = 0; r < rounds; r++) {
  const began = performance.now();
  const clean = await start(warm);
  let line = `round ${r + 1}: clean ${fmt(clean)}`;
  if (warm) {
    const settled = await settle(clean.child, began);
    line += `; every log open after ${settled.seconds.toFixed(1)} s (CPU ${settled.cpu.toFixed(2)} s), RSS ${settled.rssMiB} MiB`;
  }
  await stop(clean.child, 'SIGKILL');
  const unclean = await start();
  line += `; unclean ${fmt(unclean)}`;
  await stop(unclean.child, 'SIGTERM');
  console.log(line);
}
