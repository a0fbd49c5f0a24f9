/**
 * A member's partitions as the KIP-848 coordinator handles them (Kafka's `Map<Uuid, Set<Integer>>`
 * of `ConsumerGroupMember.assignedPartitions`): topic id (Uuid string) → partition numbers, with
 * the set operations `CurrentAssignmentBuilder` computes revocations and pending assignments with.
 */
export type Assignment = Map<string, Set<number>>;

export function emptyAssignment(): Assignment {
  return new Map();
}

export function copyAssignment(a: Assignment): Assignment {
  return new Map([...a].map(([t, ps]) => [t, new Set(ps)]));
}

/** Adds one partition (creating the topic's set). */
export function addPartition(a: Assignment, topicId: string, partition: number): void {
  let s = a.get(topicId);
  if (s === undefined) a.set(topicId, (s = new Set()));
  s.add(partition);
}

export function hasPartition(a: Assignment, topicId: string, partition: number): boolean {
  return a.get(topicId)?.has(partition) ?? false;
}

/** a ∩ b, topics without partitions left out. */
export function intersect(a: Assignment, b: Assignment): Assignment {
  const out = emptyAssignment();
  for (const [t, ps] of a) for (const p of ps) if (hasPartition(b, t, p)) addPartition(out, t, p);
  return out;
}

/** a − b, topics without partitions left out. */
export function minus(a: Assignment, b: Assignment): Assignment {
  const out = emptyAssignment();
  for (const [t, ps] of a) for (const p of ps) if (!hasPartition(b, t, p)) addPartition(out, t, p);
  return out;
}

export function union(a: Assignment, b: Assignment): Assignment {
  const out = copyAssignment(a);
  for (const [t, ps] of b) for (const p of ps) addPartition(out, t, p);
  return out;
}

export function size(a: Assignment): number {
  let n = 0;
  for (const ps of a.values()) n += ps.size;
  return n;
}

export function isEmpty(a: Assignment): boolean {
  return size(a) === 0;
}

export function sameAssignment(a: Assignment, b: Assignment): boolean {
  return size(a) === size(b) && size(intersect(a, b)) === size(a);
}

/** Whether any partition of `a` is in `b`. */
export function overlaps(a: Assignment, b: Assignment): boolean {
  for (const [t, ps] of a) for (const p of ps) if (hasPartition(b, t, p)) return true;
  return false;
}

/** The wire form: topics in id order, partitions ascending. */
export function toTopicPartitions(a: Assignment, toBytes: (topicId: string) => Buffer | undefined): { topicId: Buffer; partitions: number[] }[] {
  const out: { topicId: Buffer; partitions: number[] }[] = [];
  for (const t of [...a.keys()].sort()) {
    const ps = [...(a.get(t) ?? [])].sort((x, y) => x - y);
    const id = toBytes(t);
    if (ps.length > 0 && id !== undefined) out.push({ topicId: id, partitions: ps });
  }
  return out;
}
