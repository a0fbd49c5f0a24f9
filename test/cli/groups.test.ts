/**
 * `kafkalite groups <data-dir>` run as the built binary (and in this process through the CLI's
 * `main()`) on a data directory a broker wrote (the
 * broker is closed first: the command works offline). The groups are made through the broker's
 * JoinGroup/SyncGroup/OffsetCommit/DeleteGroups handlers, so what the command prints is what the
 * test committed: a Stable consumer group with an assigned member (static, so it survives the
 * broker's close), an Empty group of standalone commits (generation -1) on a topic that was later
 * deleted (no lag), a group deleted with DeleteGroups (gone: tombstones), a recommitted offset (the
 * last commit wins), and lag from the log end offsets of what was produced.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { ConsumerProtocolAssignment } from '../../src/protocol/schemas/internal/consumer-protocol.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { withBroker } from '../helpers/broker.js';
import { BIN, runCli } from '../helpers/cli.js';
import { runCommand } from '../helpers/python-peer.js';
import { API, call, joinRequest, subscription } from '../broker/group/call.js';
import { RawClient, type Msg } from '../helpers/raw-client.js';
import { Kafka, logLevel } from 'kafkajs';

function assignment(topic: string, partitions: number[]): Buffer {
  const body = encodeMessageToBuffer(ConsumerProtocolAssignment, 0, { assignedPartitions: [{ topic, partitions }], userData: null });
  return Buffer.concat([Buffer.from([0, 0]), body]);
}

async function commit(broker: Parameters<typeof call>[0], groupId: string, generationId: number, memberId: string, groupInstanceId: string | null, topic: string, offsets: [number, bigint][]): Promise<void> {
  const r = await call(broker, API.OffsetCommit, 8, {
    groupId,
    generationIdOrMemberEpoch: generationId,
    memberId,
    groupInstanceId,
    topics: [{ name: topic, partitions: offsets.map(([p, o]) => ({ partitionIndex: p, committedOffset: o, committedLeaderEpoch: -1, committedMetadata: `m${p}` })) }],
  });
  for (const p of r.topics[0].partitions) assert.equal(errorName(p.errorCode), 'NONE');
}

describe('kafkalite groups', () => {
  test('lists groups, members, committed offsets and lag from a data directory a broker wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-cli-groups-'));
    try {
      await withBroker({ dataDir: dir, config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
        broker.topics.create('orders', 2, {}, broker.logs);
        broker.topics.create('scratch', 1, {}, broker.logs);
        const produced = await call(broker, 0, 7, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 'orders', partitionData: [0, 1].map((index) => ({ index, records: encodeRecordBatch(Array.from({ length: index === 0 ? 10 : 4 }, (_, i) => ({ value: Buffer.from(`v${i}`) }))) })) }],
        });
        for (const p of produced.responses[0].partitionResponses) assert.equal(errorName(p.errorCode), 'NONE');

        const join = await call(broker, API.JoinGroup, 5, joinRequest('processors', '', [{ name: 'range', metadata: subscription(['orders']) }], { groupInstanceId: 'worker-1' }), 'cli-client');
        assert.equal(errorName(join.errorCode), 'NONE');
        const sync = await call(broker, API.SyncGroup, 3, { groupId: 'processors', generationId: join.generationId, memberId: join.memberId, groupInstanceId: 'worker-1', assignments: [{ memberId: join.memberId, assignment: assignment('orders', [0, 1]) }] });
        assert.equal(errorName(sync.errorCode), 'NONE');
        await commit(broker, 'processors', join.generationId, join.memberId, 'worker-1', 'orders', [[0, 3n], [1, 4n]]);
        await commit(broker, 'processors', join.generationId, join.memberId, 'worker-1', 'orders', [[0, 7n]]);

        await commit(broker, 'standalone', -1, '', null, 'scratch', [[0, 42n]]);
        await commit(broker, 'doomed', -1, '', null, 'orders', [[0, 1n]]);
        const del = await call(broker, API.DeleteGroups, 2, { groupsNames: ['doomed'] });
        assert.equal(errorName(del.results[0].errorCode), 'NONE');
        // the committed topic disappears from the directory: no log end, no lag
        const dt = await call(broker, 20, 4, { topicNames: ['scratch'], timeoutMs: 5000 });
        assert.equal(errorName(dt.responses[0].errorCode), 'NONE');
        return join.memberId as string;
      }).then(async (memberId) => {
        // the one child of this file: the built binary, its exit code and streams
        const r = await runCommand(process.execPath, [BIN, 'groups', dir, '--json'], { timeoutMs: 30_000 });
        assert.equal(r.code, 0, r.stderr.toString());
        assert.equal(r.stderr.toString(), '');
        const out = JSON.parse(r.stdout.toString()) as { groups: Record<string, unknown>[] };
        assert.deepEqual(
          out.groups.map((g) => g.groupId),
          ['processors', 'standalone'],
        );
        const [p, s] = out.groups as { state: string; protocolType: string; protocol: string | null; generation: number; leader: string | null; members: Record<string, unknown>[]; offsets: Record<string, unknown>[] }[];
        assert.deepEqual([p!.state, p!.protocolType, p!.protocol, p!.generation, p!.leader], ['Stable', 'consumer', 'range', 1, memberId]);
        assert.deepEqual(p!.members, [{ memberId, groupInstanceId: 'worker-1', clientId: 'cli-client', clientHost: '/127.0.0.1', assignment: [{ topic: 'orders', partitions: [0, 1] }] }]);
        assert.deepEqual(
          p!.offsets.map((o) => [o.topic, o.partition, o.offset, o.metadata, o.logEndOffset, o.lag, o.memberId]),
          [
            ['orders', 0, 7, 'm0', 10, 3, memberId],
            ['orders', 1, 4, 'm1', 4, 0, memberId],
          ],
        );
        assert.deepEqual([s!.state, s!.protocolType, s!.protocol, s!.members], ['Empty', '', null, []]);
        assert.deepEqual(s!.offsets.map((o) => [o.topic, o.partition, o.offset, o.logEndOffset, o.lag]), [['scratch', 0, 42, null, null]]);

        // the same log through dump-log's offsets decoder (kafka-dump-log.sh --offsets-decoder), and verify
        const dump = runCli('dump-log', '--offsets-decoder', '--files', join(dir, '__consumer_offsets-0', '00000000000000000000.log'));
        assert.equal(dump.status, 0, dump.stderr);
        const commits = dump.stdout.split('\n').filter((l) => l.includes('"group":"processors","topic":"orders","partition":0'));
        assert.deepEqual(
          commits.map((l) => /"offset":(\d+)/.exec(l.slice(l.indexOf('payload:')))?.[1]),
          ['3', '7'],
          'both commits of orders-0, in order, decoded from the compacted offsets log',
        );
        assert.ok(dump.stdout.split('\n').some((l) => /key: \{"type":"2","data":\{"group":"doomed"\}\} payload: <DELETE>$/.test(l)), 'the deleted group left a tombstone');
        const verified = runCli('verify', dir);
        assert.equal(verified.status, 0, verified.stdout + verified.stderr);

        const t = runCli('groups', dir, '--group', 'processors');
        assert.equal(t.status, 0, t.stderr);
        const lines = t.stdout.trimEnd().split('\n');
        assert.equal(lines[0], 'GROUP processors  state Stable  protocol-type consumer  protocol range  generation 1  members 1');
        assert.match(lines[1]!, /^ {2}MEMBER-ID +INSTANCE-ID +CLIENT-ID +HOST +ASSIGNMENT$/);
        assert.match(lines[2]!, new RegExp(`^  ${memberId} \\(leader\\) +worker-1 +cli-client +/127\\.0\\.0\\.1 +orders\\(0,1\\)$`));
        assert.match(lines[3]!, /^ {2}TOPIC +PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID$/);
        assert.match(lines[4]!, new RegExp(`^  orders +0 +7 +10 +3 +${memberId}$`));
        assert.match(lines[5]!, new RegExp(`^  orders +1 +4 +4 +0 +${memberId}$`));
        assert.equal(lines.length, 6);
      });

      const help = runCli('groups', '--help');
      assert.equal(help.status, 0);
      assert.match(help.stdout, /^Usage: kafkalite groups <data-dir>/);
      const usage = runCli('groups');
      assert.equal(usage.status, 2);
      assert.match(usage.stderr, /expected exactly one data directory/);
      const missing = runCli('groups', join(dir, 'nope'));
      assert.equal(missing.status, 1);
      const empty = mkdtempSync(join(tmpdir(), 'kl-cli-groups-empty-'));
      const none = runCli('groups', empty);
      rmSync(empty, { recursive: true, force: true });
      assert.equal(none.status, 0);
      assert.equal(none.stdout, 'No consumer groups in __consumer_offsets.\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('offsets of a transaction count once its COMMIT marker is in the log: aborted ones never, open ones listed apart as pending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-cli-groups-txn-'));
    const name = (code: number): string => errorName(code) ?? String(code);
    try {
      const open = await withBroker({ dataDir: dir }, async (broker) => {
        broker.topics.create('in', 2, {}, broker.logs);
        const c = await RawClient.connect(broker.port);
        const init = async (tid: string): Promise<[bigint, number]> => {
          const r = await c.request(22, 4, { transactionalId: tid, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
          assert.equal(name(r.errorCode), 'NONE');
          return [r.producerId, r.producerEpoch];
        };
        const txnCommit = async (tid: string, [pid, epoch]: [bigint, number], groupId: string, offsets: [number, bigint][]): Promise<void> => {
          assert.equal(name((await c.request(25, 1, { transactionalId: tid, producerId: pid, producerEpoch: epoch, groupId })).errorCode), 'NONE');
          const r = await c.request(28, 3, {
            transactionalId: tid, groupId, producerId: pid, producerEpoch: epoch, generationId: -1, memberId: '', groupInstanceId: null,
            topics: [{ name: 'in', partitions: offsets.map(([p, o]) => ({ partitionIndex: p, committedOffset: o, committedLeaderEpoch: -1, committedMetadata: '' })) }],
          });
          assert.deepEqual(r.topics[0].partitions.map((p: Msg) => name(p.errorCode)), offsets.map(() => 'NONE'));
        };
        const endTxn = async (tid: string, [pid, epoch]: [bigint, number], committed: boolean): Promise<void> => {
          assert.equal(name((await c.request(26, 3, { transactionalId: tid, producerId: pid, producerEpoch: epoch, committed })).errorCode), 'NONE');
        };
        const a = await init('a');
        await txnCommit('a', a, 'tg', [[0, 3n]]);
        await endTxn('a', a, true);
        await txnCommit('a', a, 'tg', [[0, 8n], [1, 5n]]);
        await endTxn('a', a, false);
        const b = await init('b');
        await txnCommit('b', b, 'tg', [[1, 9n]]);
        // a regular commit written after a transaction's offset wins over it at the COMMIT (Kafka compares record offsets)
        const m = await init('m');
        await txnCommit('m', m, 'mixed', [[0, 10n]]);
        await commit(broker, 'mixed', -1, '', null, 'in', [[0, 20n]]);
        await endTxn('m', m, true);
        const fetched = await c.request(9, 7, { groupId: 'mixed', topics: [{ name: 'in', partitionIndexes: [0] }], requireStable: true });
        assert.deepEqual([name(fetched.topics[0].partitions[0].errorCode), fetched.topics[0].partitions[0].committedOffset], ['NONE', 20n]);
        c.destroy();
        return b[0];
      });

      const r = runCli('groups', dir, '--json');
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { groups: { groupId: string; offsets: Record<string, unknown>[]; pendingOffsets: Record<string, unknown>[] }[] };
      assert.deepEqual(
        out.groups.map((g) => [g.groupId, g.offsets.map((o) => [o.topic, o.partition, o.offset]), g.pendingOffsets.map((o) => [o.topic, o.partition, o.offset, o.producerId])]),
        [
          ['mixed', [['in', 0, 20]], []],
          ['tg', [['in', 0, 3]], [['in', 1, 9, Number(open)]]],
        ],
      );
      const t = runCli('groups', dir, '--group', 'tg');
      assert.equal(t.status, 0, t.stderr);
      const lines = t.stdout.trimEnd().split('\n');
      assert.match(lines[2]!, /^ {2}in +0 +3 +0 +0 +-$/);
      assert.equal(lines[3], '  pending in open transactions (not committed):');
      assert.match(lines[5]!, new RegExp(`^  in +1 +9 +${open}$`));

      // the broker's load reads the log the same way: committed 3, the open transaction's offset pending, 20 kept over 10
      await withBroker({ dataDir: dir }, async (broker) => {
        const c = await RawClient.connect(broker.port);
        const tg = await c.request(9, 7, { groupId: 'tg', topics: [{ name: 'in', partitionIndexes: [0, 1] }], requireStable: false });
        assert.deepEqual(tg.topics[0].partitions.map((p: Msg) => p.committedOffset), [3n, -1n]);
        const stable = await c.request(9, 7, { groupId: 'tg', topics: [{ name: 'in', partitionIndexes: [1] }], requireStable: true });
        assert.equal(name(stable.topics[0].partitions[0].errorCode), 'UNSTABLE_OFFSET_COMMIT');
        const mixed = await c.request(9, 7, { groupId: 'mixed', topics: [{ name: 'in', partitionIndexes: [0] }], requireStable: true });
        assert.equal(mixed.topics[0].partitions[0].committedOffset, 20n);
        c.destroy();
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('kafkajs transaction().sendOffsets: the offset of the committed transaction is shown, of the aborted one not, of the open one as pending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-cli-groups-kjs-'));
    try {
      await withBroker({ dataDir: dir }, async (broker) => {
        broker.topics.create('kjs-in', 1, {}, broker.logs);
        const client = new Kafka({ clientId: 'kjs-groups', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
        const producer = client.producer({ transactionalId: 'kjs-tid', idempotent: true, maxInFlightRequests: 1 });
        await producer.connect();
        const offsets = (offset: string) => ({ consumerGroupId: 'kjs-app', topics: [{ topic: 'kjs-in', partitions: [{ partition: 0, offset }] }] });
        const t1 = await producer.transaction();
        await t1.sendOffsets(offsets('5'));
        await t1.commit();
        const t2 = await producer.transaction();
        await t2.sendOffsets(offsets('9'));
        await t2.abort();
        const t3 = await producer.transaction();
        await t3.sendOffsets(offsets('12'));
        // t3 stays open: the broker closes with it ongoing
        await producer.disconnect();
      });
      const r = runCli('groups', dir, '--json');
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { groups: { groupId: string; offsets: Record<string, unknown>[]; pendingOffsets: Record<string, unknown>[] }[] };
      assert.deepEqual(
        out.groups.map((g) => [g.groupId, g.offsets.map((o) => [o.topic, o.partition, o.offset]), g.pendingOffsets.map((o) => [o.topic, o.partition, o.offset])]),
        [['kjs-app', [['kjs-in', 0, 5]], [['kjs-in', 0, 12]]]],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
