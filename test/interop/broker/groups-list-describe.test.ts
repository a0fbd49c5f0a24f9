/**
 * The classic admin APIs over a KIP-848 consumer group, with Kafka 4.x's answers as the spec
 * (`GroupMetadataManager.listGroups` / `describeGroups`): ListGroups v5 filters by group type
 * (case-insensitive; a type Kafka does not know matches nothing) and names each group's type, its
 * state filter is trimmed and case-insensitive; DescribeGroups below v6 describes a group that is not
 * classic (or does not exist) as Dead with no error. Over the raw protocol, @platformatic/kafka 1.x
 * (ListGroups v5 with its `types` option, DescribeGroups v5) and kafkajs (ListGroups and DescribeGroups).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Admin } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { ManualTimer } from '../../helpers/manual-timer.js';
import { API, call } from '../../broker/group/call.js';
import { hb } from '../../broker/group/consumer-calls.js';

const CONFIG = { 'group.initial.rebalance.delay.ms': '0' };

type Listed = { groupId: string; protocolType: string; groupState: string; groupType: string };

describe('ListGroups and DescribeGroups over a KIP-848 consumer group', () => {
  test('ListGroups v5 types filter and group type; DescribeGroups answers Dead; raw, @platformatic/kafka and kafkajs', async () => {
    await withBroker({ config: CONFIG, timer: new ManualTimer() }, async (broker) => {
      broker.topics.create('t', 2, {}, broker.logs);
      const a = await hb(broker, { group: 'cg', member: 'a', epoch: 0 });
      assert.equal((await hb(broker, { group: 'cg', member: 'a', epoch: a.epoch, owned: a.assignment })).error, 'NONE');
      // a classic group: standalone commits (generation -1), no protocol type
      const committed = await call(broker, API.OffsetCommit, 8, { groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
      assert.equal(errorName(committed.topics[0].partitions[0].errorCode), 'NONE');

      const list = async (typesFilter: string[], statesFilter: string[] = []): Promise<string[][]> => {
        const r = await call(broker, API.ListGroups, 5, { statesFilter, typesFilter });
        assert.equal(errorName(r.errorCode), 'NONE');
        return (r.groups as Listed[]).map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]);
      };
      assert.deepEqual(await list([]), [['cg', 'consumer', 'Stable', 'consumer'], ['simple', '', 'Empty', 'classic']]);
      assert.deepEqual(await list(['Consumer']), [['cg', 'consumer', 'Stable', 'consumer']]);
      assert.deepEqual(await list(['CLASSIC']), [['simple', '', 'Empty', 'classic']]);
      assert.deepEqual(await list(['share']), []);
      assert.deepEqual(await list(['no-such-type']), []);
      assert.deepEqual(await list([], [' STABLE ']), [['cg', 'consumer', 'Stable', 'consumer']]);
      assert.deepEqual(await list(['classic'], ['stable']), []);

      for (const version of [0, 5]) {
        const d = await call(broker, API.DescribeGroups, version, { groups: ['cg', 'missing', 'simple'], includeAuthorizedOperations: false });
        assert.deepEqual(
          d.groups.map((g: { errorCode: number; groupId: string; groupState: string; protocolType: string; members: unknown[] }) => [g.groupId, errorName(g.errorCode), g.groupState, g.protocolType, g.members.length]),
          [['cg', 'NONE', 'Dead', '', 0], ['missing', 'NONE', 'Dead', '', 0], ['simple', 'NONE', 'Empty', '', 0]],
          `DescribeGroups v${version}`,
        );
      }

      const bootstrap = `127.0.0.1:${broker.port}`;
      const admin = new Admin({ clientId: 'kafkalite-groups-list', bootstrapBrokers: [bootstrap], retries: 0 });
      try {
        const consumerGroups = await admin.listGroups({ types: ['consumer'] });
        assert.deepEqual([...consumerGroups.values()].map((g) => [g.id, g.state, g.groupType, g.protocolType]), [['cg', 'STABLE', 'consumer', 'consumer']]);
        const all = await admin.listGroups({ types: [] });
        assert.deepEqual([...all.values()].map((g) => [g.id, g.groupType]).sort(), [['cg', 'consumer'], ['simple', 'classic']]);
        const described = await admin.describeGroups({ groups: ['cg'] });
        assert.deepEqual([...described.values()].map((g) => [g.id, g.state, g.members.size]), [['cg', 'DEAD', 0]]);
      } finally {
        await admin.close();
      }

      const kafka = new Kafka({ clientId: 'kafkalite-groups-list-kafkajs', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
      const kAdmin = kafka.admin();
      await kAdmin.connect();
      try {
        const listed = await kAdmin.listGroups();
        assert.deepEqual(listed.groups.map((g) => [g.groupId, g.protocolType]).sort(), [['cg', 'consumer'], ['simple', '']]);
        const described = await kAdmin.describeGroups(['cg']);
        assert.deepEqual(described.groups.map((g) => [g.groupId, g.state, g.members.length]), [['cg', 'Dead', 0]]);
      } finally {
        await kAdmin.disconnect();
      }
    });
  });
});
