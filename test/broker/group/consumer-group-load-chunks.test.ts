/**
 * A KIP-848 group reloaded from a `__consumer_offsets` partition longer than one load read (the
 * coordinator reads the log in 1 MiB chunks into one reused buffer): its records' topic ids and
 * classic protocol bytes must not be views of that buffer, or the chunks read after them
 * overwrite the group's assignments before the load rebuilds it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { API, call } from './call.js';
import { describeGroup, hb } from './consumer-calls.js';

const CONFIG = { 'group.initial.rebalance.delay.ms': '0', 'group.consumer.session.timeout.ms': '30000', 'offsets.topic.num.partitions': '1' };

const assignments = async (broker: Parameters<typeof describeGroup>[0]): Promise<string[]> => {
  const d = await describeGroup(broker, 'g');
  assert.equal(errorName(d.errorCode), 'NONE');
  return d.members.flatMap((m: { memberId: string; assignment: { topicPartitions: { topicName: string; partitions: number[] }[] }; targetAssignment: { topicPartitions: { topicName: string; partitions: number[] }[] } }) =>
    [...m.assignment.topicPartitions, ...m.targetAssignment.topicPartitions].map((tp) => `${m.memberId} ${tp.topicName}:${[...tp.partitions].sort().join(',')}`),
  );
};

describe('KIP-848 group load across read chunks', () => {
  test('a group written before more than 1 MiB of other records comes back with its assignments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-kip848-chunks-'));
    try {
      let before: string[] = [];
      await withBroker({ dataDir, config: CONFIG, timer: new ManualTimer() }, async (broker) => {
        broker.topics.create('t', 4, {}, broker.logs);
        const a = await hb(broker, { group: 'g', member: 'a', epoch: 0 });
        assert.equal(a.error, 'NONE');
        await hb(broker, { group: 'g', member: 'a', epoch: a.epoch, owned: a.assignment });
        before = await assignments(broker);
        assert.ok(before.length > 0, 'the member has an assignment');
        // another group's commits after it: 2 MiB of offset records in the same partition
        const metadata = 'm'.repeat(4000);
        for (let i = 0; i < 160; i++) {
          const partitions = [0, 1, 2, 3].map((partitionIndex) => ({ partitionIndex, committedOffset: BigInt(i), committedLeaderEpoch: -1, committedMetadata: metadata }));
          const r = await call(broker, API.OffsetCommit, 8, { groupId: 'other', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions }] });
          assert.deepEqual(r.topics[0].partitions.map((p: { errorCode: number }) => errorName(p.errorCode)), ['NONE', 'NONE', 'NONE', 'NONE']);
        }
      });
      await withBroker({ dataDir, config: CONFIG, timer: new ManualTimer() }, async (broker) => {
        assert.deepEqual(await assignments(broker), before);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
