/**
 * The transaction coordinator (Kafka `TransactionCoordinator` with `TransactionStateManager`) for
 * one node that owns every `__transaction_state` partition: InitProducerId with a transactional
 * id, AddPartitionsToTxn (and its verify-only form), AddOffsetsToTxn, EndTxn, the broker's aborts of
 * timed-out transactions, transactional id expiry, Describe/ListTransactions. Every state change is
 * written to `__transaction_state` before memory changes (metadata.ts); markers are written by
 * marker-writer.ts, and the Complete state follows the last one.
 *
 * EndTxn answers once PrepareCommit/PrepareAbort is written, as Kafka's does
 * (`TransactionCoordinator.endTransaction`: `sendTxnMarkersCallback` answers, then
 * `TransactionMarkerChannelManager.addTxnMarkersToSend`). The markers and the Complete state follow
 * at the end of the same event-loop turn (`setImmediate`, after the answer went out), so a request
 * the client sends once its commit returned finds the transaction complete; requests read in the
 * same turn, and everything while markers wait for a retry, get Kafka's CONCURRENT_TRANSACTIONS.
 * The markers and Complete states of one turn are held appends (held-appends.ts), written together
 * at its end: one write per file for every transaction completed in that turn. The request-time
 * appends (Ongoing, PrepareX) are written at once, so that the EndTxn answer leaves before the
 * markers are written, as Kafka's does, instead of waiting for the turn's end.
 *
 * EndTxn up to v4 follows transaction version 1 (the epoch is bumped by InitProducerId and by the
 * broker's fence); EndTxn v5 follows TV2 (KIP-890 part 2: every commit or abort bumps the epoch,
 * retries are recognised by the previous epoch, an abort is allowed with no transaction open, an
 * exhausted epoch rotates the producer id at Complete). Aborts the broker starts (timeouts,
 * InitProducerId fencing) use the TV1 fence, as a broker at transaction.version 1 does. The coordinator epoch of the
 * markers is 0: one node's `__transaction_state` partitions never change leader, and the
 * partitions refuse only a decreasing one.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';
import { OFFSETS_TOPIC } from '../../internal-topics/offsets.js';
import { transactionLogKey, type TransactionLogValueInput } from '../../internal-topics/transaction-log.js';
import { SYSTEM_TIMER, type Timer, type TimerTask } from '../timer.js';
import type { TransactionConfig } from './config.js';
import { writeMarkers, type MarkerHost, type TxnMarker } from './marker-writer.js';
import { TXN_STATES, TransactionMetadata, isEpochExhausted, partitionsByTopic, tpKey, txnStateId, type TxnState, type TxnTransit } from './metadata.js';
import { TransactionStateTopic } from './state-topic.js';

export interface TxnCoordinatorHost extends MarkerHost {
  readonly producerIds: { generate(): bigint };
}

export interface ProducerIdAndEpoch {
  errorCode: number;
  producerId: bigint;
  producerEpoch: number;
}

/** Delay before markers or a Complete write that failed are tried again (Kafka's sender thread loops). */
const RETRY_MS = 100;

/** Kafka's mapping of a failed `__transaction_state` append (`TransactionStateManager.appendTransactionToLog`). */
function appendError(code: number): number {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return code;
  }
}

/** One transaction's markers waiting for the end of the turn, then its Complete write. */
interface QueuedMarkers {
  txn: TransactionMetadata;
  partitions: string[];
  marker: TxnMarker;
  target: TxnTransit;
}

export class TransactionCoordinator {
  readonly txns = new Map<string, TransactionMetadata>();
  readonly store: TransactionStateTopic;
  /** The leader epoch of `__transaction_state` as Kafka uses it; constant on one node (see above). */
  readonly coordinatorEpoch = 0;
  private loading = false;
  private active = false;
  private readonly tasks = new Set<TimerTask>();
  /**
   * Marker sends queued by completeTransaction, run after this turn's answers (see above). Plain
   * records and one callback made once, not a closure per transaction: the broker queues one per
   * EndTxn, and the immediate's callback stays the same function for V8.
   */
  private readonly queuedMarkers: QueuedMarkers[] = [];
  /** The Complete writes of the marker run in progress (sendQueuedMarkers), reused from turn to turn. */
  private readonly completions: QueuedMarkers[] = [];
  private markersImmediate: NodeJS.Immediate | undefined;
  private readonly onMarkersTurn = (): void => this.sendQueuedMarkers();

  constructor(
    private readonly host: TxnCoordinatorHost,
    readonly config: TransactionConfig,
    readonly timer: Timer = SYSTEM_TIMER,
  ) {
    this.store = new TransactionStateTopic(host.topics, host.logs, config, () => host.appends.notify());
  }

  // ---- lifecycle (Kafka onElection / loadTransactionsForTxnTopicPartition / onResignation) ----

  /** Loads `__transaction_state`, completes transactions found in PrepareCommit/PrepareAbort, starts the periodic tasks. */
  start(): void {
    this.loading = true;
    let loaded: ReturnType<TransactionStateTopic['load']>;
    try {
      loaded = this.store.load((what) => this.host.logger.warn(`skipping unreadable transaction record at ${what}`));
    } finally {
      this.loading = false;
    }
    const toComplete: TransactionMetadata[] = [];
    for (const [id, v] of loaded) {
      if (v === null) continue;
      const state = TXN_STATES[v.stateId];
      if (state === undefined || state === 'Dead' || state === 'PrepareEpochFence') continue;
      const txn = new TransactionMetadata(id, v.producerId, v.producerEpoch, v.timeoutMs, Number(v.lastUpdateTimestampMs));
      txn.state = state;
      txn.txnStartTimestamp = Number(v.startTimestampMs);
      txn.prevProducerId = v.previousProducerId;
      txn.nextProducerId = v.nextProducerId;
      txn.clientTransactionVersion = v.clientTransactionVersion;
      if (state !== 'Empty') for (const t of v.partitions) for (const p of t.partitionIds) txn.partitions.add(tpKey(t.topic, p));
      this.txns.set(id, txn);
      if (state === 'PrepareCommit' || state === 'PrepareAbort') toComplete.push(txn);
    }
    this.active = true;
    // Kafka re-sends the markers of every prepared transaction to all of its partitions (§5.5 of the notes)
    for (const txn of toComplete) this.completeTransaction(txn, txn.state === 'PrepareCommit');
    this.every(this.config.abortTimedOutIntervalMs, () => this.abortTimedOutTransactions());
    this.every(this.config.removeExpiredIntervalMs, () => this.removeExpiredTransactionalIds());
  }

  close(): void {
    // markers already due are written before the logs close (Kafka's restart would re-send them)
    if (this.markersImmediate !== undefined) clearImmediate(this.markersImmediate);
    this.sendQueuedMarkers();
    this.active = false;
    for (const t of this.tasks) t.cancel();
    this.tasks.clear();
  }

  private every(ms: number, task: () => void): void {
    const t = this.timer.schedule(ms, () => {
      try {
        if (this.active) task();
        this.writeHeld();
      } catch (e) {
        this.host.logger.error(`transaction coordinator task failed: ${(e as Error).stack ?? String(e)}`);
      }
      if (this.active) t.refresh();
    });
    this.tasks.add(t);
  }

  private later(task: () => void): void {
    const t = this.timer.schedule(RETRY_MS, () => {
      this.tasks.delete(t);
      if (!this.active) return;
      try {
        task();
        this.writeHeld();
      } catch (e) {
        this.host.logger.error(`transaction coordinator retry failed: ${(e as Error).stack ?? String(e)}`);
      }
    });
    this.tasks.add(t);
  }

  /** The error every lookup answers first: none, or the coordinator is loading or gone. */
  private stateError(): number {
    if (this.loading) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    if (!this.active) return ErrorCode.NOT_COORDINATOR;
    return ErrorCode.NONE;
  }

  // ---- writing a change -----------------------------------------------------------------------

  /**
   * Appends the target to `__transaction_state`; Kafka's error code on failure. `held`: its file
   * write joins the turn's held appends, which the caller writes before its turn ends.
   */
  private append(txn: TransactionMetadata, t: TxnTransit, held = false): number {
    const partitions = t.state === 'Empty' ? null : t.state === 'CompleteCommit' || t.state === 'CompleteAbort' ? [] : partitionsByTopic(t.partitions);
    const value: TransactionLogValueInput = {
      producerId: t.producerId,
      producerEpoch: t.producerEpoch,
      timeoutMs: t.txnTimeoutMs,
      stateId: txnStateId(t.state),
      partitions,
      lastUpdateTimestampMs: t.txnLastUpdateTimestamp,
      startTimestampMs: t.txnStartTimestamp,
      previousProducerId: t.prevProducerId,
      nextProducerId: t.nextProducerId,
      clientTransactionVersion: t.clientTransactionVersion,
    };
    try {
      this.store.appendState(txn.transactionalId, txn.logKey, value, this.timer.now(), held ? this.host.heldAppends : undefined);
      return ErrorCode.NONE;
    } catch (e) {
      const code = errorCodeOf(e);
      this.host.logger.warnThrottled(`txn-log:${code}`, `writing transaction ${txn.transactionalId} (${t.state}) failed (error ${code}): ${errorMessageOf(e)}`);
      return appendError(code);
    }
  }

  /** Writes the target, then copies it in (`appendTransactionToLog` + `completeTransitionTo`). */
  private transitTo(txn: TransactionMetadata, t: TxnTransit): number {
    const code = this.append(txn, t);
    if (code === ErrorCode.NONE) txn.complete(t);
    return code;
  }

  // ---- InitProducerId (TransactionCoordinator.handleInitProducerId) --------------------------

  /** `expectedProducerId`/`expectedEpoch` -1: no expectation (the handler refuses exactly one of them set). */
  initProducerId(transactionalId: string, timeoutMs: number, expectedProducerId: bigint, expectedEpoch: number): ProducerIdAndEpoch {
    const fail = (errorCode: number): ProducerIdAndEpoch => ({ errorCode, producerId: -1n, producerEpoch: -1 });
    if (transactionalId === '') return fail(ErrorCode.INVALID_REQUEST);
    if (timeoutMs <= 0 || timeoutMs > this.config.maxTimeoutMs) return fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return fail(se);
    const now = this.timer.now();
    let txn = this.txns.get(transactionalId);
    if (txn === undefined) {
      txn = new TransactionMetadata(transactionalId, this.host.producerIds.generate(), -1, timeoutMs, now);
      this.txns.set(transactionalId, txn);
    }
    if (txn.pendingState !== undefined) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    const expects = expectedProducerId !== -1n;
    // isValidProducerId: KIP-360 recovery with the id and epoch the producer had
    const valid =
      !expects || txn.producerEpoch === -1 || expectedProducerId === txn.producerId || (expectedProducerId === txn.prevProducerId && isEpochExhausted(expectedEpoch));
    if (!valid) return fail(ErrorCode.PRODUCER_FENCED);
    switch (txn.state) {
      case 'PrepareCommit':
      case 'PrepareAbort':
        return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'Ongoing': {
        // fence the open transaction and abort it; the client retries and then gets the next epoch
        const code = this.fenceAndAbort(txn);
        return fail(code === ErrorCode.NONE ? ErrorCode.CONCURRENT_TRANSACTIONS : code);
      }
      default:
        break;
    }
    let target: TxnTransit;
    if (isEpochExhausted(txn.producerEpoch) && (!expects || expectedEpoch === txn.producerEpoch)) {
      // prepareProducerIdRotation: a new producer id at epoch 0
      target = txn.transit('Empty', now, {
        producerId: this.host.producerIds.generate(),
        prevProducerId: txn.producerId,
        producerEpoch: 0,
        lastProducerEpoch: expects ? txn.producerEpoch : -1,
        txnTimeoutMs: timeoutMs,
        partitions: new Set(),
        txnStartTimestamp: -1,
      });
    } else {
      // prepareIncrementProducerEpoch
      let epoch: number;
      let last: number;
      if (!expects) [epoch, last] = [txn.producerEpoch + 1, -1];
      else if (txn.producerEpoch === -1 || expectedEpoch === txn.producerEpoch) [epoch, last] = [txn.producerEpoch + 1, txn.producerEpoch];
      else if (expectedEpoch === txn.lastProducerEpoch) [epoch, last] = [txn.producerEpoch, txn.lastProducerEpoch];
      else return fail(ErrorCode.PRODUCER_FENCED);
      target = txn.transit('Empty', now, { producerEpoch: epoch, lastProducerEpoch: last, txnTimeoutMs: timeoutMs, partitions: new Set(), txnStartTimestamp: -1 });
    }
    const code = this.transitTo(txn, target);
    return code === ErrorCode.NONE ? { errorCode: ErrorCode.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch } : fail(code);
  }

  // ---- AddPartitionsToTxn / AddOffsetsToTxn (handleAddPartitionsToTransaction) --------------

  addPartitions(transactionalId: string, producerId: bigint, producerEpoch: number, partitions: readonly { topic: string; partition: number }[]): number {
    if (transactionalId === '') return ErrorCode.INVALID_REQUEST;
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return se;
    const txn = this.txns.get(transactionalId);
    if (txn === undefined) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (txn.pendingState !== undefined) return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (txn.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return ErrorCode.CONCURRENT_TRANSACTIONS;
    const next = new Set(txn.partitions);
    for (const p of partitions) next.add(tpKey(p.topic, p.partition));
    // every partition already in the open transaction: nothing to write (Kafka's `addPartitions` no-op)
    if (txn.state === 'Ongoing' && next.size === txn.partitions.size) return ErrorCode.NONE;
    const now = this.timer.now();
    const target = txn.transit('Ongoing', now, {
      partitions: next,
      txnStartTimestamp: txn.state === 'Ongoing' ? txn.txnStartTimestamp : now,
    });
    return this.transitTo(txn, target);
  }

  /** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction (KafkaApis `handleAddOffsetsToTxnRequest`). */
  addOffsets(transactionalId: string, producerId: bigint, producerEpoch: number, offsetsPartition: number): number {
    return this.addPartitions(transactionalId, producerId, producerEpoch, [{ topic: OFFSETS_TOPIC, partition: offsetsPartition }]);
  }

  /**
   * AddPartitionsToTxn v4+ with VerifyOnly (`handleVerifyPartitionsInTransaction`, KIP-890): a
   * transaction-wide error, or per partition NONE when it is in the transaction and
   * TRANSACTION_ABORTABLE when not. Writes nothing.
   */
  verifyPartitions(transactionalId: string, producerId: bigint, producerEpoch: number, partitions: readonly { topic: string; partition: number }[]): { errorCode: number; partitions?: number[] } {
    const errorCode = this.verificationError(transactionalId, producerId, producerEpoch);
    if (errorCode !== ErrorCode.NONE) return { errorCode };
    const txn = this.txns.get(transactionalId)!;
    const ongoing = txn.state === 'Ongoing';
    return {
      errorCode: ErrorCode.NONE,
      partitions: partitions.map((p) => (ongoing && txn.partitions.has(tpKey(p.topic, p.partition)) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE)),
    };
  }

  /**
   * `verifyPartitions` for one partition, its transaction-wide error or the partition's, without the
   * request and answer arrays: a transactional Produce verifies each partition's first batch of
   * every transaction (verification.ts), a TxnOffsetCommit its group's offsets partition.
   */
  verifyPartition(transactionalId: string, producerId: bigint, producerEpoch: number, topic: string, partition: number): number {
    const errorCode = this.verificationError(transactionalId, producerId, producerEpoch);
    if (errorCode !== ErrorCode.NONE) return errorCode;
    const txn = this.txns.get(transactionalId)!;
    return txn.state === 'Ongoing' && txn.partitions.has(tpKey(topic, partition)) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE;
  }

  /**
   * The checks a verification and a TV1 EndTxn start with, in Kafka's order: NONE when the id's
   * transaction is known and is this producer id's at this epoch. (AddPartitionsToTxn and the TV2
   * EndTxn check a pending transition before the producer id, so they do their own.)
   */
  private producerError(transactionalId: string, producerId: bigint, producerEpoch: number): number {
    if (transactionalId === '') return ErrorCode.INVALID_REQUEST;
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return se;
    const txn = this.txns.get(transactionalId);
    if (txn === undefined || txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (txn.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    return ErrorCode.NONE;
  }

  /** The transaction-wide checks of a verification (`handleVerifyPartitionsInTransaction`): NONE when the id's transaction can be asked. */
  private verificationError(transactionalId: string, producerId: bigint, producerEpoch: number): number {
    const pe = this.producerError(transactionalId, producerId, producerEpoch);
    if (pe !== ErrorCode.NONE) return pe;
    const txn = this.txns.get(transactionalId)!;
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return ErrorCode.CONCURRENT_TRANSACTIONS;
    return ErrorCode.NONE;
  }

  // ---- EndTxn (endTransactionWithTV1) ----------------------------------------------------------

  endTransaction(transactionalId: string, producerId: bigint, producerEpoch: number, commit: boolean): number {
    const pe = this.producerError(transactionalId, producerId, producerEpoch);
    if (pe !== ErrorCode.NONE) return pe;
    const txn = this.txns.get(transactionalId)!;
    if (txn.pendingState !== undefined && txn.pendingState !== 'PrepareEpochFence') return ErrorCode.CONCURRENT_TRANSACTIONS;
    switch (txn.state) {
      case 'Ongoing': {
        const code = this.transitTo(txn, txn.transit(commit ? 'PrepareCommit' : 'PrepareAbort', this.timer.now()));
        if (code === ErrorCode.NONE) this.completeTransaction(txn, commit);
        return code;
      }
      case 'PrepareCommit':
        return commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE;
      case 'PrepareAbort':
        return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS;
      case 'CompleteCommit':
        // a retry of a commit that completed
        return commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
      case 'CompleteAbort':
        return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE;
      default:
        return ErrorCode.INVALID_TXN_STATE;
    }
  }

  // ---- EndTxn v5+ (endTransaction with TV2) ------------------------------------------------

  endTransactionV2(transactionalId: string, producerId: bigint, producerEpoch: number, commit: boolean): ProducerIdAndEpoch {
    const fail = (errorCode: number): ProducerIdAndEpoch => ({ errorCode, producerId: -1n, producerEpoch: -1 });
    if (transactionalId === '') return fail(ErrorCode.INVALID_REQUEST);
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return fail(se);
    const txn = this.txns.get(transactionalId);
    if (txn === undefined) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (txn.pendingState !== undefined && txn.pendingState !== 'PrepareEpochFence') return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    // a retry of an EndTxn that completed: the previous epoch, or the last epoch of a rotated producer id
    const retryOnOverflow = producerId === txn.prevProducerId && producerEpoch === 32766 && txn.producerEpoch === 0;
    const retry = retryOnOverflow || (producerId === txn.producerId && producerEpoch === txn.producerEpoch - 1);
    if (producerId !== txn.producerId && !retryOnOverflow) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const current = producerId === txn.producerId && producerEpoch === txn.producerEpoch;
    const validEpoch =
      txn.state === 'Ongoing' || txn.state === 'Empty' ? current : txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort' ? retry : retry || current;
    if (!validEpoch) return fail(ErrorCode.PRODUCER_FENCED);
    const ok = (): ProducerIdAndEpoch => ({ errorCode: ErrorCode.NONE, producerId: txn.producerId, producerEpoch: txn.producerEpoch });
    const now = this.timer.now();
    // PrepareX at epoch + 1; an exhausted epoch gets the next producer id for Complete (`prepareAbortOrCommit`)
    const prepare = (state: 'PrepareCommit' | 'PrepareAbort', changes: Partial<TxnTransit>): ProducerIdAndEpoch => {
      const target = txn.transit(state, now, {
        ...changes,
        producerEpoch: txn.producerEpoch + 1,
        lastProducerEpoch: txn.producerEpoch,
        nextProducerId: isEpochExhausted(txn.producerEpoch) ? this.host.producerIds.generate() : -1n,
        clientTransactionVersion: 2,
      });
      const code = this.transitTo(txn, target);
      if (code !== ErrorCode.NONE) return fail(code);
      const complete = this.completeTransaction(txn, state === 'PrepareCommit');
      return { errorCode: ErrorCode.NONE, producerId: complete.producerId, producerEpoch: complete.producerEpoch };
    };
    // an abort with no transaction open: PrepareAbort with no partitions, so Complete follows at once
    const emptyAbort = (): ProducerIdAndEpoch => prepare('PrepareAbort', { partitions: new Set(), txnStartTimestamp: now });
    switch (txn.state) {
      case 'Ongoing':
        return prepare(commit ? 'PrepareCommit' : 'PrepareAbort', {});
      case 'PrepareCommit':
        return fail(commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
      case 'PrepareAbort':
        return fail(commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.CONCURRENT_TRANSACTIONS);
      case 'CompleteCommit':
        if (commit) return retry ? ok() : fail(ErrorCode.INVALID_TXN_STATE);
        return retry ? fail(ErrorCode.INVALID_TXN_STATE) : emptyAbort();
      case 'CompleteAbort':
        if (commit) return fail(ErrorCode.INVALID_TXN_STATE);
        return retry ? ok() : emptyAbort();
      case 'Empty':
        return commit ? fail(ErrorCode.INVALID_TXN_STATE) : emptyAbort();
      default:
        return fail(ErrorCode.INVALID_TXN_STATE);
    }
  }

  // ---- markers, then Complete (sendTxnMarkersCallback, TransactionMarkerChannelManager) --------

  /** After PrepareX is written: CompleteX becomes pending, the markers are written, then CompleteX. */
  private completeTransaction(txn: TransactionMetadata, commit: boolean): TxnTransit {
    // TV2 epoch overflow: Complete moves to the new producer id at epoch 0 (`prepareComplete`)
    const state = commit ? 'CompleteCommit' : 'CompleteAbort';
    const now = this.timer.now();
    const target =
      txn.nextProducerId === -1n
        ? txn.transit(state, now, { partitions: new Set() })
        : txn.transit(state, now, { partitions: new Set(), producerId: txn.nextProducerId, producerEpoch: 0, prevProducerId: txn.producerId, nextProducerId: -1n });
    txn.pendingState = target.state;
    const marker: TxnMarker = { producerId: txn.producerId, producerEpoch: txn.producerEpoch, commit, coordinatorEpoch: this.coordinatorEpoch };
    const partitions = [...txn.partitions];
    this.queuedMarkers.push({ txn, partitions, marker, target });
    this.markersImmediate ??= setImmediate(this.onMarkersTurn);
    return target;
  }

  private sendQueuedMarkers(): void {
    this.markersImmediate = undefined;
    const queued = this.queuedMarkers;
    const completions = this.completions;
    // by index, and emptied once done: a send that queues another (none does today) finds it run in this pass
    for (let i = 0; i < queued.length; i++) {
      if (!this.active) break;
      const q = queued[i]!;
      try {
        this.sendMarkers(q.txn, q.partitions, q.marker, q.target, completions);
      } catch (e) {
        this.host.logger.error(`writing transaction markers failed: ${(e as Error).stack ?? String(e)}`);
      }
    }
    queued.length = 0;
    try {
      // every marker of the turn reaches its log before any Complete record is appended: Kafka
      // writes CompleteX only once all the markers are acknowledged, so a crash or a failed write
      // between the two leaves PrepareX, whose markers the load sends again, never a Complete
      // without its markers (held appends write files in the order they were first held)
      this.writeHeld();
      for (let j = 0; j < completions.length; j++) {
        const c = completions[j]!;
        try {
          this.writeCompletion(c.txn, c.target);
        } catch (e) {
          this.host.logger.error(`writing a transaction's completion failed: ${(e as Error).stack ?? String(e)}`);
        }
      }
      completions.length = 0;
      this.writeHeld();
    } catch (e) {
      completions.length = 0;
      // the log directory failed (held-appends.ts): the broker halts, and the restart re-sends the markers
      this.host.logger.error(`writing transaction markers failed: ${(e as Error).stack ?? String(e)}`);
    }
  }

  /**
   * Writes the held appends (held-appends.ts) of work done outside a request: the markers and
   * Complete states, timeouts, expiry. Within a request the connection writes them before answering.
   */
  private writeHeld(): void {
    this.host.heldAppends?.writeAll();
  }

  /** `completions` collects the Complete writes of a marker run (sendQueuedMarkers writes the markers first); a retry writes its own. */
  private sendMarkers(txn: TransactionMetadata, partitions: string[], marker: TxnMarker, target: TxnTransit, completions?: QueuedMarkers[]): void {
    const retry = writeMarkers(this.host, txn.transactionalId, partitions, marker);
    // acknowledged partitions leave the in-memory set, as Kafka's does (DescribeTransactions shows what is left)
    if (retry.length === 0) {
      for (const p of partitions) txn.partitions.delete(p);
    } else {
      const left = new Set(retry);
      for (const p of partitions) if (!left.has(p)) txn.partitions.delete(p);
    }
    if (retry.length > 0) {
      this.later(() => this.sendMarkers(txn, retry, marker, target));
    } else if (completions !== undefined) {
      completions.push({ txn, partitions, marker, target });
    } else {
      this.writeHeld(); // the markers first, as in sendQueuedMarkers
      this.writeCompletion(txn, target);
    }
  }

  private writeCompletion(txn: TransactionMetadata, target: TxnTransit): void {
    // held: written by sendQueuedMarkers or the retry's task with the markers of its turn
    const code = this.append(txn, target, true);
    if (code === ErrorCode.NONE) txn.complete(target);
    // Kafka retries COORDINATOR_NOT_AVAILABLE and leaves the rest to a reload; here a later try is the reload's equivalent
    else this.later(() => this.writeCompletion(txn, target));
  }

  // ---- fencing and timeouts (prepareFenceProducerEpoch, abortTimedOutTransactions) -------------

  /**
   * The TV1 fence of an Ongoing transaction: the epoch is bumped (unless a failed fence already did),
   * PrepareAbort is written at the new epoch, ABORT markers carry it, then CompleteAbort. The old
   * producer's requests at its epoch are refused from then on (PRODUCER_FENCED / INVALID_PRODUCER_EPOCH).
   */
  private fenceAndAbort(txn: TransactionMetadata): number {
    const epoch = txn.hasFailedEpochFence || txn.producerEpoch >= 32767 ? txn.producerEpoch : txn.producerEpoch + 1;
    txn.pendingState = 'PrepareEpochFence';
    const target = txn.transit('PrepareAbort', this.timer.now(), { producerEpoch: epoch, lastProducerEpoch: -1 });
    const code = this.append(txn, target);
    if (code !== ErrorCode.NONE) {
      // Kafka keeps the bump in memory and reuses it on the next fence (hasFailedEpochFence)
      txn.pendingState = undefined;
      txn.producerEpoch = epoch;
      txn.lastProducerEpoch = -1;
      txn.hasFailedEpochFence = true;
      return code;
    }
    txn.hasFailedEpochFence = false;
    txn.complete(target);
    this.completeTransaction(txn, false);
    return ErrorCode.NONE;
  }

  /** Ongoing transactions past their timeout are fenced and aborted (`transaction.abort.timed.out.transaction.cleanup.interval.ms`). */
  abortTimedOutTransactions(): number {
    const now = this.timer.now();
    let aborted = 0;
    for (const txn of this.txns.values()) {
      if (txn.state !== 'Ongoing' || txn.pendingState !== undefined || txn.txnStartTimestamp + txn.txnTimeoutMs >= now) continue;
      this.host.logger.info(`aborting transaction ${txn.transactionalId} (producer ${txn.producerId}): open longer than its ${txn.txnTimeoutMs} ms timeout`);
      if (this.fenceAndAbort(txn) === ErrorCode.NONE) aborted++;
    }
    return aborted;
  }

  /** Idle ids expire (`transactional.id.expiration.ms`): a tombstone each, then they are forgotten. */
  removeExpiredTransactionalIds(): number {
    const now = this.timer.now();
    let removed = 0;
    for (const txn of [...this.txns.values()]) {
      if (!txn.isExpirable || txn.pendingState !== undefined || txn.txnLastUpdateTimestamp > now - this.config.idExpirationMs) continue;
      try {
        this.store.append(txn.transactionalId, transactionLogKey(txn.transactionalId), null, now);
      } catch (e) {
        this.host.logger.warnThrottled('txn-expire', `expiring transactional id ${txn.transactionalId} failed: ${errorMessageOf(e)}`);
        continue;
      }
      this.txns.delete(txn.transactionalId);
      removed++;
    }
    return removed;
  }

  // ---- Describe / List -----------------------------------------------------------------------

  /** DescribeTransactions for one id (`handleDescribeTransactions`). */
  describe(transactionalId: string): { errorCode: number; txn?: TransactionMetadata } {
    if (transactionalId === '') return { errorCode: ErrorCode.INVALID_REQUEST };
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return { errorCode: se === ErrorCode.NOT_COORDINATOR ? ErrorCode.COORDINATOR_NOT_AVAILABLE : se };
    const txn = this.txns.get(transactionalId);
    if (txn === undefined || txn.state === 'Dead') return { errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
    return { errorCode: ErrorCode.NONE, txn };
  }

  /**
   * ListTransactions (`TransactionStateManager.listTransactionStates`): filters ANDed, an empty one
   * matches all; unknown state names are reported and match nothing; the duration filter keeps
   * transactions started more than that long ago (Empty ones always pass, as in Kafka).
   */
  list(filter: { states: readonly string[]; producerIds: readonly bigint[]; durationMs: bigint }): {
    errorCode: number;
    unknownStates: string[];
    transactions: { transactionalId: string; producerId: bigint; state: TxnState }[];
  } {
    const se = this.stateError();
    if (se !== ErrorCode.NONE) return { errorCode: se === ErrorCode.NOT_COORDINATOR ? ErrorCode.COORDINATOR_NOT_AVAILABLE : se, unknownStates: [], transactions: [] };
    const known = new Set<string>(TXN_STATES);
    const unknownStates = filter.states.filter((s) => !known.has(s));
    const states = new Set(filter.states);
    const pids = new Set(filter.producerIds);
    const now = BigInt(this.timer.now());
    const transactions = [];
    for (const txn of this.txns.values()) {
      if (txn.state === 'Dead') continue;
      if (states.size > 0 && !states.has(txn.state)) continue;
      if (pids.size > 0 && !pids.has(txn.producerId)) continue;
      if (filter.durationMs >= 0n && txn.txnStartTimestamp >= 0 && now - BigInt(txn.txnStartTimestamp) <= filter.durationMs) continue;
      transactions.push({ transactionalId: txn.transactionalId, producerId: txn.producerId, state: txn.state });
    }
    return { errorCode: ErrorCode.NONE, unknownStates, transactions };
  }
}
