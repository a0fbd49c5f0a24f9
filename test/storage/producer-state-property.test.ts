/**
 * Property test of the producer state of a PartitionLog (Kafka `ProducerStateManager`, `ProducerAppendInfo`): random
 * interleavings of 1-4 producers, idempotent and transactional, against a model kept here.
 *
 * Each run opens a fresh log (small segments, so rolls and their snapshots happen) and plays a list
 * of operations:
 *  - append: the producer's next batch (next sequence, current epoch; transactional producers open
 *    or extend a transaction) — accepted at the log end offset;
 *  - retry: one of the producer's last 5 batches of its epoch resent byte for byte — a duplicate
 *    (original offsets, nothing written) while the log still caches it, else refused as
 *    OUT_OF_ORDER_SEQUENCE_NUMBER (after a restart only the newest batch per producer is known,
 *    `ProducerStateManager.writeSnapshot` keeps one batch, and an unclean restart also ends by loading
 *    the snapshot the recovery took at the log end, `UnifiedLog.rebuildProducerState`);
 *  - outOfOrder: a gap, an overlapping range, or a new epoch not starting at 0 — refused with
 *    OUT_OF_ORDER_SEQUENCE_NUMBER;
 *  - bump: epoch + 1 with the sequence back at 0 — accepted;
 *  - stale: a batch of an older epoch — refused with INVALID_PRODUCER_EPOCH;
 *  - nonTxn: a non-transactional batch while the producer's transaction is open — INVALID_TXN_STATE;
 *  - commit / abort: a coordinator marker (appendEndTxnMarker) ending the open transaction, abort
 *    sometimes with a bumped epoch (as InitProducerId fencing does); markers without a transaction;
 *  - staleMarker: a marker with an older coordinator epoch (TRANSACTION_COORDINATOR_FENCED) or an
 *    older producer epoch (INVALID_PRODUCER_EPOCH);
 *  - cleanRestart: close + reopen with hadCleanShutdown; uncleanRestart: the segments' files closed
 *    without the shutdown snapshot, optionally with a torn tail (an unacknowledged batch cut short
 *    in the active segment), reopened with hadCleanShutdown false (recovery), from offset 0 or
 *    from the log's recovery point (as a checkpoint would give it: earlier segments not rescanned).
 *
 * After every operation: the whole log equals the model's batches (each accepted batch once, no
 * duplicate (producer, epoch, sequence)); each producer's entry (epoch, coordinator epoch, open
 * transaction, cached batches) matches; the LSO is the first offset of the oldest open transaction
 * (else the HW); the .txnindex entries of all segments equal the model's aborted transactions
 * (with Kafka's lastStableOffset); and read_committed fetches of random ranges stop at the LSO and
 * list aborted transactions that, used as Kafka's consumer uses them, show exactly the committed
 * and non-transactional records of the range.
 *
 * Seed: KAFKALITE_PSTATE_SEED overrides the default; runs: KAFKALITE_PSTATE_RUNS (default 200; 25 in the unit tier).
 */
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, statSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KafkaliteError, type KafkaliteErrorCode } from '../../src/errors.js';
import type { RecordBatch } from '../../src/record/batch.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { parseEndTransactionMarker } from '../../src/record/control.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../src/storage/log-config.js';
import { PartitionLog, type ReadResult } from '../../src/storage/partition-log.js';
import { tempDir } from '../helpers/storage.js';
import { tierCount } from '../helpers/tier.js';
import { v2 } from '../helpers/v2.js';

const SEED = process.env.KAFKALITE_PSTATE_SEED ? Number(process.env.KAFKALITE_PSTATE_SEED) : 424242;
const RUNS = process.env.KAFKALITE_PSTATE_RUNS ? Number(process.env.KAFKALITE_PSTATE_RUNS) : tierCount(200, 25);
const T0 = 1_700_000_000_000;
const INT32_MAX = 0x7fffffff;

const CONFIG: LogConfig = { ...DEFAULT_LOG_CONFIG, segmentBytes: 1200, indexIntervalBytes: 128, segmentIndexBytes: 4096 };

/** Kafka's sequence arithmetic: int32 sequences wrap from Int.MAX to 0. */
function seqAdd(seq: number, n: number): number {
  return (seq + n) % (INT32_MAX + 1);
}

// ---- the model --------------------------------------------------------------------------------

interface DataRec {
  kind: 'data';
  pid: bigint;
  epoch: number;
  firstSeq: number;
  lastSeq: number;
  count: number;
  firstOffset: bigint;
  lastOffset: bigint;
  transactional: boolean;
  /** The transaction the batch belongs to (transactional batches only). */
  txn?: TxnRec;
  values: string[];
  /** Exactly the bytes sent, for retries. */
  bytes: Buffer;
}

interface MarkerRec {
  kind: 'marker';
  pid: bigint;
  epoch: number;
  type: 'COMMIT' | 'ABORT';
  coordinatorEpoch: number;
  offset: bigint;
}

interface TxnRec {
  pid: bigint;
  firstOffset: bigint;
  markerOffset?: bigint;
  aborted?: boolean;
}

interface ProducerModel {
  pid: bigint;
  transactional: boolean;
  epoch: number;
  nextSeq: number;
  /** The log has seen this producer (any accepted batch or marker). */
  known: boolean;
  coordinatorEpoch: number;
  /** The batches the log's entry caches (current epoch, newest last, at most 5). */
  window: DataRec[];
  /** Every accepted data batch, oldest first. */
  history: DataRec[];
  openTxn: TxnRec | undefined;
}

interface AbortedEntry {
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  lastStableOffset: bigint;
}

class Model {
  readonly producers: ProducerModel[];
  readonly log: (DataRec | MarkerRec)[] = [];
  readonly aborted: AbortedEntry[] = [];
  leo = 0n;

  constructor(spec: Scenario) {
    this.producers = spec.producers.map((p, i) => ({
      pid: 1000n + BigInt(i) * 7n,
      transactional: p.transactional,
      epoch: p.startEpoch,
      nextSeq: p.startSeq,
      known: false,
      coordinatorEpoch: -1,
      window: [],
      history: [],
      openTxn: undefined,
    }));
  }

  openTxns(): TxnRec[] {
    return this.producers
      .map((p) => p.openTxn)
      .filter((t): t is TxnRec => t !== undefined)
      .sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  }

  lso(): bigint {
    return this.openTxns()[0]?.firstOffset ?? this.leo;
  }

  acceptData(p: ProducerModel, rec: DataRec): void {
    if (rec.transactional) {
      if (!p.openTxn) p.openTxn = { pid: p.pid, firstOffset: rec.firstOffset };
      rec.txn = p.openTxn;
    }
    if (rec.epoch !== p.epoch) {
      p.epoch = rec.epoch;
      p.window = [];
    }
    p.window.push(rec);
    if (p.window.length > 5) p.window.shift();
    p.history.push(rec);
    p.nextSeq = seqAdd(rec.lastSeq, 1);
    p.known = true;
    this.log.push(rec);
    this.leo = rec.lastOffset + 1n;
  }

  acceptMarker(p: ProducerModel, m: MarkerRec): void {
    const txn = p.openTxn;
    if (txn) {
      txn.markerOffset = m.offset;
      txn.aborted = m.type === 'ABORT';
      if (txn.aborted) {
        const others = this.openTxns().filter((t) => t.pid !== p.pid);
        this.aborted.push({
          producerId: p.pid,
          firstOffset: txn.firstOffset,
          lastOffset: m.offset,
          lastStableOffset: others[0]?.firstOffset ?? m.offset + 1n,
        });
      }
      p.openTxn = undefined;
    }
    if (m.epoch !== p.epoch) {
      p.epoch = m.epoch;
      p.window = [];
    }
    // without a cached batch of its epoch the log expects the producer to start at sequence 0
    if (p.window.length === 0) p.nextSeq = 0;
    p.coordinatorEpoch = m.coordinatorEpoch;
    p.known = true;
    this.log.push(m);
    this.leo = m.offset + 1n;
  }

  /** A restart: the log reloads its newest snapshot, which keeps one batch per producer. */
  restarted(): void {
    for (const p of this.producers) p.window = p.window.slice(-1);
  }

  /** Whether a data batch is visible to a read_committed consumer once below the LSO. */
  static committedVisible(rec: DataRec): boolean {
    return !rec.transactional || rec.txn?.aborted === false;
  }
}

// ---- scenarios --------------------------------------------------------------------------------

type OpKind =
  | 'append'
  | 'retry'
  | 'outOfOrder'
  | 'bump'
  | 'stale'
  | 'nonTxn'
  | 'commit'
  | 'abort'
  | 'staleMarker'
  | 'cleanRestart'
  | 'uncleanRestart';

interface Op {
  kind: OpKind;
  /** Producer index (mod the producer count). */
  p: number;
  /** Free choices (record count, which batch, gap, variant). */
  a: number;
  b: number;
  /** Fetch parameters of the checks after the op. */
  fetch: [number, number][];
}

interface Scenario {
  producers: { transactional: boolean; startSeq: number; startEpoch: number }[];
  ops: Op[];
}

const opKindArb: fc.Arbitrary<OpKind> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('append' as const) },
  { weight: 5, arbitrary: fc.constant('retry' as const) },
  { weight: 2, arbitrary: fc.constant('outOfOrder' as const) },
  { weight: 1, arbitrary: fc.constant('bump' as const) },
  { weight: 2, arbitrary: fc.constant('stale' as const) },
  { weight: 2, arbitrary: fc.constant('nonTxn' as const) },
  { weight: 3, arbitrary: fc.constant('commit' as const) },
  { weight: 3, arbitrary: fc.constant('abort' as const) },
  { weight: 2, arbitrary: fc.constant('staleMarker' as const) },
  { weight: 1, arbitrary: fc.constant('cleanRestart' as const) },
  { weight: 2, arbitrary: fc.constant('uncleanRestart' as const) },
);

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: opKindArb,
  p: fc.nat(11),
  a: fc.nat(1000),
  b: fc.nat(1000),
  fetch: fc.array(fc.tuple(fc.nat(10_000), fc.nat(3)), { minLength: 1, maxLength: 2 }),
});

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  producers: fc.array(
    fc.record({
      transactional: fc.boolean(),
      // a producer the log has never seen may start at any sequence; near Int.MAX they wrap
      startSeq: fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.nat(50) },
        { weight: 1, arbitrary: fc.integer({ min: INT32_MAX - 6, max: INT32_MAX }) },
      ),
      startEpoch: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }) }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  ops: fc.array(opArb, { minLength: 1, maxLength: 60, size: 'max' }),
});

// ---- running a scenario ---------------------------------------------------------------------

function dataBatch(pid: bigint, epoch: number, seq: number, count: number, transactional: boolean, ts: number, tag = ''): { bytes: Buffer; values: string[] } {
  const values = Array.from({ length: count }, (_, i) => `p${pid}-e${epoch}-s${seqAdd(seq, i)}${tag}`);
  const bytes = encodeRecordBatch(
    values.map((value, i) => ({ key: `k${i}`, value, timestamp: ts })),
    { producerId: pid, producerEpoch: epoch, baseSequence: seq, isTransactional: transactional, partitionLeaderEpoch: 0 },
  );
  return { bytes, values };
}

function assertRefused(fn: () => unknown, code: KafkaliteErrorCode, ctx: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof KafkaliteError, `${ctx}: expected ${code}, got ${String(e)}`);
    assert.equal(e.code, code, `${ctx}: ${e.message}`);
    return true;
  });
}

/** How often each operation ran (printed with KAFKALITE_PSTATE_STATS=1). */
const STATS = new Map<string, number>();

class Runner {
  readonly model: Model;
  log: PartitionLog;
  now = T0;
  readonly trace: string[] = [];

  constructor(
    readonly dir: string,
    readonly spec: Scenario,
  ) {
    this.model = new Model(spec);
    this.log = this.open(true);
  }

  private open(clean: boolean, recoveryPoint?: bigint): PartitionLog {
    return PartitionLog.open(this.dir, 'pstate', 0, {
      config: CONFIG,
      time: () => this.now,
      hadCleanShutdown: clean,
      ...(recoveryPoint !== undefined ? { recoveryPoint } : {}),
    });
  }

  ctx(): string {
    return `after [${this.trace.join(', ')}]`;
  }

  /** A data batch of `p` as its state calls for: transactional producers write inside transactions. */
  nextBatch(p: ProducerModel, count: number, epoch = p.epoch, seq = p.nextSeq, transactional = p.transactional, tag = '') {
    return dataBatch(p.pid, epoch, seq, count, transactional, this.now, tag);
  }

  appendAccepted(p: ProducerModel, bytes: Buffer, values: string[], epoch: number, seq: number, transactional: boolean): void {
    const r = this.log.append(bytes);
    const ctx = this.ctx();
    assert.equal(r.duplicate, false, ctx);
    assert.equal(r.firstOffset, this.model.leo, ctx);
    assert.equal(r.lastOffset, this.model.leo + BigInt(values.length - 1), ctx);
    this.model.acceptData(p, {
      kind: 'data',
      pid: p.pid,
      epoch,
      firstSeq: seq,
      lastSeq: seqAdd(seq, values.length - 1),
      count: values.length,
      firstOffset: r.firstOffset,
      lastOffset: r.lastOffset,
      transactional,
      values,
      bytes: Buffer.from(bytes),
    });
  }

  marker(p: ProducerModel, type: 'COMMIT' | 'ABORT', epoch: number, coordinatorEpoch: number): void {
    const r = this.log.appendEndTxnMarker({ type, producerId: p.pid, producerEpoch: epoch, coordinatorEpoch });
    assert.equal(r.firstOffset, this.model.leo, this.ctx());
    assert.equal(r.lastOffset, this.model.leo, this.ctx());
    this.model.acceptMarker(p, { kind: 'marker', pid: p.pid, epoch, type, coordinatorEpoch, offset: r.firstOffset });
  }

  step(op: Op): void {
    this.now += 1 + (op.b % 3);
    const m = this.model;
    const p = m.producers[op.p % m.producers.length]!;
    const count = 1 + (op.a % 3);
    let kind = op.kind;
    // operations that do not apply to the producer's state become plain appends
    if (kind === 'retry' && p.history.filter((h) => h.epoch === p.epoch).length === 0) kind = 'append';
    if ((kind === 'outOfOrder' || kind === 'stale') && !p.known) kind = 'append';
    if (kind === 'stale' && p.epoch === 0) kind = 'append';
    if (kind === 'bump' && p.openTxn) kind = 'abort';
    if (kind === 'nonTxn' && !p.openTxn) kind = 'append';
    if ((kind === 'commit' || kind === 'abort') && !p.transactional) kind = 'append';
    if (kind === 'staleMarker' && !(p.transactional && p.known && (p.coordinatorEpoch >= 1 || p.epoch >= 1))) kind = 'append';
    this.trace.push(`${kind}(P${m.producers.indexOf(p)},${op.a},${op.b})`);
    STATS.set(kind, (STATS.get(kind) ?? 0) + 1);

    switch (kind) {
      case 'append': {
        const { bytes, values } = this.nextBatch(p, count);
        this.appendAccepted(p, bytes, values, p.epoch, p.nextSeq, p.transactional);
        break;
      }
      case 'retry': {
        const recent = p.history.filter((h) => h.epoch === p.epoch).slice(-5);
        const rec = recent[op.a % recent.length]!;
        const leo = this.log.logEndOffset;
        STATS.set(p.window.includes(rec) ? 'retry:duplicate' : 'retry:evicted', (STATS.get(p.window.includes(rec) ? 'retry:duplicate' : 'retry:evicted') ?? 0) + 1);
        if (p.window.includes(rec)) {
          const r = this.log.append(rec.bytes);
          assert.equal(r.duplicate, true, `${this.ctx()}: retry of seq ${rec.firstSeq}..${rec.lastSeq} is a duplicate`);
          assert.equal(r.firstOffset, rec.firstOffset, this.ctx());
          assert.equal(r.lastOffset, rec.lastOffset, this.ctx());
        } else {
          // evicted from the producer's cache by a restart: the sequence no longer follows
          assertRefused(() => this.log.append(rec.bytes), 'OUT_OF_ORDER_SEQUENCE_NUMBER', `${this.ctx()} retry of evicted seq ${rec.firstSeq}`);
        }
        assert.equal(this.log.logEndOffset, leo, `${this.ctx()}: a retry writes nothing`);
        break;
      }
      case 'outOfOrder': {
        const variant = op.b % 3;
        let bytes: Buffer;
        let what: string;
        const overlap = p.window[op.a % Math.max(1, p.window.length)];
        if (variant === 1 && overlap) {
          // the first sequence of a cached batch, but not its range: no duplicate, not in order
          const c = overlap.count === 1 ? 2 : overlap.count - 1;
          bytes = this.nextBatch(p, c, p.epoch, overlap.firstSeq, p.transactional, '-overlap').bytes;
          what = `overlap at ${overlap.firstSeq}`;
        } else if (variant === 2) {
          bytes = this.nextBatch(p, count, p.epoch + 1, 1 + (op.a % 5), p.transactional, '-newepoch').bytes;
          what = `new epoch ${p.epoch + 1} not at 0`;
        } else {
          const gap = 1 + (op.a % 4);
          bytes = this.nextBatch(p, count, p.epoch, seqAdd(p.nextSeq, gap), p.transactional, '-gap').bytes;
          what = `gap ${gap}`;
        }
        assertRefused(() => this.log.append(bytes), 'OUT_OF_ORDER_SEQUENCE_NUMBER', `${this.ctx()} ${what}`);
        break;
      }
      case 'bump': {
        const { bytes, values } = this.nextBatch(p, count, p.epoch + 1, 0);
        this.appendAccepted(p, bytes, values, p.epoch + 1, 0, p.transactional);
        break;
      }
      case 'stale': {
        const old = p.history.filter((h) => h.epoch < p.epoch);
        const bytes = old.length > 0 && op.a % 2 === 0 ? old[old.length - 1]!.bytes : this.nextBatch(p, count, p.epoch - 1, 0, p.transactional, '-stale').bytes;
        assertRefused(() => this.log.append(bytes), 'INVALID_PRODUCER_EPOCH', this.ctx());
        break;
      }
      case 'nonTxn': {
        const { bytes } = this.nextBatch(p, count, p.epoch, p.nextSeq, false, '-nontxn');
        assertRefused(() => this.log.append(bytes), 'INVALID_TXN_STATE', this.ctx());
        break;
      }
      case 'commit':
      case 'abort': {
        const coordinatorEpoch = Math.max(0, p.coordinatorEpoch) + (op.a % 3 === 0 ? 1 : 0);
        // an abort sometimes comes with a bumped epoch (InitProducerId fencing the producer)
        const epoch = kind === 'abort' && op.b % 4 === 0 ? p.epoch + 1 : p.epoch;
        this.marker(p, kind === 'commit' ? 'COMMIT' : 'ABORT', epoch, coordinatorEpoch);
        break;
      }
      case 'staleMarker': {
        const leo = this.log.logEndOffset;
        const type = op.a % 2 === 0 ? 'COMMIT' : 'ABORT';
        if (p.coordinatorEpoch >= 1 && (op.b % 2 === 0 || p.epoch === 0)) {
          assertRefused(
            () => this.log.appendEndTxnMarker({ type, producerId: p.pid, producerEpoch: p.epoch, coordinatorEpoch: p.coordinatorEpoch - 1 }),
            'TRANSACTION_COORDINATOR_FENCED',
            this.ctx(),
          );
        } else {
          assertRefused(
            () => this.log.appendEndTxnMarker({ type, producerId: p.pid, producerEpoch: p.epoch - 1, coordinatorEpoch: Math.max(0, p.coordinatorEpoch) }),
            'INVALID_PRODUCER_EPOCH',
            this.ctx(),
          );
        }
        assert.equal(this.log.logEndOffset, leo, this.ctx());
        break;
      }
      case 'cleanRestart': {
        this.log.close();
        this.log = this.open(true);
        m.restarted();
        this.checkLastBatchDuplicates();
        break;
      }
      case 'uncleanRestart': {
        // sometimes with the recovery point a checkpoint would hold (only later segments recovered)
        const recoveryPoint = op.b % 3 === 0 ? this.log.recoveryPoint : undefined;
        if (op.a % 2 === 0) {
          // a torn tail: an append that was never acknowledged, cut short on disk
          const { bytes } = this.nextBatch(p, count, p.epoch, p.nextSeq, p.transactional, '-torn');
          this.log.append(bytes);
          const path = this.log.activeSegment.log.path;
          for (const s of this.log.segmentList()) s.close();
          const size = statSync(path).size;
          const cut = 1 + (op.b % (bytes.length - 1));
          const fd = openSync(path, 'r+');
          try {
            ftruncateSync(fd, size - cut);
          } finally {
            closeSync(fd);
          }
        } else {
          for (const s of this.log.segmentList()) s.close();
        }
        this.log = this.open(false, recoveryPoint);
        m.restarted();
        assert.equal(this.log.logEndOffset, m.leo, `${this.ctx()}: recovery keeps every acknowledged batch, drops the torn one`);
        this.checkLastBatchDuplicates();
        break;
      }
    }
    this.check(op);
  }

  /** Across restarts the newest batch of every producer is still detected as a duplicate. */
  checkLastBatchDuplicates(): void {
    for (const p of this.model.producers) {
      const last = p.window.at(-1);
      if (!last) continue;
      const r = this.log.append(last.bytes);
      assert.equal(r.duplicate, true, `${this.ctx()}: last batch of producer ${p.pid} is a duplicate after the restart`);
      assert.equal(r.firstOffset, last.firstOffset, this.ctx());
      assert.equal(r.lastOffset, last.lastOffset, this.ctx());
    }
  }

  /** Every batch of the log, read_uncommitted, from the start. */
  readAll(): RecordBatch[] {
    const out: RecordBatch[] = [];
    let next = this.log.logStartOffset;
    while (next < this.log.logEndOffset) {
      const { records } = this.log.read(next, { maxBytes: 1 << 20 });
      assert.ok(records.length > 0, `${this.ctx()}: read at ${next} returns data`);
      for (const b of readRecordBatches(records)) {
        const batch = v2(b);
        if (batch.lastOffset < next) continue;
        out.push(batch);
        next = batch.nextOffset;
      }
    }
    return out;
  }

  check(op: Op): void {
    const m = this.model;
    const log = this.log;
    const ctx = this.ctx();
    assert.equal(log.logEndOffset, m.leo, `${ctx}: LEO`);
    assert.equal(log.highWatermark, m.leo, `${ctx}: HW`);

    // the log is exactly the accepted batches, each once
    const batches = this.readAll();
    assert.equal(batches.length, m.log.length, `${ctx}: batch count`);
    const seen = new Set<string>();
    batches.forEach((b, i) => {
      const e = m.log[i]!;
      const at = `${ctx}: batch ${i} at offset ${b.baseOffset}`;
      assert.equal(b.producerId, e.pid, at);
      assert.equal(b.producerEpoch, e.epoch, at);
      if (e.kind === 'data') {
        assert.equal(b.isControl, false, at);
        assert.equal(b.baseOffset, e.firstOffset, at);
        assert.equal(b.lastOffset, e.lastOffset, at);
        assert.equal(b.baseSequence, e.firstSeq, at);
        assert.equal(b.lastSequence, e.lastSeq, at);
        assert.equal(b.isTransactional, e.transactional, at);
        assert.deepEqual(
          b.records().map((r) => r.value?.toString()),
          e.values,
          at,
        );
        for (let s = 0; s < e.count; s++) {
          const key = `${e.pid}/${e.epoch}/${seqAdd(e.firstSeq, s)}`;
          assert.ok(!seen.has(key), `${at}: (producer, epoch, sequence) ${key} written twice`);
          seen.add(key);
        }
      } else {
        assert.equal(b.isControl, true, at);
        assert.equal(b.baseOffset, e.offset, at);
        const [rec] = b.records();
        const marker = parseEndTransactionMarker(rec!.key, rec!.value);
        assert.equal(marker.type, e.type, at);
        assert.equal(marker.coordinatorEpoch, e.coordinatorEpoch, at);
      }
    });

    // producer state
    const psm = log.producerStateManager;
    for (const p of m.producers) {
      const entry = psm.lastEntry(p.pid);
      if (!p.known) {
        assert.equal(entry, undefined, `${ctx}: producer ${p.pid} unknown to the log`);
        continue;
      }
      assert.ok(entry, `${ctx}: producer ${p.pid} has an entry`);
      assert.equal(entry.producerEpoch, p.epoch, `${ctx}: epoch of ${p.pid}`);
      assert.equal(entry.coordinatorEpoch, p.coordinatorEpoch, `${ctx}: coordinator epoch of ${p.pid}`);
      assert.equal(entry.currentTxnFirstOffset, p.openTxn?.firstOffset, `${ctx}: open transaction of ${p.pid}`);
      assert.deepEqual(
        entry.batchMetadata.map((b) => ({ lastSeq: b.lastSeq, lastOffset: b.lastOffset, offsetDelta: b.offsetDelta })),
        p.window.map((w) => ({ lastSeq: w.lastSeq, lastOffset: w.lastOffset, offsetDelta: w.count - 1 })),
        `${ctx}: cached batches of ${p.pid}`,
      );
    }
    assert.deepEqual(
      psm.ongoingTransactions().map((t) => [t.producerId, t.firstOffset]),
      m.openTxns().map((t) => [t.pid, t.firstOffset]),
      `${ctx}: ongoing transactions`,
    );

    // LSO: the oldest open transaction's first offset, else the HW; never past an open transaction
    const lso = log.lastStableOffset;
    assert.equal(lso, m.lso(), `${ctx}: LSO`);
    for (const t of m.openTxns()) assert.ok(lso <= t.firstOffset, `${ctx}: LSO ${lso} passes the open transaction at ${t.firstOffset}`);

    // the txn indexes of all segments hold exactly the aborted transactions, in marker order
    const indexed = log.segmentList().flatMap((s) =>
      s.txnIndex.allAbortedTxns().map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset, lastOffset: t.lastOffset, lastStableOffset: t.lastStableOffset })),
    );
    assert.deepEqual(indexed, m.aborted, `${ctx}: .txnindex entries`);

    // read_committed fetches of random ranges
    for (const [f, sizeSel] of op.fetch) {
      const fetchOffset = BigInt(f) % (m.leo + 1n);
      const maxBytes = [1, 150, 600, 1 << 20][sizeSel]!;
      this.checkCommittedFetch(fetchOffset, maxBytes);
    }
    this.checkCommittedFetch(0n, 1 << 20);
  }

  checkCommittedFetch(fetchOffset: bigint, maxBytes: number): void {
    const m = this.model;
    const ctx = `${this.ctx()}: read_committed fetch at ${fetchOffset} (maxBytes ${maxBytes})`;
    const r: ReadResult = this.log.read(fetchOffset, { maxBytes, isolation: 'read_committed' });
    assert.equal(r.lastStableOffset, m.lso(), ctx);
    const aborted = r.abortedTransactions;
    assert.ok(aborted, `${ctx}: abortedTransactions present`);
    const batches = [...readRecordBatches(r.records)].map(v2);
    for (const b of batches) assert.ok(b.lastOffset < m.lso(), `${ctx}: batch ${b.baseOffset}..${b.lastOffset} at or past the LSO ${m.lso()}`);
    if (fetchOffset < m.lso()) assert.ok(batches.length > 0, `${ctx}: data below the LSO is returned`);
    const end = batches.at(-1)?.nextOffset ?? fetchOffset;

    // every listed transaction is a real aborted one overlapping [fetchOffset, LSO), listed once
    const keys = aborted.map((a) => `${a.producerId}@${a.firstOffset}`);
    assert.equal(new Set(keys).size, keys.length, `${ctx}: aborted transactions listed twice: ${keys}`);
    for (const a of aborted) {
      const real = m.aborted.find((x) => x.producerId === a.producerId && x.firstOffset === a.firstOffset);
      assert.ok(real, `${ctx}: ${a.producerId}@${a.firstOffset} is not an aborted transaction`);
      assert.equal(a.lastOffset, real.lastOffset, ctx);
      assert.ok(real.lastOffset >= fetchOffset && real.firstOffset < m.lso(), `${ctx}: ${a.producerId}@${a.firstOffset} does not overlap the range`);
    }
    // every aborted transaction with data in the returned batches is listed
    for (const x of m.aborted) {
      const hasData = m.log.some(
        (e) => e.kind === 'data' && e.txn !== undefined && e.txn.markerOffset === x.lastOffset && e.pid === x.producerId && e.lastOffset >= fetchOffset && e.firstOffset < end && end > fetchOffset,
      );
      if (hasData) assert.ok(keys.includes(`${x.producerId}@${x.firstOffset}`), `${ctx}: aborted transaction ${x.producerId}@${x.firstOffset} missing from ${keys}`);
    }

    // as Kafka's consumer (CompletedFetch.nextFetchedRecord) uses them
    const pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
    const abortedPids = new Set<bigint>();
    const visible: { offset: bigint; value: string }[] = [];
    for (const b of batches) {
      if (b.hasProducerId) {
        while (pending.length > 0 && pending[0]!.firstOffset <= b.lastOffset) abortedPids.add(pending.shift()!.producerId);
        if (b.isControl) {
          const [rec] = b.records();
          if (rec && parseEndTransactionMarker(rec.key, rec.value).type === 'ABORT') abortedPids.delete(b.producerId);
          continue;
        }
        if (b.isTransactional && abortedPids.has(b.producerId)) continue;
      }
      if (b.isControl) continue;
      for (const rec of b.records()) if (rec.offset >= fetchOffset) visible.push({ offset: rec.offset, value: rec.value!.toString() });
    }
    const expected: { offset: bigint; value: string }[] = [];
    for (const e of m.log) {
      if (e.kind !== 'data' || e.lastOffset < fetchOffset || e.firstOffset >= end || !Model.committedVisible(e)) continue;
      e.values.forEach((value, i) => {
        const offset = e.firstOffset + BigInt(i);
        if (offset >= fetchOffset && offset < end) expected.push({ offset, value });
      });
    }
    assert.deepEqual(visible, expected, `${ctx}: records a read_committed consumer sees`);
  }
}

describe('producer state: property test against a model (idempotence, transactions, restarts)', () => {
  it(`${RUNS} random interleavings of 1-4 producers (seed ${SEED})`, () => {
    let counter = 0;
    const { dir: root, cleanup } = tempDir('pstate-prop');
    try {
      fc.assert(
        fc.property(scenarioArb, (spec) => {
          const dir = join(root, `run-${counter++}`);
          mkdirSync(dir, { recursive: true });
          const runner = new Runner(dir, spec);
          try {
            for (const op of spec.ops) runner.step(op);
          } finally {
            try {
              runner.log.close();
            } catch {
              /* already closed by a failing step */
            }
          }
        }),
        { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
      );
    } finally {
      cleanup();
      if (process.env.KAFKALITE_PSTATE_STATS) console.log(Object.fromEntries([...STATS].sort()));
    }
  });
});
