/** ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69) through the broker's handlers, for the KIP-848 tests. */
import type { Broker } from '../../../src/broker/broker.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { call } from './call.js';

const HB = 68;
const DESCRIBE = 69;

export type Owned = Record<string, number[]>;

interface Answer {
  error: string;
  memberId: string | null;
  epoch: number;
  interval: number;
  /** topic name → partitions, null when the answer carries no assignment. */
  assignment: Owned | null;
}

export function ids(broker: Broker, owned: Owned): { topicId: Buffer; partitions: number[] }[] {
  return Object.entries(owned).map(([name, partitions]) => ({ topicId: broker.topics.get(name)?.topicIdBytes ?? Buffer.alloc(16), partitions }));
}

export function names(broker: Broker, tps: { topicId: Buffer; partitions: number[] }[]): Owned {
  const out: Owned = {};
  for (const tp of tps) out[broker.topics.byId(tp.topicId)?.name ?? '?'] = [...tp.partitions].sort((a, b) => a - b);
  return out;
}

export async function hb(
  broker: Broker,
  req: { group: string; member: string; epoch: number; owned?: Owned | null; topics?: string[] | null; assignor?: string | null; instance?: string | null; rebalanceTimeoutMs?: number; regex?: string | null },
  version = 1,
): Promise<Answer> {
  const r = await call(broker, HB, version, {
    groupId: req.group,
    memberId: req.member,
    memberEpoch: req.epoch,
    instanceId: req.instance ?? null,
    rackId: null,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs ?? (req.epoch === 0 ? 5000 : -1),
    subscribedTopicNames: req.topics === undefined ? (req.epoch === 0 ? ['t'] : null) : req.topics,
    subscribedTopicRegex: req.regex ?? null,
    serverAssignor: req.assignor ?? null,
    topicPartitions: req.owned === undefined ? (req.epoch === 0 ? [] : null) : req.owned === null ? null : ids(broker, req.owned),
  });
  return { error: errorName(r.errorCode) ?? '', memberId: r.memberId, epoch: r.memberEpoch, interval: r.heartbeatIntervalMs, assignment: r.assignment === null ? null : names(broker, r.assignment.topicPartitions) };
}

export async function describeGroup(broker: Broker, group: string) {
  const r = await call(broker, DESCRIBE, 0, { groupIds: [group], includeAuthorizedOperations: false });
  return r.groups[0];
}

export function count(a: Owned | null): number {
  return Object.values(a ?? {}).reduce((n, ps) => n + ps.length, 0);
}

export function disjoint(a: Owned | null, b: Owned | null): boolean {
  for (const [t, ps] of Object.entries(a ?? {})) for (const p of ps) if ((b ?? {})[t]?.includes(p)) return false;
  return true;
}

