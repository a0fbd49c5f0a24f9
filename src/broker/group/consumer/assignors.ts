/**
 * The server-side assignors of KIP-848 (Kafka `assignor/UniformAssignor` with its homogeneous and
 * heterogeneous builders, and `assignor/RangeAssignor`). Input: each member's subscribed topics
 * and current target; the topics' partition counts. Output: each member's new target.
 *
 * `uniform` balances first (member sizes differ by at most one per topic set) and then keeps
 * partitions where they were (stickiness). `range` gives each member contiguous ranges per topic,
 * members sorted static-first by instance id, then by member id.
 */
import { addPartition, emptyAssignment, hasPartition, type Assignment } from './assignment.js';

export interface AssignorMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  /** Subscribed topic ids that exist. */
  readonly topics: readonly string[];
  /** The member's current target (stickiness). */
  readonly target: Assignment;
}

export interface ServerAssignor {
  readonly name: string;
  assign(members: readonly AssignorMember[], partitionCounts: ReadonlyMap<string, number>): Map<string, Assignment>;
}

/**
 * Uniform: for each topic, the members subscribed to it share its partitions. Computed per group of
 * members with the same subscription (the homogeneous case is the single group of everyone), so
 * each member's total differs by at most one from the others that subscribe to the same topics.
 * Members keep their current partitions up to their quota; the rest are dealt to members with room.
 */
export const UNIFORM_ASSIGNOR: ServerAssignor = {
  name: 'uniform',
  assign(members, partitionCounts) {
    const out = new Map<string, Assignment>(members.map((m) => [m.memberId, emptyAssignment()]));
    // group members by subscription (sorted topic list)
    const bySubscription = new Map<string, AssignorMember[]>();
    for (const m of members) {
      const key = [...m.topics].filter((t) => partitionCounts.has(t)).sort().join(',');
      if (key === '') continue;
      let list = bySubscription.get(key);
      if (list === undefined) bySubscription.set(key, (list = []));
      list.push(m);
    }
    // a topic subscribed by several subscription groups is split among all their members
    const subscribers = new Map<string, AssignorMember[]>();
    for (const m of members) for (const t of m.topics) if (partitionCounts.has(t)) {
      let l = subscribers.get(t);
      if (l === undefined) subscribers.set(t, (l = []));
      l.push(m);
    }
    // homogeneous: one list for all topics, balancing the totals across topics
    if (bySubscription.size === 1) {
      const list = [...bySubscription.values()][0] ?? [];
      const topics = [...(list[0]?.topics ?? [])].filter((t) => partitionCounts.has(t)).sort();
      const all: [string, number][] = [];
      for (const t of topics) for (let p = 0; p < (partitionCounts.get(t) ?? 0); p++) all.push([t, p]);
      dealBalanced(list, all, out);
      return out;
    }
    // heterogeneous: balance each topic across its own subscribers
    for (const t of [...subscribers.keys()].sort()) {
      const list = subscribers.get(t) ?? [];
      const all: [string, number][] = [];
      for (let p = 0; p < (partitionCounts.get(t) ?? 0); p++) all.push([t, p]);
      dealBalanced(list, all, out);
    }
    return out;
  },
};

/** Quota per member (+1 for the first `total % n`), sticky first, then the rest in order. */
function dealBalanced(list: readonly AssignorMember[], partitions: readonly [string, number][], out: Map<string, Assignment>): void {
  if (list.length === 0) return;
  const base = Math.floor(partitions.length / list.length);
  let extra = partitions.length % list.length;
  // members holding more of their old partitions get the +1 first, which keeps more partitions in place
  const kept = (m: AssignorMember): number => partitions.filter(([t, p]) => hasPartition(m.target, t, p)).length;
  const order = [...list].sort((a, b) => kept(b) - kept(a) || (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const quota = new Map<string, number>();
  for (const m of order) quota.set(m.memberId, base + (extra-- > 0 ? 1 : 0));
  const taken = new Set<string>();
  const count = new Map<string, number>(list.map((m) => [m.memberId, 0]));
  for (const m of order) {
    const a = out.get(m.memberId);
    if (a === undefined) continue;
    for (const [t, p] of partitions) {
      if ((count.get(m.memberId) ?? 0) >= (quota.get(m.memberId) ?? 0)) break;
      if (hasPartition(m.target, t, p) && !taken.has(`${t}:${p}`)) {
        taken.add(`${t}:${p}`);
        addPartition(a, t, p);
        count.set(m.memberId, (count.get(m.memberId) ?? 0) + 1);
      }
    }
  }
  let i = 0;
  for (const [t, p] of partitions) {
    if (taken.has(`${t}:${p}`)) continue;
    // the next member (round robin from i) with room left
    for (let k = 0; k < order.length; k++) {
      const m = order[(i + k) % order.length];
      if (m === undefined) continue;
      if ((count.get(m.memberId) ?? 0) < (quota.get(m.memberId) ?? 0)) {
        const a = out.get(m.memberId);
        if (a !== undefined) addPartition(a, t, p);
        count.set(m.memberId, (count.get(m.memberId) ?? 0) + 1);
        taken.add(`${t}:${p}`);
        i = (i + k + 1) % order.length;
        break;
      }
    }
  }
}

/** Kafka `RangeAssignor`: per topic, contiguous ranges in sorted member order. */
export const RANGE_ASSIGNOR: ServerAssignor = {
  name: 'range',
  assign(members, partitionCounts) {
    const out = new Map<string, Assignment>(members.map((m) => [m.memberId, emptyAssignment()]));
    const sorted = [...members].sort(rangeOrder);
    const topics = new Set<string>();
    for (const m of members) for (const t of m.topics) if (partitionCounts.has(t)) topics.add(t);
    for (const t of [...topics].sort()) {
      const subs = sorted.filter((m) => m.topics.includes(t));
      const n = partitionCounts.get(t) ?? 0;
      const quota = Math.floor(n / subs.length);
      let extra = n % subs.length;
      let next = 0;
      for (const m of subs) {
        const take = quota + (extra-- > 0 ? 1 : 0);
        const a = out.get(m.memberId);
        for (let k = 0; k < take; k++) if (a !== undefined) addPartition(a, t, next + k);
        next += take;
      }
    }
    return out;
  },
};

function rangeOrder(a: AssignorMember, b: AssignorMember): number {
  if (a.instanceId !== null && b.instanceId === null) return -1;
  if (a.instanceId === null && b.instanceId !== null) return 1;
  const ka = a.instanceId ?? a.memberId;
  const kb = b.instanceId ?? b.memberId;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The assignors by name, the first being the default (`group.consumer.assignors`). */
export const SERVER_ASSIGNORS: readonly ServerAssignor[] = [UNIFORM_ASSIGNOR, RANGE_ASSIGNOR];
