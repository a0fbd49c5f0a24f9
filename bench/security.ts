/**
 * Security bench (issue 20): what TLS and SASL cost a client, in one run against one broker
 * (`bin/kafkalite.js serve --tls self-signed`, its own process, writing to disk) with a PLAINTEXT
 * and a SASL_SSL (PLAIN) listener, rounds interleaved with the order rotated:
 * - produce and fetch throughput with kcat (librdkafka 2.0.2): the same N records of V bytes to a
 *   fresh topic, then read back from the beginning; MiB/s of record values over kcat's wall time;
 * - connection set-up: a new connection to the first answer: PLAINTEXT = TCP connect + ApiVersions;
 *   SASL_SSL = TCP + TLS handshake + ApiVersions + SaslHandshake + SaslAuthenticate (PLAIN);
 *   N sequential connections from this process, mean ms each;
 * - the floor: Node's own TLS socket moving the same bytes as the produce run, a client writing
 *   1 MiB chunks to a server process that discards them, over TLS and over plain TCP, with the same
 *   self-signed certificate (TLS 1.3, the default suite). The broker's TLS cost is its SASL_SSL
 *   time over its PLAINTEXT time; the floor's is the TLS sink's time over the TCP sink's;
 * - the self-signed setup `tls: 'self-signed'` adds to a start (makeSelfSignedTls), in this process.
 * Results: stdout and bench/results/security.json (overwritten).
 * Environment: BENCH_SEC_ROUNDS (3), BENCH_SEC_RECORDS (100000), BENCH_SEC_VALUE_BYTES (1000),
 * BENCH_SEC_CONNECTIONS (50), KAFKALITE_KCAT (kcat).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect as tlsConnect } from 'node:tls';
import { FrameDecoder } from '../src/protocol/framing.js';
import { ApiKey } from '../src/protocol/api-keys.js';
import { makeSelfSignedTls } from '../src/broker/security/self-signed.js';
import { encodeRequestFrame } from '../test/helpers/raw-client.js';
import { REPO_ROOT } from '../test/helpers/paths.js';
import { runCommand } from '../test/helpers/python-peer.js';

const ROUNDS = Number(process.env.BENCH_SEC_ROUNDS ?? 3);
const RECORDS = Number(process.env.BENCH_SEC_RECORDS ?? 100_000);
const VALUE_BYTES = Number(process.env.BENCH_SEC_VALUE_BYTES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_SEC_CONNECTIONS ?? 50);
const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const MiB = 1 << 20;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f = (x: number, d = 1): string => x.toFixed(d);

interface Listener {
  name: 'PLAINTEXT' | 'SASL_SSL';
  host: string;
  port: number;
  kcatArgs: string[];
}

function startBroker(dataDir: string, tlsDir: string): Promise<{ child: ChildProcess; out: string[] }> {
  const child = spawn(process.execPath, [
    join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn',
    '--tls', 'self-signed', '--tls-dir', tlsDir, '--user', 'bench:bench-secret',
    '--config', 'listeners=PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  const out: string[] = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      out.push(line);
      if (line.startsWith('TLS: self-signed CA')) resolve({ child, out });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
  });
}

async function kcat(args: string[]): Promise<number> {
  const t0 = performance.now();
  const r = await runCommand(KCAT, args, { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code}:\n${r.stderr.toString()}`);
  return performance.now() - t0;
}

/** One connection to its first answers; ms. */
async function setUp(l: Listener, caPem: string): Promise<number> {
  const t0 = performance.now();
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = l.name === 'SASL_SSL' ? tlsConnect({ host: l.host, port: l.port, ca: caPem, servername: 'localhost' }, () => resolve(s)) : netConnect({ host: l.host, port: l.port }, () => resolve(s));
    s.once('error', reject);
  });
  socket.setNoDelay(true);
  const decoder = new FrameDecoder(1 << 30);
  const waiters: ((f: Buffer) => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) waiters.shift()?.(frame);
  });
  const ask = (apiKey: number, version: number, body: Record<string, unknown>, id: number): Promise<Buffer> =>
    new Promise((resolve) => {
      waiters.push(resolve);
      socket.write(encodeRequestFrame(apiKey, version, id, body));
    });
  await ask(ApiKey.ApiVersions, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' }, 1);
  if (l.name === 'SASL_SSL') {
    await ask(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' }, 2);
    const auth = await ask(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from('\0bench\0bench-secret') }, 3);
    // correlation id (4) + tagged fields (1) + error code: 0 when the login passed
    if (auth.readInt16BE(5) !== 0) throw new Error('the bench user could not log in');
  }
  const ms = performance.now() - t0;
  socket.destroy();
  return ms;
}

/** The TLS and TCP sinks (a child process), and a client writing `bytes` to one; ms until the sink has them all. */
const SINK = `
const net = require('node:net'), tls = require('node:tls');
const [cert, key] = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const serve = (server) => server.on('connection', () => {}).listen(0, '127.0.0.1');
const onSocket = (s) => { let n = 0; s.on('data', (d) => { n += d.length; }); s.on('end', () => s.end(String(n))); };
const plain = serve(net.createServer(onSocket));
const secure = serve(tls.createServer({ cert, key }, onSocket));
Promise.all([plain, secure].map((s) => new Promise((r) => s.once('listening', r)))).then(() => console.log(JSON.stringify({ tcp: plain.address().port, tls: secure.address().port })));
`;

async function sinkRun(kind: 'tcp' | 'tls', port: number, bytes: number, caPem: string): Promise<number> {
  const chunk = Buffer.alloc(MiB, 0x61);
  const t0 = performance.now();
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = kind === 'tls' ? tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost' }, () => resolve(s)) : netConnect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
  let answer = '';
  const done = new Promise<void>((resolve) => socket.on('data', (d: Buffer) => (answer += d.toString())).on('end', resolve));
  for (let sent = 0; sent < bytes; sent += chunk.length) {
    if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
  }
  socket.end();
  await done;
  if (Number(answer) < bytes) throw new Error(`sink got ${answer} of ${bytes} bytes`);
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kafkalite-bench-security-'));
  process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  const tlsDir = join(work, 'tls');
  const input = join(work, 'records.txt');
  const line = 'x'.repeat(VALUE_BYTES - 1) + '\n';
  writeFileSync(input, line.repeat(RECORDS));
  const payloadMiB = (RECORDS * (VALUE_BYTES - 1)) / MiB;

  const setupMs: number[] = [];
  const setupCpuMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await makeSelfSignedTls();
    setupMs.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    setupCpuMs.push((cpu.user + cpu.system) / 1000);
  }
  console.log(`self-signed setup (CA + server certificate): median ${f(median(setupMs))} ms wall, ${f(median(setupCpuMs))} ms CPU of the process (the P-256 keys are made on the thread pool)`);

  const { child, out } = await startBroker(join(work, 'data'), tlsDir);
  const caPem = (await import('node:fs')).readFileSync(join(tlsDir, 'ca.pem'), 'utf8');
  const plainPort = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(out.join('\n'))![1]);
  const saslPort = Number(/listener SASL_SSL \(SASL_SSL\) on 127\.0\.0\.1:(\d+)/.exec(out.join('\n'))![1]);
  const listeners: Listener[] = [
    { name: 'PLAINTEXT', host: '127.0.0.1', port: plainPort, kcatArgs: [] },
    {
      name: 'SASL_SSL', host: '127.0.0.1', port: saslPort,
      kcatArgs: ['-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=bench', '-X', 'sasl.password=bench-secret', '-X', `ssl.ca.location=${join(tlsDir, 'ca.pem')}`],
    },
  ];
  const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['pipe', 'pipe', 'inherit'] });
  const tls = await makeSelfSignedTls();
  sink.stdin!.end(JSON.stringify([tls.serverCertPem, tls.serverKeyPem]));
  const sinkPorts = await new Promise<{ tcp: number; tls: number }>((resolve) => createInterface({ input: sink.stdout! }).once('line', (l) => resolve(JSON.parse(l))));

  type Round = { produceMiBps: number; fetchMiBps: number; setUpMs: number };
  const results: Record<string, Round[]> = { PLAINTEXT: [], SASL_SSL: [] };
  const floor: Record<'tcp' | 'tls', number[]> = { tcp: [], tls: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? listeners : [...listeners].reverse();
      for (const l of order) {
        const bootstrap = `${l.host}:${l.port}`;
        const topic = `sec-bench-${l.name}-${r}`;
        const produceMs = await kcat(['-b', bootstrap, '-t', topic, '-P', '-l', '-X', 'linger.ms=5', ...l.kcatArgs, input]);
        const fetchMs = await kcat(['-b', bootstrap, '-t', topic, '-C', '-o', 'beginning', '-e', '-q', '-f', '%o\n', ...l.kcatArgs]);
        const times: number[] = [];
        for (let i = 0; i < CONNECTIONS; i++) times.push(await setUp(l, caPem));
        const res = { produceMiBps: payloadMiB / (produceMs / 1000), fetchMiBps: payloadMiB / (fetchMs / 1000), setUpMs: times.reduce((a, b) => a + b, 0) / times.length };
        results[l.name]!.push(res);
        console.log(`round ${r + 1} ${l.name}: produce ${f(res.produceMiBps)} MiB/s, fetch ${f(res.fetchMiBps)} MiB/s, connection set-up ${f(res.setUpMs, 2)} ms`);
      }
      for (const kind of (r % 2 === 0 ? ['tcp', 'tls'] : ['tls', 'tcp']) as ('tcp' | 'tls')[]) {
        const ms = await sinkRun(kind, sinkPorts[kind], RECORDS * VALUE_BYTES, tls.caPem);
        floor[kind].push(ms);
        console.log(`round ${r + 1} floor ${kind}: ${f((RECORDS * VALUE_BYTES) / MiB / (ms / 1000))} MiB/s`);
      }
    }
  } finally {
    child.kill('SIGTERM');
    sink.kill('SIGTERM');
  }
  const per = (name: string, k: keyof Round): number[] => results[name]!.map((x) => x[k]);
  const ratios = (k: 'produceMiBps' | 'fetchMiBps'): number[] => per('SASL_SSL', k).map((s, i) => s / per('PLAINTEXT', k)[i]!);
  const floorRatios = floor.tls.map((t, i) => floor.tcp[i]! / t);
  const summary = {
    produceMiBps: { PLAINTEXT: median(per('PLAINTEXT', 'produceMiBps')), SASL_SSL: median(per('SASL_SSL', 'produceMiBps')), saslSslOverPlaintext: median(ratios('produceMiBps')) },
    fetchMiBps: { PLAINTEXT: median(per('PLAINTEXT', 'fetchMiBps')), SASL_SSL: median(per('SASL_SSL', 'fetchMiBps')), saslSslOverPlaintext: median(ratios('fetchMiBps')) },
    setUpMs: { PLAINTEXT: median(per('PLAINTEXT', 'setUpMs')), SASL_SSL: median(per('SASL_SSL', 'setUpMs')) },
    floor: { tcpMiBps: median(floor.tcp.map((ms) => (RECORDS * VALUE_BYTES) / MiB / (ms / 1000))), tlsMiBps: median(floor.tls.map((ms) => (RECORDS * VALUE_BYTES) / MiB / (ms / 1000))), tlsOverTcp: median(floorRatios) },
    selfSignedSetup: { wallMs: median(setupMs), cpuMs: median(setupCpuMs) },
  };
  console.log(
    `SASL_SSL / PLAINTEXT: produce ${f(summary.produceMiBps.saslSslOverPlaintext, 2)}, fetch ${f(summary.fetchMiBps.saslSslOverPlaintext, 2)}; ` +
      `Node TLS / TCP sink of the same bytes ${f(summary.floor.tlsOverTcp, 2)}; connection set-up ${f(summary.setUpMs.PLAINTEXT, 2)} ms vs ${f(summary.setUpMs.SASL_SSL, 2)} ms`,
  );
  mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(REPO_ROOT, 'bench', 'results', 'security.json'),
    JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, records: RECORDS, valueBytes: VALUE_BYTES, connections: CONNECTIONS, results, floor, summary }, null, 2) + '\n',
  );
}

await main();
