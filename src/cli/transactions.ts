/**
 * `kafkalite transactions <data-dir> list | describe | abort`: Kafka's `kafka-transactions.sh`,
 * offline (no broker).
 *
 * - `list`: the transactional ids of `__transaction_state` (the last record per id, Kafka's
 *   TransactionLogKey/Value: kafka-transactions.sh `list` and `describe` columns), and the open
 *   transactions of every partition log, from its producer state (DescribeProducers: producer id,
 *   epoch, coordinator epoch, start offset: `find-hanging`'s columns). An open transaction is
 *   hanging when no transactional id's state in `__transaction_state` holds its partition (the
 *   find-hanging rule; that tool also waits transaction.max.timeout.ms for a coordinator to
 *   catch up, and offline no coordinator is running, so the duration is shown instead).
 * - `describe --transactional-id X`: one id, and its open transaction on each of its partitions.
 * - `abort`: ends an open transaction by appending an ABORT marker (storage/transaction-abort.ts),
 *   as `kafka-transactions.sh abort` has the partition leader do. It opens the directory as the
 *   broker does (LogManager: the lock, recovery), so it refuses a directory a broker holds.
 *
 * `list` and `describe` only read: the segment files and producer snapshots are never changed
 * (storage/producer-state-view.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KafkaliteError } from '../errors.js';
import { replayTransactionLog, TRANSACTION_STATE_TOPIC, transactionLogRecords, type StoredTransactionMetadata, type TransactionLogRecord } from '../internal-topics/transaction-log-replay.js';
import { FileRecords } from '../storage/file-records.js';
import { LOG_SUFFIX, offsetFromFileName } from '../storage/file-names.js';
import { LogManager } from '../storage/log-manager.js';
import { readProducerStateView } from '../storage/producer-state-view.js';
import { CLUSTER_METADATA_TOPIC, parseTopicPartitionName, partitionDirName } from '../storage/topic.js';
import { abortTransaction, openTransactions, type AbortTarget, type OpenTransaction } from '../storage/transaction-abort.js';
import { toJson } from './json.js';
import { LineWriter } from './output.js';

export const TRANSACTIONS_USAGE = `Usage: kafkalite transactions <data-dir> list [--json]
       kafkalite transactions <data-dir> describe --transactional-id <id> [--json]
       kafkalite transactions <data-dir> abort --topic <name> --partition <n>
             (--start-offset <offset> | --producer-id <id> [--producer-epoch <e>] [--coordinator-epoch <c>]) [--json]

The transactions of a data directory, offline (kafka-transactions.sh without a broker).

  list       the transactional ids in ${TRANSACTION_STATE_TOPIC} (last record per id), and the open
             transactions in every partition log from its producer state (find-hanging's
             columns); HANGING: no transactional id's state holds that partition
  describe   one transactional id: producer id and epoch, state, timeout, start time, and its
             open transaction on each of its partitions
  abort      end an open transaction of a partition with an ABORT marker, as
             kafka-transactions.sh abort does; the last stable offset moves past it. The
             transaction is the one starting at --start-offset, or the one of --producer-id
             (whose epochs default to the partition's producer state; a coordinator epoch below
             0 is written as 0). Takes the directory's lock: stop the broker first.

Options:
  --transactional-id <id>   describe: the transactional id
  --topic <name>, --partition <n>   abort: the partition
  --start-offset <offset>   abort: the first offset of the open transaction
  --producer-id <id>        abort: the producer whose open transaction to end
  --producer-epoch <e>      abort: the marker's producer epoch
  --coordinator-epoch <c>   abort: the marker's coordinator epoch
  --json                    one JSON document on stdout
  -h, --help                this help`;

export type TransactionsOptions =
  | { dir: string; command: 'list'; json: boolean }
  | { dir: string; command: 'describe'; transactionalId: string; json: boolean }
  | { dir: string; command: 'abort'; topic: string; partition: number; target: AbortTarget; json: boolean };

const INT16_MAX = 32767;
const INT32_MAX = 2147483647;
const INT64_MAX = (1n << 63n) - 1n;

function integer(name: string, text: string, min: bigint, max: bigint): bigint | { error: string } {
  if (!/^-?\d+$/.test(text)) return { error: `--${name} expects an integer, got '${text}'` };
  const v = BigInt(text);
  if (v < min || v > max) return { error: `--${name} must be between ${min} and ${max}, got ${text}` };
  return v;
}

const SUBCOMMAND_OPTIONS: Record<string, readonly string[]> = {
  list: ['json'],
  describe: ['transactional-id', 'json'],
  abort: ['topic', 'partition', 'start-offset', 'producer-id', 'producer-epoch', 'coordinator-epoch', 'json'],
};

export function parseTransactionsArgs(argv: string[]): TransactionsOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'transactional-id': { type: 'string' },
        topic: { type: 'string' },
        partition: { type: 'string' },
        'start-offset': { type: 'string' },
        'producer-id': { type: 'string' },
        'producer-epoch': { type: 'string' },
        'coordinator-epoch': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    // node's messages for a dash-led value span lines: a usage error is one line
    return { error: (err as Error).message.replace(/\s*\n\s*/g, ' ') };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  const [dir, command, ...extra] = parsed.positionals;
  if (dir === undefined || command === undefined) return { error: 'expected a data directory and a subcommand (list, describe or abort)' };
  if (extra.length > 0) return { error: `unexpected argument '${extra[0]}'` };
  const allowed = SUBCOMMAND_OPTIONS[command];
  if (allowed === undefined || !Object.hasOwn(SUBCOMMAND_OPTIONS, command)) return { error: `unknown subcommand '${command}' (expected list, describe or abort)` };
  for (const name of Object.keys(v)) {
    if (name !== 'help' && !allowed.includes(name)) return { error: `--${name} does not apply to '${command}'` };
  }
  const json = v.json === true;
  if (command === 'list') return { dir, command: 'list', json };
  if (command === 'describe') {
    if (v['transactional-id'] === undefined) return { error: "'describe' needs --transactional-id" };
    return { dir, command: 'describe', transactionalId: v['transactional-id'], json };
  }
  if (v.topic === undefined || v.partition === undefined) return { error: "'abort' needs --topic and --partition" };
  if (v.topic === '') return { error: '--topic must not be empty' };
  const partition = integer('partition', v.partition, 0n, BigInt(INT32_MAX));
  if (typeof partition !== 'bigint') return partition;
  const byStart = v['start-offset'] !== undefined;
  const byProducer = v['producer-id'] !== undefined;
  if (byStart === byProducer) {
    return { error: "'abort' needs either --start-offset or --producer-id (as kafka-transactions.sh abort)" };
  }
  let target: AbortTarget;
  if (byStart) {
    if (v['producer-epoch'] !== undefined || v['coordinator-epoch'] !== undefined) return { error: '--producer-epoch and --coordinator-epoch go with --producer-id, not --start-offset' };
    const startOffset = integer('start-offset', v['start-offset']!, 0n, INT64_MAX);
    if (typeof startOffset !== 'bigint') return startOffset;
    target = { startOffset };
  } else {
    const producerId = integer('producer-id', v['producer-id']!, 0n, INT64_MAX);
    if (typeof producerId !== 'bigint') return producerId;
    const t: { producerId: bigint; producerEpoch?: number; coordinatorEpoch?: number } = { producerId };
    if (v['producer-epoch'] !== undefined) {
      const e = integer('producer-epoch', v['producer-epoch'], 0n, BigInt(INT16_MAX));
      if (typeof e !== 'bigint') return e;
      t.producerEpoch = Number(e);
    }
    if (v['coordinator-epoch'] !== undefined) {
      const c = integer('coordinator-epoch', v['coordinator-epoch'], -BigInt(INT32_MAX) - 1n, BigInt(INT32_MAX));
      if (typeof c !== 'bigint') return c;
      t.coordinatorEpoch = Number(c);
    }
    target = t;
  }
  return { dir, command: 'abort', topic: v.topic, partition: Number(partition), target, json };
}

// ---- reading the directory ---------------------------------------------------------------------

/** The `.log` segment files of a partition directory, by base offset. */
function segmentFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(LOG_SUFFIX))
    .flatMap((n) => {
      try {
        return [{ n, o: offsetFromFileName(n) }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => (a.o < b.o ? -1 : a.o > b.o ? 1 : 0))
    .map(({ n }) => join(dir, n));
}

/** The live partition logs of the directory (no -delete/-future/-stray, no KRaft metadata log), by topic and partition. */
function partitionLogs(dataDir: string): { topic: string; partition: number; dir: string }[] {
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      try {
        const tp = parseTopicPartitionName(e.name, join(dataDir, e.name));
        return tp.kind === 'normal' && tp.topic !== CLUSTER_METADATA_TOPIC ? [{ topic: tp.topic, partition: tp.partition, dir: join(dataDir, e.name) }] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

/** Every record of every `__transaction_state` partition, in log order per partition, CRCs checked. */
function* storedTransactionLogRecords(dataDir: string, warn: (what: string) => void): Generator<TransactionLogRecord> {
  for (const { topic, dir } of partitionLogs(dataDir)) {
    if (topic !== TRANSACTION_STATE_TOPIC) continue;
    for (const path of segmentFiles(dir)) {
      const file = FileRecords.open(path);
      try {
        for (const { batch, position } of file.batches()) {
          // the coordinator's load reads with CRC checks; a damaged batch is reported, not trusted
          if (batch.kind === 'v2' && !batch.isValid()) {
            warn(`${path}: batch at position ${position} fails its CRC check, skipped`);
            continue;
          }
          yield* transactionLogRecords(batch, (at, e) => warn(`${path}: record at offset ${at}: ${e.message}`));
        }
      } catch (e) {
        if (!(e instanceof KafkaliteError)) throw e;
        warn(`${path}: ${e.message}; the rest of the file is not read`);
      } finally {
        file.close();
      }
    }
  }
}

interface TransactionView {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  state: string;
  timeoutMs: number;
  startTimestampMs: bigint;
  lastUpdateTimestampMs: bigint;
  partitions: { topic: string; partition: number }[];
}

interface OpenTransactionView extends OpenTransaction {
  topic: string;
  partition: number;
  /** The id whose `__transaction_state` record has this producer id, if any. */
  transactionalId: string | null;
  durationMs: bigint | null;
  hanging: boolean;
}

function transactionView(m: StoredTransactionMetadata): TransactionView {
  return {
    transactionalId: m.transactionalId,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    state: m.state,
    timeoutMs: m.timeoutMs,
    startTimestampMs: m.startTimestampMs,
    lastUpdateTimestampMs: m.lastUpdateTimestampMs,
    partitions: m.partitions.flatMap((t) => t.partitionIds.map((p) => ({ topic: t.topic, partition: p }))).sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1)),
  };
}

interface Loaded {
  transactions: TransactionView[];
  open: OpenTransactionView[];
  warnings: string[];
}

function load(dataDir: string, now: number): Loaded {
  const warnings: string[] = [];
  const transactions = [...replayTransactionLog(storedTransactionLogRecords(dataDir, (w) => warnings.push(w))).values()]
    .map(transactionView)
    .sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
  const byProducer = new Map<bigint, TransactionView>();
  for (const t of transactions) byProducer.set(t.producerId, t);
  const open: OpenTransactionView[] = [];
  for (const { topic, partition, dir } of partitionLogs(dataDir)) {
    const view = readProducerStateView(dir, () => now);
    warnings.push(...view.warnings);
    for (const txn of openTransactions(view.state)) {
      const owner = byProducer.get(txn.producerId);
      open.push({
        topic,
        partition,
        ...txn,
        transactionalId: owner?.transactionalId ?? null,
        durationMs: txn.lastTimestamp >= 0n ? BigInt(now) - txn.lastTimestamp : null,
        hanging: owner === undefined || !owner.partitions.some((p) => p.topic === topic && p.partition === partition),
      });
    }
  }
  return { transactions, open, warnings };
}

// ---- output --------------------------------------------------------------------------------------

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}

const orNone = (v: bigint): string => (v < 0n ? 'None' : String(v));

function openRows(open: OpenTransactionView[]): string[][] {
  const rows = [['TOPIC', 'PARTITION', 'PRODUCER-ID', 'PRODUCER-EPOCH', 'COORDINATOR-EPOCH', 'START-OFFSET', 'LAST-TIMESTAMP', 'DURATION(MIN)', 'TRANSACTIONAL-ID', 'HANGING']];
  for (const o of open) {
    rows.push([
      o.topic,
      String(o.partition),
      String(o.producerId),
      String(o.producerEpoch),
      String(o.coordinatorEpoch),
      String(o.firstOffset),
      String(o.lastTimestamp),
      o.durationMs === null ? '-' : String(o.durationMs / 60_000n),
      o.transactionalId ?? '-',
      o.hanging ? 'yes' : 'no',
    ]);
  }
  return rows;
}

function printList(out: LineWriter, l: Loaded): void {
  if (l.transactions.length === 0) {
    out.line(`No transactional ids in ${TRANSACTION_STATE_TOPIC}.`);
  } else {
    const rows = [['TRANSACTIONAL-ID', 'PRODUCER-ID', 'PRODUCER-EPOCH', 'STATE', 'TIMEOUT-MS', 'PARTITIONS']];
    for (const t of l.transactions) rows.push([t.transactionalId, String(t.producerId), String(t.producerEpoch), t.state, String(t.timeoutMs), String(t.partitions.length)]);
    for (const line of table(rows)) out.line(line);
  }
  out.line();
  if (l.open.length === 0) {
    out.line('No open transactions in the partition logs.');
  } else {
    out.line('Open transactions in the partition logs:');
    for (const line of table(openRows(l.open))) out.line(line);
  }
}

function printDescribe(out: LineWriter, t: TransactionView, partitions: DescribedPartition[], now: number): void {
  const rows = [
    ['TRANSACTIONAL-ID', 'PRODUCER-ID', 'PRODUCER-EPOCH', 'STATE', 'TIMEOUT-MS', 'START-TIME-MS', 'DURATION-MS', 'LAST-UPDATE-MS'],
    [
      t.transactionalId,
      String(t.producerId),
      String(t.producerEpoch),
      t.state,
      String(t.timeoutMs),
      orNone(t.startTimestampMs),
      t.startTimestampMs < 0n ? 'None' : String(BigInt(now) - t.startTimestampMs),
      String(t.lastUpdateTimestampMs),
    ],
  ];
  for (const line of table(rows)) out.line(line);
  out.line();
  if (partitions.length === 0) {
    out.line('No partitions in the transaction, and no open transaction of its producer in the partition logs.');
    return;
  }
  const prows = [['TOPIC', 'PARTITION', 'IN-TRANSACTION-STATE', 'OPEN-SINCE-OFFSET', 'PRODUCER-EPOCH', 'COORDINATOR-EPOCH', 'HANGING']];
  for (const p of partitions) {
    const o = p.open;
    prows.push([
      p.topic,
      String(p.partition),
      p.inTransactionState ? 'yes' : 'no',
      p.logPresent ? (o === null ? '-' : String(o.firstOffset)) : 'no log here',
      o === null ? '-' : String(o.producerEpoch),
      o === null ? '-' : String(o.coordinatorEpoch),
      o === null ? '-' : o.hanging ? 'yes' : 'no',
    ]);
  }
  for (const line of table(prows)) out.line(line);
}

interface DescribedPartition {
  topic: string;
  partition: number;
  /** Listed in the id's `__transaction_state` record. */
  inTransactionState: boolean;
  logPresent: boolean;
  /** The producer's open transaction on the partition, if any. */
  open: OpenTransactionView | null;
}

function describePartitions(dataDir: string, t: TransactionView, open: OpenTransactionView[]): DescribedPartition[] {
  const out = new Map<string, DescribedPartition>();
  for (const p of t.partitions) {
    out.set(`${p.partition}:${p.topic}`, { ...p, inTransactionState: true, logPresent: existsSync(join(dataDir, partitionDirName(p.topic, p.partition))), open: null });
  }
  for (const o of open) {
    if (o.producerId !== t.producerId) continue;
    const key = `${o.partition}:${o.topic}`;
    const d = out.get(key) ?? { topic: o.topic, partition: o.partition, inTransactionState: false, logPresent: true, open: null };
    d.open = o;
    out.set(key, d);
  }
  return [...out.values()].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

// ---- the commands --------------------------------------------------------------------------------

function failed(message: string): number {
  process.stderr.write(`Error: ${message}\n`);
  return 1;
}

function runAbort(opts: Extract<TransactionsOptions, { command: 'abort' }>): number {
  const name = `${opts.topic}-${opts.partition}`;
  // the manager would create a missing directory or partition: an abort only ends what is there
  if (!existsSync(join(opts.dir, partitionDirName(opts.topic, opts.partition)))) return failed(`no log for partition ${name} in ${opts.dir}`);
  let manager: LogManager | undefined;
  try {
    manager = LogManager.open(opts.dir);
    const log = manager.getLog(opts.topic, opts.partition);
    if (log === undefined) {
      manager.close();
      return failed(`no log for partition ${name} in ${opts.dir}`);
    }
    const r = abortTransaction(log, opts.target);
    manager.close();
    manager = undefined;
    const out = new LineWriter(1);
    if (opts.json) {
      out.line(toJson({ aborted: { topic: opts.topic, partition: opts.partition, producerId: r.transaction.producerId, producerEpoch: r.producerEpoch, coordinatorEpoch: r.coordinatorEpoch, startOffset: r.transaction.firstOffset, markerOffset: r.markerOffset, lastStableOffsetBefore: r.lastStableOffsetBefore, lastStableOffsetAfter: r.lastStableOffsetAfter } }));
    } else {
      out.line(
        `Aborted the transaction of producer ${r.transaction.producerId} (epoch ${r.producerEpoch}) on ${name} that started at offset ${r.transaction.firstOffset}: ` +
          `ABORT marker at offset ${r.markerOffset} (coordinator epoch ${r.coordinatorEpoch}); last stable offset ${r.lastStableOffsetBefore} -> ${r.lastStableOffsetAfter}`,
      );
    }
    out.flush();
    return 0;
  } catch (err) {
    if (!(err instanceof KafkaliteError)) throw err;
    manager?.closeUnclean();
    return failed(`${err.message} [${err.code}]`);
  }
}

export function transactions(opts: TransactionsOptions): number {
  try {
    if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory()) return failed(`data directory ${opts.dir} does not exist`);
    if (opts.command === 'abort') return runAbort(opts);
    const now = Date.now();
    const loaded = load(opts.dir, now);
    const out = new LineWriter(1);
    if (opts.command === 'list') {
      if (opts.json) out.line(toJson({ transactionalIds: loaded.transactions, openTransactions: loaded.open }));
      else printList(out, loaded);
    } else {
      const t = loaded.transactions.find((x) => x.transactionalId === opts.transactionalId);
      if (t === undefined) {
        for (const w of loaded.warnings) process.stderr.write(`Warning: ${w}\n`);
        return failed(`transactional id '${opts.transactionalId}' is not in ${TRANSACTION_STATE_TOPIC} (TRANSACTIONAL_ID_NOT_FOUND)`);
      }
      const partitions = describePartitions(opts.dir, t, loaded.open);
      if (opts.json) out.line(toJson({ transaction: t, partitions }));
      else printDescribe(out, t, partitions, now);
    }
    out.flush();
    for (const w of loaded.warnings) process.stderr.write(`Warning: ${w}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof KafkaliteError)) throw err;
    return failed(`${err.message} [${err.code}]`);
  }
}
