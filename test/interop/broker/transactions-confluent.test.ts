/**
 * confluent-kafka-python (librdkafka 2.0.2) transactions against the broker's transaction
 * coordinator (test/interop/py/broker_txn_confluent.py): a consume-transform-produce loop with
 * init_transactions / begin / produce / send_offsets_to_transaction / commit and abort, checked with
 * a read_committed consumer, the group's committed offset and the logs; fencing of an older
 * producer by a newer one with the same transactional.id; and the broker's abort of a transaction
 * left open past transaction.timeout.ms (LSO advances, the client's commit fails as fenced);
 * offsets_for_times and watermarks around an open transaction at both isolation levels.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { runPythonAsync } from '../../helpers/python-peer.js';

interface Row {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

interface ClientError {
  name: string;
  fatal: boolean;
}

const run = <T>(broker: Broker, input: Record<string, unknown>): Promise<T & { exception?: ClientError }> =>
  runPythonAsync<T & { exception?: ClientError }>('broker_txn_confluent.py', { bootstrap: broker.bootstrap, ...input }, { timeoutMs: 150_000 });

const BROKER_CONFIG = { 'auto.create.topics.enable': 'true', 'transaction.abort.timed.out.transaction.cleanup.interval.ms': '200' };

function lso(broker: Broker, topic: string): { lso: bigint; leo: bigint } {
  const log = broker.logs.getLog(topic, 0);
  assert.ok(log !== undefined, `${topic}-0 exists`);
  return { lso: log.lastStableOffset, leo: log.logEndOffset };
}

describe('confluent-kafka-python transactions against the broker', () => {
  test('consume-transform-produce: read_committed sees exactly the committed output, committed offsets match', async () => {
    await withBroker({ config: BROKER_CONFIG }, async (broker) => {
      const count = 60;
      const r = await run<{ committed_batches: number[][]; aborted_batches: number[][]; output: Row[]; uncommitted_count: number; committed_offset: number }>(broker, {
        scenario: 'ctp',
        count,
        batch: 10,
        group: 'ctp-group',
        tid: 'ctp-txn',
        abort: [1, 3],
      });
      assert.equal(r.exception, undefined, JSON.stringify(r.exception));
      assert.equal(r.aborted_batches.length, 2, 'two batches were aborted');
      // every input record appears exactly once, in order, in the committed output
      assert.deepEqual(r.output.map((o) => o.value), Array.from({ length: count }, (_, i) => `out-in-${i}`));
      assert.deepEqual(r.output.map((o) => o.key), Array.from({ length: count }, (_, i) => String(i)));
      // the aborted batches' records are in the log, visible to read_uncommitted only
      const abortedRecords = r.aborted_batches.reduce((n, b) => n + b.length, 0);
      assert.equal(r.uncommitted_count, count + abortedRecords);
      assert.equal(r.committed_offset, count, 'the group committed the position after the last input record');
      assert.equal(broker.groups.group('ctp-group')?.offset('input', 0)?.offset, BigInt(count));
      const out = lso(broker, 'output');
      assert.equal(out.lso, out.leo, 'no transaction left open on output');
      const txn = broker.transactions.describe('ctp-txn');
      assert.equal(txn.txn?.state, 'CompleteCommit');
    });
  });

  test('fencing: a second producer with the same transactional.id fences the first and aborts its open transaction', async () => {
    await withBroker({ config: BROKER_CONFIG }, async (broker) => {
      const r = await run<{ a_commit: ClientError | 'ok'; read_committed: Row[]; read_uncommitted: Row[] }>(broker, { scenario: 'fence', tid: 'fence-txn' });
      assert.equal(r.exception, undefined, JSON.stringify(r.exception));
      assert.notEqual(r.a_commit, 'ok');
      assert.equal((r.a_commit as ClientError).name, '_FENCED');
      assert.equal((r.a_commit as ClientError).fatal, true);
      assert.deepEqual(r.read_committed.map((m) => m.value), ['from-b']);
      assert.deepEqual(r.read_uncommitted.map((m) => m.value), ['from-a', 'from-b']);
      const t = lso(broker, 'fenced');
      assert.equal(t.lso, t.leo);
      // first instance epoch 0; the fence bumps to 1 and the new instance's retry to 2
      assert.equal(broker.transactions.describe('fence-txn').txn?.producerEpoch, 2);
    });
  });

  test('offsets_for_times and watermarks under read_committed stop at the last stable offset; read_uncommitted at the high watermark', async () => {
    await withBroker({ config: BROKER_CONFIG }, async (broker) => {
      const t0 = Date.now() - 60_000;
      type Looked = { t0: number; t1: number; high: number };
      const r = await run<{ open: { committed: Looked; uncommitted: Looked }; after_commit: Looked }>(broker, { scenario: 'offsets_for_times', tid: 'times-txn', t0, t1: t0 + 1000 });
      assert.equal(r.exception, undefined, JSON.stringify(r.exception));
      // offset 0: the record at t0; offset 1: the open transaction's record at t1 (librdkafka: -1 is "none")
      assert.deepEqual(r.open.committed, { t0: 0, t1: -1, high: 1 });
      assert.deepEqual(r.open.uncommitted, { t0: 0, t1: 1, high: 2 });
      // the commit marker is offset 2
      assert.deepEqual(r.after_commit, { t0: 0, t1: 1, high: 3 });
    });
  });

  test('timeout: the broker aborts a transaction open past transaction.timeout.ms; the LSO advances; the commit fails as fenced', async () => {
    await withBroker({ config: BROKER_CONFIG }, async (broker) => {
      const r = await run<{ commit: ClientError | 'ok'; read_committed: Row[] }>(broker, { scenario: 'timeout', tid: 'timeout-txn', timeout_ms: 2000, sleep_s: 5 });
      assert.equal(r.exception, undefined, JSON.stringify(r.exception));
      assert.notEqual(r.commit, 'ok');
      assert.equal((r.commit as ClientError).name, '_FENCED');
      assert.deepEqual(r.read_committed.map((m) => m.value), ['before']);
      const t = lso(broker, 'timed');
      assert.equal(t.lso, t.leo, 'the abort marker moved the LSO to the end');
      assert.equal(broker.transactions.describe('timeout-txn').txn?.state, 'CompleteAbort');
    });
  });
});
