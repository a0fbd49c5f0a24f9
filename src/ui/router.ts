/**
 * Which broker of a cluster each of the console's requests goes to, as Kafka's clients route them:
 * a partition's Produce, Fetch, ListOffsets and DescribeProducers to its leader (learnt from
 * Metadata, as `MetadataCache`/`Metadata` in the Java client), a group's requests to its
 * coordinator and a transactional id's to its transaction coordinator (FindCoordinator, KIP-699
 * batched from v4), cluster-wide listings (ListGroups, ListTransactions) to every broker. One
 * connection per broker, made at first use; on a single-node cluster that is the bootstrap one.
 */
import { ErrorCode, errorName } from '../protocol/error-codes.js';
import { FindCoordinator, type FindCoordinatorResponse } from '../protocol/schemas/find-coordinator.js';
import { Metadata, type MetadataResponse } from '../protocol/schemas/metadata.js';
import { KafkaClient, KafkaClientError } from './kafka-client.js';

/** FindCoordinatorRequest.CoordinatorType */
export const CoordinatorType = { GROUP: 0, TRANSACTION: 1 } as const;

interface BrokerNode {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

function partitionKey(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

export class ClusterRouter {
  private readonly clients = new Map<string, Promise<KafkaClient>>();
  private readonly nodes = new Map<number, BrokerNode>();
  private readonly leaders = new Map<string, number>();

  constructor(private readonly bootstrapClient: KafkaClient) {
    this.clients.set(bootstrapClient.bootstrap, Promise.resolve(bootstrapClient));
  }

  get bootstrap(): KafkaClient {
    return this.bootstrapClient;
  }

  get isClosed(): boolean {
    return this.bootstrapClient.isClosed;
  }

  close(): void {
    for (const c of this.clients.values()) void c.then((x) => x.close(), () => undefined);
    this.clients.clear();
  }

  /** Metadata through the bootstrap broker; every answer refreshes the brokers and the leaders known. */
  async metadata(topics: string[] | null): Promise<MetadataResponse> {
    // v9 (flexible); from v4 with allowAutoTopicCreation false, so browsing never creates a topic.
    // v1-3 (librdkafka's mock cluster serves only 0-2) cannot say so: a broker with
    // auto.create.topics.enable may create a topic named there, as it would for any old client.
    const served = this.bootstrapClient.apiVersions.get(Metadata.apiKey)?.max ?? 0;
    const names = topics === null ? null : topics.map((name) => ({ name }));
    const body = served >= 4 ? { topics: names, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false } : { topics: names };
    const m = (await this.bootstrapClient.request<MetadataResponse>(Metadata, 9, 1, body)).body;
    this.learn(m);
    return m;
  }

  private learn(m: MetadataResponse): void {
    for (const b of m.brokers) this.nodes.set(b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null });
    for (const t of m.topics) {
      if (t.name === null || t.errorCode !== ErrorCode.NONE) continue;
      for (const p of t.partitions) {
        if (p.leaderId >= 0) this.leaders.set(partitionKey(t.name, p.partitionIndex), p.leaderId);
        else this.leaders.delete(partitionKey(t.name, p.partitionIndex));
      }
    }
  }

  /** The brokers the last Metadata named. */
  knownNodes(): BrokerNode[] {
    return [...this.nodes.values()].sort((a, b) => a.nodeId - b.nodeId);
  }

  /** A connection to one broker by node id (made at first use, made again after it closed). */
  async node(nodeId: number): Promise<KafkaClient> {
    let n = this.nodes.get(nodeId);
    if (!n) {
      await this.metadata([]);
      n = this.nodes.get(nodeId);
    }
    if (!n) throw new KafkaClientError(`no broker ${nodeId} in the cluster's metadata`);
    return this.connection(`${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`, n);
  }

  private async connection(address: string, n: BrokerNode): Promise<KafkaClient> {
    const current = this.clients.get(address);
    if (current) {
      const c = await current.catch(() => undefined);
      if (c && !c.isClosed) return c;
    }
    // the bootstrap broker may advertise another name for itself: same host and port is the same broker
    const b = this.bootstrapClient;
    if (!b.isClosed && b.host === n.host && b.port === n.port) return b;
    const next = KafkaClient.connect(address);
    this.clients.set(address, next);
    return next;
  }

  /**
   * A connection of its own to a broker, for a long poll (the live tail): a connection answers in
   * order, so a Fetch waiting there would hold up every other request behind it. The caller closes it.
   */
  async dedicated(nodeId: number): Promise<KafkaClient> {
    if (!this.nodes.has(nodeId)) await this.metadata([]);
    const n = this.nodes.get(nodeId);
    if (!n) throw new KafkaClientError(`no broker ${nodeId} in the cluster's metadata`);
    return KafkaClient.connect(`${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`);
  }

  /** The leader of each partition asked for; partitions not known yet are looked up with one Metadata. */
  async leaderOf(topic: string, partition: number, refresh = false): Promise<number> {
    const k = partitionKey(topic, partition);
    if (refresh || !this.leaders.has(k)) await this.metadata([topic]);
    const leader = this.leaders.get(k);
    if (leader === undefined) throw new KafkaClientError(`no leader known for ${topic}-${partition}`);
    return leader;
  }

  /** Partitions grouped by their leaders' node ids. */
  async byLeader<P extends { topic: string; partition: number }>(partitions: readonly P[]): Promise<Map<number, P[]>> {
    const unknown = [...new Set(partitions.filter((p) => !this.leaders.has(partitionKey(p.topic, p.partition))).map((p) => p.topic))];
    if (unknown.length > 0) await this.metadata(unknown);
    const out = new Map<number, P[]>();
    for (const p of partitions) {
      const leader = this.leaders.get(partitionKey(p.topic, p.partition));
      if (leader === undefined) throw new KafkaClientError(`no leader known for ${p.topic}-${p.partition}`);
      out.set(leader, [...(out.get(leader) ?? []), p]);
    }
    return out;
  }

  /** Forgets what a NOT_LEADER_OR_FOLLOWER (or similar) answer said is stale. */
  forgetLeader(topic: string, partition: number): void {
    this.leaders.delete(partitionKey(topic, partition));
  }

  /** The coordinator of a group or transactional id (FindCoordinator; v4+ batched keys, v1-3 one key). */
  async coordinator(key: string, keyType: number): Promise<KafkaClient> {
    // the body must hold at the version chosen: v4+ batches the keys, v1-3 names one
    const batched = (this.bootstrapClient.apiVersions.get(FindCoordinator.apiKey)?.max ?? 0) >= 4;
    const r = await this.bootstrapClient.request<FindCoordinatorResponse>(FindCoordinator, 4, 1, batched ? { keyType, coordinatorKeys: [key] } : { key, keyType });
    const c = r.version >= 4 ? r.body.coordinators?.[0] : { nodeId: r.body.nodeId ?? -1, host: r.body.host ?? '', port: r.body.port ?? -1, errorCode: r.body.errorCode ?? ErrorCode.NONE, errorMessage: r.body.errorMessage ?? null };
    if (!c) throw new KafkaClientError(`FindCoordinator ${key}: no coordinator in the answer`);
    if (c.errorCode !== ErrorCode.NONE) throw new KafkaClientError(`FindCoordinator ${key}: ${errorName(c.errorCode) ?? c.errorCode}${c.errorMessage ? ` (${c.errorMessage})` : ''}`);
    const n = { nodeId: c.nodeId, host: c.host, port: c.port, rack: null };
    this.nodes.set(c.nodeId, { ...n, rack: this.nodes.get(c.nodeId)?.rack ?? null });
    return this.connection(`${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}`, n);
  }

  /** One connection to every broker the cluster's metadata names (for cluster-wide listings). */
  async everyBroker(): Promise<{ nodeId: number; client: KafkaClient }[]> {
    await this.metadata([]);
    return Promise.all(this.knownNodes().map(async (n) => ({ nodeId: n.nodeId, client: await this.node(n.nodeId) })));
  }
}
