/**
 * `kafkalite transactions <data-dir> list | describe | abort`, run in this process through the
 * CLI's `main()` (and once as the built binary, for its exit code and streams) on data
 * directories made with the storage engine:
 * - a partition whose last stable offset is stuck at a transactional batch no marker ever ended
 *   (what a Produce with a null transactional id used to leave, issue 17): `abort` appends the
 *   ABORT marker, the LSO moves, and a read_committed read returns the records after it, with the
 *   aborted ones listed for the consumer to drop;
 * - a `__transaction_state-0` written in Kafka's TransactionLogKey/Value formats (v0 and the
 *   flexible v1 Kafka 4 writes), with an overwritten record and a tombstone: `list` and `describe`
 *   show the last record per id, and which open transactions no id's state holds (hanging).
 * No Kafka-written `__transaction_state` is in ../shared/corpora (SOURCES.md lists none), so the
 * records are built with the generated schemas.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeVersionPrefixed } from '../../src/internal-topics/version-prefixed.js';
import { TransactionLogKey, TransactionLogValue } from '../../src/protocol/schemas/internal/transaction-coordinator.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch, type RecordBatchOptions } from '../../src/record/builder.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { parseTransactionsArgs } from '../../src/cli/transactions-args.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/storage.js';

const TS = 1700000000000;

const run = (...args: string[]) => runCli('transactions', ...args);

const batch = (values: string[], o: RecordBatchOptions = {}) => encodeRecordBatch(values.map((v, i) => ({ key: null, value: v, timestamp: TS + i })), o);
const txn = (producerId: bigint, producerEpoch: number, baseSequence: number, values: string[]) => batch(values, { isTransactional: true, producerId, producerEpoch, baseSequence });

interface TxnValue {
  producerId: bigint;
  producerEpoch: number;
  state: number;
  partitions: { topic: string; partitionIds: number[] }[] | null;
  start: number;
}
/** A `__transaction_state` record as Kafka's TransactionLog writes it (value v0, or v1 flexible). */
function txnRecord(id: string, v: TxnValue | null, valueVersion = 1) {
  return {
    key: encodeVersionPrefixed(TransactionLogKey, 0, { transactionalId: id }),
    value:
      v === null
        ? null
        : encodeVersionPrefixed(TransactionLogValue, valueVersion, {
            producerId: v.producerId,
            producerEpoch: v.producerEpoch,
            transactionTimeoutMs: 60000,
            transactionStatus: v.state,
            transactionPartitions: v.partitions,
            transactionLastUpdateTimestampMs: BigInt(TS + 5000),
            transactionStartTimestampMs: BigInt(v.start),
          }),
    timestamp: TS,
  };
}

/** Every file's size and hash: list and describe must leave them all as they were. */
function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(p, createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

const ONGOING = 1;
const COMPLETE_COMMIT = 4;

/**
 * t-0: plain, producer 4242's open transaction (offsets 1-2), plain. t-1: producer 5000's open
 * transaction at 0, then producer 6000's at 2 (epoch 3, after a marker at coordinator epoch 7 ended
 * its first one). `__transaction_state-0`: tx-a (4242, Ongoing on t-0 and u-0), tx-b (77,
 * overwritten to CompleteCommit), tx-gone (tombstoned), tx-c (6000, Ongoing on t-1, value v0).
 */
function buildDataDir(dir: string): void {
  const m = LogManager.open(dir);
  const t0 = m.getOrCreateLog('t', 0);
  t0.append(batch(['before']));
  t0.append(txn(4242n, 0, 0, ['stuck-1', 'stuck-2']));
  t0.append(batch(['after-1', 'after-2']));
  const t1 = m.getOrCreateLog('t', 1);
  t1.append(txn(5000n, 0, 0, ['p5000']));
  t1.append(txn(6000n, 3, 0, ['p6000-first']));
  t1.appendEndTxnMarker({ type: 'COMMIT', producerId: 6000n, producerEpoch: 3, coordinatorEpoch: 7 });
  t1.append(txn(6000n, 3, 1, ['p6000-second']));
  const ts = m.getOrCreateLog('__transaction_state', 0);
  ts.append(
    encodeRecordBatch([
      txnRecord('tx-a', { producerId: 4242n, producerEpoch: 0, state: ONGOING, partitions: [{ topic: 't', partitionIds: [0] }, { topic: 'u', partitionIds: [0] }], start: TS + 1000 }),
      txnRecord('tx-b', { producerId: 77n, producerEpoch: 2, state: ONGOING, partitions: [{ topic: 't', partitionIds: [1] }], start: TS }),
      txnRecord('tx-gone', { producerId: 88n, producerEpoch: 0, state: COMPLETE_COMMIT, partitions: [], start: -1 }),
    ]),
  );
  ts.append(
    encodeRecordBatch([
      txnRecord('tx-b', { producerId: 77n, producerEpoch: 2, state: COMPLETE_COMMIT, partitions: [], start: -1 }),
      txnRecord('tx-gone', null),
      txnRecord('tx-c', { producerId: 6000n, producerEpoch: 3, state: ONGOING, partitions: [{ topic: 't', partitionIds: [1] }], start: TS + 2000 }, 0),
    ]),
  );
  m.close();
}

function lso(dir: string, topic: string, partition: number): bigint {
  const m = LogManager.open(dir);
  try {
    return m.getLog(topic, partition)!.lastStableOffset;
  } finally {
    m.close();
  }
}

/** What a read_committed consumer gets: the values below the LSO and the aborted transactions listed with them. */
function readCommitted(dir: string, topic: string, partition: number): { values: string[]; aborted: [bigint, bigint][]; lso: bigint } {
  const m = LogManager.open(dir);
  try {
    const log = m.getLog(topic, partition)!;
    const r = log.read(0n, { maxBytes: 1 << 20, isolation: 'read_committed' });
    const values: string[] = [];
    for (const b of readRecordBatches(r.records)) {
      if (b.isControl) continue;
      for (const rec of b.records()) values.push(rec.value === null ? '<null>' : Buffer.from(rec.value).toString());
    }
    return { values, aborted: (r.abortedTransactions ?? []).map((a) => [a.producerId, a.firstOffset]), lso: r.lastStableOffset };
  } finally {
    m.close();
  }
}

describe('kafkalite transactions', () => {
  let dir: string;
  let cleanup: () => void;
  before(() => {
    ({ dir, cleanup } = tempDir('transactions-cli'));
    buildDataDir(dir);
  });
  after(() => cleanup());

  test('the stuck LSO survives a reopen: the open transaction holds it at its first offset', () => {
    assert.equal(lso(dir, 't', 0), 1n);
    assert.equal(lso(dir, 't', 1), 0n);
    assert.deepEqual(readCommitted(dir, 't', 0).values, ['before']);
  });

  test('list: the last record per transactional id, and the open transactions with the hanging ones flagged', () => {
    const before = snapshotTree(dir);
    const res = run(dir, 'list');
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr, '');
    const lines = res.stdout.split('\n');
    assert.match(lines[0]!, /^TRANSACTIONAL-ID\s+PRODUCER-ID\s+PRODUCER-EPOCH\s+STATE\s+TIMEOUT-MS\s+PARTITIONS$/);
    assert.deepEqual(lines.slice(1, 4).map((l) => l.split(/\s+/)), [
      ['tx-a', '4242', '0', 'Ongoing', '60000', '2'],
      ['tx-b', '77', '2', 'CompleteCommit', '60000', '0'],
      ['tx-c', '6000', '3', 'Ongoing', '60000', '1'],
    ]);
    assert.equal(lines[4], '');
    assert.equal(lines[5], 'Open transactions in the partition logs:');
    assert.match(lines[6]!, /^TOPIC\s+PARTITION\s+PRODUCER-ID\s+PRODUCER-EPOCH\s+COORDINATOR-EPOCH\s+START-OFFSET\s+LAST-TIMESTAMP\s+DURATION\(MIN\)\s+TRANSACTIONAL-ID\s+HANGING$/);
    const rows = lines.slice(7).filter((l) => l !== '').map((l) => l.split(/\s+/));
    // columns without LAST-TIMESTAMP and DURATION, which depend on the clock
    assert.deepEqual(rows.map((r) => [...r.slice(0, 6), ...r.slice(8)]), [
      ['t', '0', '4242', '0', '-1', '1', 'tx-a', 'no'],
      ['t', '1', '5000', '0', '-1', '0', '-', 'yes'],
      ['t', '1', '6000', '3', '7', '3', 'tx-c', 'no'],
    ]);
    assert.deepEqual(rows.map((r) => r[6]), [String(TS + 1), String(TS), String(TS)]);
    assert.deepEqual(snapshotTree(dir), before, 'list changes no file');
  });

  test('list --json', () => {
    const res = run(dir, 'list', '--json');
    assert.equal(res.status, 0, res.stderr);
    const doc = JSON.parse(res.stdout) as { transactionalIds: { transactionalId: string; state: string; startTimestampMs: number; partitions: unknown[] }[]; openTransactions: { topic: string; partition: number; producerId: number; firstOffset: number; hanging: boolean; transactionalId: string | null }[] };
    assert.deepEqual(doc.transactionalIds.map((t) => [t.transactionalId, t.state, t.startTimestampMs, t.partitions]), [
      ['tx-a', 'Ongoing', TS + 1000, [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }]],
      ['tx-b', 'CompleteCommit', -1, []],
      ['tx-c', 'Ongoing', TS + 2000, [{ topic: 't', partition: 1 }]],
    ]);
    assert.deepEqual(doc.openTransactions.map((o) => [o.topic, o.partition, o.producerId, o.firstOffset, o.transactionalId, o.hanging]), [
      ['t', 0, 4242, 1, 'tx-a', false],
      ['t', 1, 5000, 0, null, true],
      ['t', 1, 6000, 3, 'tx-c', false],
    ]);
  });

  test('describe: the id and its partitions, with the open transaction on each', () => {
    const before = snapshotTree(dir);
    const res = run(dir, 'describe', '--transactional-id', 'tx-a');
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.split('\n');
    assert.match(lines[0]!, /^TRANSACTIONAL-ID\s+PRODUCER-ID\s+PRODUCER-EPOCH\s+STATE\s+TIMEOUT-MS\s+START-TIME-MS\s+DURATION-MS\s+LAST-UPDATE-MS$/);
    const head = lines[1]!.split(/\s+/);
    assert.deepEqual([...head.slice(0, 6), head[7]], ['tx-a', '4242', '0', 'Ongoing', '60000', String(TS + 1000), String(TS + 5000)]);
    assert.match(lines[3]!, /^TOPIC\s+PARTITION\s+IN-TRANSACTION-STATE\s+OPEN-SINCE-OFFSET\s+PRODUCER-EPOCH\s+COORDINATOR-EPOCH\s+HANGING$/);
    assert.deepEqual(lines.slice(4).filter((l) => l !== '').map((l) => l.split(/\s{2,}/)), [
      ['t', '0', 'yes', '1', '0', '-1', 'no'],
      ['u', '0', 'yes', 'no log here', '-', '-', '-'],
    ]);
    const json = JSON.parse(run(dir, 'describe', '--transactional-id', 'tx-c', '--json').stdout) as { transaction: { producerId: number }; partitions: { topic: string; partition: number; open: { firstOffset: number } | null }[] };
    assert.equal(json.transaction.producerId, 6000);
    assert.deepEqual(json.partitions.map((p) => [p.topic, p.partition, p.open?.firstOffset ?? null]), [['t', 1, 3]]);
    assert.deepEqual(snapshotTree(dir), before, 'describe changes no file');
  });

  test('describe of an unknown or tombstoned id: exit 1, one line', () => {
    for (const id of ['nope', 'tx-gone']) {
      const res = run(dir, 'describe', '--transactional-id', id);
      assert.equal(res.status, 1);
      assert.equal(res.stdout, '');
      assert.equal(res.stderr, `Error: transactional id '${id}' is not in __transaction_state (TRANSACTIONAL_ID_NOT_FOUND)\n`);
    }
  });

  test('abort --start-offset: the marker ends the hanging transaction, the LSO moves to the next open one', () => {
    const res = run(dir, 'abort', '--topic', 't', '--partition', '1', '--start-offset', '0');
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stdout, 'Aborted the transaction of producer 5000 (epoch 0) on t-1 that started at offset 0: ABORT marker at offset 4 (coordinator epoch 0); last stable offset 0 -> 3\n');
    const r = readCommitted(dir, 't', 1);
    assert.equal(r.lso, 3n);
    assert.deepEqual(r.values, ['p5000', 'p6000-first'], 'the aborted record is returned, listed as aborted, for the consumer to drop');
    assert.deepEqual(r.aborted, [[5000n, 0n]]);
  });

  test('abort --producer-id with the epochs from the producer state: the stuck LSO of t-0 moves to the log end', () => {
    const res = run(dir, 'abort', '--topic', 't', '--partition', '0', '--producer-id', '4242', '--json');
    assert.equal(res.status, 0, res.stderr);
    const doc = JSON.parse(res.stdout) as { aborted: Record<string, unknown> };
    assert.deepEqual(doc.aborted, { topic: 't', partition: 0, producerId: 4242, producerEpoch: 0, coordinatorEpoch: 0, startOffset: 1, markerOffset: 5, lastStableOffsetBefore: 1, lastStableOffsetAfter: 6 });
    const r = readCommitted(dir, 't', 0);
    assert.equal(r.lso, 6n);
    assert.deepEqual(r.values, ['before', 'stuck-1', 'stuck-2', 'after-1', 'after-2']);
    assert.deepEqual(r.aborted, [[4242n, 1n]]);
    // now only producer 6000's transaction is open, and its id's state holds it
    const list = JSON.parse(run(dir, 'list', '--json').stdout) as { openTransactions: { producerId: number; hanging: boolean }[] };
    assert.deepEqual(list.openTransactions.map((o) => [o.producerId, o.hanging]), [[6000, false]]);
  });

  test('abort refusals: no open transaction, an older producer epoch, an older coordinator epoch, a missing partition (exit 1, one line)', () => {
    const noTxn = run(dir, 'abort', '--topic', 't', '--partition', '0', '--producer-id', '4242');
    assert.equal(noTxn.status, 1);
    assert.equal(noTxn.stderr, 'Error: Producer 4242 has no open transaction on partition t-0: it has no open transaction [INVALID_TXN_STATE]\n');
    const noStart = run(dir, 'abort', '--topic', 't', '--partition', '1', '--start-offset', '0');
    assert.equal(noStart.status, 1);
    assert.equal(noStart.stderr, 'Error: Could not find any open transactions starting at offset 0 on partition t-1: its open transactions: producer 6000 epoch 3 from offset 3 [INVALID_TXN_STATE]\n');
    const oldEpoch = run(dir, 'abort', '--topic', 't', '--partition', '1', '--producer-id', '6000', '--producer-epoch', '2');
    assert.equal(oldEpoch.status, 1);
    assert.match(oldEpoch.stderr, /^Error: Epoch of producer 6000 at offset 5 is 2, which is smaller than the last seen epoch 3 \[INVALID_PRODUCER_EPOCH\]\n$/);
    const oldCoordinator = run(dir, 'abort', '--topic', 't', '--partition', '1', '--producer-id', '6000', '--coordinator-epoch', '6');
    assert.equal(oldCoordinator.status, 1);
    assert.match(oldCoordinator.stderr, /^Error: Invalid coordinator epoch for producerId 6000 at offset 5: 6 \(zombie\), 7 \(current\) \[TRANSACTION_COORDINATOR_FENCED\]\n$/);
    assert.equal(lso(dir, 't', 1), 3n, 'the refused markers were not written');
    const missing = run(dir, 'abort', '--topic', 'u', '--partition', '0', '--start-offset', '0');
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `Error: no log for partition u-0 in ${dir}\n`);
  });

  test('abort takes the data directory lock: refused while a broker (here a LogManager) holds it', () => {
    const m = LogManager.open(dir);
    try {
      const res = run(dir, 'abort', '--topic', 't', '--partition', '1', '--producer-id', '6000');
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^Error: .*lock.*\n$/i);
    } finally {
      m.close();
    }
    assert.equal(lso(dir, 't', 1), 3n);
    // released: the abort goes through, with the coordinator epoch the producer state had
    const res = run(dir, 'abort', '--topic', 't', '--partition', '1', '--producer-id', '6000');
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /epoch 3\) on t-1 that started at offset 3: ABORT marker at offset 5 \(coordinator epoch 7\); last stable offset 3 -> 6\n$/);
  });

  test('bad arguments: exit 2 with one line on stderr', () => {
    const cases: string[][] = [
      [],
      [dir],
      [dir, 'frobnicate'],
      [dir, 'list', 'extra'],
      [dir, 'list', '--topic', 't'],
      [dir, 'list', '--bogus'],
      [dir, 'describe'],
      [dir, 'abort', '--topic', 't'],
      [dir, 'abort', '--topic', 't', '--partition', '0'],
      [dir, 'abort', '--topic', 't', '--partition', '0', '--start-offset', '1', '--producer-id', '2'],
      [dir, 'abort', '--topic', 't', '--partition', '0', '--start-offset', '1', '--producer-epoch', '2'],
      [dir, 'abort', '--topic', 't', '--partition', '-1', '--start-offset', '1'],
      [dir, 'abort', '--topic', 't', '--partition', 'x', '--start-offset', '1'],
      [dir, 'abort', '--topic', 't', '--partition', '0', '--producer-id', '9223372036854775808'],
      [dir, 'abort', '--topic', 't', '--partition', '0', '--producer-id', '1', '--producer-epoch', '32768'],
      [dir, 'abort', '--topic', '', '--partition', '0', '--start-offset', '1'],
    ];
    // every case is refused by the parser, and the command turns the refusal into exit 2 with one
    // line on stderr and nothing on stdout
    for (const args of cases) {
      const parsed = parseTransactionsArgs(args);
      assert.ok('error' in parsed && !parsed.error.includes('\n'), `${args.join(' ')}: ${JSON.stringify(parsed)}`);
      const res = run(...args);
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /^Error: [^\n]+\n$/, args.join(' '));
    }
  });

  test('--help and a missing directory; the built binary exits with the code main() returns, its text on the same streams', () => {
    const help = run('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: kafkalite transactions <data-dir> list/);
    const missing = run(join(dir, 'nope'), 'list');
    assert.equal(missing.status, 1);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, `Error: data directory ${join(dir, 'nope')} does not exist\n`);
    // the one child of this file: bin/kafkalite.js gives main() the process's stdout and stderr
    const spawned = spawnCli('transactions', join(dir, 'nope'), 'list');
    assert.deepEqual([spawned.status, spawned.stdout, spawned.stderr], [1, missing.stdout, missing.stderr]);
  });
});
