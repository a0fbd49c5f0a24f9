/**
 * What the console asks a running cluster, through the Kafka protocol only (KafkaClient): topics
 * and partitions (Metadata), their offsets (ListOffsets: earliest, latest, and latest under
 * read_committed, which is the last stable offset, KIP-98), effective configs (DescribeConfigs),
 * messages (Fetch), produce (Produce), consumer groups with lag (ListGroups, DescribeGroups,
 * OffsetFetch against ListOffsets latest, as kafka-consumer-groups.sh --describe computes it).
 *
 * Each request goes where Kafka's clients send it (router.ts): a partition's to its leader, a
 * group's to its coordinator; a stale leader (NOT_LEADER_OR_FOLLOWER) is looked up again once.
 * Group administration (offset reset, deletion) is in groups.ts; configs and the broker page in
 * admin.ts; transactions and producers in transactions.ts.
 */
import { ErrorCode, errorName } from '../protocol/error-codes.js';
import { DescribeConfigs, type DescribeConfigsResponse } from '../protocol/schemas/describe-configs.js';
import { DescribeGroups, type DescribeGroupsResponse } from '../protocol/schemas/describe-groups.js';
import { Fetch, type FetchResponse } from '../protocol/schemas/fetch.js';
import { ListGroups, type ListGroupsResponse } from '../protocol/schemas/list-groups.js';
import { ListOffsets, type ListOffsetsRequest, type ListOffsetsResponse } from '../protocol/schemas/list-offsets.js';
import { OffsetFetch, type OffsetFetchResponse } from '../protocol/schemas/offset-fetch.js';
import { Produce, type ProduceResponse } from '../protocol/schemas/produce.js';
import { encodeRecordBatch } from '../record/builder.js';
import { browse, type BrowsePage, type BrowseQuery, type PartitionSource } from './browse.js';
import { KafkaClient, KafkaClientError } from './kafka-client.js';
import { messagesOfBatches } from './messages.js';
import { ClusterRouter, CoordinatorType } from './router.js';

/** ListOffsets' special timestamps (Kafka's ListOffsetsRequest.EARLIEST_TIMESTAMP, LATEST_TIMESTAMP). */
export const EARLIEST = -2n;
export const LATEST = -1n;
export const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;
/** Answers saying the leader moved: look it up again and retry once (as the Java client's MetadataUpdater). */
const STALE_LEADER: ReadonlySet<number> = new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH]);
/** ConfigResource.Type.TOPIC */
const TOPIC_RESOURCE = 2;
/**
 * Bytes one Fetch may bring back for a page of messages: small, since a page is 50 messages; the
 * first batch comes whole whatever its size (KIP-74), so a large batch still arrives.
 */
const PAGE_FETCH_BYTES = 256 * 1024;

interface TopicSummary {
  name: string;
  internal: boolean;
  partitions: number;
  error?: string;
}

interface PartitionOffsets {
  partition: number;
  leader: number;
  startOffset: string;
  endOffset: string;
  lastStableOffset: string;
  messages: string;
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: string;
  readOnly: boolean;
  sensitive: boolean;
}

interface GroupSummary {
  groupId: string;
  protocolType: string;
  state: string;
}

interface GroupDetail {
  groupId: string;
  state: string;
  protocolType: string;
  protocol: string;
  members: { memberId: string; clientId: string; clientHost: string; groupInstanceId: string | null }[];
  offsets: { topic: string; partition: number; committedOffset: string; endOffset: string; lag: string; metadata: string | null }[];
  totalLag: string;
}

/** A request the cluster refused, or that named something absent: the HTTP layer answers 404/400. */
export class ClusterError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** Kafka's error code when the cluster answered with one. */
    readonly errorCode?: number,
  ) {
    super(message);
  }
}

/** DescribeConfigsResponse.ConfigSource names (KIP-226). */
const CONFIG_SOURCES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG', 'CLIENT_METRICS_CONFIG', 'GROUP_CONFIG'];

export function errorText(code: number): string {
  return errorName(code) ?? `error ${code}`;
}


export class ClusterView {
  /** Each partition's log start offset as the last ListOffsets EARLIEST said (`topic\0partition`): the message browser's start hint. */
  private readonly knownStart = new Map<string, bigint>();

  constructor(readonly router: ClusterRouter) {}

  /** Connects to the first broker of a `host:port[,host:port...]` list that answers, as bootstrap.servers is tried. */
  static async connect(bootstrap: string): Promise<ClusterView> {
    const addresses = bootstrap.split(',').map((a) => a.trim()).filter((a) => a !== '');
    let failure: unknown = new KafkaClientError(`no broker in ${JSON.stringify(bootstrap)}`);
    for (const address of addresses) {
      try {
        return new ClusterView(new ClusterRouter(await KafkaClient.connect(address)));
      } catch (e) {
        failure = e;
      }
    }
    throw failure;
  }

  get bootstrap(): string {
    return this.router.bootstrap.bootstrap;
  }

  close(): void {
    this.router.close();
  }

  get isClosed(): boolean {
    return this.router.isClosed;
  }

  async brokers(): Promise<{ clusterId: string | null; controllerId: number; brokers: { nodeId: number; host: string; port: number; rack: string | null }[] }> {
    const m = await this.router.metadata([]);
    return { clusterId: m.clusterId ?? null, controllerId: m.controllerId ?? -1, brokers: this.router.knownNodes() };
  }

  async topics(): Promise<(TopicSummary & { endOffsets: string; messages: string })[]> {
    const m = await this.router.metadata(null);
    const topics = m.topics
      .filter((t): t is typeof t & { name: string } => t.name !== null)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const ok = topics.filter((t) => t.errorCode === ErrorCode.NONE);
    const offsets = ok.length === 0 ? new Map<string, PartitionOffsets[]>() : await this.offsets(ok.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, leader: p.leaderId })) })));
    return topics.map((t) => {
      const parts = offsets.get(t.name) ?? [];
      const end = parts.reduce((n, p) => n + BigInt(p.endOffset), 0n);
      const messages = parts.reduce((n, p) => n + BigInt(p.messages), 0n);
      return {
        name: t.name,
        internal: t.isInternal ?? false,
        partitions: t.partitions.length,
        endOffsets: String(end),
        messages: String(messages),
        ...(t.errorCode !== ErrorCode.NONE ? { error: errorText(t.errorCode) } : {}),
      };
    });
  }

  /** One topic's partitions with their offsets; 404 when the topic does not exist. */
  async topic(name: string): Promise<{ name: string; internal: boolean; partitions: PartitionOffsets[] }> {
    const m = await this.router.metadata([name]);
    const t = m.topics[0];
    if (!t || t.errorCode !== ErrorCode.NONE) throw new ClusterError(`topic ${name}: ${t ? errorText(t.errorCode) : 'not in the answer'}`, 404);
    const parts = t.partitions.map((p) => ({ partition: p.partitionIndex, leader: p.leaderId })).sort((a, b) => a.partition - b.partition);
    const offsets = await this.offsets([{ name, partitions: parts }]);
    return { name, internal: t.isInternal ?? false, partitions: offsets.get(name) ?? [] };
  }

  /** The partitions of a topic (Metadata), 404 when it does not exist. */
  async partitionsOf(name: string): Promise<number[]> {
    const t = (await this.router.metadata([name])).topics[0];
    if (!t || t.errorCode !== ErrorCode.NONE) throw new ClusterError(`topic ${name}: ${t ? errorText(t.errorCode) : 'not in the answer'}`, 404);
    return t.partitions.map((p) => p.partitionIndex).sort((a, b) => a - b);
  }

  /**
   * ListOffsets for many partitions, one request per leader (Kafka's KafkaAdminClient.listOffsets
   * groups them so); a stale leader is looked up again once. Keys are `topic\0partition`.
   */
  async listOffsets(topics: { name: string; partitions: number[] }[], timestamp: bigint, isolationLevel: number): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    let pending = topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    for (let attempt = 0; pending.length > 0; attempt++) {
      const stale: typeof pending = [];
      const byLeader = await this.router.byLeader(pending);
      await Promise.all(
        [...byLeader].map(async ([nodeId, parts]) => {
          const byTopic = new Map<string, number[]>();
          for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
          const req: ListOffsetsRequest = {
            replicaId: -1,
            isolationLevel,
            topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp })) })),
          };
          // v2 adds the isolation level (the LSO); v3 is enough (v4 adds leader epochs the console
          // does not use), and librdkafka 2.0.2's mock cluster answers v4+ without the partitions'
          // leader epochs, so its answers for several partitions do not decode
          const r = (await (await this.router.node(nodeId)).request<ListOffsetsResponse>(ListOffsets, 3, 2, req)).body;
          for (const t of r.topics) {
            for (const p of t.partitions) {
              if (STALE_LEADER.has(p.errorCode) && attempt === 0) {
                this.router.forgetLeader(t.name, p.partitionIndex);
                stale.push({ topic: t.name, partition: p.partitionIndex });
                continue;
              }
              if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`ListOffsets ${t.name}-${p.partitionIndex}: ${errorText(p.errorCode)}`, p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : 502);
              out.set(`${t.name}\0${p.partitionIndex}`, p.offset ?? -1n);
              if (timestamp === EARLIEST && p.offset !== undefined && p.offset >= 0n) this.knownStart.set(`${t.name}\0${p.partitionIndex}`, p.offset);
            }
          }
        }),
      );
      pending = stale;
    }
    return out;
  }

  private async offsets(topics: { name: string; partitions: { partition: number; leader: number }[] }[]): Promise<Map<string, PartitionOffsets[]>> {
    const q = topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partition) }));
    const [start, end, lso] = await Promise.all([
      this.listOffsets(q, EARLIEST, READ_UNCOMMITTED),
      this.listOffsets(q, LATEST, READ_UNCOMMITTED),
      this.listOffsets(q, LATEST, READ_COMMITTED),
    ]);
    const out = new Map<string, PartitionOffsets[]>();
    for (const t of topics) {
      out.set(
        t.name,
        t.partitions.map((p) => {
          const k = `${t.name}\0${p.partition}`;
          const s = start.get(k) ?? -1n;
          const e = end.get(k) ?? -1n;
          return { partition: p.partition, leader: p.leader, startOffset: String(s), endOffset: String(e), lastStableOffset: String(lso.get(k) ?? -1n), messages: String(e > s ? e - s : 0n) };
        }),
      );
    }
    return out;
  }

  /** The effective configs of a topic (resource type 2) or a broker (4, sent to that broker), with their sources (DescribeConfigs v1+). */
  async configs(name: string, resourceType = TOPIC_RESOURCE): Promise<ConfigEntry[]> {
    const body = { resources: [{ resourceType, resourceName: name, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false };
    const client = resourceType === TOPIC_RESOURCE ? this.router.bootstrap : await this.router.node(Number(name));
    const r = (await client.request<DescribeConfigsResponse>(DescribeConfigs, 4, 1, body)).body;
    const res = r.results[0];
    if (!res) throw new ClusterError(`DescribeConfigs ${name}: no result`, 502);
    if (res.errorCode !== ErrorCode.NONE) throw new ClusterError(`DescribeConfigs ${name}: ${errorText(res.errorCode)}${res.errorMessage ? ` (${res.errorMessage})` : ''}`, 404);
    return res.configs
      .map((c) => ({ name: c.name, value: c.value, source: CONFIG_SOURCES[c.configSource ?? 0] ?? String(c.configSource), readOnly: c.readOnly, sensitive: c.isSensitive }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** A partition as the browser reads it: offsets by ListOffsets, messages by Fetch, both from its leader. */
  source(topic: string, partition: number, isolationLevel = READ_UNCOMMITTED): PartitionSource {
    const key = `${topic}\0${partition}`;
    const q = [{ name: topic, partitions: [partition] }];
    return {
      bounds: async () => {
        const [s, e] = await Promise.all([this.listOffsets(q, EARLIEST, READ_UNCOMMITTED), this.listOffsets(q, LATEST, isolationLevel)]);
        return { start: s.get(key) ?? 0n, end: e.get(key) ?? 0n };
      },
      // the first offset whose timestamp is at or after it (ListOffsets by time, KIP-79)
      offsetForTimestamp: async (timestamp, end) => {
        const at = (await this.listOffsets(q, timestamp, READ_UNCOMMITTED)).get(key) ?? -1n;
        return at >= 0n ? at : end;
      },
      read: async (offset, max) => {
        const records = await this.fetch(topic, partition, offset, isolationLevel, 0);
        if (records === null) return { messages: [], nextOffset: offset };
        return messagesOfBatches(records, partition, offset, max);
      },
      startHint: () => this.knownStart.get(key),
    };
  }

  /** A page of messages (browse.ts: start position, direction, filters). */
  messages(topic: string, partition: number, q: BrowseQuery): Promise<BrowsePage> {
    return browse(this.source(topic, partition), q);
  }

  /**
   * One Fetch of a partition from its leader (v11: the last version naming topics by name that
   * Kafka 4 and kafkalite both serve; v4 at least): its records, or null when there are none.
   * `maxWaitMs` > 0 is a long poll (the live tail waits there for new records).
   */
  async fetch(topic: string, partition: number, offset: bigint, isolationLevel: number, maxWaitMs: number, connection?: (leader: number) => Promise<KafkaClient>): Promise<Buffer | null> {
    for (let attempt = 0; ; attempt++) {
      const body = {
        replicaId: -1,
        maxWaitMs,
        minBytes: maxWaitMs > 0 ? 1 : 0,
        maxBytes: PAGE_FETCH_BYTES,
        isolationLevel,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: PAGE_FETCH_BYTES }] }],
        forgottenTopicsData: [],
        rackId: '',
      };
      const leaderId = await this.router.leaderOf(topic, partition, attempt > 0);
      const leader = await (connection ?? ((id: number) => this.router.node(id)))(leaderId);
      const r = (await leader.request<FetchResponse>(Fetch, 11, 4, body)).body;
      const p = r.responses[0]?.partitions[0];
      if (!p) throw new ClusterError(`Fetch ${topic}-${partition}: no partition in the answer`, 502);
      if (STALE_LEADER.has(p.errorCode) && attempt === 0) continue;
      if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`Fetch ${topic}-${partition}: ${errorText(p.errorCode)}`, p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE ? 400 : 502, p.errorCode);
      return p.records && p.records.length > 0 ? p.records : null;
    }
  }

  /** Produces one record (acks=all) to the partition's leader and returns its offset. */
  async produce(topic: string, partition: number, record: { key: string | null; value: string | null; headers: { key: string; value: string }[] }): Promise<{ offset: string }> {
    const batch = encodeRecordBatch([{ key: record.key ?? undefined, value: record.value ?? undefined, headers: record.headers, timestamp: Date.now() }]);
    const body = { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: Buffer.from(batch) }] }] };
    for (let attempt = 0; ; attempt++) {
      let leaderId: number;
      try {
        leaderId = await this.router.leaderOf(topic, partition, attempt > 0);
      } catch {
        throw new ClusterError(`Produce ${topic}-${partition}: UNKNOWN_TOPIC_OR_PARTITION`, 404);
      }
      // v3 is the first with record batch v2; v8 the last non-flexible
      const r = (await (await this.router.node(leaderId)).request<ProduceResponse>(Produce, 8, 3, body)).body;
      const p = r.responses[0]?.partitionResponses[0];
      if (!p) throw new ClusterError('Produce: no partition in the answer', 502);
      if (STALE_LEADER.has(p.errorCode) && attempt === 0) continue;
      if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`Produce ${topic}-${partition}: ${errorText(p.errorCode)}${p.errorMessage ? ` (${p.errorMessage})` : ''}`, p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : 400);
      return { offset: String(p.baseOffset) };
    }
  }

  /** Every group of the cluster: ListGroups sent to every broker, as KafkaAdminClient.listConsumerGroups does. */
  async groups(): Promise<GroupSummary[]> {
    const all = new Map<string, GroupSummary>();
    for (const { client } of await this.router.everyBroker()) {
      const r = (await client.request<ListGroupsResponse>(ListGroups, 4, 0, { statesFilter: [] })).body;
      if (r.errorCode !== ErrorCode.NONE) throw new ClusterError(`ListGroups: ${errorText(r.errorCode)}`, 502);
      for (const g of r.groups) all.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType, state: g.groupState ?? '' });
    }
    return [...all.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : 1));
  }

  /** A group's state and members (DescribeGroups to its coordinator); 404 when it does not exist. */
  async describeGroup(groupId: string): Promise<DescribeGroupsResponse['groups'][number]> {
    const coordinator = await this.router.coordinator(groupId, CoordinatorType.GROUP);
    const d = (await coordinator.request<DescribeGroupsResponse>(DescribeGroups, 5, 0, { groups: [groupId], includeAuthorizedOperations: false })).body.groups[0];
    if (!d) throw new ClusterError(`DescribeGroups ${groupId}: no group in the answer`, 502);
    if (d.errorCode !== ErrorCode.NONE) throw new ClusterError(`group ${groupId}: ${errorText(d.errorCode)}`, 404);
    return d;
  }

  /** A group's committed offsets (OffsetFetch v7 to its coordinator: all of them, topics null, v2+). */
  async committedOffsets(groupId: string): Promise<{ topic: string; partition: number; offset: bigint; metadata: string | null }[]> {
    const coordinator = await this.router.coordinator(groupId, CoordinatorType.GROUP);
    const f = (await coordinator.request<OffsetFetchResponse>(OffsetFetch, 7, 2, { groupId, topics: null, requireStable: false })).body;
    if ((f.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) throw new ClusterError(`OffsetFetch ${groupId}: ${errorText(f.errorCode ?? ErrorCode.NONE)}`, 502);
    return (f.topics ?? []).flatMap((t) => t.partitions.filter((p) => p.errorCode === ErrorCode.NONE && p.committedOffset >= 0n).map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata })));
  }

  async group(groupId: string): Promise<GroupDetail> {
    const d = await this.describeGroup(groupId);
    if (d.groupState === 'Dead') throw new ClusterError(`group ${groupId} does not exist`, 404);
    const committed = await this.committedOffsets(groupId);
    const byTopic = new Map<string, number[]>();
    for (const c of committed) byTopic.set(c.topic, [...(byTopic.get(c.topic) ?? []), c.partition]);
    const ends = byTopic.size === 0 ? new Map<string, bigint>() : await this.listOffsets([...byTopic].map(([name, partitions]) => ({ name, partitions })), LATEST, READ_UNCOMMITTED).catch(() => new Map<string, bigint>());
    let total = 0n;
    const offsets = committed
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
      .map((c) => {
        const end = ends.get(`${c.topic}\0${c.partition}`);
        const lag = end === undefined ? undefined : end > c.offset ? end - c.offset : 0n;
        if (lag !== undefined) total += lag;
        return { topic: c.topic, partition: c.partition, committedOffset: String(c.offset), endOffset: end === undefined ? '' : String(end), lag: lag === undefined ? '' : String(lag), metadata: c.metadata };
      });
    return {
      groupId: d.groupId,
      state: d.groupState,
      protocolType: d.protocolType,
      protocol: d.protocolData,
      members: d.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, groupInstanceId: m.groupInstanceId ?? null })),
      offsets,
      totalLag: String(total),
    };
  }
}

export { KafkaClientError };
