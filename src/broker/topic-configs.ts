/**
 * Topic configs as DescribeConfigs reports them: every name Kafka's `LogConfig` defines, its value
 * for a topic, its type and where the value came from (topic override, broker property, default).
 * librdkafka's admin does read-modify-write through this, so every config is listed, not only the
 * overrides (`ConfigHelper.describeConfigs`, KIP-133).
 */
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../storage/log-config.js';
import { BROKER_SYNONYMS } from './config.js';

/** DescribeConfigsResponse ConfigType values (`ConfigDef.Type` order). */
export const ConfigType = { BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7 } as const;
/** DescribeConfigsResponse ConfigSource values (`DescribeConfigsResponse.ConfigSource`). */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;

export interface TopicConfigDef {
  name: string;
  type: number;
  value: (c: LogConfig) => string;
}

const s = (v: number | bigint | boolean | string): string => String(v);

/** Kafka's topic config names (4.0 `LogConfig.configNames()`), with kafkalite's value for each. */
export const TOPIC_CONFIG_DEFS: readonly TopicConfigDef[] = [
  { name: 'cleanup.policy', type: ConfigType.LIST, value: (c) => c.cleanupPolicy },
  { name: 'compression.gzip.level', type: ConfigType.INT, value: (c) => s(c.compressionGzipLevel) },
  { name: 'compression.lz4.level', type: ConfigType.INT, value: (c) => s(c.compressionLz4Level) },
  { name: 'compression.type', type: ConfigType.STRING, value: (c) => c.compressionType },
  { name: 'compression.zstd.level', type: ConfigType.INT, value: (c) => s(c.compressionZstdLevel) },
  { name: 'delete.retention.ms', type: ConfigType.LONG, value: (c) => s(c.deleteRetentionMs) },
  { name: 'file.delete.delay.ms', type: ConfigType.LONG, value: (c) => s(c.fileDeleteDelayMs) },
  { name: 'flush.messages', type: ConfigType.LONG, value: (c) => s(c.flushMessages) },
  { name: 'flush.ms', type: ConfigType.LONG, value: (c) => s(c.flushMs) },
  { name: 'follower.replication.throttled.replicas', type: ConfigType.LIST, value: () => '' },
  { name: 'index.interval.bytes', type: ConfigType.INT, value: (c) => s(c.indexIntervalBytes) },
  { name: 'leader.replication.throttled.replicas', type: ConfigType.LIST, value: () => '' },
  { name: 'local.retention.bytes', type: ConfigType.LONG, value: () => '-2' },
  { name: 'local.retention.ms', type: ConfigType.LONG, value: () => '-2' },
  { name: 'max.compaction.lag.ms', type: ConfigType.LONG, value: (c) => (c.maxCompactionLagMs >= 9.2e18 ? '9223372036854775807' : s(c.maxCompactionLagMs)) },
  { name: 'max.message.bytes', type: ConfigType.INT, value: (c) => s(c.maxMessageBytes) },
  { name: 'message.timestamp.after.max.ms', type: ConfigType.LONG, value: (c) => s(c.messageTimestampAfterMaxMs) },
  { name: 'message.timestamp.before.max.ms', type: ConfigType.LONG, value: (c) => s(c.messageTimestampBeforeMaxMs) },
  { name: 'message.timestamp.type', type: ConfigType.STRING, value: (c) => c.messageTimestampType },
  { name: 'min.cleanable.dirty.ratio', type: ConfigType.DOUBLE, value: (c) => s(c.minCleanableDirtyRatio) },
  { name: 'min.compaction.lag.ms', type: ConfigType.LONG, value: (c) => s(c.minCompactionLagMs) },
  { name: 'min.insync.replicas', type: ConfigType.INT, value: () => '1' },
  { name: 'preallocate', type: ConfigType.BOOLEAN, value: (c) => s(c.preallocate) },
  { name: 'remote.storage.enable', type: ConfigType.BOOLEAN, value: () => 'false' },
  { name: 'retention.bytes', type: ConfigType.LONG, value: (c) => s(c.retentionBytes) },
  { name: 'retention.ms', type: ConfigType.LONG, value: (c) => s(c.retentionMs) },
  { name: 'segment.bytes', type: ConfigType.INT, value: (c) => s(c.segmentBytes) },
  { name: 'segment.index.bytes', type: ConfigType.INT, value: (c) => s(c.segmentIndexBytes) },
  { name: 'segment.jitter.ms', type: ConfigType.LONG, value: (c) => s(c.segmentJitterMs) },
  { name: 'segment.ms', type: ConfigType.LONG, value: (c) => s(c.segmentMs) },
  { name: 'unclean.leader.election.enable', type: ConfigType.BOOLEAN, value: () => 'false' },
];

/** The broker property that sets a topic config's default (`log.segment.bytes` for `segment.bytes`), if any. */
export function brokerSynonymOf(topicConfig: string): string | undefined {
  return brokerSynonyms().get(topicConfig);
}

let synonymByTopicConfig: Map<string, string> | undefined;
/**
 * BROKER_SYNONYMS reversed, built once (the first broker name of each topic config): every
 * CreateTopics answer describes 31 configs per topic, and a walk over the table for each was a
 * fifth of a creation's CPU (issue 21).
 */
function brokerSynonyms(): Map<string, string> {
  if (synonymByTopicConfig === undefined) {
    synonymByTopicConfig = new Map();
    for (const [broker, topic] of Object.entries(BROKER_SYNONYMS)) if (!synonymByTopicConfig.has(topic)) synonymByTopicConfig.set(topic, broker);
  }
  return synonymByTopicConfig;
}

export interface DescribedConfig {
  name: string;
  value: string;
  source: number;
  type: number;
  synonyms: { name: string; value: string; source: number }[];
}

/** Every topic config with its value and source; `synonyms` in Kafka's order (most specific first). */
/** The dynamic broker configs (per node, cluster-wide) a topic config's synonyms include. */
export interface DynamicBrokerSynonyms {
  perBroker: Readonly<Record<string, string>>;
  clusterDefault: Readonly<Record<string, string>>;
}

export function describeTopicConfigs(
  overrides: Readonly<Record<string, string>>,
  config: LogConfig,
  brokerOverrides: Readonly<Record<string, string>>,
  dynamic: DynamicBrokerSynonyms = { perBroker: {}, clusterDefault: {} },
): DescribedConfig[] {
  return TOPIC_CONFIG_DEFS.map((def) => {
    const synonyms: DescribedConfig['synonyms'] = [];
    const override = overrides[def.name];
    // a LIST keeps the order it was given in (Kafka `ConfigDef.convertToString` joins the parsed list)
    const value = override !== undefined && def.type === ConfigType.LIST ? listValue(override) : def.value(config);
    if (override !== undefined) synonyms.push({ name: def.name, value, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    const brokerName = brokerSynonymOf(def.name);
    if (brokerName !== undefined && dynamic.perBroker[brokerName] !== undefined) {
      synonyms.push({ name: brokerName, value: dynamic.perBroker[brokerName]!, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    }
    if (brokerName !== undefined && dynamic.clusterDefault[brokerName] !== undefined) {
      synonyms.push({ name: brokerName, value: dynamic.clusterDefault[brokerName]!, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    }
    if (brokerName !== undefined && brokerOverrides[brokerName] !== undefined) {
      synonyms.push({ name: brokerName, value: brokerOverrides[brokerName]!, source: ConfigSource.STATIC_BROKER_CONFIG });
    }
    synonyms.push({ name: brokerName ?? def.name, value: def.value(DEFAULT_LOG_CONFIG as LogConfig), source: ConfigSource.DEFAULT_CONFIG });
    return { name: def.name, value: synonyms[0]!.source === ConfigSource.DYNAMIC_TOPIC_CONFIG ? value : def.value(config), source: synonyms[0]!.source, type: def.type, synonyms };
  });
}

function listValue(raw: string): string {
  return raw.split(',').map((v) => v.trim()).filter((v) => v !== '').join(',');
}
