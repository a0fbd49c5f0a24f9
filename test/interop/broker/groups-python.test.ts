/**
 * Consumer groups of confluent-kafka-python 1.7 (librdkafka 2.0.2: JoinGroup v5, SyncGroup v3,
 * OffsetFetch v7 flexible, OffsetCommit v7, Heartbeat v3, LeaveGroup v1) and kafka-python 2.0.2
 * (JoinGroup v2, SyncGroup v1, OffsetCommit v2, OffsetFetch v1, Heartbeat v1, LeaveGroup v1)
 * against a broker started by the test: three members split a 6-partition topic, one leaves and
 * the others take over, every message is consumed exactly once across the group, and after a
 * broker restart on the same data directory the group resumes from its committed offsets.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';
import { runPythonAsync } from '../../helpers/python-peer.js';
import { API, call } from '../../broker/group/call.js';

const PARTITIONS = 6;
const CONFIG = { 'group.initial.rebalance.delay.ms': '0' };
const SCRIPT = 'broker_group_consumers.py';

type Consumed = [number, number, number, string];
interface StepOut {
  op: string;
  exception?: string;
  traceback?: string;
  consumed?: Consumed[];
  splitAll?: Record<string, number[]>;
  splitRest?: Record<string, number[]>;
  errors?: string[];
}

async function steps(client: string, bootstrap: string, list: Record<string, unknown>[]): Promise<StepOut[]> {
  const out = await runPythonAsync<{ results: StepOut[] }>(SCRIPT, { bootstrap, steps: list.map((s) => ({ client, ...s })) }, { timeoutMs: 180_000 });
  for (const r of out.results) {
    assert.equal(r.exception, undefined, `${r.op}: ${r.exception}\n${r.traceback}`);
    assert.deepEqual(r.errors ?? [], [], `${r.op} reported errors`);
  }
  return out.results;
}

const values = (from: number, count: number) => Array.from({ length: count }, (_, i) => `msg-${from + i}`);

function assertExactlyOnce(consumed: readonly Consumed[], expected: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const c of consumed) counts.set(c[3], (counts.get(c[3]) ?? 0) + 1);
  assert.deepEqual([...counts].filter(([, n]) => n > 1), [], 'consumed more than once');
  assert.deepEqual([...counts.keys()].sort(), [...expected].sort());
}

function assertSplit(split: Record<string, number[]>, members: number): void {
  assert.equal(Object.keys(split).length, members);
  assert.deepEqual(Object.values(split).flat().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
  for (const [m, parts] of Object.entries(split)) assert.ok(parts.length >= 1, `member ${m} owns nothing`);
}

for (const client of ['confluent', 'kafka-python']) {
  describe(`${client} consumer groups`, () => {
    test('three members split six partitions, one leaves, exactly once across the group, resume after a broker restart', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), `kl-py-groups-${client}-`));
      const topic = `events-${client}`;
      const group = `group-${client}`;
      try {
        await withBroker({ dataDir, config: CONFIG }, async (broker) => {
          broker.topics.create(topic, PARTITIONS, {}, broker.logs);
          const [, g] = await steps(client, broker.bootstrap, [
            { op: 'produce', topic, from: 0, count: 60, partitions: PARTITIONS },
            { op: 'group', topic, group, members: 3, expect: 60, produceAfterLeave: { from: 60, count: 30 }, partitions: PARTITIONS, timeoutS: 90 },
          ]);
          assertSplit(g!.splitAll!, 3);
          for (const parts of Object.values(g!.splitAll!)) assert.equal(parts.length, 2); // range over 6 partitions
          assertSplit(g!.splitRest!, 2);
          assertExactlyOnce(g!.consumed!, values(0, 90));
          const fetched = await call(broker, API.OffsetFetch, 8, { groups: [{ groupId: group, topics: null }], requireStable: false });
          const offsets = fetched.groups[0].topics[0].partitions.map((p: { partitionIndex: number; committedOffset: bigint }) => [p.partitionIndex, p.committedOffset]);
          assert.deepEqual(offsets, Array.from({ length: PARTITIONS }, (_, i) => [i, 15n]));
          const d = await call(broker, API.DescribeGroups, 5, { groups: [group], includeAuthorizedOperations: false });
          assert.equal(d.groups[0].groupState, 'Empty');
        });
        await withBroker({ dataDir, config: CONFIG }, async (broker) => {
          const [, r] = await steps(client, broker.bootstrap, [
            { op: 'produce', topic, from: 90, count: 12, partitions: PARTITIONS },
            { op: 'resume', topic, group, expect: 12, timeoutS: 60, settleS: 1.0 },
          ]);
          assert.deepEqual(r!.consumed!.map((c) => c[3]).sort(), values(90, 12).sort());
        });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
