/**
 * The console's JSON API as the page sees it: one fetch helper (errors become exceptions carrying
 * the server's message) and the shapes of the answers the pages read (src/ui/server.ts serves them).
 */

export async function api<T>(path: string, options?: RequestInit): Promise<T> {
  const res = await fetch('/api/' + path, options);
  const body = await res.json().catch(() => ({ error: res.status + ' ' + res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body as T;
}

/** POST (or DELETE) a JSON body. */
export function send<T>(path: string, body: unknown, method = 'POST'): Promise<T> {
  return api<T>(path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

export const enc = encodeURIComponent;

export interface Info { mode: 'serve' | 'bootstrap' | 'offline'; bootstrap: string | null; dataDir: string | null; readOnly: boolean }
export interface TopicRow { name: string; partitions: number; messages: string; endOffsets: string; bytes: number | null }
export interface TopicSample { messages: string; endOffsets: string; rate: number | null; bytes: number | null }
export interface Sample<V> { t: number; value: V }
export interface PartitionRow { partition: number; leader: number; startOffset: string; endOffset: string; lastStableOffset: string | null; messages: string }
export interface Topic { name: string; partitions: PartitionRow[] }
export interface Config { name: string; value: string | null; source: string; readOnly: boolean; sensitive: boolean }
export interface Header { key: string; value: string | null }
export interface Message {
  offset: string; timestamp: string; key: string | null; value: string | null; headers: Header[];
  batch: { codec: string; magic: number; baseOffset: string; lastOffset: string; producerId: string; producerEpoch: number; baseSequence: number; transactional: boolean };
}
export interface MessagePage { messages: Message[]; direction: 'forward' | 'backward'; from: string; startOffset: string; endOffset: string; scanned: number; next: string | null }
export interface GroupRow { groupId: string; state: string; protocolType: string }
export interface Group {
  groupId: string; state: string; protocol: string; totalLag: string;
  members: { memberId: string; clientId: string; clientHost: string; groupInstanceId: string | null }[];
  offsets: { topic: string; partition: number; committedOffset: string; endOffset: string; lag: string; metadata: string | null }[];
}
export interface LagSample { state: string; totalLag: string; partitions: Record<string, string> }
export interface ResetPlan { executed: boolean; partitions: { topic: string; partition: number; currentOffset: string | null; newOffset: string }[] }
export interface Broker {
  nodeId: number; clusterId: string | null; controllerId: number;
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  listeners: { name: string; value: string | null }[];
  requests: { name: string; count: number; meanMs: number; p50Ms: number; p99Ms: number; histogram: number[] }[] | null;
  requestsSince: number; histogramBucketsMs: number[];
  apiVersions: { apiKey: number; name: string; minVersion: number; maxVersion: number }[];
  configs: Config[];
}
export interface Transaction { transactionalId: string; state: string; error: string | null; open: boolean; producerId: string; producerEpoch: number; ageMs: number | null; timeoutMs: number; partitions: { topic: string; partitions: number[] }[] }
export interface Producers {
  errors: string[]; truncated: boolean;
  producers: { topic: string; partition: number; producerId: string; producerEpoch: number; lastSequence: number; lastTimestamp: string; coordinatorEpoch: number; currentTxnStartOffset: string }[];
}
export interface DiskTopic { name: string; partitions: { partition: number; segments: number; bytes: number; startOffset: string | null; endOffset: string | null }[] }
export interface SegmentRow { baseOffset: string; sizeInBytes: number; batches: number; firstOffset: string | null; nextOffset: string; maxTimestamp: string | null; offsetIndexEntries: number; timeIndexEntries: number; active: boolean }
export interface Segment {
  sizeInBytes: number; truncated: boolean;
  batches: { position: number; sizeInBytes: number; magic: number; baseOffset: string | null; lastOffset: string; maxTimestamp: string }[];
  offsetIndex: { offset: string; position: number }[];
  timeIndex: { timestamp: string; offset: string }[];
}
export interface Lookup {
  offset: string; segments: string[]; segment: string | null;
  probes: { lo: number; hi: number; mid: number; entryOffset: string; position: number; goes: string }[];
  indexEntry: { slot: number; offset: string; position: number } | null;
  scanned: { position: number; lastOffset: string }[];
  batch: { position: number; lastOffset: string } | null;
}
export interface Batch {
  magic: number; sizeInBytes: number; hex: string; records: number | null;
  crc: { algorithm: string; coveredFrom: number; stored: string; computed: string; valid: boolean };
  fields: { name: string; offset: number; size: number; value: string; hex: string }[];
  attributes: { bit: string; value: string }[];
  meta: { codec: string; baseOffset: string; lastOffset: string };
}
