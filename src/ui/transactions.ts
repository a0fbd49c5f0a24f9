/**
 * Transactions and producers, as `kafka-transactions.sh list / describe / describe-producers`
 * (KIP-664) shows them: every transactional id the cluster's transaction coordinators know
 * (ListTransactions sent to every broker), each described by its own coordinator
 * (DescribeTransactions: state, producer id and epoch, timeout, start time and so age, the
 * partitions in the transaction), and the producers writing to each partition (DescribeProducers
 * to the partition's leader: producer id, epoch, last sequence and timestamp, the offset where an
 * open transaction started).
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { DescribeProducers, type DescribeProducersResponse } from '../protocol/schemas/describe-producers.js';
import { DescribeTransactions, type DescribeTransactionsResponse } from '../protocol/schemas/describe-transactions.js';
import { ListTransactions, type ListTransactionsResponse } from '../protocol/schemas/list-transactions.js';
import { ClusterError, errorText, type ClusterView } from './cluster.js';
import { CoordinatorType } from './router.js';

/** TransactionState names of a transaction not yet complete (Kafka's TransactionState). */
const OPEN_STATES = new Set(['Ongoing', 'PrepareCommit', 'PrepareAbort']);
/** Partitions DescribeProducers is asked about in one page (a local cluster has far fewer). */
const MAX_PRODUCER_PARTITIONS = 2000;

export interface TransactionView {
  transactionalId: string;
  state: string;
  open: boolean;
  producerId: string;
  producerEpoch: number;
  timeoutMs: number;
  startTimeMs: string | null;
  ageMs: number | null;
  partitions: { topic: string; partitions: number[] }[];
  error?: string;
}

export async function transactions(cluster: ClusterView, now = Date.now()): Promise<TransactionView[]> {
  const listed = new Map<string, { state: string; producerId: bigint }>();
  for (const { client } of await cluster.router.everyBroker()) {
    if (!client.apiVersions.has(ListTransactions.apiKey)) throw new ClusterError('the cluster does not serve ListTransactions (KIP-664)', 501);
    const r = (await client.request<ListTransactionsResponse>(ListTransactions, 0, 0, { stateFilters: [], producerIdFilters: [] })).body;
    // COORDINATOR_LOAD_IN_PROGRESS and the like: that broker's ids are missing this time, as the tool warns
    if (r.errorCode !== ErrorCode.NONE) continue;
    for (const t of r.transactionStates) listed.set(t.transactionalId, { state: t.transactionState, producerId: t.producerId });
  }
  const out: TransactionView[] = [];
  for (const [id, l] of [...listed].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const coordinator = await cluster.router.coordinator(id, CoordinatorType.TRANSACTION);
    const d = (await coordinator.request<DescribeTransactionsResponse>(DescribeTransactions, 0, 0, { transactionalIds: [id] })).body.transactionStates[0];
    if (!d || d.errorCode !== ErrorCode.NONE) {
      out.push({ transactionalId: id, state: l.state, open: OPEN_STATES.has(l.state), producerId: String(l.producerId), producerEpoch: -1, timeoutMs: -1, startTimeMs: null, ageMs: null, partitions: [], error: d ? errorText(d.errorCode) : 'no answer' });
      continue;
    }
    const started = d.transactionStartTimeMs >= 0n ? d.transactionStartTimeMs : null;
    const open = OPEN_STATES.has(d.transactionState);
    out.push({
      transactionalId: id,
      state: d.transactionState,
      open,
      producerId: String(d.producerId),
      producerEpoch: d.producerEpoch,
      timeoutMs: d.transactionTimeoutMs,
      startTimeMs: started === null ? null : String(started),
      // a completed transaction keeps its start time in Kafka's answer: its age is an open one's only
      ageMs: started === null || !open ? null : Math.max(0, now - Number(started)),
      partitions: d.topics.map((t) => ({ topic: t.topic, partitions: [...t.partitions].sort((a, b) => a - b) })).sort((a, b) => (a.topic < b.topic ? -1 : 1)),
    });
  }
  return out;
}

interface ProducerView {
  topic: string;
  partition: number;
  producerId: string;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: string;
  coordinatorEpoch: number;
  currentTxnStartOffset: string;
}

/** The active producers of a topic's partitions (of every topic when none is named), from each partition's leader. */
export async function producers(cluster: ClusterView, topic: string | null): Promise<{ producers: ProducerView[]; errors: string[]; truncated: boolean }> {
  const names = topic !== null ? [topic] : (await cluster.topics()).filter((t) => t.error === undefined).map((t) => t.name);
  const all = (await Promise.all(names.map(async (name) => (await cluster.partitionsOf(name)).map((partition) => ({ topic: name, partition }))))).flat();
  const asked = all.slice(0, MAX_PRODUCER_PARTITIONS);
  const out: ProducerView[] = [];
  const errors: string[] = [];
  for (const [leader, parts] of await cluster.router.byLeader(asked)) {
    const client = await cluster.router.node(leader);
    if (!client.apiVersions.has(DescribeProducers.apiKey)) throw new ClusterError('the cluster does not serve DescribeProducers (KIP-664)', 501);
    const byTopic = new Map<string, number[]>();
    for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    const r = (await client.request<DescribeProducersResponse>(DescribeProducers, 0, 0, { topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })) })).body;
    for (const t of r.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== ErrorCode.NONE) {
          errors.push(`${t.name}-${p.partitionIndex}: ${errorText(p.errorCode)}${p.errorMessage ? ` (${p.errorMessage})` : ''}`);
          continue;
        }
        for (const s of p.activeProducers) {
          out.push({
            topic: t.name,
            partition: p.partitionIndex,
            producerId: String(s.producerId),
            producerEpoch: s.producerEpoch,
            lastSequence: s.lastSequence,
            lastTimestamp: String(s.lastTimestamp),
            coordinatorEpoch: s.coordinatorEpoch,
            currentTxnStartOffset: String(s.currentTxnStartOffset),
          });
        }
      }
    }
  }
  out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition || (a.producerId < b.producerId ? -1 : 1) : a.topic < b.topic ? -1 : 1));
  return { producers: out, errors, truncated: all.length > asked.length };
}
