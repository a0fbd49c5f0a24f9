/**
 * The KIP-848 server-side assignors on their own (Kafka `UniformAssignor`, `RangeAssignor`) and the
 * `group.consumer.*` properties: balance within one partition, stickiness when a member joins,
 * per-topic balance for different subscriptions, range order, and Kafka's config validation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RANGE_ASSIGNOR, UNIFORM_ASSIGNOR, type AssignorMember } from '../../../src/broker/group/consumer/assignors.js';
import { addPartition, emptyAssignment, intersect, size, type Assignment } from '../../../src/broker/group/consumer/assignment.js';
import { groupConfigFromProperties } from '../../../src/broker/group/config.js';

function member(memberId: string, topics: string[], target: Assignment = emptyAssignment(), instanceId: string | null = null): AssignorMember {
  return { memberId, instanceId, topics, target };
}

function of(pairs: [string, number][]): Assignment {
  const a = emptyAssignment();
  for (const [t, p] of pairs) addPartition(a, t, p);
  return a;
}

test('uniform: sizes differ by at most one, every partition once; a joining member takes partitions without moving the rest', () => {
  const counts = new Map([['A', 7]]);
  const first = UNIFORM_ASSIGNOR.assign([member('m1', ['A']), member('m2', ['A'])], counts);
  assert.deepEqual([...first.values()].map(size).sort(), [3, 4]);
  const m1 = first.get('m1') ?? emptyAssignment();
  const m2 = first.get('m2') ?? emptyAssignment();
  assert.equal(size(intersect(m1, m2)), 0);
  const second = UNIFORM_ASSIGNOR.assign([member('m1', ['A'], m1), member('m2', ['A'], m2), member('m3', ['A'])], counts);
  assert.deepEqual([...second.values()].map(size).sort(), [2, 2, 3]);
  // stickiness: the old members keep partitions they had, they only give some away
  assert.equal(size(intersect(second.get('m1') ?? emptyAssignment(), m1)), size(second.get('m1') ?? emptyAssignment()));
  assert.equal(size(intersect(second.get('m2') ?? emptyAssignment(), m2)), size(second.get('m2') ?? emptyAssignment()));
  const all = [...second.values()].reduce((n, a) => n + size(a), 0);
  assert.equal(all, 7);
});

test('uniform, different subscriptions: each topic is split among its own subscribers only', () => {
  const out = UNIFORM_ASSIGNOR.assign([member('x', ['A']), member('y', ['A', 'B']), member('z', ['B'])], new Map([['A', 4], ['B', 2]]));
  assert.deepEqual([...(out.get('x')?.get('A') ?? [])].length, 2);
  assert.equal(out.get('x')?.has('B'), false);
  assert.equal(out.get('z')?.has('A'), false);
  assert.equal(size(out.get('y') ?? emptyAssignment()), 3);
  assert.equal(size(out.get('z') ?? emptyAssignment()), 1);
});

test('range: static members first by instance id, then member ids; co-partitioned ranges per topic', () => {
  const out = RANGE_ASSIGNOR.assign([member('b', ['A', 'B']), member('a', ['A', 'B']), member('z', ['A', 'B'], emptyAssignment(), 'inst-1')], new Map([['A', 4], ['B', 4]]));
  assert.deepEqual(out.get('z'), of([['A', 0], ['A', 1], ['B', 0], ['B', 1]]));
  assert.deepEqual(out.get('a'), of([['A', 2], ['B', 2]]));
  assert.deepEqual(out.get('b'), of([['A', 3], ['B', 3]]));
});

test('group.consumer.* properties: defaults, values, and the heartbeat interval below the session timeout', () => {
  const d = groupConfigFromProperties({}, 0);
  assert.deepEqual([d.consumerSessionTimeoutMs, d.consumerHeartbeatIntervalMs, d.consumerMaxSize], [45000, 5000, 2147483647]);
  const c = groupConfigFromProperties({ 'group.consumer.session.timeout.ms': '1000', 'group.consumer.heartbeat.interval.ms': '100', 'group.consumer.max.size': '3' }, 0);
  assert.deepEqual([c.consumerSessionTimeoutMs, c.consumerHeartbeatIntervalMs, c.consumerMaxSize], [1000, 100, 3]);
  assert.throws(() => groupConfigFromProperties({ 'group.consumer.heartbeat.interval.ms': '45000' }, 0), /must be less than group.consumer.session.timeout.ms/);
  assert.throws(() => groupConfigFromProperties({ 'group.consumer.max.size': '0' }, 0), /at least 1/);
});
