/**
 * A KIP-848 group survives a broker restart, with @platformatic/kafka 2.x (`groupProtocol:
 * 'consumer'`, Node 22 child process platformatic-group-client.mjs): two members split a
 * 6-partition topic and commit; the broker closes and a new one opens the same data directory on the
 * same port. The new broker has the group from its `__consumer_offsets` records before any client
 * is back (same group epoch, assignment epoch, member ids, member epochs and assignments); the
 * members reconnect and carry on with their ids, and every message, before and after the restart,
 * is consumed exactly once and committed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { call } from '../../broker/group/call.js';
import { assertExactlyOnce, committedOffsets, logEndOffsets, platformaticGroup, produce, waitFor } from './group-watch.js';

const PARTITIONS = 6;
const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.heartbeat.interval.ms': '250', 'group.consumer.session.timeout.ms': '10000' };

async function consumerGroup(broker: Broker, group: string) {
  const r = await call(broker, 69, 0, { groupIds: [group], includeAuthorizedOperations: false });
  const g = r.groups[0];
  const parts = (a: { topicPartitions: { partitions: number[] }[] }): number[] => a.topicPartitions.flatMap((tp) => tp.partitions).sort((x, y) => x - y);
  return {
    error: errorName(g.errorCode),
    state: g.groupState as string,
    groupEpoch: g.groupEpoch as number,
    assignmentEpoch: g.assignmentEpoch as number,
    members: (g.members as { memberId: string; clientId: string; memberEpoch: number; assignment: { topicPartitions: { partitions: number[] }[] }; targetAssignment: { topicPartitions: { partitions: number[] }[] } }[])
      .map((m) => ({ memberId: m.memberId, clientId: m.clientId, memberEpoch: m.memberEpoch, assigned: parts(m.assignment), target: parts(m.targetAssignment) }))
      .sort((a, b) => (a.clientId < b.clientId ? -1 : 1)),
  };
}

function reconciled(g: Awaited<ReturnType<typeof consumerGroup>>, n: number): boolean {
  if (g.state !== 'Stable' || g.members.length !== n) return false;
  const all = g.members.flatMap((m) => m.assigned).sort((a, b) => a - b);
  return all.length === PARTITIONS && all.every((p, i) => p === i) && g.members.every((m) => m.assigned.join() === m.target.join());
}

describe('@platformatic/kafka 2.x (Node 22) KIP-848 group across a broker restart', () => {
  test('the restarted broker has the group at the same epochs and assignments; the members carry on with their ids, every message once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-platformatic-kip848-restart-'));
    const topic = 'kip848-restart';
    const group = 'kip848-restart-group';
    const stopFile = join(dataDir, '..', `${group}-${process.pid}-stop`);
    let broker = await Broker.start({ dataDir, config: CONFIG, logLevel: (process.env.KAFKALITE_TEST_LOG === '1' ? 'info' : 'silent') });
    const port = broker.port;
    try {
      broker.topics.create(topic, PARTITIONS, {}, broker.logs);
      const expected: string[] = [];
      const run = platformaticGroup({ bootstrap: broker.bootstrap, topic, group, members: 2, stopFile, groupProtocol: 'consumer', clientIdPrefix: 'restart-member' });
      let failed: unknown;
      run.catch((e: unknown) => (failed = e));
      const alive = (): void => {
        if (failed !== undefined) throw failed;
      };
      try {
        await waitFor('two members to split six partitions', async () => (alive(), reconciled(await consumerGroup(broker, group), 2)));
        // produced once the group is reconciled: no commit races a member's epoch bump (that answers STALE_MEMBER_EPOCH, as in Kafka),
        // and, as in groups-platformatic-consumer.test.ts, once the long polls of the first assignment have ended (the
        // client reports a partition released while a fetch for it may still be out)
        await sleep(1500);
        expected.push(...(await produce(broker, topic, 0, 60, PARTITIONS)));
        await waitFor('commits of the first 60 messages', async () => (alive(), (await committedOffsets(broker, group, topic, PARTITIONS)).every((o) => o === 10n)));
        const before = await consumerGroup(broker, group);

        await broker.close();
        broker = await Broker.start({ dataDir, port, config: CONFIG, logLevel: (process.env.KAFKALITE_TEST_LOG === '1' ? 'info' : 'silent') });
        // loaded from __consumer_offsets, before any member is back
        assert.deepEqual(await consumerGroup(broker, group), before);
        assert.deepEqual(await committedOffsets(broker, group, topic, PARTITIONS), Array.from({ length: PARTITIONS }, () => 10n));

        expected.push(...(await produce(broker, topic, 60, 30, PARTITIONS)));
        const ends = logEndOffsets(broker, topic, PARTITIONS);
        await waitFor('commits up to the log end after the restart', async () => (alive(), (await committedOffsets(broker, group, topic, PARTITIONS)).every((o, i) => o === ends[i])));
        const after = await consumerGroup(broker, group);
        // the same members, by id, still own what they owned: no rebalance was needed
        assert.deepEqual(after.members.map((m) => [m.memberId, m.assigned]), before.members.map((m) => [m.memberId, m.assigned]));
        assert.equal(after.state, 'Stable');
      } finally {
        writeFileSync(stopFile, '');
      }
      const out = await run;
      assert.deepEqual(out.errors, []);
      assertExactlyOnce(out.consumed, expected);
      assert.ok(new Set(out.apis.map(([k]) => k)).has(68), 'ConsumerGroupHeartbeat was sent');
    } finally {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(stopFile, { force: true });
    }
  });
});
