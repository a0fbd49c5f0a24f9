/**
 * The console's message browser on a large partition (issue 22, "Performance"): pages through a
 * single-partition log of BENCH_UI_GIB GiB (default 10) without a full scan. The log is built with
 * the storage layer (LogManager, PartitionLog.append of 1 MiB batches under LogAppendTime, the
 * clock stepped per batch so timestamps rise), in BENCH_UI_DIR (default a fresh directory under
 * /dev/shm), closed cleanly, then browsed twice:
 *
 * - serve: `startBroker({ dataDir, ui: true })`, the console reading through Fetch/ListOffsets;
 * - offline: `UiServer.start({ dataDir })`, as `kafkalite ui --data-dir` (reads the files).
 *
 * For each page request (beginning, an offset in the middle, a timestamp in the middle, the end,
 * newest first from the end, a key-filtered page) it reports the wall time, the process's CPU time
 * and the bytes the process read through read()/pread() during the request (/proc/self/io
 * `rchar`, which counts page-cache hits too, unlike read_bytes; in serve mode this includes the
 * Fetch answers crossing the loopback and the HTTP answer). A full scan would read ~10 GiB.
 * With BENCH_UI_BROWSER=1 it also opens the console in Debian's Chromium (playwright-core, as the
 * browser test does) in serve mode and times, BENCH_UI_ROUNDS times, the click on the topic's
 * link in the overview until a message key shows on the page: the first page of the 10 GiB
 * partition, rendered (it looks for no particular markup, only the keys' text).
 * The directory is removed at the end (BENCH_UI_KEEP=1 keeps it). Not part of `npm test`.
 *
 *   node dist/bench/ui.js
 *   BENCH_UI_GIB=1 BENCH_UI_ROUNDS=3 node dist/bench/ui.js
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecordBatch } from '../src/record/builder.js';
import { LogManager } from '../src/storage/log-manager.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { startBroker } from '../src/broker/index.js';
import { UiServer } from '../src/ui/server.js';
import { launchChromium } from '../test/helpers/chromium.js';

const GIB = Number(process.env.BENCH_UI_GIB ?? '10');
const ROUNDS = Number(process.env.BENCH_UI_ROUNDS ?? '3');
const KEEP = process.env.BENCH_UI_KEEP === '1';
const BROWSER = process.env.BENCH_UI_BROWSER === '1';
const TOPIC = 'big';
const RECORDS_PER_BATCH = 1024;
const VALUE_BYTES = 1000;
const BASE_TS = 1_750_000_000_000;
const STEP_MS = 1000;

function rchar(): number {
  const m = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** One 1 MiB batch: keys k-0..k-1023, JSON values padded to VALUE_BYTES, a header on each record. */
function template(): Buffer {
  const pad = 'x'.repeat(VALUE_BYTES - 40);
  const records = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({
    key: Buffer.from(`k-${i}`),
    value: Buffer.from(JSON.stringify({ i, pad })),
    headers: [{ key: 'source', value: Buffer.from('bench') }],
    timestamp: BigInt(BASE_TS),
  }));
  return encodeRecordBatch(records);
}

function build(dir: string): { batches: number; bytes: number; seconds: number } {
  let now = BASE_TS;
  const logs = LogManager.open(dir, { time: () => now, topicConfigs: new Map([[TOPIC, { ...DEFAULT_LOG_CONFIG, messageTimestampType: 'LogAppendTime' }]]) });
  const log = logs.getOrCreateLog(TOPIC, 0);
  const original = template();
  const batch = Buffer.allocUnsafe(original.length);
  const target = GIB * 2 ** 30;
  const t0 = performance.now();
  let batches = 0;
  while (log.size < target) {
    // the append rewrites the batch in place (offsets, LogAppendTime): each starts from the producer's bytes
    original.copy(batch);
    log.append(batch, { mutateInput: true });
    batches++;
    now += STEP_MS;
  }
  const bytes = log.size;
  logs.close();
  return { batches, bytes, seconds: (performance.now() - t0) / 1000 };
}

interface Row {
  mode: string;
  request: string;
  ms: number[];
  cpuMs: number[];
  readBytes: number[];
  messages: number;
  scanned: number;
  first: string | null;
}

async function page(base: string, path: string): Promise<{ ms: number; cpu: number; read: number; body: { messages?: { offset: string }[]; scanned?: number } }> {
  const r0 = rchar();
  const c0 = cpuMs();
  const t0 = performance.now();
  const res = await fetch(`${base}api/${path}`);
  const text = await res.text();
  const ms = performance.now() - t0;
  const cpu = cpuMs() - c0;
  const read = rchar() - r0;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return { ms, cpu, read, body: JSON.parse(text) as { messages?: { offset: string }[]; scanned?: number } };
}

async function measure(mode: string, base: string, batches: number): Promise<Row[]> {
  const end = batches * RECORDS_PER_BATCH;
  const mid = Math.floor(end / 2) + 17;
  const midTs = BASE_TS + Math.floor(batches / 2) * STEP_MS;
  const m = `topics/${TOPIC}/messages?`;
  const requests: [string, string][] = [
    ['overview (topic list)', 'topics'],
    ['topic (partitions, offsets)', `topics/${TOPIC}`],
    ...(mode === 'serve' ? [['topic configs', `topics/${TOPIC}/configs`] as [string, string]] : []),
    ['beginning', `${m}from=beginning&limit=50`],
    [`offset ${mid}`, `${m}from=offset:${mid}&limit=50`],
    [`timestamp (middle)`, `${m}from=timestamp:${midTs}&limit=50`],
    ['end', `${m}from=end&limit=50`],
    ['end, newest first', `${m}from=end&limit=50&direction=backward`],
    [`offset ${mid}, newest first`, `${m}from=offset:${mid}&limit=50&direction=backward`],
    ['key "k-1000", from the middle', `${m}from=offset:${mid}&limit=50&key=k-1000`],
  ];
  const rows: Row[] = requests.map(([request]) => ({ mode, request, ms: [], cpuMs: [], readBytes: [], messages: 0, scanned: 0, first: null }));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < requests.length; i++) {
      const p = await page(base, requests[i]![1]);
      const row = rows[i]!;
      row.ms.push(p.ms);
      row.cpuMs.push(p.cpu);
      row.readBytes.push(p.read);
      row.messages = p.body.messages?.length ?? 0;
      row.scanned = p.body.scanned ?? 0;
      row.first = p.body.messages?.[0]?.offset ?? null;
    }
  }
  return rows;
}

/** The overview, then a click on the topic, until a message key (k-N) is on the page: ms per round. */
async function firstPageInBrowser(url: string): Promise<{ ms: number[]; serverCpuMs: number[] }> {
  const browser = await launchChromium();
  const out: number[] = [];
  // the broker and the console run in this process: its CPU time over the click is the server's share
  const serverCpu: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const page = await browser.newPage();
      const calls: string[] = [];
      page.on('requestfinished', (r) => {
        const t = r.timing();
        if (r.url().includes('/api/')) calls.push(`${r.url().slice(url.length - 1)} ${(t.responseEnd - t.requestStart).toFixed(0)} ms`);
      });
      await page.goto(url + '#/');
      const link = page.locator('a', { hasText: new RegExp(`^\\s*${TOPIC}\\s*$`) }).first();
      await link.waitFor();
      const t0 = performance.now();
      calls.length = 0;
      const c0 = cpuMs();
      await link.click();
      await page.waitForFunction(() => /\bk-\d+\b/.test(document.body.innerText));
      out.push(performance.now() - t0);
      serverCpu.push(cpuMs() - c0);
      // the API calls the topic page made, each timed from its request to its answer's end
      if (round === ROUNDS - 1) console.log(`browser: after the click (last round): ${calls.join('; ')}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return { ms: out, serverCpuMs: serverCpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (n: number) => (n / 2 ** 20).toFixed(2);

function print(rows: Row[]): void {
  console.log('| mode | request | first offset | messages | scanned | ms (median [first]) | CPU ms (median) | read MiB (median [max]) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.mode} | ${r.request} | ${r.first} | ${r.messages} | ${r.scanned} | ${median(r.ms).toFixed(1)} [${r.ms[0]!.toFixed(1)}] | ${median(r.cpuMs).toFixed(1)} | ${mib(median(r.readBytes))} [${mib(Math.max(...r.readBytes))}] |`);
  }
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_UI_DIR ?? mkdtempSync('/dev/shm/kafkalite-ui-bench-');
  mkdirSync(dir, { recursive: true });
  try {
    const built = build(dir);
    console.log(`built ${TOPIC}-0: ${built.batches} batches, ${(built.bytes / 2 ** 30).toFixed(2)} GiB, ${built.batches * RECORDS_PER_BATCH} messages in ${built.seconds.toFixed(1)} s (${dir})`);
    const rows: Row[] = [];
    let browserMs: { ms: number[]; serverCpuMs: number[] } | undefined;
    {
      const t0 = performance.now();
      const broker = await startBroker({ dataDir: dir, ui: true });
      console.log(`serve: broker and console up in ${(performance.now() - t0).toFixed(0)} ms`);
      try {
        rows.push(...(await measure('serve', broker.uiUrl!, built.batches)));
        if (BROWSER) {
          browserMs = await firstPageInBrowser(broker.uiUrl!);
          console.log(`browser (serve): first page of ${TOPIC}-0 rendered ${browserMs.ms.map((x) => x.toFixed(0)).join(', ')} ms after the click; broker + console CPU meanwhile ${browserMs.serverCpuMs.map((x) => x.toFixed(0)).join(', ')} ms`);
        }
      } finally {
        await broker.close();
      }
    }
    {
      const ui = await UiServer.start({ dataDir: dir });
      try {
        rows.push(...(await measure('offline', ui.url, built.batches)));
      } finally {
        await ui.close();
      }
    }
    print(rows);
    const out = { date: new Date().toISOString(), node: process.version, gib: GIB, rounds: ROUNDS, built, rows, browserMs };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/ui.json', JSON.stringify(out, null, 2) + '\n');
  } finally {
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
