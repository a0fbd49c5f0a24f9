/**
 * One transactional id's state as the coordinator keeps it (Kafka `TransactionMetadata`,
 * `TransactionState`, `TxnTransitMetadata`): the producer id and epoch it hands out, the
 * transaction's partitions, its timeout and timestamps. A change is built as a target
 * (`TxnTransit`), written to `__transaction_state`, and only then copied in (`complete`), so memory
 * never runs ahead of the log. `pendingState` is set while a change is in flight (the marker phase
 * between PrepareX and CompleteX): requests meanwhile get CONCURRENT_TRANSACTIONS.
 */
import { transactionLogKey } from '../../internal-topics/transaction-log.js';

/** Kafka's states, by the id written in TransactionLogValue.TransactionStatus (`TransactionState.java`). */
export const TXN_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'] as const;
export type TxnState = (typeof TXN_STATES)[number];

export function txnStateId(s: TxnState): number {
  return TXN_STATES.indexOf(s);
}

/**
 * Valid previous states (`TransactionState.validPreviousStates`). PrepareAbort from Empty and the
 * Complete states is only reached by a TV2 EndTxn(abort) with no transaction open.
 */
const VALID_PREVIOUS: Readonly<Record<TxnState, readonly TxnState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareEpochFence: ['Ongoing'],
};

/** `TransactionMetadata.isEpochExhausted`: epochs stop at Short.MAX_VALUE - 1 so the coordinator can always fence. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= 32766;
}

/** A topic-partition as a map key; topic names cannot contain ':' (Kafka's legal characters are [a-zA-Z0-9._-]). */
export function tpKey(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}

export function splitTpKey(key: string): { topic: string; partition: number } {
  const i = key.lastIndexOf(':');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}

/** The partitions grouped by topic, as TransactionLogValue and DescribeTransactions carry them. */
export function partitionsByTopic(keys: Iterable<string>): { topic: string; partitionIds: number[] }[] {
  type Group = { topic: string; partitionIds: number[] };
  // topics in first-seen order; a topic's partitions are mostly adjacent (each request adds a
  // topic's at once), so the map is built only when a second topic shows up
  const out: Group[] = [];
  let last: Group | undefined;
  let byTopic: Map<string, Group> | undefined;
  for (const k of keys) {
    const i = k.lastIndexOf(':');
    const topic = k.slice(0, i);
    const partition = Number(k.slice(i + 1));
    if (last !== undefined && last.topic === topic) {
      last.partitionIds.push(partition);
      continue;
    }
    if (last !== undefined) byTopic ??= new Map([[last.topic, last]]);
    let group = byTopic?.get(topic);
    if (group === undefined) {
      group = { topic, partitionIds: [partition] };
      out.push(group);
      byTopic?.set(topic, group);
    } else group.partitionIds.push(partition);
    last = group;
  }
  for (const g of out) if (g.partitionIds.length > 1) g.partitionIds.sort((a, b) => a - b);
  return out;
}

/** The target of a state change (Kafka `TxnTransitMetadata`): what is written, then copied in. */
export interface TxnTransit {
  producerId: bigint;
  prevProducerId: bigint;
  /** TV2: the producer id the Complete state switches to when the epoch ran out, else -1. */
  nextProducerId: bigint;
  /** 2 for a transaction a TV2 client drives (EndTxn v5+), else 0 (TransactionLogValue tag 2). */
  clientTransactionVersion: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TxnState;
  /** Handed over at `complete` (the metadata keeps this set): a target's own, or the metadata's already. */
  partitions: Set<string>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
}

export class TransactionMetadata {
  prevProducerId = -1n;
  nextProducerId = -1n;
  clientTransactionVersion = 0;
  /** Memory only (Kafka sets -1 on load): the epoch before the last bump, for InitProducerId retries. */
  lastProducerEpoch = -1;
  state: TxnState = 'Empty';
  partitions = new Set<string>();
  txnStartTimestamp = -1;
  pendingState: TxnState | undefined;
  /** TV1: a fence whose write failed keeps its bump for the next try (`hasFailedEpochFence`). */
  hasFailedEpochFence = false;
  private encodedKey: Buffer | undefined;

  constructor(
    readonly transactionalId: string,
    public producerId: bigint,
    public producerEpoch: number,
    public txnTimeoutMs: number,
    public txnLastUpdateTimestamp: number,
  ) {}

  /** Its `__transaction_state` record key, encoded once: every state change writes it. */
  get logKey(): Buffer {
    return (this.encodedKey ??= transactionLogKey(this.transactionalId));
  }

  /** The target of moving to `state` with the given changes (`prepareTransitionTo`); throws on an invalid move. */
  transit(state: TxnState, now: number, changes: Partial<Omit<TxnTransit, 'state' | 'txnLastUpdateTimestamp'>> = {}): TxnTransit {
    if (this.pendingState !== undefined && this.pendingState !== 'PrepareEpochFence') {
      throw new Error(`${this.transactionalId}: ${state} prepared while ${this.pendingState} is pending`);
    }
    if (!VALID_PREVIOUS[state].includes(this.state) && !(state === 'PrepareAbort' && this.pendingState === 'PrepareEpochFence')) {
      throw new Error(`${this.transactionalId}: invalid transition ${this.state} -> ${state}`);
    }
    // Kafka tolerates a clock that went backwards: the update time never decreases. Each field
    // read from `changes` or from this one, not a spread: one object shape for every target, and
    // no generic property copy on each of a transaction's three or four changes
    return {
      producerId: changes.producerId ?? this.producerId,
      prevProducerId: changes.prevProducerId ?? this.prevProducerId,
      nextProducerId: changes.nextProducerId ?? this.nextProducerId,
      clientTransactionVersion: changes.clientTransactionVersion ?? this.clientTransactionVersion,
      producerEpoch: changes.producerEpoch ?? this.producerEpoch,
      lastProducerEpoch: changes.lastProducerEpoch ?? this.lastProducerEpoch,
      txnTimeoutMs: changes.txnTimeoutMs ?? this.txnTimeoutMs,
      state,
      partitions: changes.partitions ?? this.partitions,
      txnStartTimestamp: changes.txnStartTimestamp ?? this.txnStartTimestamp,
      txnLastUpdateTimestamp: Math.max(now, this.txnLastUpdateTimestamp),
    };
  }

  /** Copies a written target in (`completeTransitionTo`) and clears the pending state. */
  complete(t: TxnTransit): void {
    this.producerId = t.producerId;
    this.prevProducerId = t.prevProducerId;
    this.nextProducerId = t.nextProducerId;
    this.clientTransactionVersion = t.clientTransactionVersion;
    this.producerEpoch = t.producerEpoch;
    this.lastProducerEpoch = t.lastProducerEpoch;
    this.txnTimeoutMs = t.txnTimeoutMs;
    this.state = t.state;
    // taken over, not copied: every target's set is a new one or already this one (`transit`)
    this.partitions = t.partitions;
    this.txnStartTimestamp = t.txnStartTimestamp;
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
    this.pendingState = undefined;
  }

  /** Empty, CompleteCommit and CompleteAbort ids may expire (`TransactionState.isExpirationAllowed`). */
  get isExpirable(): boolean {
    return this.state === 'Empty' || this.state === 'CompleteCommit' || this.state === 'CompleteAbort';
  }
}
