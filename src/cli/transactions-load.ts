/**
 * What `kafkalite transactions` reads from a data directory, without changing it: the transactional
 * ids of `__transaction_state` (its last record per id, CRCs checked) and the open transactions of
 * every partition log (storage/producer-state-view.ts), each matched with the id whose state holds
 * its producer id; hanging when no id's state holds that partition (`find-hanging`'s rule).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { replayTransactionLog, TRANSACTION_STATE_TOPIC, transactionLogRecords, type StoredTransactionMetadata, type TransactionLogRecord } from '../internal-topics/transaction-log-replay.js';
import { checkedBatches, segmentFiles } from './segment-batches.js';
import { CLEAN_SHUTDOWN_FILE } from '../storage/file-names.js';
import { readProducerStateView } from '../storage/producer-state-view.js';
import { CLUSTER_METADATA_TOPIC, parseTopicPartitionName, partitionDirName } from '../storage/topic.js';
import { openTransactions, type OpenTransaction } from '../storage/transaction-abort.js';

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
      // the coordinator's load reads with CRC checks; a damaged batch is reported, not trusted
      for (const batch of checkedBatches(path, warn)) yield* transactionLogRecords(batch, (at, e) => warn(`${path}: record at offset ${at}: ${e.message}`));
    }
  }
}

export interface TransactionView {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  state: string;
  timeoutMs: number;
  startTimestampMs: bigint;
  lastUpdateTimestampMs: bigint;
  partitions: { topic: string; partition: number }[];
}

export interface OpenTransactionView extends OpenTransaction {
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

export interface Loaded {
  transactions: TransactionView[];
  open: OpenTransactionView[];
  warnings: string[];
}

export function load(dataDir: string, now: number): Loaded {
  const warnings: string[] = [];
  const transactions = [...replayTransactionLog(storedTransactionLogRecords(dataDir, (w) => warnings.push(w))).values()]
    .map(transactionView)
    .sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
  const byProducer = new Map<bigint, TransactionView>();
  for (const t of transactions) byProducer.set(t.producerId, t);
  // as the broker's load: a clean shutdown that kept no producer snapshot had no producer state
  const hadCleanShutdown = existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE));
  const open: OpenTransactionView[] = [];
  for (const { topic, partition, dir } of partitionLogs(dataDir)) {
    const view = readProducerStateView(dir, { time: () => now, hadCleanShutdown });
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

export interface DescribedPartition {
  topic: string;
  partition: number;
  /** Listed in the id's `__transaction_state` record. */
  inTransactionState: boolean;
  logPresent: boolean;
  /** The producer's open transaction on the partition, if any. */
  open: OpenTransactionView | null;
}

export function describePartitions(dataDir: string, t: TransactionView, open: OpenTransactionView[]): DescribedPartition[] {
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
