/**
 * The transaction coordinator over the wire (src/broker/txn/, the transactional handlers), with
 * Kafka's answers as the spec (TransactionCoordinatorTest, KafkaApisTest, TransactionStateManagerTest
 * cases named in the notes): FindCoordinator key type 1, InitProducerId epochs and fencing,
 * AddPartitionsToTxn (v0-3 and the batched verify-only v4+), EndTxn's state table, markers,
 * TxnOffsetCommit offsets pending until the marker, KIP-890 Produce verification, timeouts and id
 * expiry on a manual clock, WriteTxnMarkers, and reload after a restart (a PrepareCommit found in
 * `__transaction_state` gets its markers again).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startBroker, type Broker } from '../../src/broker/broker.js';
import { InvalidConfigError } from '../../src/errors.js';
import { decodeTransactionLogValue, transactionLogKey, transactionLogValue } from '../../src/internal-topics/transaction-log.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { parseControlRecordKey } from '../../src/record/control.js';
import { FileRecords } from '../../src/storage/file-records.js';
import type { HeldAppends } from '../../src/storage/held-appends.js';
import { MAP_AFTER_WRITES, nativeMappingCalls } from '../../src/storage/mapped-tail.js';
import { storedBatches, withBroker } from '../helpers/broker.js';
import { ManualTimer } from '../helpers/manual-timer.js';
import { RawClient, decodeResponseFrame, encodeRequestFrame, type Msg } from '../helpers/raw-client.js';

const name = (code: number): string => errorName(code) ?? String(code);

async function client(broker: Broker): Promise<RawClient> {
  return RawClient.connect(broker.port);
}

async function init(c: RawClient, tid: string, opts: { version?: number; timeoutMs?: number; producerId?: bigint; producerEpoch?: number } = {}): Promise<Msg> {
  return c.request(22, opts.version ?? 4, { transactionalId: tid, transactionTimeoutMs: opts.timeoutMs ?? 60000, producerId: opts.producerId ?? -1n, producerEpoch: opts.producerEpoch ?? -1 });
}

async function addPartitions(c: RawClient, tid: string, pid: bigint, epoch: number, topics: [string, number[]][], version = 3): Promise<[string, number, string][]> {
  const r = await c.request(24, version, { v3AndBelowTransactionalId: tid, v3AndBelowProducerId: pid, v3AndBelowProducerEpoch: epoch, v3AndBelowTopics: topics.map(([n, ps]) => ({ name: n, partitions: ps })) });
  return r.resultsByTopicV3AndBelow.flatMap((t: Msg) => t.resultsByPartition.map((p: Msg) => [t.name, p.partitionIndex, name(p.partitionErrorCode)]));
}

async function endTxn(c: RawClient, tid: string, pid: bigint, epoch: number, committed: boolean, version = 3): Promise<string> {
  return name((await c.request(26, version, { transactionalId: tid, producerId: pid, producerEpoch: epoch, committed })).errorCode);
}

async function produce(c: RawClient, tid: string | null, topic: string, partition: number, pid: bigint, epoch: number, seq: number, values: string[], version = 7): Promise<string> {
  const records = encodeRecordBatch(values.map((v) => ({ value: v })), { isTransactional: true, producerId: pid, producerEpoch: epoch, baseSequence: seq });
  const r = await c.request(0, version, { transactionalId: tid, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  return name(r.responses[0].partitionResponses[0].errorCode);
}

async function createTopic(c: RawClient, topic: string, partitions = 1): Promise<void> {
  const r = await c.request(19, 4, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.equal(r.topics[0].errorCode, 0);
}

function markers(broker: Broker, topic: string, partition = 0): string[] {
  return storedBatches(broker.dataDir, topic, partition)
    .filter((b) => b.isControl)
    .map((b) => parseControlRecordKey(b.records[0]!.key).type);
}

/** One event-loop turn: the markers the coordinator queued after its answers are written by then. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function fetchOffset(c: RawClient, group: string, topic: string, partition: number): Promise<bigint> {
  const r = await c.request(9, 5, { groupId: group, topics: [{ name: topic, partitionIndexes: [partition] }] });
  return r.topics[0].partitions[0].committedOffset;
}

describe('transaction coordinator', () => {
  test('FindCoordinator key type 1 names this broker, v1 and the batched v4', async () => {
    await withBroker({}, async (broker) => {
      const c = await client(broker);
      const v1 = await c.request(10, 1, { key: 'tid', keyType: 1 });
      assert.deepEqual([name(v1.errorCode), v1.nodeId, v1.port], ['NONE', broker.config.nodeId, broker.port]);
      const v4 = await c.request(10, 4, { keyType: 1, coordinatorKeys: ['a', 'b'] });
      assert.deepEqual(v4.coordinators.map((x: Msg) => [x.key, name(x.errorCode), x.port]), [['a', 'NONE', broker.port], ['b', 'NONE', broker.port]]);
      c.destroy();
    });
  });

  test('InitProducerId: timeouts checked against transaction.max.timeout.ms, epochs bumped, KIP-360 retries, fencing by version', async () => {
    await withBroker({ config: { 'transaction.max.timeout.ms': '100000' } }, async (broker) => {
      const c = await client(broker);
      assert.equal(name((await init(c, 't', { timeoutMs: 0 })).errorCode), 'INVALID_TRANSACTION_TIMEOUT');
      assert.equal(name((await init(c, 't', { timeoutMs: 100001 })).errorCode), 'INVALID_TRANSACTION_TIMEOUT');
      assert.equal(name((await init(c, '')).errorCode), 'INVALID_REQUEST');
      assert.equal(name((await init(c, 't', { producerId: 5n })).errorCode), 'INVALID_REQUEST');
      const first = await init(c, 't');
      assert.deepEqual([name(first.errorCode), first.producerEpoch], ['NONE', 0]);
      const second = await init(c, 't');
      assert.deepEqual([second.producerId, second.producerEpoch], [first.producerId, 1]);
      // KIP-360: the current id and epoch bump once; the same request again is a retry and gets the same answer
      const bumped = await init(c, 't', { producerId: first.producerId, producerEpoch: 1 });
      assert.equal(bumped.producerEpoch, 2);
      const retried = await init(c, 't', { producerId: first.producerId, producerEpoch: 1 });
      assert.equal(retried.producerEpoch, 2);
      // a stale epoch is fenced: PRODUCER_FENCED from v4, INVALID_PRODUCER_EPOCH before
      assert.equal(name((await init(c, 't', { producerId: first.producerId, producerEpoch: 0 })).errorCode), 'PRODUCER_FENCED');
      assert.equal(name((await init(c, 't', { version: 3, producerId: first.producerId, producerEpoch: 0 })).errorCode), 'INVALID_PRODUCER_EPOCH');
      assert.equal(name((await init(c, 't', { producerId: first.producerId + 100n, producerEpoch: 2 })).errorCode), 'PRODUCER_FENCED');
      // a null transactional id stays the idempotent path
      const idem = await c.request(22, 4, { transactionalId: null, transactionTimeoutMs: 2147483647, producerId: -1n, producerEpoch: -1 });
      assert.deepEqual([name(idem.errorCode), idem.producerEpoch], ['NONE', 0]);
      assert.notEqual(idem.producerId, first.producerId);
      c.destroy();
    });
  });

  test('AddPartitionsToTxn, Produce, EndTxn: markers, state table, verification', async () => {
    await withBroker({}, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'out', 2);
      assert.deepEqual(await addPartitions(c, 'nobody', 7n, 0, [['out', [0]]]), [['out', 0, 'INVALID_PRODUCER_ID_MAPPING']]);
      const { producerId: pid, producerEpoch: epoch } = await init(c, 'tx');
      assert.equal(await endTxn(c, 'tx', pid, epoch, true), 'INVALID_TXN_STATE', 'nothing to commit from Empty');
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['out', [0, 9]]]), [['out', 0, 'OPERATION_NOT_ATTEMPTED'], ['out', 9, 'UNKNOWN_TOPIC_OR_PARTITION']]);
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['__consumer_offsets', [0]]]), [['__consumer_offsets', 0, 'TOPIC_AUTHORIZATION_FAILED']]);
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch + 1, [['out', [0]]]), [['out', 0, 'PRODUCER_FENCED']]);
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch + 1, [['out', [0]]], 1), [['out', 0, 'INVALID_PRODUCER_EPOCH']]);
      assert.deepEqual(await addPartitions(c, 'tx', pid + 1n, epoch, [['out', [0]]]), [['out', 0, 'INVALID_PRODUCER_ID_MAPPING']]);
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['out', [0]]]), [['out', 0, 'NONE']]);
      assert.equal(broker.transactions.describe('tx').txn?.state, 'Ongoing');
      // KIP-890: partition 1 was not added
      assert.equal(await produce(c, 'tx', 'out', 1, pid, epoch, 0, ['stray']), 'INVALID_TXN_STATE');
      assert.equal(await produce(c, 'tx', 'out', 1, pid, epoch, 0, ['stray'], 10), 'INVALID_TXN_STATE');
      // Produce v11 (KIP-890's genericError): the coordinator's own answer
      assert.equal(await produce(c, 'tx', 'out', 1, pid, epoch, 0, ['stray'], 11), 'TRANSACTION_ABORTABLE');
      assert.equal(await produce(c, 'tx', 'out', 0, pid, epoch, 0, ['a', 'b']), 'NONE');
      // v4 verify-only: the partition in the transaction, and one that is not
      const v = await c.request(24, 4, { transactions: [{ transactionalId: 'tx', producerId: pid, producerEpoch: epoch, verifyOnly: true, topics: [{ name: 'out', partitions: [0, 1] }] }] });
      assert.deepEqual(v.resultsByTransaction[0].topicResults[0].resultsByPartition.map((p: Msg) => name(p.partitionErrorCode)), ['NONE', 'TRANSACTION_ABORTABLE']);
      assert.equal(broker.logs.getLog('out', 0)!.lastStableOffset, 0n, 'the open transaction holds the LSO');
      assert.equal(await endTxn(c, 'tx', pid, epoch + 1, true), 'PRODUCER_FENCED');
      assert.equal(await endTxn(c, 'tx', pid, epoch + 1, true, 1), 'INVALID_PRODUCER_EPOCH');
      assert.equal(await endTxn(c, 'tx', pid, epoch, true), 'NONE');
      assert.deepEqual(markers(broker, 'out'), ['COMMIT']);
      const log = broker.logs.getLog('out', 0)!;
      assert.equal(log.lastStableOffset, log.logEndOffset);
      assert.equal(broker.transactions.describe('tx').txn?.state, 'CompleteCommit');
      assert.equal(await endTxn(c, 'tx', pid, epoch, true), 'NONE', 'a retried commit');
      assert.equal(await endTxn(c, 'tx', pid, epoch, false), 'INVALID_TXN_STATE');
      // the next transaction starts from CompleteCommit and aborts
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['out', [0]]]), [['out', 0, 'NONE']]);
      assert.equal(await produce(c, 'tx', 'out', 0, pid, epoch, 2, ['c']), 'NONE');
      assert.equal(await endTxn(c, 'tx', pid, epoch, false), 'NONE');
      assert.deepEqual(markers(broker, 'out'), ['COMMIT', 'ABORT']);
      assert.equal(await endTxn(c, 'tx', pid, epoch, true), 'INVALID_TXN_STATE');
      // EndTxn answers once PrepareCommit is written (Kafka's sendTxnMarkersCallback); a request read in
      // the same turn, before the markers, gets CONCURRENT_TRANSACTIONS, and the next turn finds CompleteCommit
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['out', [0]]]), [['out', 0, 'NONE']]);
      assert.equal(await produce(c, 'tx', 'out', 0, pid, epoch, 3, ['d']), 'NONE');
      const [endId, addId] = [c.correlationId(), c.correlationId()];
      const answers = [c.nextFrame(), c.nextFrame()];
      c.send([
        encodeRequestFrame(26, 3, endId, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, committed: true }),
        encodeRequestFrame(24, 3, addId, { v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: pid, v3AndBelowProducerEpoch: epoch, v3AndBelowTopics: [{ name: 'out', partitions: [0] }] }),
      ]);
      const ended = decodeResponseFrame(26, 3, await answers[0]!).body;
      const added = decodeResponseFrame(24, 3, await answers[1]!).body;
      assert.equal(name(ended.errorCode), 'NONE');
      assert.equal(name(added.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode), 'CONCURRENT_TRANSACTIONS');
      assert.equal(broker.transactions.describe('tx').txn?.state, 'CompleteCommit');
      assert.deepEqual(markers(broker, 'out'), ['COMMIT', 'ABORT', 'COMMIT']);
      assert.deepEqual(await addPartitions(c, 'tx', pid, epoch, [['out', [0]]]), [['out', 0, 'NONE']]);
      c.destroy();
    });
  });

  test('Produce verification can be turned off (transaction.partition.verification.enable=false)', async () => {
    await withBroker({ config: { 'transaction.partition.verification.enable': 'false' } }, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'out');
      const { producerId, producerEpoch } = await init(c, 'tx');
      assert.equal(await produce(c, 'tx', 'out', 0, producerId, producerEpoch, 0, ['unadded']), 'NONE');
      c.destroy();
    });
  });

  test('TxnOffsetCommit: refused before AddOffsetsToTxn; pending until the COMMIT marker; dropped at ABORT', async () => {
    await withBroker({}, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'in');
      const { producerId: pid, producerEpoch: epoch } = await init(c, 'tx');
      const commit = async (offset: bigint, version = 3): Promise<string> => {
        const r = await c.request(28, version, {
          transactionalId: 'tx', groupId: 'g', producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }],
        });
        return name(r.topics[0].partitions[0].errorCode);
      };
      assert.equal(await commit(3n), 'INVALID_TXN_STATE');
      assert.equal(await commit(3n, 4), 'TRANSACTION_ABORTABLE');
      const added = await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'g' });
      assert.equal(name(added.errorCode), 'NONE');
      assert.equal(await commit(3n), 'NONE');
      assert.equal(await fetchOffset(c, 'g', 'in', 0), -1n, 'pending offsets are not visible');
      const stable = await c.request(9, 7, { groupId: 'g', topics: [{ name: 'in', partitionIndexes: [0] }], requireStable: true });
      assert.equal(name(stable.topics[0].partitions[0].errorCode), 'UNSTABLE_OFFSET_COMMIT');
      assert.equal(await endTxn(c, 'tx', pid, epoch, true), 'NONE');
      assert.equal(await fetchOffset(c, 'g', 'in', 0), 3n);
      const settled = await c.request(9, 7, { groupId: 'g', topics: [{ name: 'in', partitionIndexes: [0] }], requireStable: true });
      assert.deepEqual([name(settled.topics[0].partitions[0].errorCode), settled.topics[0].partitions[0].committedOffset], ['NONE', 3n]);
      assert.equal(name((await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'g' })).errorCode), 'NONE');
      assert.equal(await commit(8n), 'NONE');
      assert.equal(await endTxn(c, 'tx', pid, epoch, false), 'NONE');
      assert.equal(await fetchOffset(c, 'g', 'in', 0), 3n, 'aborted offsets are dropped');
      c.destroy();
    });
  });

  test('WriteTxnMarkers v1: markers written where asked, unknown partitions refused, results by producer id', async () => {
    await withBroker({}, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'm');
      const { producerId: pid, producerEpoch: epoch } = await init(c, 'tx');
      await addPartitions(c, 'tx', pid, epoch, [['m', [0]]]);
      assert.equal(await produce(c, 'tx', 'm', 0, pid, epoch, 0, ['x']), 'NONE');
      const r = await c.request(27, 1, {
        markers: [{ producerId: pid, producerEpoch: epoch, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: 'm', partitionIndexes: [0, 3] }] }],
      });
      assert.deepEqual(r.markers.map((m: Msg) => [m.producerId, m.topics[0].partitions.map((p: Msg) => name(p.errorCode))]), [[pid, ['NONE', 'UNKNOWN_TOPIC_OR_PARTITION']]]);
      assert.deepEqual(markers(broker, 'm'), ['ABORT']);
      c.destroy();
    });
  });

  test('a transaction open past its timeout is fenced and aborted; the old epoch is refused; idle ids expire', async () => {
    const timer = new ManualTimer();
    const config = {
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': '1000',
      'transactional.id.expiration.ms': '60000',
      'transaction.remove.expired.transaction.cleanup.interval.ms': '5000',
    };
    await withBroker({ timer, config }, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'out');
      const { producerId: pid, producerEpoch: epoch } = await init(c, 'slow', { timeoutMs: 3000 });
      await addPartitions(c, 'slow', pid, epoch, [['out', [0]]]);
      assert.equal(await produce(c, 'slow', 'out', 0, pid, epoch, 0, ['late']), 'NONE');
      timer.advance(2000);
      assert.equal(broker.transactions.describe('slow').txn?.state, 'Ongoing', 'not yet past its timeout');
      timer.advance(2000);
      const txn = broker.transactions.describe('slow').txn!;
      // PrepareAbort is written at the fenced epoch; the markers and CompleteAbort follow (Kafka's marker channel)
      assert.deepEqual([txn.state, txn.pendingState, txn.producerEpoch], ['PrepareAbort', 'CompleteAbort', epoch + 1]);
      await nextTurn();
      assert.deepEqual([txn.state, txn.producerEpoch], ['CompleteAbort', epoch + 1]);
      assert.deepEqual(markers(broker, 'out'), ['ABORT']);
      const log = broker.logs.getLog('out', 0)!;
      assert.equal(log.lastStableOffset, log.logEndOffset, 'the LSO moved past the aborted transaction');
      assert.equal(await endTxn(c, 'slow', pid, epoch, true), 'PRODUCER_FENCED');
      assert.equal(await endTxn(c, 'slow', pid, epoch, true, 1), 'INVALID_PRODUCER_EPOCH');
      assert.equal(await produce(c, 'slow', 'out', 0, pid, epoch, 1, ['later']), 'INVALID_PRODUCER_EPOCH');
      // expiry: idle past transactional.id.expiration.ms, a tombstone, then unknown
      timer.advance(70_000);
      assert.equal(name(broker.transactions.describe('slow').errorCode), 'TRANSACTIONAL_ID_NOT_FOUND');
      assert.deepEqual(await addPartitions(c, 'slow', pid, epoch + 1, [['out', [0]]]), [['out', 0, 'INVALID_PRODUCER_ID_MAPPING']]);
      const fresh = await init(c, 'slow');
      assert.notEqual(fresh.producerId, pid, 'a new producer id after expiry');
      c.destroy();
    });
  });

  test('reload: states come back from __transaction_state; a PrepareCommit gets its markers and completes; pending offsets settle', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-txn-reload-'));
    try {
      let pid = -1n;
      let epoch = -1;
      await withBroker({ dataDir }, async (broker) => {
        const c = await client(broker);
        await createTopic(c, 'out', 2);
        await createTopic(c, 'in');
        ({ producerId: pid, producerEpoch: epoch } = await init(c, 'tx'));
        await addPartitions(c, 'tx', pid, epoch, [['out', [0, 1]]]);
        assert.equal(await produce(c, 'tx', 'out', 0, pid, epoch, 0, ['a']), 'NONE');
        assert.equal(await produce(c, 'tx', 'out', 1, pid, epoch, 0, ['b']), 'NONE');
        await c.request(25, 1, { transactionalId: 'tx', producerId: pid, producerEpoch: epoch, groupId: 'g' });
        const r = await c.request(28, 3, {
          transactionalId: 'tx', groupId: 'g', producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
          topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 11n, committedLeaderEpoch: -1, committedMetadata: null }] }],
        });
        assert.equal(name(r.topics[0].partitions[0].errorCode), 'NONE');
        // the coordinator wrote PrepareCommit and stopped before any marker (what a crash there leaves)
        const txn = broker.transactions.describe('tx').txn!;
        const partitions = [{ topic: 'out', partitionIds: [0, 1] }, { topic: '__consumer_offsets', partitionIds: [0] }];
        broker.transactions.store.append('tx', transactionLogKey('tx'), transactionLogValue({
          producerId: pid, producerEpoch: epoch, timeoutMs: txn.txnTimeoutMs, stateId: 2, partitions, lastUpdateTimestampMs: Date.now(), startTimestampMs: txn.txnStartTimestamp,
        }), Date.now());
        c.destroy();
      });
      await withBroker({ dataDir }, async (broker) => {
        const txn = broker.transactions.describe('tx').txn!;
        assert.deepEqual([txn.state, txn.pendingState], ['PrepareCommit', 'CompleteCommit'], 'loaded as written; the markers are queued');
        await nextTurn();
        assert.deepEqual([txn.state, txn.producerId, txn.producerEpoch], ['CompleteCommit', pid, epoch]);
        assert.deepEqual(markers(broker, 'out', 0), ['COMMIT']);
        assert.deepEqual(markers(broker, 'out', 1), ['COMMIT']);
        for (const p of [0, 1]) {
          const log = broker.logs.getLog('out', p)!;
          assert.equal(log.lastStableOffset, log.logEndOffset);
        }
        const c = await client(broker);
        assert.equal(await fetchOffset(c, 'g', 'in', 0), 11n, 'the offset committed by the re-sent marker');
        const next = await init(c, 'tx');
        assert.deepEqual([next.producerId, next.producerEpoch], [pid, epoch + 1]);
        c.destroy();
      });
      await withBroker({ dataDir }, async (broker) => {
        // the settled offset and the Empty state after InitProducerId survive another restart
        const c = await client(broker);
        assert.equal(await fetchOffset(c, 'g', 'in', 0), 11n);
        assert.deepEqual([broker.transactions.describe('tx').txn?.state, broker.transactions.describe('tx').txn?.producerEpoch], ['Empty', epoch + 1]);
        c.destroy();
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // the write path these two observe is the held one: small appends go through the mapped tail by
  // default (mapped-tail.ts), turned off here; the test after them covers the mapped tail's order
  const HELD_WRITES = { config: { 'kafkalite.mapped.tail.enable': 'false' } };

  test('the markers and Complete states of the transactions ended in one turn are on disk at its end, one write per file', async () => {
    // the coordinator holds them (held-appends.ts) and writes them itself: no answer follows to do it
    const { append, writeHeld } = FileRecords.prototype;
    const pending = new Map<string, number>();
    const writes: [string, number][] = [];
    FileRecords.prototype.append = function (this: FileRecords, bytes: Uint8Array, heldAppends?: HeldAppends) {
      if (heldAppends !== undefined) pending.set(this.path, (pending.get(this.path) ?? 0) + 1);
      return append.call(this, bytes, heldAppends);
    };
    FileRecords.prototype.writeHeld = function (this: FileRecords) {
      const n = pending.get(this.path) ?? 0;
      writeHeld.call(this);
      pending.delete(this.path);
      if (n > 0) writes.push([this.path, n]);
    };
    try {
      await withBroker(HELD_WRITES, async (broker) => {
        const c = await client(broker);
        await createTopic(c, 'out');
        const ids = [];
        for (const tid of ['ta', 'tb']) {
          const { producerId: pid, producerEpoch: epoch } = await init(c, tid);
          assert.deepEqual(await addPartitions(c, tid, pid, epoch, [['out', [0]]]), [['out', 0, 'NONE']]);
          assert.equal(await produce(c, tid, 'out', 0, pid, epoch, 0, [tid]), 'NONE');
          ids.push({ tid, pid, epoch });
        }
        writes.length = 0;
        // both EndTxn in one turn, as two connections' requests read together would be
        for (const { tid, pid, epoch } of ids) assert.equal(name(broker.transactions.endTransaction(tid, pid, epoch, true)), 'NONE');
        await nextTurn();
        assert.equal(broker.heldAppends.holding, false, 'nothing is left held after the markers turn');
        assert.deepEqual(markers(broker, 'out'), ['COMMIT', 'COMMIT'], 'both markers are in the file');
        const states = storedBatches(broker.dataDir, '__transaction_state', 0).flatMap((b) => b.records.map((r) => (r.value === null ? -1 : decodeTransactionLogValue(r.value).stateId)));
        assert.deepEqual(states.slice(-4), [2, 2, 4, 4], 'PrepareCommit twice, written at once, then both CompleteCommit');
        // one write per file for the turn's two markers, and one for its two CompleteCommit
        assert.deepEqual(
          writes.map(([path, n]) => [path.includes('__transaction_state') ? '__transaction_state' : 'out', n]).sort(),
          [['__transaction_state', 2], ['out', 2]],
        );
      });
    } finally {
      Object.assign(FileRecords.prototype, { append, writeHeld });
    }
  });

  /** Topics `first` and `second`, and transactions `ta` on first and `tb` on second, each with `batches` batches produced and still open. */
  async function twoOpenTransactions(broker: Broker, batches: number): Promise<{ tid: string; pid: bigint; epoch: number }[]> {
    const c = await client(broker);
    await createTopic(c, 'first');
    await createTopic(c, 'second');
    const ids = [];
    for (const [tid, topic] of [['ta', 'first'], ['tb', 'second']] as const) {
      const { producerId: pid, producerEpoch: epoch } = await init(c, tid);
      assert.deepEqual(await addPartitions(c, tid, pid, epoch, [[topic, [0]]]), [[topic, 0, 'NONE']]);
      for (let seq = 0; seq < batches; seq++) assert.equal(await produce(c, tid, topic, 0, pid, epoch, seq, [`${tid}-${seq}`]), 'NONE');
      ids.push({ tid, pid, epoch });
    }
    return ids;
  }

  test('the markers of every transaction ended in a turn reach their logs before any Complete record (PrepareX → markers → CompleteX)', async () => {
    // two transactions on different logs: held appends write files in the order they were first
    // held, so a Complete appended before the second marker would be written before it
    const { append, writeHeld } = FileRecords.prototype;
    const pending = new Set<string>();
    const order: string[] = [];
    FileRecords.prototype.append = function (this: FileRecords, bytes: Uint8Array, heldAppends?: HeldAppends) {
      if (heldAppends !== undefined) pending.add(this.path);
      return append.call(this, bytes, heldAppends);
    };
    FileRecords.prototype.writeHeld = function (this: FileRecords) {
      writeHeld.call(this);
      if (pending.delete(this.path)) order.push(this.path.includes('__transaction_state') ? '__transaction_state' : this.path.includes('first') ? 'first' : 'second');
    };
    try {
      await withBroker(HELD_WRITES, async (broker) => {
        const ids = await twoOpenTransactions(broker, 1);
        order.length = 0;
        for (const { tid, pid, epoch } of ids) assert.equal(name(broker.transactions.endTransaction(tid, pid, epoch, true)), 'NONE');
        await nextTurn();
        assert.deepEqual(markers(broker, 'first'), ['COMMIT']);
        assert.deepEqual(markers(broker, 'second'), ['COMMIT']);
        const lastState = order.lastIndexOf('__transaction_state');
        const markersWritten = [order.indexOf('first'), order.indexOf('second')];
        assert.ok(markersWritten.every((i) => i >= 0 && i < lastState), `writes in the order ${order.join(', ')}`);
        // the turn's Complete records come in one write after both markers
        assert.deepEqual(order.slice(-3).sort(), ['__transaction_state', 'first', 'second'].sort());
        assert.equal(order[order.length - 1], '__transaction_state', `writes in the order ${order.join(', ')}`);
      });
    } finally {
      Object.assign(FileRecords.prototype, { append, writeHeld });
    }
  });

  test('with the mapped tail, the markers of every transaction ended in a turn reach their logs before any Complete record', async () => {
    // a copy through the mapped tail is in the page cache when its append returns: the order the
    // files get the bytes is the order of the appends, held ones at their write
    const { append, writeHeld } = FileRecords.prototype;
    const pending = new Set<string>();
    const order: string[] = [];
    const label = (path: string) => (path.includes('__transaction_state') ? '__transaction_state' : path.includes('first') ? 'first' : 'second');
    let copies = 0;
    FileRecords.prototype.append = function (this: FileRecords, bytes: Uint8Array, heldAppends?: HeldAppends) {
      const holdingBefore = heldAppends?.holding ?? false;
      const position = append.call(this, bytes, heldAppends);
      // copied when nothing was held before and nothing is held after: in the file now
      if (heldAppends !== undefined && !holdingBefore && !heldAppends.holding) {
        copies++;
        order.push(label(this.path));
      } else if (heldAppends !== undefined) pending.add(this.path);
      return position;
    };
    FileRecords.prototype.writeHeld = function (this: FileRecords) {
      writeHeld.call(this);
      if (pending.delete(this.path)) order.push(label(this.path));
    };
    try {
      await withBroker({}, async (broker) => {
        // MAP_AFTER_WRITES batches: each partition's file maps its window at the next append, the marker
        const ids = await twoOpenTransactions(broker, MAP_AFTER_WRITES);
        order.length = 0;
        copies = 0;
        for (const { tid, pid, epoch } of ids) assert.equal(name(broker.transactions.endTransaction(tid, pid, epoch, true)), 'NONE');
        await nextTurn();
        if (nativeMappingCalls() !== undefined) assert.ok(copies > 0, 'the coordinator appends went through the mapped tail');
        assert.deepEqual(markers(broker, 'first'), ['COMMIT']);
        assert.deepEqual(markers(broker, 'second'), ['COMMIT']);
        const lastState = order.lastIndexOf('__transaction_state');
        const markersWritten = [order.lastIndexOf('first'), order.lastIndexOf('second')];
        assert.ok(markersWritten.every((i) => i >= 0 && i < lastState), `in the files in the order ${order.join(', ')}`);
        assert.equal(order[order.length - 1], '__transaction_state', `in the files in the order ${order.join(', ')}`);
      });
    } finally {
      Object.assign(FileRecords.prototype, { append, writeHeld });
    }
  });

  test('a clean shutdown writes the markers and CompleteCommit of an EndTxn it just answered', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-txn-close-'));
    try {
      await withBroker({ dataDir }, async (broker) => {
        const c = await client(broker);
        await createTopic(c, 'out');
        const { producerId: pid, producerEpoch: epoch } = await init(c, 'tx');
        await addPartitions(c, 'tx', pid, epoch, [['out', [0]]]);
        assert.equal(await produce(c, 'tx', 'out', 0, pid, epoch, 0, ['a']), 'NONE');
        c.destroy();
        assert.equal(name(broker.transactions.endTransaction('tx', pid, epoch, true)), 'NONE');
        assert.equal(broker.transactions.describe('tx').txn?.state, 'PrepareCommit', 'answered; the markers are queued');
        await broker.close();
        assert.deepEqual(markers(broker, 'out'), ['COMMIT']);
        const states = storedBatches(dataDir, '__transaction_state', 0).flatMap((b) => b.records.map((r) => (r.value === null ? -1 : decodeTransactionLogValue(r.value).stateId)));
        assert.deepEqual(states.slice(-2), [2, 4], 'PrepareCommit, then CompleteCommit, written before the logs closed');
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('DescribeTransactions and ListTransactions: states, partitions, filters by state, producer id and duration', async () => {
    const timer = new ManualTimer();
    await withBroker({ timer }, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'out', 2);
      const a = await init(c, 'a');
      const b = await init(c, 'b');
      await addPartitions(c, 'a', a.producerId, a.producerEpoch, [['out', [1, 0]]]);
      timer.advance(10_000);
      const d = await c.request(65, 0, { transactionalIds: ['a', 'b', 'nope', ''] });
      assert.deepEqual(
        d.transactionStates.map((t: Msg) => [t.transactionalId, name(t.errorCode), t.transactionState, t.producerId, t.topics.map((x: Msg) => [x.topic, x.partitions])]),
        [
          ['a', 'NONE', 'Ongoing', a.producerId, [['out', [0, 1]]]],
          ['b', 'NONE', 'Empty', b.producerId, []],
          ['nope', 'TRANSACTIONAL_ID_NOT_FOUND', '', -1n, []],
          ['', 'INVALID_REQUEST', '', -1n, []],
        ],
      );
      assert.equal(d.transactionStates[0].transactionStartTimeMs, BigInt(timer.now() - 10_000));
      assert.equal(d.transactionStates[1].transactionStartTimeMs, -1n);
      const list = async (body: Msg, version = 1): Promise<Msg> => c.request(66, version, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, ...body });
      const ids = (r: Msg): string[] => r.transactionStates.map((t: Msg) => t.transactionalId).sort();
      assert.deepEqual(ids(await list({})), ['a', 'b']);
      const byState = await list({ stateFilters: ['Ongoing', 'Bogus'] });
      assert.deepEqual([ids(byState), byState.unknownStateFilters], [['a'], ['Bogus']]);
      assert.deepEqual(ids(await list({ producerIdFilters: [b.producerId] })), ['b']);
      // open longer than 5 s: a (and b, which has no transaction: Kafka lets Empty ids pass)
      assert.deepEqual(ids(await list({ durationFilter: 5000n })), ['a', 'b']);
      assert.deepEqual(ids(await list({ durationFilter: 20_000n, stateFilters: ['Ongoing'] })), []);
      assert.deepEqual(ids(await list({ stateFilters: ['Ongoing'] }, 0)), ['a']);
      c.destroy();
    });
  });

  test('EndTxn v5 (transaction version 2): an epoch bump at every EndTxn, retries by the previous epoch, empty aborts, producer id rotation at the last epoch', async () => {
    await withBroker({}, async (broker) => {
      const c = await client(broker);
      await createTopic(c, 'out');
      const end5 = async (tid: string, pid: bigint, epoch: number, committed: boolean): Promise<[string, bigint, number]> => {
        const r = await c.request(26, 5, { transactionalId: tid, producerId: pid, producerEpoch: epoch, committed });
        return [name(r.errorCode), r.producerId, r.producerEpoch];
      };
      const { producerId: pid, producerEpoch: e } = await init(c, 'tv2');
      await addPartitions(c, 'tv2', pid, e, [['out', [0]]]);
      assert.equal(await produce(c, 'tv2', 'out', 0, pid, e, 0, ['x']), 'NONE');
      assert.deepEqual(await end5('tv2', pid, e, true), ['NONE', pid, e + 1]);
      const marker = storedBatches(broker.dataDir, 'out', 0).find((b) => b.isControl)!;
      assert.equal(marker.producerId, pid);
      assert.equal(broker.logs.getLog('out', 0)!.producerStateManager.activeProducers().get(pid)?.producerEpoch, e + 1, 'the marker carries the bumped epoch');
      assert.deepEqual(await end5('tv2', pid, e, true), ['NONE', pid, e + 1], 'a retry with the previous epoch');
      assert.deepEqual(await end5('tv2', pid, e, false), ['INVALID_TXN_STATE', -1n, -1]);
      assert.deepEqual(await end5('tv2', pid, e + 5, true), ['PRODUCER_FENCED', -1n, -1]);
      // abort with nothing open: allowed, bumps, writes no marker
      assert.deepEqual(await end5('tv2', pid, e + 1, false), ['NONE', pid, e + 2]);
      assert.equal(broker.transactions.describe('tv2').txn?.state, 'CompleteAbort');
      assert.deepEqual(markers(broker, 'out'), ['COMMIT']);
      assert.deepEqual(await end5('tv2', pid, e + 1, false), ['NONE', pid, e + 2], 'a retried abort');
      assert.deepEqual(await end5('tv2', pid, e + 2, true), ['INVALID_TXN_STATE', -1n, -1]);
      // the next transaction at the returned epoch
      await addPartitions(c, 'tv2', pid, e + 2, [['out', [0]]]);
      assert.equal(await produce(c, 'tv2', 'out', 0, pid, e + 2, 0, ['y']), 'NONE');
      assert.deepEqual(await end5('tv2', pid, e + 2, false), ['NONE', pid, e + 3]);
      assert.deepEqual(markers(broker, 'out'), ['COMMIT', 'ABORT']);
      const log = broker.logs.getLog('out', 0)!;
      assert.equal(log.lastStableOffset, log.logEndOffset);

      // the last usable epoch (32766): Complete moves to a new producer id at epoch 0
      const ov = await init(c, 'ov');
      broker.transactions.txns.get('ov')!.producerEpoch = 32766;
      await addPartitions(c, 'ov', ov.producerId, 32766, [['out', [0]]]);
      const [code, nextPid, nextEpoch] = await end5('ov', ov.producerId, 32766, true);
      assert.deepEqual([code, nextEpoch], ['NONE', 0]);
      assert.notEqual(nextPid, ov.producerId);
      assert.deepEqual(await end5('ov', ov.producerId, 32766, true), ['NONE', nextPid, 0], 'a retry after the rotation');
      c.destroy();
    });
  });

  test('properties: bad values refuse the start; transaction.state.log.num.partitions spreads ids by Kafka\'s partitionFor, and all of them reload', async () => {
    await assert.rejects(startBroker({ config: { 'transaction.state.log.num.partitions': '0' } }), (e: unknown) => e instanceof InvalidConfigError);
    await assert.rejects(startBroker({ config: { 'transaction.partition.verification.enable': 'maybe' } }), (e: unknown) => e instanceof InvalidConfigError);
    await assert.rejects(startBroker({ config: { 'transactional.id.expiration.ms': 'soon' } }), (e: unknown) => e instanceof InvalidConfigError);
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-txn-partitions-'));
    try {
      // notes §2.5, checked with Java: with 50 partitions "txn-1" -> 10, "transactional-id" -> 31, "polygenelubricants" -> 0
      const ids = ['txn-1', 'transactional-id', 'polygenelubricants'];
      await withBroker({ dataDir, config: { 'transaction.state.log.num.partitions': '50' } }, async (broker) => {
        const c = await client(broker);
        for (const id of ids) assert.equal(name((await init(c, id)).errorCode), 'NONE');
        assert.equal(broker.topics.get('__transaction_state')?.partitions, 50);
        assert.deepEqual(ids.map((id) => broker.transactions.store.partitionFor(id)), [10, 31, 0]);
        for (const [i, id] of ids.entries()) {
          const p = [10, 31, 0][i]!;
          assert.equal(storedBatches(broker.dataDir, '__transaction_state', p).length, 1, `${id} is stored in partition ${p}`);
        }
        c.destroy();
      });
      // the topic's own partition count wins over the property once it exists
      await withBroker({ dataDir }, async (broker) => {
        assert.equal(broker.transactions.store.partitions, 50);
        for (const id of ids) assert.deepEqual([broker.transactions.describe(id).txn?.state, broker.transactions.describe(id).txn?.producerEpoch], ['Empty', 0]);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
