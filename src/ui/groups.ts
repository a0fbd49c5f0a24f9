/**
 * Consumer group administration as Kafka's tools do it, through the group's coordinator:
 *
 * - Offset reset, as `kafka-consumer-groups.sh --reset-offsets` (ConsumerGroupCommand): only for
 *   a group with no active members (state Empty, or Dead: no group yet), else the tool's refusal;
 *   a plan first (the dry run, the tool's default), then `--execute`, which commits the planned
 *   offsets as Admin.alterConsumerGroupOffsets does (OffsetCommit with generation -1 and no member
 *   id, which a coordinator accepts only from outside an active group). Targets: earliest,
 *   latest, a timestamp (the first offset at or after it, the end offset where none is, as
 *   `--to-datetime`), an offset (kept within the partition's earliest and latest offsets, as
 *   `--to-offset`'s checkOffsetsRange).
 * - Deletion (DeleteGroups, KIP-229): the coordinator refuses a group with members
 *   (NON_EMPTY_GROUP) and an unknown one (GROUP_ID_NOT_FOUND).
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { DeleteGroups, type DeleteGroupsResponse } from '../protocol/schemas/delete-groups.js';
import { OffsetCommit, type OffsetCommitResponse } from '../protocol/schemas/offset-commit.js';
import { ClusterError, EARLIEST, errorText, LATEST, READ_UNCOMMITTED, type ClusterView } from './cluster.js';
import { CoordinatorType } from './router.js';

type ResetTarget = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'offset'; offset: bigint } | { kind: 'timestamp'; timestamp: bigint };

interface ResetRequest {
  /** The topics to reset (all their partitions, as `--topic t`); null: every topic the group has offsets for (`--all-topics`). */
  topics: string[] | null;
  to: ResetTarget;
  /** false: the dry run (the plan only); true: `--execute`. */
  execute: boolean;
}

interface ResetPlanRow {
  topic: string;
  partition: number;
  currentOffset: string | null;
  newOffset: string;
}

/** States in which ConsumerGroupCommand resets offsets (the group is inactive). */
const INACTIVE = new Set(['Empty', 'Dead']);

export async function resetOffsets(cluster: ClusterView, groupId: string, req: ResetRequest): Promise<{ groupId: string; state: string; executed: boolean; partitions: ResetPlanRow[] }> {
  const d = await cluster.describeGroup(groupId);
  if (!INACTIVE.has(d.groupState)) {
    // the tool's words (ConsumerGroupCommand.resetOffsets)
    throw new ClusterError(`Assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${d.groupState}.`, 409);
  }
  const committed = await cluster.committedOffsets(groupId);
  const current = new Map(committed.map((c) => [`${c.topic}\0${c.partition}`, c.offset]));
  const topics = req.topics ?? [...new Set(committed.map((c) => c.topic))].sort();
  if (topics.length === 0) throw new ClusterError(`group ${groupId} has no committed offsets: name the topics to reset`, 400);
  const q = await Promise.all(topics.map(async (name) => ({ name, partitions: await cluster.partitionsOf(name) })));
  const earliest = await cluster.listOffsets(q, EARLIEST, READ_UNCOMMITTED);
  const latest = await cluster.listOffsets(q, LATEST, READ_UNCOMMITTED);
  const byTime = req.to.kind === 'timestamp' ? await cluster.listOffsets(q, req.to.timestamp, READ_UNCOMMITTED) : undefined;
  const rows: ResetPlanRow[] = [];
  for (const t of q) {
    for (const partition of t.partitions) {
      const k = `${t.name}\0${partition}`;
      const lo = earliest.get(k) ?? 0n;
      const hi = latest.get(k) ?? 0n;
      let target: bigint;
      if (req.to.kind === 'earliest') target = lo;
      else if (req.to.kind === 'latest') target = hi;
      else if (req.to.kind === 'offset') target = req.to.offset < lo ? lo : req.to.offset > hi ? hi : req.to.offset;
      else {
        const at = byTime!.get(k) ?? -1n;
        target = at >= 0n ? at : hi;
      }
      const cur = current.get(k);
      rows.push({ topic: t.name, partition, currentOffset: cur === undefined ? null : String(cur), newOffset: String(target) });
    }
  }
  if (!req.execute) return { groupId, state: d.groupState, executed: false, partitions: rows };
  const byTopic = new Map<string, ResetPlanRow[]>();
  for (const r of rows) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
  const body = {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: BigInt(p.newOffset), committedLeaderEpoch: -1, committedMetadata: '' })) })),
  };
  const coordinator = await cluster.router.coordinator(groupId, CoordinatorType.GROUP);
  // v7 (group instance ids, non-flexible) as far as served; v2 at least (no commit timestamp)
  const r = (await coordinator.request<OffsetCommitResponse>(OffsetCommit, 7, 2, body)).body;
  const failed = r.topics.flatMap((t) => t.partitions.filter((p) => p.errorCode !== ErrorCode.NONE).map((p) => `${t.name}-${p.partitionIndex}: ${errorText(p.errorCode)}`));
  if (failed.length > 0) throw new ClusterError(`OffsetCommit ${groupId}: ${failed.join(', ')}`, 409);
  return { groupId, state: d.groupState, executed: true, partitions: rows };
}

export async function deleteGroup(cluster: ClusterView, groupId: string): Promise<{ groupId: string; deleted: true }> {
  const coordinator = await cluster.router.coordinator(groupId, CoordinatorType.GROUP);
  const r = (await coordinator.request<DeleteGroupsResponse>(DeleteGroups, 2, 0, { groupsNames: [groupId] })).body;
  const res = r.results.find((x) => x.groupId === groupId);
  if (!res) throw new ClusterError(`DeleteGroups ${groupId}: no result`, 502);
  if (res.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new ClusterError(`DeleteGroups ${groupId}: GROUP_ID_NOT_FOUND`, 404);
  if (res.errorCode !== ErrorCode.NONE) throw new ClusterError(`DeleteGroups ${groupId}: ${errorText(res.errorCode)}`, 409);
  return { groupId, deleted: true };
}

function isObject(v: unknown): v is { [k: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `{ topics?: string[], to: 'earliest'|'latest'|'offset:N'|'timestamp:MS', execute?: boolean }`. */
export function parseReset(v: unknown, fail: (m: string) => Error): ResetRequest {
  if (!isObject(v)) throw fail('the body must be a JSON object');
  const o = v;
  let topics: string[] | null = null;
  if (o.topics !== undefined && o.topics !== null) {
    if (!Array.isArray(o.topics) || o.topics.length === 0 || !o.topics.every((t): t is string => typeof t === 'string' && t !== '')) throw fail('topics must be a non-empty array of topic names');
    topics = [...new Set(o.topics)];
  }
  if (typeof o.to !== 'string') throw fail('to must be earliest, latest, offset:N or timestamp:MS');
  let to: ResetTarget;
  if (o.to === 'earliest' || o.to === 'latest') to = { kind: o.to };
  else {
    const m = /^(offset|timestamp):(\d{1,19})$/.exec(o.to);
    if (!m || BigInt(m[2]!) > 0x7fffffffffffffffn) throw fail(`to must be earliest, latest, offset:N or timestamp:MS, got ${JSON.stringify(o.to)}`);
    to = m[1] === 'offset' ? { kind: 'offset', offset: BigInt(m[2]!) } : { kind: 'timestamp', timestamp: BigInt(m[2]!) };
  }
  if (o.execute !== undefined && typeof o.execute !== 'boolean') throw fail('execute must be true or false');
  return { topics, to, execute: o.execute === true };
}
