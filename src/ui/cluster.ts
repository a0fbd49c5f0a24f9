/**
 * What the console asks a running cluster, through the Kafka protocol only (KafkaClient): topics
 * and partitions (Metadata), their offsets (ListOffsets: earliest, latest, and latest under
 * read_committed, which is the last stable offset, KIP-98), effective configs (DescribeConfigs),
 * messages (Fetch), produce (Produce), consumer groups with lag (ListGroups, DescribeGroups,
 * OffsetFetch against ListOffsets latest, as kafka-consumer-groups.sh --describe computes it).
 *
 * It talks to the one bootstrap broker: enough for kafkalite and single-broker clusters; a
 * multi-broker cluster would need requests routed to each partition's leader and the group's
 * coordinator (FindCoordinator).
 */
import { ErrorCode, errorName } from '../protocol/error-codes.js';
import { DescribeConfigs, type DescribeConfigsResponse } from '../protocol/schemas/describe-configs.js';
import { DescribeGroups, type DescribeGroupsResponse } from '../protocol/schemas/describe-groups.js';
import { Fetch, type FetchResponse } from '../protocol/schemas/fetch.js';
import { ListGroups, type ListGroupsResponse } from '../protocol/schemas/list-groups.js';
import { ListOffsets, type ListOffsetsRequest, type ListOffsetsResponse } from '../protocol/schemas/list-offsets.js';
import { Metadata, type MetadataResponse } from '../protocol/schemas/metadata.js';
import { OffsetFetch, type OffsetFetchResponse } from '../protocol/schemas/offset-fetch.js';
import { Produce, type ProduceResponse } from '../protocol/schemas/produce.js';
import { encodeRecordBatch } from '../record/builder.js';
import { KafkaClient, KafkaClientError } from './kafka-client.js';
import { messagesOfBatches, type MessageView, type StartPosition } from './messages.js';

/** ListOffsets' special timestamps (Kafka's ListOffsetsRequest.EARLIEST_TIMESTAMP, LATEST_TIMESTAMP). */
const EARLIEST = -2n;
const LATEST = -1n;
const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;
/** ConfigResource.Type.TOPIC */
const TOPIC_RESOURCE = 2;
/**
 * Bytes one Fetch may bring back for a page of messages: small, since a page is 50 messages; the
 * first batch comes whole whatever its size (KIP-74), so a large batch still arrives.
 */
const PAGE_FETCH_BYTES = 256 * 1024;

export interface TopicSummary {
  name: string;
  internal: boolean;
  partitions: number;
  error?: string;
}

export interface PartitionOffsets {
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

export interface GroupSummary {
  groupId: string;
  protocolType: string;
  state: string;
}

export interface GroupDetail {
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
  ) {
    super(message);
  }
}

/** DescribeConfigsResponse.ConfigSource names (KIP-226). */
const CONFIG_SOURCES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG', 'CLIENT_METRICS_CONFIG', 'GROUP_CONFIG'];

function errorText(code: number): string {
  return errorName(code) ?? `error ${code}`;
}

export class ClusterView {
  constructor(private readonly client: KafkaClient) {}

  static async connect(bootstrap: string): Promise<ClusterView> {
    return new ClusterView(await KafkaClient.connect(bootstrap));
  }

  get bootstrap(): string {
    return this.client.bootstrap;
  }

  close(): void {
    this.client.close();
  }

  get isClosed(): boolean {
    return this.client.isClosed;
  }

  private async metadata(topics: string[] | null): Promise<MetadataResponse> {
    // v9 (flexible, with allowAutoTopicCreation false so browsing never creates a topic); v4 at least
    const body = { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };
    return (await this.client.request<MetadataResponse>(Metadata, 9, 4, body)).body;
  }

  async brokers(): Promise<{ clusterId: string | null; controllerId: number; brokers: { nodeId: number; host: string; port: number }[] }> {
    const m = await this.metadata([]);
    return { clusterId: m.clusterId ?? null, controllerId: m.controllerId ?? -1, brokers: m.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })) };
  }

  async topics(): Promise<(TopicSummary & { endOffsets: string; messages: string })[]> {
    const m = await this.metadata(null);
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
    const m = await this.metadata([name]);
    const t = m.topics[0];
    if (!t || t.errorCode !== ErrorCode.NONE) throw new ClusterError(`topic ${name}: ${t ? errorText(t.errorCode) : 'not in the answer'}`, 404);
    const parts = t.partitions.map((p) => ({ partition: p.partitionIndex, leader: p.leaderId })).sort((a, b) => a.partition - b.partition);
    const offsets = await this.offsets([{ name, partitions: parts }]);
    return { name, internal: t.isInternal ?? false, partitions: offsets.get(name) ?? [] };
  }

  private async listOffsets(topics: { name: string; partitions: number[] }[], timestamp: bigint, isolationLevel: number): Promise<Map<string, bigint>> {
    const req: ListOffsetsRequest = {
      replicaId: -1,
      isolationLevel,
      topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp })) })),
    };
    // v2 adds the isolation level (the LSO); v5 is the last non-flexible version kafkalite and Kafka share
    const r = (await this.client.request<ListOffsetsResponse>(ListOffsets, 5, 2, req)).body;
    const out = new Map<string, bigint>();
    for (const t of r.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`ListOffsets ${t.name}-${p.partitionIndex}: ${errorText(p.errorCode)}`, 502);
        out.set(`${t.name}\0${p.partitionIndex}`, p.offset ?? -1n);
      }
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

  /** The topic's effective configs with their sources (DescribeConfigs v1+: configSource). */
  async configs(name: string): Promise<ConfigEntry[]> {
    const body = { resources: [{ resourceType: TOPIC_RESOURCE, resourceName: name, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false };
    const r = (await this.client.request<DescribeConfigsResponse>(DescribeConfigs, 4, 1, body)).body;
    const res = r.results[0];
    if (!res) throw new ClusterError(`DescribeConfigs ${name}: no result`, 502);
    if (res.errorCode !== ErrorCode.NONE) throw new ClusterError(`DescribeConfigs ${name}: ${errorText(res.errorCode)}${res.errorMessage ? ` (${res.errorMessage})` : ''}`, 404);
    return res.configs
      .map((c) => ({ name: c.name, value: c.value, source: CONFIG_SOURCES[c.configSource ?? 0] ?? String(c.configSource), readOnly: c.readOnly, sensitive: c.isSensitive }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The first offset whose timestamp is at or after `timestamp` (ListOffsets by time, KIP-79); the end offset when none. */
  async offsetForTimestamp(topic: string, partition: number, timestamp: bigint): Promise<bigint> {
    const at = (await this.listOffsets([{ name: topic, partitions: [partition] }], timestamp, READ_UNCOMMITTED)).get(`${topic}\0${partition}`) ?? -1n;
    if (at >= 0n) return at;
    return (await this.listOffsets([{ name: topic, partitions: [partition] }], LATEST, READ_UNCOMMITTED)).get(`${topic}\0${partition}`) ?? 0n;
  }

  /** A page of messages from a start position (Fetch from the resolved offset, read_uncommitted). */
  async messages(topic: string, partition: number, from: StartPosition, limit: number): Promise<{ messages: MessageView[]; startOffset: string; endOffset: string; from: string }> {
    const key = `${topic}\0${partition}`;
    const q = [{ name: topic, partitions: [partition] }];
    const [startMap, endMap] = await Promise.all([this.listOffsets(q, EARLIEST, READ_UNCOMMITTED), this.listOffsets(q, LATEST, READ_UNCOMMITTED)]);
    const start = startMap.get(key) ?? 0n;
    const end = endMap.get(key) ?? 0n;
    let offset: bigint;
    if (from.kind === 'beginning') offset = start;
    else if (from.kind === 'end') offset = end - BigInt(limit) > start ? end - BigInt(limit) : start;
    else if (from.kind === 'offset') offset = from.offset < start ? start : from.offset;
    else offset = await this.offsetForTimestamp(topic, partition, from.timestamp);
    const messages: MessageView[] = [];
    let next = offset;
    // a few Fetches at most: a page stops at `limit` messages or at the end offset
    for (let round = 0; round < 8 && messages.length < limit && next < end; round++) {
      const body = {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: PAGE_FETCH_BYTES,
        isolationLevel: READ_UNCOMMITTED,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: next, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: PAGE_FETCH_BYTES }] }],
        forgottenTopicsData: [],
        rackId: '',
      };
      // v11: the last version naming topics by name that Kafka 4 and kafkalite both serve; v4 at least
      const r = (await this.client.request<FetchResponse>(Fetch, 11, 4, body)).body;
      const p = r.responses[0]?.partitions[0];
      if (!p) throw new ClusterError(`Fetch ${topic}-${partition}: no partition in the answer`, 502);
      if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`Fetch ${topic}-${partition}: ${errorText(p.errorCode)}`, p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : 502);
      if (!p.records || p.records.length === 0) break;
      const page = messagesOfBatches(p.records, partition, next, limit - messages.length);
      messages.push(...page.messages);
      if (page.nextOffset <= next) break;
      next = page.nextOffset;
    }
    return { messages, startOffset: String(start), endOffset: String(end), from: String(offset) };
  }

  /** Produces one record (acks=all) and returns its offset. */
  async produce(topic: string, partition: number, record: { key: string | null; value: string | null; headers: { key: string; value: string }[] }): Promise<{ offset: string }> {
    const batch = encodeRecordBatch([{ key: record.key ?? undefined, value: record.value ?? undefined, headers: record.headers, timestamp: Date.now() }]);
    const body = { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: Buffer.from(batch) }] }] };
    // v3 is the first with record batch v2; v8 the last non-flexible
    const r = (await this.client.request<ProduceResponse>(Produce, 8, 3, body)).body;
    const p = r.responses[0]?.partitionResponses[0];
    if (!p) throw new ClusterError('Produce: no partition in the answer', 502);
    if (p.errorCode !== ErrorCode.NONE) throw new ClusterError(`Produce ${topic}-${partition}: ${errorText(p.errorCode)}${p.errorMessage ? ` (${p.errorMessage})` : ''}`, p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : 400);
    return { offset: String(p.baseOffset) };
  }

  async groups(): Promise<GroupSummary[]> {
    const r = (await this.client.request<ListGroupsResponse>(ListGroups, 4, 0, { statesFilter: [] })).body;
    if (r.errorCode !== ErrorCode.NONE) throw new ClusterError(`ListGroups: ${errorText(r.errorCode)}`, 502);
    return r.groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, state: g.groupState ?? '' })).sort((a, b) => (a.groupId < b.groupId ? -1 : 1));
  }

  async group(groupId: string): Promise<GroupDetail> {
    const d = (await this.client.request<DescribeGroupsResponse>(DescribeGroups, 5, 0, { groups: [groupId], includeAuthorizedOperations: false })).body.groups[0];
    if (!d) throw new ClusterError(`DescribeGroups ${groupId}: no group in the answer`, 502);
    if (d.errorCode !== ErrorCode.NONE) throw new ClusterError(`group ${groupId}: ${errorText(d.errorCode)}`, 404);
    if (d.groupState === 'Dead') throw new ClusterError(`group ${groupId} does not exist`, 404);
    // v7: one group, all its committed offsets (topics null, v2+)
    const f = (await this.client.request<OffsetFetchResponse>(OffsetFetch, 7, 2, { groupId, topics: null, requireStable: false })).body;
    if ((f.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) throw new ClusterError(`OffsetFetch ${groupId}: ${errorText(f.errorCode ?? ErrorCode.NONE)}`, 502);
    const committed = (f.topics ?? []).flatMap((t) => t.partitions.filter((p) => p.errorCode === ErrorCode.NONE && p.committedOffset >= 0n).map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata })));
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
