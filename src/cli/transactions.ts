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
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaliteError } from '../errors.js';
import { TRANSACTION_STATE_TOPIC } from '../internal-topics/transaction-log-replay.js';
import { LogManager } from '../storage/log-manager.js';
import { partitionDirName } from '../storage/topic.js';
import { abortTransaction } from '../storage/transaction-abort.js';
import { describePartitions, load, type DescribedPartition, type Loaded, type OpenTransactionView, type TransactionView } from './transactions-load.js';
import type { TransactionsOptions } from './transactions-args.js';
import { toJson } from './json.js';
import { LineWriter, PROCESS_IO, writeText, type CliIo } from './output.js';

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

// ---- the commands --------------------------------------------------------------------------------

function failed(io: CliIo, message: string): number {
  writeText(io.stderr, `Error: ${message}\n`);
  return 1;
}

function runAbort(opts: Extract<TransactionsOptions, { command: 'abort' }>, io: CliIo): number {
  const name = `${opts.topic}-${opts.partition}`;
  // the manager would create a missing directory or partition: an abort only ends what is there
  if (!existsSync(join(opts.dir, partitionDirName(opts.topic, opts.partition)))) return failed(io, `no log for partition ${name} in ${opts.dir}`);
  let manager: LogManager | undefined;
  try {
    manager = LogManager.open(opts.dir);
    const log = manager.getLog(opts.topic, opts.partition);
    if (log === undefined) {
      manager.close();
      return failed(io, `no log for partition ${name} in ${opts.dir}`);
    }
    const r = abortTransaction(log, opts.target);
    manager.close();
    manager = undefined;
    const out = new LineWriter(io.stdout);
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
    return failed(io, `${err.message} [${err.code}]`);
  }
}

export function transactions(opts: TransactionsOptions, io: CliIo = PROCESS_IO): number {
  try {
    if (!existsSync(opts.dir) || !statSync(opts.dir).isDirectory()) return failed(io, `data directory ${opts.dir} does not exist`);
    if (opts.command === 'abort') return runAbort(opts, io);
    const now = Date.now();
    const loaded = load(opts.dir, now);
    const out = new LineWriter(io.stdout);
    if (opts.command === 'list') {
      if (opts.json) out.line(toJson({ transactionalIds: loaded.transactions, openTransactions: loaded.open }));
      else printList(out, loaded);
    } else {
      const t = loaded.transactions.find((x) => x.transactionalId === opts.transactionalId);
      if (t === undefined) {
        for (const w of loaded.warnings) writeText(io.stderr, `Warning: ${w}\n`);
        return failed(io, `transactional id '${opts.transactionalId}' is not in ${TRANSACTION_STATE_TOPIC} (TRANSACTIONAL_ID_NOT_FOUND)`);
      }
      const partitions = describePartitions(opts.dir, t, loaded.open);
      if (opts.json) out.line(toJson({ transaction: t, partitions }));
      else printDescribe(out, t, partitions, now);
    }
    out.flush();
    for (const w of loaded.warnings) writeText(io.stderr, `Warning: ${w}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof KafkaliteError)) throw err;
    return failed(io, `${err.message} [${err.code}]`);
  }
}
