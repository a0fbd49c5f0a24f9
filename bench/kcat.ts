/**
 * `npm run bench` (kcat part, issue 24): kcat producing 1 KiB records with acks=1 into kafkalite and
 * into librdkafka's in-memory mock cluster (bench/py/rdkafka_mock_cluster.py), taking turns.
 *
 * Each turn runs `kcat -P -b <broker> -t <topic> -p 0 -X acks=1 -l <file>` over a file of
 * BENCH_KCAT_RECORDS (150,000) lines of 1,024 B (records of 1,023 B and the newline kcat splits on),
 * timed from spawn to exit, into a topic of its own. Each peer first gets one unmeasured turn; then
 * BENCH_KCAT_TURNS (6) turns each, the order alternating, so that a slow moment of the machine lands
 * on both. kcat is librdkafka: its producer batches records itself (linger, batch.size), so this is
 * the throughput a real client gets, the client's own cost included. Printed: MB/s per turn and the
 * median [min-max] of the per-turn ratios kafkalite / mock. Results: stdout and
 * bench/results/kcat.json (overwritten; git keeps the history).
 */
import { spawnListening, stopChild } from './child.js';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { PYTHON } from '../test/helpers/python-peer.js';

const RECORDS = Number(process.env.BENCH_KCAT_RECORDS ?? 150_000);
const TURNS = Number(process.env.BENCH_KCAT_TURNS ?? 6);
const LINE_BYTES = 1024;

interface Peer {
  name: string;
  bootstrap: string;
  stop(): Promise<void>;
}

async function startPeer(name: string, cmd: string, args: string[], pattern: RegExp): Promise<Peer> {
  const { child, port } = await spawnListening(name, cmd, args, pattern);
  return { name, bootstrap: `127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** One kcat run over `file` into `topic`: its wall time in seconds (a non-zero exit fails the bench). */
function produce(peer: Peer, topic: string, file: string): Promise<number> {
  const t0 = performance.now();
  const kcat = spawn('kcat', ['-P', '-b', peer.bootstrap, '-t', topic, '-p', '0', '-X', 'acks=1', '-l', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  kcat.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    kcat.once('error', reject);
    kcat.once('exit', (code) => (code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`kcat into ${peer.name} exited with ${code}: ${err}`))));
  });
}

const f = (n: number, d = 1): string => n.toFixed(d);
const mid = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-kcat-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'records.txt');
  const line = Buffer.alloc(LINE_BYTES, 0x61);
  line[LINE_BYTES - 1] = 0x0a;
  writeFileSync(file, Buffer.concat(Array.from({ length: RECORDS }, () => line)));
  const bytes = RECORDS * LINE_BYTES;
  mkdirSync(join(dir, 'data'));
  const peers = [
    await startPeer('kafkalite', process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', join(dir, 'data'), '--log-level', 'warn'], /listening on [^:]+:(\d+)/),
    await startPeer('librdkafka-mock', PYTHON, [join(REPO_ROOT, 'bench', 'py', 'rdkafka_mock_cluster.py')], /"bootstrap": "[^:]+:(\d+)"/),
  ];
  try {
    for (const p of peers) await produce(p, 'kcat-warmup', file);
    const mbPerSec: Record<string, number[]> = { kafkalite: [], 'librdkafka-mock': [] };
    for (let turn = 0; turn < TURNS; turn++) {
      const order = turn % 2 === 0 ? peers : [...peers].reverse();
      for (const p of order) {
        const seconds = await produce(p, `kcat-${turn}`, file);
        mbPerSec[p.name]!.push(bytes / 1e6 / seconds);
        console.log(`turn ${turn + 1} ${p.name.padEnd(16)} ${f(bytes / 1e6 / seconds).padStart(7)} MB/s (${f(seconds, 2)} s)`);
      }
    }
    const ratios = mbPerSec.kafkalite!.map((k, i) => k / mbPerSec['librdkafka-mock']![i]!);
    console.log(
      `\nkcat -P, ${RECORDS} records of ${LINE_BYTES - 1} B (lines of ${LINE_BYTES} B; MB/s of the file), acks=1: kafkalite ${f(Math.min(...mbPerSec.kafkalite!))}-${f(Math.max(...mbPerSec.kafkalite!))} MB/s, ` +
        `the mock ${f(Math.min(...mbPerSec['librdkafka-mock']!))}-${f(Math.max(...mbPerSec['librdkafka-mock']!))} MB/s; ` +
        `kafkalite / mock per turn ${f(mid(ratios), 2)} [${f(Math.min(...ratios), 2)}-${f(Math.max(...ratios), 2)}]`,
    );
    const out = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'kcat.json'), JSON.stringify({ bench: 'kcat', date: new Date().toISOString(), node: process.version, records: RECORDS, lineBytes: LINE_BYTES, turns: TURNS, mbPerSec, ratios }, null, 2) + '\n');
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
  }
}

await main();
