/**
 * The transaction coordinator's own CPU per transaction, in process, without sockets (issue 18):
 * what the broker does for one 10-record transaction once the requests are decoded, the same calls
 * its handlers make: AddPartitionsToTxn (the Ongoing record), the transactional batch appended,
 * EndTxn (PrepareCommit), then in the next turn of the event loop the COMMIT marker and
 * CompleteCommit. The floor is the same batch appended without a transaction, one turn each: the
 * difference is what transactions cost the broker beyond the data. `node dist/bench/transactions.js`
 * measures the whole broker under librdkafka; this one separates the coordinator's part from the
 * request path every API shares (sockets, framing, codec, wake-ups).
 *
 * BENCH_TXN_BEFORE: the path of another build's checkout (bin/ and dist/, e.g. a copy of main):
 * its modules are loaded too and measured in the same rounds, in turns, order rotated every round.
 * Environment: BENCH_ROUNDS (5), BENCH_COORD_TXNS (5000 per round and build), BENCH_COORD_WARMUP
 * (10000 per build, untimed). Results: stdout and bench/results/transactions-coordinator.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../test/helpers/paths.js';

type BrokerModule = typeof import('../src/broker/broker.js');
type BuilderModule = typeof import('../src/record/builder.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TXNS = Number(process.env.BENCH_COORD_TXNS ?? 5000);
const WARMUP = Number(process.env.BENCH_COORD_WARMUP ?? 10000);
const BEFORE = process.env.BENCH_TXN_BEFORE;

interface Build {
  name: string;
  /** One transaction (or, for the floor, one plain batch), ending after the next event-loop turn. */
  txn: () => Promise<void>;
  plain: () => Promise<void>;
  close: () => Promise<void>;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function load(name: string, root: string, dataDir: string): Promise<Build> {
  const { Broker }: BrokerModule = await import(pathToFileURL(join(root, 'dist', 'src', 'broker', 'broker.js')).href);
  const { encodeRecordBatch }: BuilderModule = await import(pathToFileURL(join(root, 'dist', 'src', 'record', 'builder.js')).href);
  mkdirSync(dataDir);
  const broker = await Broker.start({ dataDir, port: 0, logLevel: 'silent' });
  broker.topics.create('txn', 1, {}, broker.logs);
  broker.topics.create('plain', 1, {}, broker.logs);
  const c = broker.transactions;
  const { errorCode, producerId, producerEpoch } = c.initProducerId('bench', 60000, -1n, -1);
  if (errorCode !== 0) throw new Error(`${name}: InitProducerId: error ${errorCode}`);
  const txnLog = broker.logs.getLog('txn', 0)!;
  const plainLog = broker.logs.getLog('plain', 0)!;
  const values = Array.from({ length: 10 }, () => ({ value: Buffer.alloc(100, 118) }));
  let txnSeq = 0;
  let plainSeq = 0;
  const tp = [{ topic: 'txn', partition: 0 }];
  return {
    name,
    async txn() {
      const add = c.addPartitions('bench', producerId, producerEpoch, tp);
      if (add !== 0) throw new Error(`${name}: AddPartitionsToTxn: error ${add}`);
      txnLog.append(encodeRecordBatch(values, { isTransactional: true, producerId, producerEpoch, baseSequence: txnSeq }), { origin: 'client', mutateInput: true });
      txnSeq = (txnSeq + 10) % 2_000_000_000;
      const end = c.endTransaction('bench', producerId, producerEpoch, true);
      if (end !== 0) throw new Error(`${name}: EndTxn: error ${end}`);
      await turn(); // the markers and CompleteCommit
    },
    async plain() {
      plainLog.append(encodeRecordBatch(values, { producerId, producerEpoch, baseSequence: plainSeq }), { origin: 'client', mutateInput: true });
      plainSeq = (plainSeq + 10) % 2_000_000_000;
      await turn();
    },
    close: () => broker.close(),
  };
}

/** CPU microseconds (user + system, this process) per call of `body`. */
async function cpuPer(n: number, body: () => Promise<void>): Promise<number> {
  const u0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await body();
  const u = process.cpuUsage(u0);
  return (u.user + u.system) / n;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-bench-coord-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const builds = [await load('kafkalite', REPO_ROOT, join(dir, 'this'))];
  if (BEFORE !== undefined) builds.push(await load('kafkalite-before', BEFORE, join(dir, 'before')));
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (2 cores)`);
  for (const b of builds) {
    await cpuPer(WARMUP, b.txn);
    await cpuPer(WARMUP, b.plain);
  }
  const rounds: Record<string, { txnUs: number; floorUs: number }[]> = Object.fromEntries(builds.map((b) => [b.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const txnUs = await cpuPer(TXNS, b.txn);
      const floorUs = await cpuPer(TXNS, b.plain);
      rounds[b.name]!.push({ txnUs, floorUs });
      console.log(`round ${r + 1} ${b.name}: ${txnUs.toFixed(1)} us CPU per transaction, floor ${floorUs.toFixed(1)} us, coordinator ${(txnUs - floorUs).toFixed(1)} us`);
    }
  }
  for (const b of builds) await b.close();
  const summary = Object.fromEntries(
    Object.entries(rounds).map(([name, rs]) => [
      name,
      { txnUsMedian: median(rs.map((x) => x.txnUs)), floorUsMedian: median(rs.map((x) => x.floorUs)), coordinatorUsMedian: median(rs.map((x) => x.txnUs - x.floorUs)) },
    ]),
  );
  for (const [name, s] of Object.entries(summary)) {
    console.log(`${name}: median ${s.txnUsMedian.toFixed(1)} us CPU per transaction, floor ${s.floorUsMedian.toFixed(1)} us, coordinator's own ${s.coordinatorUsMedian.toFixed(1)} us`);
  }
  if (BEFORE !== undefined) {
    const ratios = rounds.kafkalite!.map((x, i) => x.txnUs / rounds['kafkalite-before']![i]!.txnUs);
    console.log(`this build / before, CPU per transaction: ${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}]`);
  }
  console.log(`load average at end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(REPO_ROOT, 'bench', 'results', 'transactions-coordinator.json'),
    JSON.stringify({ date: new Date().toISOString(), node: process.version, before: BEFORE ?? null, rounds: ROUNDS, txns: TXNS, warmup: WARMUP, loadavg: loadavg(), results: rounds, summary }, null, 2) + '\n',
  );
}

await main();
