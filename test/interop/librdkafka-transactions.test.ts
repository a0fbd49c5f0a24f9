/**
 * librdkafka's transactional producer → kafkalite's producer state and transaction index.
 *
 * confluent_kafka.Producers (librdkafka 2.0.2, Debian python3-confluent-kafka) with a
 * `transactional.id` run init_transactions / begin_transaction / produce / commit_transaction /
 * abort_transaction against librdkafka's mock cluster (`test.mock.num.brokers`), several producers
 * interleaving their transactions on one partition (test/interop/py/rdkafka_transactions.py). The
 * raw batches are fetched back with a plain Fetch v4. The 2.0.2 mock writes no COMMIT/ABORT
 * markers, so kafkalite plays the coordinator: the librdkafka batches are appended to a
 * PartitionLog in the order the mock stored them, and at each commit/abort kafkalite's own marker
 * goes in (appendEndTxnMarker, with the producer id and epoch librdkafka's batches carry).
 *
 * Two logs are built from the same bytes: one appending with origin 'replication' (the batches
 * carry the mock's base offsets, which only non-client origins accept; the log assigns its own),
 * one with origin 'client' after re-basing each batch to offset 0 (so librdkafka's sequences go
 * through Kafka's client-side checks, and a resent batch is found to be a duplicate).
 *
 * After every step: the producer's entry (epoch, last sequence, open transaction, coordinator
 * epoch), the LSO (first offset of the oldest open transaction, else the HW). At the end: the
 * active segment's .txnindex entries (TransactionIndex.allAbortedTxns: producer, first offset,
 * marker offset, Kafka's lastStableOffset), a read_committed fetch (stops at the LSO; its aborted
 * transactions, used as Kafka's consumer uses them, hide exactly the aborted records), the stored
 * bytes (librdkafka's batch as written, only offsets and leader epoch assigned — except a
 * compressed batch appended with a non-zero base offset, which Kafka's LogValidator rebuilds
 * because its inner offsets do not start at 0; its header fields and records must then be kept),
 * and the same state after a clean and an unclean restart. A missing Python or module fails the
 * test.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { RecordBatch } from '../../src/record/batch.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { parseEndTransactionMarker } from '../../src/record/control.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { SEED } from '../helpers/interop-gen.js';
import { runPython } from '../helpers/python-peer.js';
import { tempDir } from '../helpers/storage.js';
import { v2 } from '../helpers/v2.js';

const T0 = 1_700_000_000_000;

type Step =
  | { op: 'begin' | 'commit' | 'abort'; producer: number }
  | { op: 'produce'; producer: number; messages: { key: string; value: string; timestamp: string }[] };

interface TxnCase {
  name: string;
  topic: string;
  producers: number;
  config: Record<string, string | number | boolean>;
  steps: Step[];
}

interface TxnResult {
  name: string;
  chunks: string[];
  highWatermark: number;
  deliveryErrors: string[];
  stepEnds: number[];
}

const hexOf = (s: string) => Buffer.from(s).toString('hex');
let messageCounter = 0;
function messages(producer: number, n: number): { key: string; value: string; timestamp: string }[] {
  return Array.from({ length: n }, () => {
    const i = messageCounter++;
    return { key: hexOf(`p${producer}-k${i}`), value: hexOf(`p${producer}-m${i}-`.padEnd(24 + (i % 40), 'x')), timestamp: String(T0 + i) };
  });
}

/** A hand-written interleaving of two producers: commits and aborts crossing each other. */
function handCase(codec: string): TxnCase {
  const steps: Step[] = [
    { op: 'begin', producer: 0 },
    { op: 'produce', producer: 0, messages: messages(0, 3) },
    { op: 'begin', producer: 1 },
    { op: 'produce', producer: 1, messages: messages(1, 2) },
    { op: 'produce', producer: 0, messages: messages(0, 2) },
    { op: 'commit', producer: 0 },
    { op: 'produce', producer: 1, messages: messages(1, 1) },
    { op: 'abort', producer: 1 },
    { op: 'begin', producer: 1 },
    { op: 'produce', producer: 1, messages: messages(1, 2) },
    { op: 'begin', producer: 0 },
    { op: 'produce', producer: 0, messages: messages(0, 4) },
    { op: 'abort', producer: 0 },
    { op: 'commit', producer: 1 },
    { op: 'begin', producer: 0 },
    { op: 'produce', producer: 0, messages: messages(0, 1) },
    { op: 'commit', producer: 0 },
  ];
  return { name: `hand-${codec}`, topic: `txn-hand-${codec}`, producers: 2, config: { 'compression.codec': codec }, steps };
}

/**
 * A random interleaving of `n` producers (fixed seed): each transaction gets at least one produce
 * before it ends (a real coordinator writes markers only to partitions the transaction wrote to);
 * with `leaveOpen`, the last transaction begun stays open.
 */
function randomCase(name: string, codec: string, n: number, seed: number, length: number, leaveOpen: boolean): TxnCase {
  const choices = fc.sample(fc.tuple(fc.nat(n - 1), fc.nat(9), fc.integer({ min: 1, max: 4 })), { seed, numRuns: length });
  const state = Array.from({ length: n }, () => ({ open: false, produced: false }));
  const steps: Step[] = [];
  for (const [p, r, count] of choices) {
    const s = state[p]!;
    if (!s.open) {
      steps.push({ op: 'begin', producer: p });
      s.open = true;
      s.produced = false;
    } else if (!s.produced || r < 5) {
      steps.push({ op: 'produce', producer: p, messages: messages(p, count) });
      s.produced = true;
    } else {
      steps.push({ op: r < 7 ? 'commit' : 'abort', producer: p });
      s.open = false;
    }
  }
  state.forEach((s, p) => {
    if (!s.open) return;
    if (!s.produced) steps.push({ op: 'produce', producer: p, messages: messages(p, 2) });
    if (!(leaveOpen && p === n - 1)) steps.push({ op: p % 2 === 0 ? 'abort' : 'commit', producer: p });
  });
  return { name, topic: `txn-${name}`, producers: n, config: { 'compression.codec': codec }, steps };
}

const CASES: TxnCase[] = [
  handCase('none'),
  handCase('lz4'),
  randomCase('random3-zstd', 'zstd', 3, SEED + 900, 60, false),
  randomCase('random3-open-gzip', 'gzip', 3, SEED + 901, 50, true),
];

// ---- the kafkalite side ------------------------------------------------------------------------

interface Aborted {
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  lastStableOffset: bigint;
}

interface Replayed {
  log: PartitionLog;
  dir: string;
  /** Per producer index: its producer id and epoch (from librdkafka's batches). */
  ids: { producerId: bigint; epoch: number }[];
  aborted: Aborted[];
  open: Map<bigint, bigint>;
  /** Values of records a read_committed consumer must see, and those it must not. */
  committed: string[];
  abortedValues: string[];
}

function decode(chunks: string[]): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (const h of chunks) {
    const reader = readRecordBatches(Buffer.from(h, 'hex'));
    for (const b of reader) out.push(v2(b));
    assert.equal(reader.incompleteBytes, 0);
  }
  return out;
}

function describeDiff(sent: RecordBatch, stored: RecordBatch): string {
  const a = sent.bytes;
  const b = stored.bytes;
  let i = 16;
  while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
  return `sizes ${a.length}/${b.length}, first difference at byte ${i}; maxTimestamp ${sent.maxTimestamp}/${stored.maxTimestamp}, lastOffsetDelta ${sent.lastOffsetDelta}/${stored.lastOffsetDelta}, records ${sent.recordsCount}/${stored.recordsCount}`;
}

/** The producer's batches written by each produce step (by the mock's offsets before/after it). */
function batchesByStep(c: TxnCase, r: TxnResult, batches: RecordBatch[]): RecordBatch[][] {
  let prev = 0;
  return c.steps.map((_, i) => {
    const end = r.stepEnds[i]!;
    const mine = batches.filter((b) => b.baseOffset >= BigInt(prev) && b.baseOffset < BigInt(end));
    prev = end;
    return mine;
  });
}

function replay(c: TxnCase, r: TxnResult, origin: 'replication' | 'client', root: string): Replayed {
  const batches = decode(r.chunks);
  const perStep = batchesByStep(c, r, batches);
  const dir = join(root, `${c.name}-${origin}`);
  mkdirSync(dir, { recursive: true });
  const now = T0 + 10_000;
  const log = PartitionLog.open(dir, 'txn', 0, { config: DEFAULT_LOG_CONFIG, time: () => now });
  const ids: { producerId: bigint; epoch: number }[] = [];
  const lastSeq = new Map<bigint, number>();
  const open = new Map<bigint, bigint>();
  const aborted: Aborted[] = [];
  const pending = new Map<bigint, string[]>();
  const committed: string[] = [];
  const abortedValues: string[] = [];
  let coordinatorEpoch = 0;
  const ctx = (i: number) => `[${c.name}, ${origin}, step ${i} ${c.steps[i]!.op} P${c.steps[i]!.producer}, seed ${SEED}]`;

  c.steps.forEach((step, i) => {
    const mine = perStep[i]!;
    if (step.op === 'produce') {
      assert.ok(mine.length > 0, `${ctx(i)} the mock stored the produced batches`);
      for (const b of mine) {
        assert.equal(b.isTransactional, true, ctx(i));
        assert.equal(b.isControl, false, ctx(i));
        const known: { producerId: bigint; epoch: number } | undefined = ids[step.producer];
        if (known) {
          assert.equal(b.producerId, known.producerId, `${ctx(i)} one producer id per transactional.id`);
          assert.equal(b.producerEpoch, known.epoch, ctx(i));
        } else {
          assert.ok(!ids.some((x) => x?.producerId === b.producerId), `${ctx(i)} distinct producer ids`);
          ids[step.producer] = { producerId: b.producerId, epoch: b.producerEpoch };
        }
        // librdkafka's sequences run on across transactions (no epoch bump on abort)
        const prevSeq = lastSeq.get(b.producerId);
        assert.equal(b.baseSequence, prevSeq === undefined ? 0 : prevSeq + 1, `${ctx(i)} librdkafka's sequence`);
        lastSeq.set(b.producerId, b.lastSequence);

        const bytes = Buffer.from(b.bytes);
        if (origin === 'client') bytes.writeBigInt64BE(0n, 0); // re-based: clients send offset 0
        const leo = log.logEndOffset;
        const res = log.append(bytes, { origin });
        assert.equal(res.duplicate, false, ctx(i));
        assert.equal(res.firstOffset, leo, ctx(i));
        assert.equal(res.lastOffset, leo + BigInt(b.lastOffsetDelta), ctx(i));
        if (!open.has(b.producerId)) open.set(b.producerId, leo);
        const values = b.records().map((rec) => rec.value!.toString());
        pending.set(b.producerId, [...(pending.get(b.producerId) ?? []), ...values]);

        const stored = [...readRecordBatches(log.read(leo, { maxBytes: 1 << 20 }).records)].map(v2)[0]!;
        assert.equal(stored.baseOffset, leo, ctx(i));
        if (b.compression === 'none' || origin === 'client') {
          // librdkafka's batch as written, only the offset and leader epoch assigned (in place)
          assert.ok(stored.bytes.subarray(16).equals(b.bytes.subarray(16)), `${ctx(i)} librdkafka's batch bytes kept: ${describeDiff(b, stored)}`);
        } else if (b.baseOffset !== 0n) {
          // Kafka's LogValidator rebuilds a compressed batch whose inner offsets do not run 0..n-1
          // ("no in place assignment situation 2"): the mock's base offset makes them base+i
          assert.equal(stored.compression, b.compression, ctx(i));
          for (const f of ['producerId', 'producerEpoch', 'baseSequence', 'lastSequence', 'isTransactional', 'isControl', 'maxTimestamp', 'timestampType', 'lastOffsetDelta'] as const) {
            assert.equal(stored[f], b[f], `${ctx(i)} ${f} of the rebuilt batch`);
          }
          const content = (x: RecordBatch) => x.records().map((rec) => [rec.offset - x.baseOffset, rec.timestamp, rec.sequence, rec.key?.toString('hex'), rec.value?.toString('hex'), rec.headers.length]);
          assert.deepEqual(content(stored), content(b), `${ctx(i)} records of the rebuilt batch`);
        }

        if (origin === 'client') {
          // a producer retry of the same batch: Kafka's duplicate detection returns the original offsets
          const dup = log.append(bytes, { origin });
          assert.equal(dup.duplicate, true, `${ctx(i)} resent batch is a duplicate`);
          assert.equal(dup.firstOffset, leo, ctx(i));
          assert.equal(log.logEndOffset, res.lastOffset + 1n, ctx(i));
        }
      }
    } else if (step.op === 'commit' || step.op === 'abort') {
      assert.equal(mine.length, 0, `${ctx(i)} librdkafka 2.0.2's mock writes no marker`);
      const id = ids[step.producer]!;
      coordinatorEpoch += i % 3 === 0 ? 1 : 0; // the coordinator's epoch only grows
      const markerOffset = log.logEndOffset;
      const first = open.get(id.producerId);
      assert.ok(first !== undefined, `${ctx(i)} the producer has an open transaction`);
      const res = log.appendEndTxnMarker({ type: step.op === 'commit' ? 'COMMIT' : 'ABORT', producerId: id.producerId, producerEpoch: id.epoch, coordinatorEpoch });
      assert.equal(res.firstOffset, markerOffset, ctx(i));
      open.delete(id.producerId);
      const values = pending.get(id.producerId) ?? [];
      pending.delete(id.producerId);
      if (step.op === 'abort') {
        let lso = markerOffset + 1n;
        for (const f of open.values()) if (f < lso) lso = f;
        aborted.push({ producerId: id.producerId, firstOffset: first, lastOffset: markerOffset, lastStableOffset: lso });
        abortedValues.push(...values);
      } else {
        committed.push(...values);
      }
    } else {
      assert.equal(mine.length, 0, ctx(i));
    }

    // producer state and LSO after every step
    for (const [p, id] of ids.entries()) {
      if (!id) continue;
      const entry = log.producerStateManager.lastEntry(id.producerId);
      assert.ok(entry, `${ctx(i)} entry of producer ${p}`);
      assert.equal(entry.producerEpoch, id.epoch, ctx(i));
      assert.equal(entry.batchMetadata.at(-1)?.lastSeq, lastSeq.get(id.producerId), `${ctx(i)} last sequence of producer ${p}`);
      assert.equal(entry.currentTxnFirstOffset, open.get(id.producerId), `${ctx(i)} open transaction of producer ${p}`);
    }
    let lso = log.highWatermark;
    for (const f of open.values()) if (f < lso) lso = f;
    assert.equal(log.lastStableOffset, lso, `${ctx(i)} LSO`);
  });
  return { log, dir, ids, aborted, open, committed, abortedValues };
}

/** What a read_committed consumer sees from offset 0 (Kafka's CompletedFetch rules). */
function consume(log: PartitionLog): { visible: string[]; aborted: { producerId: bigint; firstOffset: bigint }[]; lso: bigint } {
  const visible: string[] = [];
  const listed: { producerId: bigint; firstOffset: bigint }[] = [];
  let offset = 0n;
  const abortedPids = new Set<bigint>();
  for (;;) {
    const r = log.read(offset, { maxBytes: 700, isolation: 'read_committed' });
    const batches = [...readRecordBatches(r.records)].map(v2);
    if (batches.length === 0) return { visible, aborted: listed, lso: r.lastStableOffset };
    const pending = [...r.abortedTransactions!].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
    for (const a of r.abortedTransactions!) {
      if (!listed.some((x) => x.producerId === a.producerId && x.firstOffset === a.firstOffset)) listed.push({ producerId: a.producerId, firstOffset: a.firstOffset });
    }
    for (const b of batches) {
      assert.ok(b.lastOffset < r.lastStableOffset, 'read_committed stops at the LSO');
      if (b.hasProducerId) {
        while (pending.length > 0 && pending[0]!.firstOffset <= b.lastOffset) abortedPids.add(pending.shift()!.producerId);
        if (b.isControl) {
          const [rec] = b.records();
          if (parseEndTransactionMarker(rec!.key, rec!.value).type === 'ABORT') abortedPids.delete(b.producerId);
        } else if (!(b.isTransactional && abortedPids.has(b.producerId))) {
          for (const rec of b.records()) if (rec.offset >= offset) visible.push(rec.value!.toString());
        }
      } else if (!b.isControl) {
        for (const rec of b.records()) if (rec.offset >= offset) visible.push(rec.value!.toString());
      }
      offset = b.nextOffset;
    }
  }
}

function checkFinal(c: TxnCase, x: Replayed, what: string): void {
  const ctx = `[${c.name}, ${what}, seed ${SEED}]`;
  const log = x.log;
  // the .txnindex of the active (only) segment: one entry per ABORT, in marker order
  assert.equal(log.segmentList().length, 1, ctx);
  const indexed = log.activeSegment.txnIndex.allAbortedTxns().map((t) => ({
    producerId: t.producerId,
    firstOffset: t.firstOffset,
    lastOffset: t.lastOffset,
    lastStableOffset: t.lastStableOffset,
  }));
  assert.deepEqual(indexed, x.aborted, `${ctx} .txnindex entries`);
  let lso = log.highWatermark;
  for (const f of x.open.values()) if (f < lso) lso = f;
  assert.equal(log.lastStableOffset, lso, `${ctx} LSO`);
  // read_committed: committed data visible, aborted data listed and hidden, nothing past the LSO
  const seen = consume(log);
  assert.equal(seen.lso, lso, ctx);
  assert.deepEqual(
    new Set(seen.aborted.map((a) => `${a.producerId}@${a.firstOffset}`)),
    new Set(x.aborted.filter((a) => a.firstOffset < lso).map((a) => `${a.producerId}@${a.firstOffset}`)),
    `${ctx} aborted transactions listed by read_committed fetches`,
  );
  // visible = committed records below the LSO, in log order
  const belowLso = new Set<string>();
  let o = 0n;
  while (o < lso) {
    for (const b of [...readRecordBatches(log.read(o, { maxBytes: 1 << 20 }).records)].map(v2)) {
      if (b.baseOffset >= lso) break;
      for (const rec of b.records()) if (!b.isControl) belowLso.add(rec.value!.toString());
      o = b.nextOffset;
    }
  }
  assert.deepEqual(seen.visible, [...belowLso].filter((v) => x.committed.includes(v)), `${ctx} committed records visible`);
  for (const v of x.abortedValues) assert.ok(!seen.visible.includes(v), `${ctx} aborted record ${v} hidden`);
  if (x.open.size === 0) assert.equal(seen.visible.length, x.committed.length, `${ctx} every committed record visible`);
}

describe('librdkafka transactional producers (mock cluster) → kafkalite markers, producer state and .txnindex', () => {
  let results: Map<string, TxnResult> | undefined;
  let librdkafkaVersion = '';
  let failure: unknown;
  let root = '';
  let cleanup = () => {};
  before(() => ({ dir: root, cleanup } = tempDir('rdkafka-txn')));
  after(() => cleanup());

  const result = (name: string): TxnResult => {
    if (failure) throw failure;
    if (!results) {
      try {
        const out = runPython<{ results: TxnResult[]; librdkafka: string }>('rdkafka_transactions.py', { cases: CASES }, { timeoutMs: 180_000 });
        results = new Map(out.results.map((r) => [r.name, r]));
        librdkafkaVersion = out.librdkafka;
      } catch (err) {
        failure = err;
        throw err;
      }
    }
    const r = results.get(name);
    assert.ok(r, `no result for ${name}`);
    return r;
  };

  for (const c of CASES) {
    test(`${c.name}: ${c.producers} producers, ${c.steps.length} steps (${c.steps.filter((s) => s.op === 'abort').length} aborts)`, () => {
      const r = result(c.name);
      const ctx = `[${c.name}, librdkafka ${librdkafkaVersion}]`;
      assert.deepStrictEqual(r.deliveryErrors, [], ctx);
      assert.equal(r.stepEnds.length, c.steps.length, ctx);
      const total = c.steps.reduce((n, s) => n + (s.op === 'produce' ? s.messages.length : 0), 0);
      assert.equal(r.highWatermark, total, `${ctx} the mock holds every message and no marker`);

      for (const origin of ['replication', 'client'] as const) {
        const x = replay(c, r, origin, root);
        try {
          assert.ok(x.aborted.length > 0, `${ctx} the case aborts something`);
          checkFinal(c, x, origin);
          // the same after a clean restart (snapshot) and after an unclean one (recovery replay)
          x.log.close();
          x.log = PartitionLog.open(x.dir, 'txn', 0, { config: DEFAULT_LOG_CONFIG, time: () => T0 + 20_000, hadCleanShutdown: true });
          checkFinal(c, x, `${origin}, clean restart`);
          for (const s of x.log.segmentList()) s.close();
          x.log = PartitionLog.open(x.dir, 'txn', 0, { config: DEFAULT_LOG_CONFIG, time: () => T0 + 30_000, hadCleanShutdown: false });
          checkFinal(c, x, `${origin}, unclean restart`);
          for (const [p, id] of x.ids.entries()) {
            const entry = x.log.producerStateManager.lastEntry(id.producerId);
            assert.ok(entry, `${ctx} producer ${p} after restarts`);
            assert.equal(entry.currentTxnFirstOffset, x.open.get(id.producerId), `${ctx} open transaction of producer ${p} after restarts`);
          }
        } finally {
          x.log.close();
        }
      }
    });
  }
});
