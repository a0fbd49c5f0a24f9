/**
 * Configs and brokers, through the admin API as `kafka-configs.sh` and the Admin client do it:
 *
 * - Editing a topic's or a broker's configs with IncrementalAlterConfigs (KIP-339): SET and
 *   DELETE per key (DELETE returns the key to its default). The broker validates; a refusal is
 *   shown as Kafka's error code and message (INVALID_CONFIG, POLICY_VIOLATION, ...). A broker
 *   resource is sent to that broker, as KafkaAdminClient does.
 * - The broker page: the cluster (DescribeCluster where served, Metadata otherwise), a broker's
 *   configs (DescribeConfigs, resource type BROKER), its listeners (its `listeners` and
 *   `advertised.listeners` configs, and the endpoint clients are told), the API version ranges
 *   it serves (its ApiVersions answer, KIP-35), and, in serve mode, the requests it answered.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { DescribeCluster, type DescribeClusterResponse } from '../protocol/schemas/describe-cluster.js';
import { IncrementalAlterConfigs, type IncrementalAlterConfigsResponse } from '../protocol/schemas/incremental-alter-configs.js';
import { schemaForApi } from '../protocol/schemas/index.js';
import { ClusterError, errorText, type ClusterView, type ConfigEntry } from './cluster.js';
import type { RequestMetrics, RequestMetricsSnapshot } from '../broker/request-metrics.js';

/** ConfigResource.Type */
export const ConfigResourceType = { TOPIC: 2, BROKER: 4 } as const;
/** AlterConfigOp.OpType */
const OpType = { SET: 0, DELETE: 1 } as const;

interface ConfigChange {
  name: string;
  /** null: DELETE (back to the default); a string: SET. */
  value: string | null;
}

/** Applies the changes (or only validates them, `validateOnly`), then answers the configs as they now are. */
export async function alterConfigs(cluster: ClusterView, resourceType: number, resourceName: string, changes: ConfigChange[], validateOnly: boolean): Promise<{ validateOnly: boolean; configs: ConfigEntry[] }> {
  const body = {
    resources: [{ resourceType, resourceName, configs: changes.map((c) => ({ name: c.name, configOperation: c.value === null ? OpType.DELETE : OpType.SET, value: c.value })) }],
    validateOnly,
  };
  const client = resourceType === ConfigResourceType.BROKER ? await cluster.router.node(Number(resourceName)) : cluster.router.bootstrap;
  const r = (await client.request<IncrementalAlterConfigsResponse>(IncrementalAlterConfigs, 1, 0, body)).body;
  const res = r.responses[0];
  if (!res) throw new ClusterError('IncrementalAlterConfigs: no result', 502);
  if (res.errorCode !== ErrorCode.NONE) {
    const status = res.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : res.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED || res.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED ? 403 : 400;
    throw new ClusterError(`${errorText(res.errorCode)}${res.errorMessage ? `: ${res.errorMessage}` : ''}`, status);
  }
  return { validateOnly, configs: await cluster.configs(resourceName, resourceType) };
}

/** `{ changes: [{ name, value | null }], validateOnly? }`, checked field by field. */
export function parseConfigChanges(v: unknown, fail: (m: string) => Error): { changes: ConfigChange[]; validateOnly: boolean } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail('the body must be a JSON object');
  const changes = 'changes' in v ? v.changes : undefined;
  const validateOnly = 'validateOnly' in v ? v.validateOnly : undefined;
  if (!Array.isArray(changes) || changes.length === 0) throw fail('changes must be a non-empty array of { name, value } (value null to return to the default)');
  const out = changes.map((c: unknown) => {
    if (typeof c !== 'object' || c === null || !('name' in c) || typeof c.name !== 'string' || c.name === '') throw fail('each change needs a config name');
    const value = 'value' in c ? c.value : undefined;
    if (value !== null && typeof value !== 'string') throw fail(`the value of ${c.name} must be a string, or null to return it to its default`);
    return { name: c.name, value };
  });
  if (validateOnly !== undefined && typeof validateOnly !== 'boolean') throw fail('validateOnly must be true or false');
  return { changes: out, validateOnly: validateOnly === true };
}

interface BrokerPage {
  clusterId: string | null;
  controllerId: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  nodeId: number;
  listeners: { name: string; value: string | null }[];
  configs: ConfigEntry[];
  apiVersions: { apiKey: number; name: string; minVersion: number; maxVersion: number }[];
  requests: { apiKey: number; name: string; count: number; meanMs: number; p50Ms: number; p99Ms: number; histogram: number[] }[] | null;
  histogramBucketsMs: readonly number[];
  requestsSince: number | null;
}

/** Upper bounds in ms of the page's latency histogram; the last bar holds everything slower. */
const LATENCY_BUCKETS_MS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] as const;

/**
 * The broker's request metrics (request-metrics.ts, the `total` phase: frame complete to answer
 * written) folded into the page's coarser power-of-two bars.
 */
function requestRows(snapshot: RequestMetricsSnapshot): NonNullable<BrokerPage['requests']> {
  return snapshot.apis.map((a) => {
    const t = a.phases.total;
    const histogram = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
    for (const [upperUs, n] of t.buckets) {
      let b = 0;
      while (b < LATENCY_BUCKETS_MS.length && upperUs / 1000 > LATENCY_BUCKETS_MS[b]!) b++;
      histogram[b]! += n;
    }
    return { apiKey: a.apiKey, name: a.name, count: t.count, meanMs: t.count === 0 ? 0 : t.sumUs / t.count / 1000, p50Ms: t.p50Us / 1000, p99Ms: t.p99Us / 1000, histogram };
  });
}

export async function brokerPage(cluster: ClusterView, nodeId: number | null, metrics: RequestMetrics | undefined): Promise<BrokerPage> {
  const boot = cluster.router.bootstrap;
  let clusterId: string | null;
  let controllerId: number;
  let brokers: BrokerPage['brokers'];
  if (boot.apiVersions.has(DescribeCluster.apiKey)) {
    const d = (await boot.request<DescribeClusterResponse>(DescribeCluster, 0, 0, { includeClusterAuthorizedOperations: false })).body;
    if (d.errorCode !== ErrorCode.NONE) throw new ClusterError(`DescribeCluster: ${errorText(d.errorCode)}`, 502);
    clusterId = d.clusterId;
    controllerId = d.controllerId;
    brokers = d.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })).sort((a, b) => a.nodeId - b.nodeId);
  } else {
    ({ clusterId, controllerId, brokers } = await cluster.brokers());
  }
  const id = nodeId ?? brokers[0]?.nodeId;
  if (id === undefined) throw new ClusterError('the cluster names no broker', 502);
  const node = brokers.find((b) => b.nodeId === id);
  if (!node) throw new ClusterError(`no broker ${id} in the cluster`, 404);
  await cluster.router.metadata([]);
  const client = await cluster.router.node(id);
  const configs = await cluster.configs(String(id), ConfigResourceType.BROKER);
  // the listener settings the broker reports (Kafka reports them; a broker may not), then the endpoint clients are given
  const listeners = ['listeners', 'advertised.listeners', 'listener.security.protocol.map', 'inter.broker.listener.name']
    .map((name) => ({ name, value: configs.find((c) => c.name === name)?.value ?? null }))
    .filter((l) => l.value !== null);
  listeners.push({ name: 'endpoint in metadata', value: `${node.host}:${node.port}` });
  const apiVersions = [...client.apiVersions].map(([apiKey, v]) => ({ apiKey, name: schemaForApi(apiKey)?.name ?? `api ${apiKey}`, minVersion: v.min, maxVersion: v.max })).sort((a, b) => a.apiKey - b.apiKey);
  // the request counts are the console's own broker's (serve mode): only shown on its page
  const snapshot = metrics !== undefined && client === boot ? metrics.snapshot() : undefined;
  const requests = snapshot === undefined ? null : requestRows(snapshot);
  return { clusterId, controllerId, brokers, nodeId: id, listeners, configs, apiVersions, requests, histogramBucketsMs: LATENCY_BUCKETS_MS, requestsSince: snapshot?.sinceMs ?? null };
}
