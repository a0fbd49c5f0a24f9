/**
 * The broker's topics: name, id, partition count and config overrides.
 *
 * Kafka keeps these in the KRaft metadata log; a single kafkalite node keeps them in
 * `kafkalite-topics.json` in the data directory (a file Kafka's LogManager ignores, so the
 * directory stays one Kafka can open). Topics found as partition directories without an entry
 * (a Kafka-written data dir) are adopted with the broker's default config.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfigError, InvalidTopicError } from '../errors.js';
import { ApiError } from './api-error.js';
import { atomicWriteFileSync } from '../storage/fs-util.js';
import { logConfigFromProperties, type LogConfig } from '../storage/log-config.js';
import type { LogManager } from '../storage/log-manager.js';
import { parseUuid } from '../storage/uuid.js';
import { CLUSTER_METADATA_TOPIC, invalidTopicReason } from '../storage/topic.js';

export const TOPICS_FILE = 'kafkalite-topics.json';
/** Most partitions one topic may have on this single node. */
const MAX_PARTITIONS = 100000;

export interface TopicInfo {
  readonly name: string;
  /** Kafka's base64url form, as in partition.metadata. */
  readonly topicId: string;
  readonly topicIdBytes: Buffer;
  readonly partitions: number;
  /** Only the configs set on the topic (DescribeConfigs reports them as DYNAMIC_TOPIC_CONFIG). */
  readonly overrides: Readonly<Record<string, string>>;
  readonly config: LogConfig;
}

interface StoredTopic {
  partitions: number;
  configs: Record<string, string>;
}

/** Topic names that collide once '.' and '_' are treated alike (Kafka `Topic.hasCollision`: metric names). */
function collisionKey(name: string): string {
  return name.replaceAll('.', '_');
}

export class TopicRegistry {
  private readonly topics = new Map<string, TopicInfo>();

  constructor(
    private readonly dataDir: string,
    private readonly defaults: () => LogConfig,
  ) {}

  /** The stored topics' configs, for opening the LogManager before the logs load. */
  static readStoredConfigs(dataDir: string, defaults: LogConfig): Map<string, LogConfig> {
    const out = new Map<string, LogConfig>();
    for (const [name, t] of Object.entries(readStored(dataDir))) out.set(name, logConfigFromProperties(t.configs, defaults));
    return out;
  }

  /** Loads the stored topics and adopts partition directories that have no entry. */
  load(logs: LogManager): void {
    const stored = readStored(this.dataDir);
    const counts = new Map<string, number>();
    for (const log of logs.allLogs()) counts.set(log.topic, Math.max(counts.get(log.topic) ?? 0, log.partition + 1));
    for (const [name, t] of Object.entries(stored)) {
      // an entry an older kafkalite let CreateTopics write: the directory is the KRaft metadata log's
      if (name === CLUSTER_METADATA_TOPIC) continue;
      this.put(name, Math.max(t.partitions, counts.get(name) ?? 0), t.configs, logs);
      for (let p = 0; p < t.partitions; p++) logs.getOrCreateLog(name, p, this.topics.get(name)!.config);
    }
    for (const [name, n] of counts) if (!this.topics.has(name)) this.put(name, n, {}, logs);
    this.persist(logs);
  }

  private put(name: string, partitions: number, overrides: Record<string, string>, logs: LogManager): TopicInfo {
    const config = logConfigFromProperties(overrides, this.defaults());
    const topicId = logs.topicId(name);
    const info: TopicInfo = { name, topicId, topicIdBytes: parseUuid(topicId), partitions, overrides: { ...overrides }, config };
    this.topics.set(name, info);
    return info;
  }

  get(name: string): TopicInfo | undefined {
    return this.topics.get(name);
  }

  byId(id: Buffer): TopicInfo | undefined {
    for (const t of this.topics.values()) if (t.topicIdBytes.equals(id)) return t;
    return undefined;
  }

  all(): TopicInfo[] {
    return [...this.topics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Checks a CreateTopics entry as Kafka's controller does (name, collision, partitions, replication
   * factor, configs); returns the config it would get.
   */
  validateCreate(name: string, partitions: number, replicationFactor: number, configs: Record<string, string>): LogConfig {
    // ControllerApis.createTopics (KAFKA-14358, KAFKA-16975): the KRaft metadata log is not a topic,
    // and a log created under its name would be its `__cluster_metadata-0` directory. Every
    // creation path (CreateTopics, Metadata's auto-creation) comes through here.
    if (name === CLUSTER_METADATA_TOPIC) throw new ApiError('INVALID_REQUEST', `Creation of internal topic ${CLUSTER_METADATA_TOPIC} is prohibited.`);
    const reason = invalidTopicReason(name);
    // ReplicationControlManager.validateNewTopicNames answers Topic.validate's message
    if (reason !== undefined) throw new InvalidTopicError(`Topic name is invalid: ${reason}`);
    if (this.topics.has(name)) throw new ApiError('TOPIC_ALREADY_EXISTS', `Topic '${name}' already exists.`);
    const key = collisionKey(name);
    for (const other of this.topics.keys()) {
      if (collisionKey(other) === key) {
        throw new InvalidTopicError(`Topic '${name}' collides with existing topic: ${other}`);
      }
    }
    if (partitions < 1 && partitions !== -1) throw new ApiError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.');
    if (partitions > MAX_PARTITIONS) throw new ApiError('INVALID_PARTITIONS', `Number of partitions ${partitions} is above this broker's limit of ${MAX_PARTITIONS}.`);
    if (replicationFactor !== -1 && replicationFactor !== 1) {
      if (replicationFactor < 1) throw new ApiError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0, or -1 to use the default value.');
      throw new ApiError('INVALID_REPLICATION_FACTOR', `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only 1 broker(s) are registered.`);
    }
    return this.validateOverrides(configs);
  }

  create(name: string, partitions: number, configs: Record<string, string>, logs: LogManager): TopicInfo {
    const config = this.validateCreate(name, partitions, -1, configs);
    // an offline log directory takes no change (KAFKA_STORAGE_ERROR), and a failure midway takes it offline
    logs.checkOnline();
    for (let p = 0; p < partitions; p++) logs.getOrCreateLog(name, p, config);
    const info = this.put(name, partitions, configs, logs);
    this.persist(logs);
    return info;
  }

  /**
   * Raises a topic's partition count (CreatePartitions; Kafka `ReplicationControlManager.createPartitions`):
   * the new partitions' logs are created with the topic's config and the count is persisted. The
   * caller has validated `count` with {@link validatePartitionIncrease}.
   */
  addPartitions(name: string, count: number, logs: LogManager): TopicInfo {
    const info = this.validatePartitionIncrease(name, count);
    for (let p = info.partitions; p < count; p++) logs.getOrCreateLog(name, p, info.config);
    const next: TopicInfo = { ...info, partitions: count };
    this.topics.set(name, next);
    this.persist(logs);
    return next;
  }

  /** Kafka's checks on a new partition count: the topic exists and the count is an increase within the limit. */
  validatePartitionIncrease(name: string, count: number): TopicInfo {
    const info = this.topics.get(name);
    if (info === undefined) throw new ApiError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${name}' does not exist.`);
    if (count < info.partitions) throw new ApiError('INVALID_PARTITIONS', `The topic ${name} currently has ${info.partitions} partition(s); ${count} would not be an increase.`);
    if (count === info.partitions) throw new ApiError('INVALID_PARTITIONS', `Topic already has ${info.partitions} partition(s).`);
    if (count > MAX_PARTITIONS) throw new ApiError('INVALID_PARTITIONS', `Number of partitions ${count} is above this broker's limit of ${MAX_PARTITIONS}.`);
    return info;
  }

  /**
   * The config a topic would have with `overrides` as its whole set of overrides (Kafka validates
   * the resulting set, `ControllerConfigurationValidator`); INVALID_CONFIG for an unknown name or bad value.
   */
  validateOverrides(overrides: Readonly<Record<string, string>>): LogConfig {
    try {
      return logConfigFromProperties(overrides, this.defaults());
    } catch (e) {
      if (e instanceof InvalidConfigError) throw e;
      throw new InvalidConfigError(String((e as Error).message));
    }
  }

  /**
   * Replaces a topic's config overrides (AlterConfigs / IncrementalAlterConfigs): the new config
   * applies to every live partition log at once (Kafka `LogManager.updateTopicConfig`) and persists.
   */
  setOverrides(name: string, overrides: Readonly<Record<string, string>>, logs: LogManager): TopicInfo {
    const info = this.topics.get(name);
    if (info === undefined) throw new ApiError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${name}' does not exist.`);
    const config = this.validateOverrides(overrides);
    for (let p = 0; p < info.partitions; p++) {
      const log = logs.getLog(name, p);
      if (log !== undefined) log.config = config;
    }
    const next: TopicInfo = { ...info, overrides: { ...overrides }, config };
    this.topics.set(name, next);
    this.persist(logs);
    return next;
  }

  /**
   * Recomputes every topic's config after the broker's log defaults changed (dynamic broker
   * configs, Kafka `DynamicLogConfig.reconfigure`): topics keep their overrides, and the live logs
   * take the new config at once.
   */
  refreshDefaults(logs: LogManager): void {
    for (const info of [...this.topics.values()]) {
      const config = logConfigFromProperties(info.overrides, this.defaults());
      for (let p = 0; p < info.partitions; p++) {
        const log = logs.getLog(info.name, p);
        if (log !== undefined) log.config = config;
      }
      this.topics.set(info.name, { ...info, config });
    }
  }

  delete(name: string, logs: LogManager): boolean {
    const info = this.topics.get(name);
    if (info === undefined) return false;
    logs.checkOnline();
    this.topics.delete(name);
    this.persist(logs);
    for (let p = 0; p < info.partitions; p++) logs.deleteLog(name, p);
    return true;
  }

  private persist(logs: LogManager): void {
    const out: Record<string, StoredTopic> = {};
    for (const t of this.all()) out[t.name] = { partitions: t.partitions, configs: { ...t.overrides } };
    const path = join(this.dataDir, TOPICS_FILE);
    logs.resources.logDirFailure.guard(path, () => atomicWriteFileSync(path, `${JSON.stringify({ version: 1, topics: out }, null, 1)}\n`));
  }
}

function readStored(dataDir: string): Record<string, StoredTopic> {
  const path = join(dataDir, TOPICS_FILE);
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InvalidConfigError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const topics = (parsed as { topics?: unknown }).topics;
  if (typeof topics !== 'object' || topics === null) throw new InvalidConfigError(`${path}: no "topics" object`);
  const out: Record<string, StoredTopic> = {};
  for (const [name, t] of Object.entries(topics as Record<string, unknown>)) {
    const partitions = (t as StoredTopic).partitions;
    const configs = (t as StoredTopic).configs ?? {};
    // the same bound CreateTopics applies: a damaged file must not make the broker create millions of logs
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) throw new InvalidConfigError(`${path}: topic ${name} has no valid partition count`);
    out[name] = { partitions, configs };
  }
  return out;
}
