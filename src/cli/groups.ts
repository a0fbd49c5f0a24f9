/**
 * `kafkalite groups <data-dir>`: the consumer groups stored in a data directory's
 * `__consumer_offsets` log, offline (no broker): each group's state, protocol, generation and
 * members with their assignments, and its committed offsets, with the partition's log end offset
 * and the lag when that partition's log is in the directory (kafka-consumer-groups.sh --describe
 * columns: CURRENT-OFFSET, LOG-END-OFFSET, LAG).
 *
 * The records are replayed as the broker loads them at start (Kafka
 * `GroupMetadataManager.doLoadGroupsAndOffsets`: last record per key wins, tombstones remove), so
 * the state shown is the one a broker opening the directory would start from: Stable for a group
 * stored with members, Empty otherwise. KIP-848 consumer groups (their consumer-group records,
 * key versions 3-8) show their group and assignment epochs, each member's epoch, its current and
 * its target assignment, and the state Kafka derives from them (Empty, Assigning, Reconciling,
 * Stable). Transactional offset commits count as committed only where their COMMIT marker is
 * (read_committed, offsets-txn-settle.ts); those of a transaction still open are shown apart as
 * pending. Segment files are only read, never recovered or changed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KafkaliteError } from '../errors.js';
import { CONSUMER_PROTOCOL_TYPE, decodeConsumerProtocol } from '../internal-topics/consumer-protocol.js';
import { replayOffsetsRecords, type ReplayedGroup } from '../internal-topics/offsets-replay.js';
import { settledOffsetsRecords, type PendingTxnOffsetRecord } from '../internal-topics/offsets-txn-settle.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { checkedBatches, segmentFiles } from './segment-batches.js';
import { OFFSETS_TOPIC, type OffsetsTopicRecord } from '../internal-topics/offsets.js';
import type { StoredConsumerGroup, StoredTopicPartitions } from '../internal-topics/consumer-group-records.js';
import { uuidToString } from '../storage/uuid.js';
import { ConsumerProtocolAssignment } from '../protocol/schemas/internal/consumer-protocol.js';
import { FileRecords } from '../storage/file-records.js';
import { offsetFromFileName } from '../storage/file-names.js';
import { parseTopicPartitionName, partitionDirName } from '../storage/topic.js';
import { toJson } from './json.js';
import { LineWriter, PROCESS_IO, writeText, type CliIo } from './output.js';

export const GROUPS_USAGE = `Usage: kafkalite groups <data-dir> [options]

Lists the consumer groups stored in the data directory's ${OFFSETS_TOPIC} log (offline):
state, protocol, generation, members and their assignments, committed offsets with the log end
offset and lag of each partition whose log is in the directory. Offsets committed in a
transaction count once its COMMIT marker is in the log (read_committed); those of a transaction
still open are listed apart as pending.

Options:
  --group <id>   only this group (repeatable)
  --json         one JSON document: {"groups": [...]}
  -h, --help     this help`;

export interface GroupsOptions {
  dir: string;
  groups: string[];
  json: boolean;
}

export function parseGroupsArgs(argv: string[]): GroupsOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { group: { type: 'string', multiple: true }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (parsed.values.help) return { help: true };
  if (parsed.positionals.length !== 1) return { error: 'expected exactly one data directory' };
  return { dir: parsed.positionals[0]!, groups: parsed.values.group ?? [], json: parsed.values.json === true };
}

/**
 * Every record of every `__consumer_offsets` partition in the directory, per partition in the order
 * it takes effect, CRCs checked: transactional offsets where their COMMIT marker is, none of an
 * aborted transaction (read_committed, as the broker's load); offsets of transactions with no
 * marker yet go to `onPending`.
 */
function* storedOffsetsRecords(dataDir: string, warn: (what: string) => void, onPending: (p: PendingTxnOffsetRecord[]) => void): Generator<OffsetsTopicRecord> {
  const partitions = readdirSync(dataDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name.startsWith(`${OFFSETS_TOPIC}-`))
    .map((e) => parseTopicPartitionName(e.name, join(dataDir, e.name)))
    .filter((p) => p.kind === 'normal' && p.topic === OFFSETS_TOPIC)
    .sort((a, b) => a.partition - b.partition);
  for (const { partition } of partitions) {
    let path = '';
    const batches = function* (): Generator<AnyRecordBatch> {
      // the broker's load reads with CRC checks; a damaged batch is reported, not trusted
      for (path of segmentFiles(join(dataDir, partitionDirName(OFFSETS_TOPIC, partition)))) yield* checkedBatches(path, warn);
    };
    yield* settledOffsetsRecords(batches(), -1n, (at, e) => warn(`${path}: record at offset ${at}: ${e.message}`), onPending);
  }
}

/** The partition's log end offset read from its segments (last batch's lastOffset + 1), undefined when its log is not here. */
function logEndOffset(dataDir: string, topic: string, partition: number, cache: Map<string, bigint | undefined>): bigint | undefined {
  const key = `${partition}:${topic}`;
  if (cache.has(key)) return cache.get(key);
  let end: bigint | undefined;
  const dir = join(dataDir, partitionDirName(topic, partition));
  if (existsSync(dir)) {
    const segments = segmentFiles(dir);
    for (let i = segments.length - 1; i >= 0 && end === undefined; i--) {
      const file = FileRecords.open(segments[i]!);
      try {
        for (const h of file.headers()) end = h.lastOffset + 1n;
      } finally {
        file.close();
      }
    }
    // no batch in any segment: the log ends at its first segment's base offset
    if (end === undefined && segments.length > 0) end = offsetFromFileName(segments[segments.length - 1]!.slice(dir.length + 1));
  }
  cache.set(key, end);
  return end;
}

interface MemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  assignment: { topic: string; partitions: number[] }[] | null;
  /** KIP-848 members only: the member epoch and the target assignment. */
  memberEpoch?: number;
  targetAssignment?: { topic: string; partitions: number[] }[];
}

interface GroupView {
  groupId: string;
  /** 'classic' or 'consumer' (KIP-848), as ListGroups v5 names them. */
  groupType: string;
  state: string;
  protocolType: string;
  protocol: string | null;
  generation: number;
  leader: string | null;
  /** KIP-848 groups: the target assignment's epoch (`generation` is the group epoch). */
  assignmentEpoch?: number;
  members: MemberView[];
  offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number; metadata: string; commitTimestamp: bigint; logEndOffset: bigint | null; lag: bigint | null; memberId: string | null }[];
  /** Offsets committed in a transaction whose marker is not in the log: not committed (read_committed), shown apart. */
  pendingOffsets: { producerId: bigint; topic: string; partition: number; offset: bigint; metadata: string }[];
}

/** A consumer-protocol assignment's partitions; null for other protocol types or unreadable bytes. */
function decodeAssignment(protocolType: string, bytes: Buffer): { topic: string; partitions: number[] }[] | null {
  if (protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
  const a = decodeConsumerProtocol<{ assignedPartitions: { topic: string; partitions: number[] }[] }>(ConsumerProtocolAssignment, bytes, 'read-as-newest');
  return a === undefined ? null : a.value.assignedPartitions;
}

/** Kafka `ConsumerGroup.maybeUpdateGroupState` over the stored members (member state 0 is STABLE). */
function consumerGroupState(c: StoredConsumerGroup): string {
  const members = [...c.members.values()];
  if (members.length === 0) return 'Empty';
  if (c.groupEpoch > c.assignmentEpoch) return 'Assigning';
  return members.every((m) => m.current !== null && m.current.state === 0 && m.current.memberEpoch === c.assignmentEpoch) ? 'Stable' : 'Reconciling';
}

/** A KIP-848 group's view: topic ids named from its partition metadata record. */
function consumerMembers(c: StoredConsumerGroup): MemberView[] {
  const names = new Map(c.topics.map((t) => [uuidToString(t.topicId), t.topicName]));
  const named = (tps: readonly StoredTopicPartitions[]): { topic: string; partitions: number[] }[] =>
    tps.map((tp) => ({ topic: names.get(uuidToString(tp.topicId)) ?? uuidToString(tp.topicId), partitions: [...tp.partitions].sort((a, b) => a - b) }));
  return [...c.members].map(([memberId, m]) => ({
    memberId,
    groupInstanceId: m.metadata?.instanceId ?? null,
    clientId: m.metadata?.clientId ?? '',
    clientHost: m.metadata?.clientHost ?? '',
    assignment: named(m.current?.assignedPartitions ?? []),
    memberEpoch: m.current?.memberEpoch ?? 0,
    targetAssignment: named(c.targets.get(memberId) ?? []),
  }));
}

/** The most common server assignor of the members, else Kafka's default (`uniform`). */
function consumerAssignor(c: StoredConsumerGroup): string {
  const counts = new Map<string, number>();
  for (const m of c.members.values()) if (m.metadata?.serverAssignor) counts.set(m.metadata.serverAssignor, (counts.get(m.metadata.serverAssignor) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'uniform';
}

function viewOf(dataDir: string, groupId: string, g: ReplayedGroup, pending: PendingTxnOffsetRecord[], ends: Map<string, bigint | undefined>): GroupView {
  const pendingOffsets = pending
    .map((p) => ({ producerId: p.producerId, topic: p.topic, partition: p.partition, offset: p.value.offset, metadata: p.value.metadata }))
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  const s = g.stored;
  const c = g.consumer;
  const members: MemberView[] = c !== null ? consumerMembers(c) : (s?.members ?? []).map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    assignment: decodeAssignment(s!.protocolType, m.assignment),
  }));
  const owner = new Map<string, string>();
  for (const m of members) for (const t of m.assignment ?? []) for (const p of t.partitions) owner.set(`${p}:${t.topic}`, m.memberId);
  const offsets = g.offsets
    .map((o) => {
      const end = logEndOffset(dataDir, o.topic, o.partition, ends);
      const lag = end === undefined ? null : end > o.value.offset ? end - o.value.offset : 0n;
      return {
        topic: o.topic,
        partition: o.partition,
        offset: o.value.offset,
        leaderEpoch: o.value.leaderEpoch,
        metadata: o.value.metadata,
        commitTimestamp: o.value.commitTimestamp,
        logEndOffset: end ?? null,
        lag,
        memberId: owner.get(`${o.partition}:${o.topic}`) ?? null,
      };
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  if (c !== null) {
    return { groupId, groupType: 'consumer', state: consumerGroupState(c), protocolType: CONSUMER_PROTOCOL_TYPE, protocol: consumerAssignor(c), generation: c.groupEpoch, leader: null, assignmentEpoch: c.assignmentEpoch, members, offsets, pendingOffsets };
  }
  return {
    groupId,
    groupType: 'classic',
    // what the broker's load makes of it (load.ts): members → Stable, none → Empty
    state: members.length > 0 ? 'Stable' : 'Empty',
    protocolType: s?.protocolType ?? '',
    protocol: s?.protocol ?? null,
    generation: s?.generation ?? 0,
    leader: s?.leader ?? null,
    members,
    offsets,
    pendingOffsets,
  };
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}

function printTable(out: LineWriter, views: GroupView[]): void {
  if (views.length === 0) {
    out.line(`No consumer groups in ${OFFSETS_TOPIC}.`);
    return;
  }
  for (const [i, v] of views.entries()) {
    if (i > 0) out.line();
    if (v.groupType === 'consumer') {
      out.line(`GROUP ${v.groupId}  type consumer  state ${v.state}  assignor ${v.protocol ?? '-'}  group-epoch ${v.generation}  assignment-epoch ${v.assignmentEpoch ?? '-'}  members ${v.members.length}`);
    } else {
      out.line(`GROUP ${v.groupId}  state ${v.state}  protocol-type ${v.protocolType || '-'}  protocol ${v.protocol ?? '-'}  generation ${v.generation}  members ${v.members.length}`);
    }
    const parts = (a: { topic: string; partitions: number[] }[] | null | undefined): string => (a === null || a === undefined ? '-' : a.map((t) => `${t.topic}(${t.partitions.join(',')})`).join(' ') || '-');
    if (v.members.length > 0 && v.groupType === 'consumer') {
      const rows = [['MEMBER-ID', 'INSTANCE-ID', 'CLIENT-ID', 'HOST', 'EPOCH', 'ASSIGNMENT', 'TARGET']];
      for (const m of v.members) rows.push([m.memberId, m.groupInstanceId ?? '-', m.clientId, m.clientHost, String(m.memberEpoch ?? '-'), parts(m.assignment), parts(m.targetAssignment)]);
      for (const l of table(rows)) out.line(`  ${l}`);
    } else if (v.members.length > 0) {
      const rows = [['MEMBER-ID', 'INSTANCE-ID', 'CLIENT-ID', 'HOST', 'ASSIGNMENT']];
      for (const m of v.members) {
        const assignment = m.assignment === null ? '-' : m.assignment.map((t) => `${t.topic}(${t.partitions.join(',')})`).join(' ') || '-';
        rows.push([`${m.memberId}${m.memberId === v.leader ? ' (leader)' : ''}`, m.groupInstanceId ?? '-', m.clientId, m.clientHost, assignment]);
      }
      for (const l of table(rows)) out.line(`  ${l}`);
    }
    if (v.offsets.length > 0) {
      const rows = [['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID']];
      for (const o of v.offsets) rows.push([o.topic, String(o.partition), String(o.offset), o.logEndOffset === null ? '-' : String(o.logEndOffset), o.lag === null ? '-' : String(o.lag), o.memberId ?? '-']);
      for (const l of table(rows)) out.line(`  ${l}`);
    } else {
      out.line('  no committed offsets');
    }
    if (v.pendingOffsets.length > 0) {
      out.line('  pending in open transactions (not committed):');
      const rows = [['TOPIC', 'PARTITION', 'OFFSET', 'PRODUCER-ID']];
      for (const o of v.pendingOffsets) rows.push([o.topic, String(o.partition), String(o.offset), String(o.producerId)]);
      for (const l of table(rows)) out.line(`  ${l}`);
    }
  }
}

export function groups(opts: GroupsOptions, io: CliIo = PROCESS_IO): number {
  try {
    if (!existsSync(opts.dir)) {
      writeText(io.stderr, `Error: data directory ${opts.dir} does not exist\n`);
      return 1;
    }
    const warnings: string[] = [];
    const pending: PendingTxnOffsetRecord[] = [];
    const replayed = replayOffsetsRecords(storedOffsetsRecords(opts.dir, (w) => warnings.push(w), (p) => pending.push(...p)));
    const pendingByGroup = new Map<string, PendingTxnOffsetRecord[]>();
    for (const p of pending) {
      pendingByGroup.set(p.group, [...(pendingByGroup.get(p.group) ?? []), p]);
      // a group with only pending offsets exists (Kafka's replay creates it, a simple classic group)
      if (!replayed.has(p.group)) replayed.set(p.group, { stored: null, consumer: null, offsets: [] });
    }
    const ends = new Map<string, bigint | undefined>();
    const wanted = new Set(opts.groups);
    const views = [...replayed]
      .filter(([id]) => wanted.size === 0 || wanted.has(id))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, g]) => viewOf(opts.dir, id, g, pendingByGroup.get(id) ?? [], ends));
    const out = new LineWriter(io.stdout);
    if (opts.json) out.line(toJson({ groups: views }));
    else printTable(out, views);
    out.flush();
    for (const w of warnings) writeText(io.stderr, `Warning: ${w}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof KafkaliteError)) throw err;
    writeText(io.stderr, `Error: ${err.message}\n`);
    return 1;
  }
}
