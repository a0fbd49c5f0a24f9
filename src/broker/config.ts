/**
 * Broker configuration: Kafka's broker property names (`KafkaConfig`, `ServerLogConfigs`) parsed
 * over kafkalite's embedded defaults. Broker-level log settings (`log.segment.bytes`,
 * `message.max.bytes`, ...) become the default topic config, exactly as Kafka derives a topic's
 * config from the broker's `log.*` properties when the topic sets no override.
 *
 * kafkalite's own settings, where Kafka has no property (it leaves the page cache to the OS and
 * reads sockets through NIO), are properties with a `kafkalite.` prefix, checked here at start like
 * Kafka's own: `kafkalite.page.cache.budget.bytes`, `kafkalite.index.cache.budget.bytes`,
 * `kafkalite.background.flush.enable`, `kafkalite.mapped.tail.enable`, `kafkalite.socket.reads`,
 * `kafkalite.queued.max.response.bytes[.per.connection]`, `kafkalite.protocol.compat`.
 */
import { isIP } from 'node:net';
import { InvalidConfigError } from '../errors.js';
import { PROTOCOL_COMPATS, type ProtocolCompat } from './protocol-compat.js';
import { DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS } from '../internal-topics/metadata-log.js';
import { DEFAULT_CLEANER_CONFIG, type LogCleanerConfig } from '../storage/cleaner/log-cleaner.js';
import { DEFAULT_LOG_CONFIG, logConfigFromProperties, type LogConfig } from '../storage/log-config.js';
import { DEFAULT_INDEX_CACHE_BUDGET } from '../storage/index-cache-budget.js';
import { MIN_DESCRIPTOR_BUDGET } from '../storage/descriptor-budget.js';
import { DEFAULT_PAGE_CACHE_BUDGET } from '../storage/page-cache-budget.js';
import type { SocketReadMode } from './socket-reads.js';

export interface BrokerConfig {
  /** node.id */
  nodeId: number;
  /** Interface to bind (listeners host); 127.0.0.1 by default. */
  host: string;
  /** Port to bind; 0 picks a free one (the bound port is advertised). */
  port: number;
  /** Host clients are told to connect to (advertised.listeners); defaults to `host`. */
  advertisedHost: string;
  /** auto.create.topics.enable (Kafka default true). */
  autoCreateTopics: boolean;
  /** num.partitions for auto-created topics and CreateTopics with -1 (Kafka default 1). */
  numPartitions: number;
  /** socket.request.max.bytes (Kafka default 104857600). */
  socketRequestMaxBytes: number;
  /** queued.max.request.bytes: request bytes received and not yet handled, over all connections, before reading stops (Kafka default -1: unbounded; connection-memory.ts). */
  queuedMaxRequestBytes: number;
  /** kafkalite.queued.max.response.bytes: answer bytes the sockets have not taken, over all connections, before a connection with answers pending gets no new request (connection-memory.ts). */
  queuedMaxResponseBytes: number;
  /** kafkalite.queued.max.response.bytes.per.connection: the same for one connection (Kafka: one response in flight per channel). */
  queuedMaxResponseBytesPerConnection: number;
  /** connections.max.idle.ms: a connection with no complete request and no answer sent for this long is closed; -1 never (Kafka default 600000). */
  connectionsMaxIdleMs: number;
  /** max.connections (Kafka default 2147483647): beyond it new connections wait to be served (connection-quotas.ts). */
  maxConnections: number;
  /** max.connections.per.ip (Kafka default 2147483647): beyond it a new connection is closed. */
  maxConnectionsPerIp: number;
  /** max.connections.per.ip.overrides: `ip:count,...` (Kafka default empty). */
  maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** fetch.max.bytes: the most one Fetch answer carries, whatever the request asks (Kafka default 57671680). */
  fetchMaxBytes: number;
  /** group.initial.rebalance.delay.ms (Kafka default 3000). */
  groupInitialRebalanceDelayMs: number;
  /** transaction.max.timeout.ms (Kafka default 900000). */
  transactionMaxTimeoutMs: number;
  /** log.retention.check.interval.ms (Kafka default 300000). */
  logRetentionCheckIntervalMs: number;
  /** log.flush.scheduler.interval.ms (Kafka default Long.MAX: leave flushing to flush.ms/flush.messages). */
  logFlushSchedulerIntervalMs: number;
  /** metadata.log.max.record.bytes.between.snapshots: metadata log bytes appended before the image is snapshotted (Kafka default 20 MiB, at least 1). */
  metadataMaxBytesBetweenSnapshots: number;
  /** The log cleaner (`log.cleaner.*`): compacts topics with cleanup.policy=compact. */
  cleaner: LogCleanerConfig;
  /** kafkalite.page.cache.budget.bytes: recently appended bytes kept in the page cache, 0 leaves it to the OS (page-cache-budget.ts). */
  pageCacheBudgetBytes: number;
  /** kafkalite.index.cache.budget.bytes: read-only index entries kept in memory (index-cache-budget.ts). */
  indexCacheBudgetBytes: number;
  /** kafkalite.open.files.budget: segment and index descriptors kept open (descriptor-budget.ts); undefined: half the process limit. */
  openFileBudget: number | undefined;
  /** kafkalite.background.flush.enable: rolled segments are flushed on the thread pool (background-sync.ts). */
  backgroundFlush: boolean;
  /** kafkalite.mapped.tail.enable: small Produce appends copied into a mapped window of the active segment (mapped-tail.ts). */
  mappedTail: boolean;
  /** kafkalite.socket.reads: `direct` into the broker's buffers, or `stream` (Node's 'data' events; socket-reads.ts). */
  socketReads: SocketReadMode;
  /** kafkalite.protocol.compat: `3.9` serves every version Kafka 3.9 does, `4.0` only Kafka 4.x's (protocol-compat.ts). */
  protocolCompat: ProtocolCompat;
  /** The broker-wide default topic config (from the `log.*` properties). */
  logConfig: LogConfig;
  /** The properties as given (DescribeConfigs on the broker resource reports them as STATIC_BROKER_CONFIG). */
  overrides: Record<string, string>;
}

export const DEFAULT_BROKER_CONFIG: Readonly<BrokerConfig> = Object.freeze({
  nodeId: 1,
  host: '127.0.0.1',
  port: 9092,
  advertisedHost: '127.0.0.1',
  autoCreateTopics: true,
  numPartitions: 1,
  socketRequestMaxBytes: 104857600,
  fetchMaxBytes: 57671680,
  queuedMaxRequestBytes: 256 * 1024 * 1024,
  queuedMaxResponseBytes: 256 * 1024 * 1024,
  queuedMaxResponseBytesPerConnection: 1024 * 1024,
  connectionsMaxIdleMs: 600000,
  maxConnections: 2147483647,
  maxConnectionsPerIp: 2147483647,
  maxConnectionsPerIpOverrides: new Map<string, number>(),
  groupInitialRebalanceDelayMs: 3000,
  transactionMaxTimeoutMs: 900000,
  logRetentionCheckIntervalMs: 300000,
  logFlushSchedulerIntervalMs: 1000,
  metadataMaxBytesBetweenSnapshots: DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS,
  cleaner: DEFAULT_CLEANER_CONFIG,
  pageCacheBudgetBytes: DEFAULT_PAGE_CACHE_BUDGET,
  indexCacheBudgetBytes: DEFAULT_INDEX_CACHE_BUDGET,
  openFileBudget: undefined,
  backgroundFlush: true,
  mappedTail: true,
  socketReads: 'direct',
  protocolCompat: '3.9',
  logConfig: DEFAULT_LOG_CONFIG,
  overrides: {},
});

/** Broker property -> topic config it sets the default of (Kafka `LogConfig.TopicConfigSynonyms`). */
export const BROKER_SYNONYMS: Readonly<Record<string, string>> = {
  'log.segment.bytes': 'segment.bytes',
  'log.roll.ms': 'segment.ms',
  'log.roll.jitter.ms': 'segment.jitter.ms',
  'log.index.size.max.bytes': 'segment.index.bytes',
  'log.index.interval.bytes': 'index.interval.bytes',
  'log.flush.interval.messages': 'flush.messages',
  'log.flush.interval.ms': 'flush.ms',
  'log.retention.ms': 'retention.ms',
  'log.retention.bytes': 'retention.bytes',
  'log.cleanup.policy': 'cleanup.policy',
  'log.cleaner.delete.retention.ms': 'delete.retention.ms',
  'log.cleaner.min.compaction.lag.ms': 'min.compaction.lag.ms',
  'log.cleaner.max.compaction.lag.ms': 'max.compaction.lag.ms',
  'log.cleaner.min.cleanable.ratio': 'min.cleanable.dirty.ratio',
  'log.segment.delete.delay.ms': 'file.delete.delay.ms',
  'message.max.bytes': 'max.message.bytes',
  'compression.type': 'compression.type',
  'compression.gzip.level': 'compression.gzip.level',
  'compression.lz4.level': 'compression.lz4.level',
  'compression.zstd.level': 'compression.zstd.level',
  'log.message.timestamp.type': 'message.timestamp.type',
  'log.message.timestamp.before.max.ms': 'message.timestamp.before.max.ms',
  'log.message.timestamp.after.max.ms': 'message.timestamp.after.max.ms',
  'log.message.format.version': 'message.format.version',
  'log.preallocate': 'preallocate',
};

/** Kafka's coarser retention and roll units (`log.retention.hours` < `.minutes` < `.ms` by precedence). */
const UNIT_SYNONYMS: readonly [string, string, number][] = [
  ['log.retention.hours', 'retention.ms', 3600000],
  ['log.retention.minutes', 'retention.ms', 60000],
  ['log.roll.hours', 'segment.ms', 3600000],
  ['log.roll.jitter.hours', 'segment.jitter.ms', 3600000],
];

function int(name: string, raw: string, min: number, max = 2147483647): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Not a number of type INT`);
  const v = Number(raw.trim());
  if (v < min || v > max) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Value must be at least ${min}`);
  return v;
}

function long(name: string, raw: string, min: number): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Not a number of type LONG`);
  const v = Number(raw.trim());
  if (v < min || !Number.isSafeInteger(v)) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Value must be at least ${min}`);
  return v;
}

function oneOf<T extends string>(name: string, raw: string, values: readonly T[]): T {
  const v = raw.trim() as T;
  if (!values.includes(v)) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: String must be one of: ${values.join(', ')}`);
  return v;
}

function bool(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Expected value to be either true or false`);
  return v === 'true';
}

/** A byte bound, or -1 (as Kafka's queued.max.request.bytes) for none: Infinity. */
function boundOrUnbounded(name: string, raw: string): number {
  const v = long(name, raw, -1);
  if (v === 0) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Value must be -1 or at least 1`);
  return v < 0 ? Infinity : v;
}

/**
 * `max.connections.per.ip.overrides`: `ip:count` pairs, comma-separated (Kafka's format). Kafka
 * also resolves host names (InetAddress.getByName); kafkalite takes IP literals only, since the
 * broker compares them with a socket's remote address and a config check cannot wait for DNS.
 */
function perIpOverrides(name: string, raw: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of raw.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const at = entry.lastIndexOf(':');
    const ip = at < 0 ? '' : normalizeIp(entry.slice(0, at).replace(/^\[|\]$/g, ''));
    if (at < 0 || isIP(ip) === 0) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: expected ip:count pairs separated by commas, got ${entry}`);
    out.set(ip, int(name, entry.slice(at + 1), 0));
  }
  return out;
}

/** An IPv4 address as an IPv4-mapped IPv6 remote address shows it (`::ffff:1.2.3.4`) is that IPv4 address. */
export function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** A broker config from Kafka broker properties over kafkalite's defaults; unknown names are refused. */
export function brokerConfigFromProperties(props: Readonly<Record<string, string>>, base: Readonly<BrokerConfig> = DEFAULT_BROKER_CONFIG): BrokerConfig {
  const c: BrokerConfig = { ...base, overrides: { ...base.overrides, ...props } };
  const topicProps: Record<string, string> = {};
  // coarse units first so the finer property wins, as Kafka's precedence does
  for (const [name, topicName, factor] of UNIT_SYNONYMS) {
    const raw = props[name];
    if (raw !== undefined) topicProps[topicName] = String(int(name, raw, -1, Number.MAX_SAFE_INTEGER) * factor);
  }
  for (const [name, raw] of Object.entries(props)) {
    if (UNIT_SYNONYMS.some(([n]) => n === name)) continue;
    const synonym = BROKER_SYNONYMS[name];
    if (synonym !== undefined) {
      topicProps[synonym] = raw;
      continue;
    }
    switch (name) {
      case 'node.id':
      case 'broker.id':
        c.nodeId = int(name, raw, 0);
        break;
      case 'auto.create.topics.enable':
        c.autoCreateTopics = bool(name, raw);
        break;
      case 'num.partitions':
        c.numPartitions = int(name, raw, 1);
        break;
      case 'socket.request.max.bytes':
        c.socketRequestMaxBytes = int(name, raw, 1);
        break;
      case 'queued.max.request.bytes':
        // Kafka's -1 (no pool) is kept as "unbounded"; every connection still stops at its own queue bound
        c.queuedMaxRequestBytes = boundOrUnbounded(name, raw);
        break;
      case 'kafkalite.queued.max.response.bytes':
        c.queuedMaxResponseBytes = boundOrUnbounded(name, raw);
        break;
      case 'kafkalite.queued.max.response.bytes.per.connection':
        c.queuedMaxResponseBytesPerConnection = long(name, raw, 0);
        break;
      case 'connections.max.idle.ms':
        c.connectionsMaxIdleMs = long(name, raw, -1);
        break;
      case 'max.connections':
        c.maxConnections = int(name, raw, 0);
        break;
      case 'max.connections.per.ip':
        c.maxConnectionsPerIp = int(name, raw, 0);
        break;
      case 'max.connections.per.ip.overrides':
        c.maxConnectionsPerIpOverrides = perIpOverrides(name, raw);
        break;
      case 'fetch.max.bytes':
        c.fetchMaxBytes = int(name, raw, 1024);
        break;
      case 'group.initial.rebalance.delay.ms':
        c.groupInitialRebalanceDelayMs = int(name, raw, 0);
        break;
      case 'transaction.max.timeout.ms':
        c.transactionMaxTimeoutMs = int(name, raw, 1);
        break;
      case 'log.retention.check.interval.ms':
        c.logRetentionCheckIntervalMs = int(name, raw, 1);
        break;
      case 'log.flush.scheduler.interval.ms':
        c.logFlushSchedulerIntervalMs = int(name, raw, 1);
        break;
      case 'metadata.log.max.record.bytes.between.snapshots':
        c.metadataMaxBytesBetweenSnapshots = long(name, raw, 1);
        break;
      case 'log.cleaner.enable':
        c.cleaner = { ...c.cleaner, enable: bool(name, raw) };
        break;
      case 'log.cleaner.threads':
        c.cleaner = { ...c.cleaner, threads: int(name, raw, 1) };
        break;
      case 'log.cleaner.dedupe.buffer.size':
        c.cleaner = { ...c.cleaner, dedupeBufferSize: int(name, raw, 1024 * 1024) };
        break;
      case 'log.cleaner.io.buffer.size':
        c.cleaner = { ...c.cleaner, ioBufferSize: int(name, raw, 1024) };
        break;
      case 'log.cleaner.backoff.ms':
        c.cleaner = { ...c.cleaner, backoffMs: int(name, raw, 0) };
        break;
      case 'advertised.host.name':
        c.advertisedHost = raw;
        break;
      case 'kafkalite.page.cache.budget.bytes':
        c.pageCacheBudgetBytes = long(name, raw, 0);
        break;
      case 'kafkalite.index.cache.budget.bytes':
        c.indexCacheBudgetBytes = long(name, raw, 0);
        break;
      case 'kafkalite.open.files.budget':
        c.openFileBudget = int(name, raw, MIN_DESCRIPTOR_BUDGET);
        break;
      case 'kafkalite.background.flush.enable':
        c.backgroundFlush = bool(name, raw);
        break;
      case 'kafkalite.mapped.tail.enable':
        c.mappedTail = bool(name, raw);
        break;
      case 'kafkalite.socket.reads':
        c.socketReads = oneOf(name, raw, ['direct', 'stream'] as const);
        break;
      case 'kafkalite.protocol.compat':
        c.protocolCompat = oneOf(name, raw, PROTOCOL_COMPATS);
        break;
      default:
        throw new InvalidConfigError(`Unknown broker config name: ${name}`);
    }
  }
  c.logConfig = logConfigFromProperties(topicProps, base.logConfig);
  // KafkaConfig's own check: a zero default only makes sense with overrides naming who may connect
  if (c.maxConnectionsPerIp === 0 && c.maxConnectionsPerIpOverrides.size === 0) {
    throw new InvalidConfigError('Invalid value 0 for configuration max.connections.per.ip: per-IP limit of 0 requires max.connections.per.ip.overrides');
  }
  return c;
}
