/**
 * The broker's topics: name, id, partition count and config overrides.
 *
 * Kept as Kafka 4 keeps them: in the KRaft metadata log `__cluster_metadata-0`
 * (internal-topics/metadata-log.ts), to which every change appends its records; the registry is
 * the replayed image with each topic's LogConfig. A data directory of an earlier kafkalite, with
 * `kafkalite-topics.json`, is migrated on first open: its topics are written to the metadata log
 * with the ids their `partition.metadata` files hold, and the file is renamed
 * `kafkalite-topics.json.migrated`. Topics found as partition directories without records (a crash
 * between a topic's directories and its records) are adopted with the broker's default config.
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfigError, InvalidTopicError } from '../errors.js';
import { ApiError } from './api-error.js';
import { ClusterMetadataLog, type ClusterMetadataLogOptions } from '../internal-topics/metadata-log.js';
import type { MetadataRecord } from '../internal-topics/cluster-metadata.js';
import { configRecord, createTopicRecords, partitionRecords, removeTopicRecord } from '../internal-topics/metadata-image.js';
import { fsyncDirSync } from '../storage/fs-util.js';
import { logConfigFromProperties, type LogConfig } from '../storage/log-config.js';
import type { LogManager } from '../storage/log-manager.js';
import { readPartitionMetadata } from '../storage/partition-metadata.js';
import { PARTITION_METADATA_FILE } from '../storage/file-names.js';
import { parseUuid, randomUuid, uuidToString, ZERO_UUID } from '../storage/uuid.js';
import { CLUSTER_METADATA_TOPIC, invalidTopicReason, partitionDirName } from '../storage/topic.js';

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
  /** Topics by id (base64url): Fetch and Metadata look topics up by id per request. */
  private readonly byIdString = new Map<string, TopicInfo>();
  /** Topics by {@link collisionKey}: a creation checks for a collision without a walk over every topic. */
  private readonly collisionKeys = new Map<string, string>();

  constructor(
    readonly metadata: ClusterMetadataLog,
    private readonly defaults: () => LogConfig,
  ) {}

  /**
   * Opens the data directory's metadata log (LogManager's `topicConfigs` hook: locked, logs not yet
   * loaded), migrating `kafkalite-topics.json` into it; the log closes with the manager.
   */
  static openMetadataLog(logs: LogManager, options: Partial<ClusterMetadataLogOptions> = {}): ClusterMetadataLog {
    const metadata = ClusterMetadataLog.open({
      dataDir: logs.dir,
      nodeId: logs.nodeId,
      // KIP-858's DirectoryId.UNASSIGNED for a directory formatted before directory ids
      directoryId: logs.directoryId ?? ZERO_UUID,
      hadCleanShutdown: logs.hadCleanShutdown,
      resources: logs.resources,
      ...options,
    });
    logs.attach(metadata);
    logs.partitionMetadataRepaired = true;
    migrateTopicsFile(logs.dir, metadata);
    return metadata;
  }

  /** Each topic's config from the metadata image, for opening the LogManager's logs. */
  static storedConfigs(metadata: ClusterMetadataLog, defaults: LogConfig): Map<string, LogConfig> {
    const out = new Map<string, LogConfig>();
    for (const t of metadata.image.topics()) {
      const configs = metadata.image.configs(t.name);
      if (Object.keys(configs).length > 0) out.set(t.name, logConfigFromProperties(configs, defaults));
    }
    return out;
  }

  /**
   * Takes the image's topics, creates the logs of partitions whose directories are missing, and
   * adopts partition directories without records (appending the records they lack).
   */
  load(logs: LogManager): void {
    const image = this.metadata.image;
    const counts = new Map<string, number>();
    for (const { topic, partition } of logs.logPartitions()) counts.set(topic, Math.max(counts.get(topic) ?? 0, partition + 1));
    const adopted: MetadataRecord[] = [];
    for (const t of [...image.topics()]) {
      // no partition: a creation cut short; the KRaft metadata log is never a topic
      if (t.partitions === 0 || t.name === CLUSTER_METADATA_TOPIC) continue;
      logs.assignTopicId(t.name, t.topicId);
      const found = counts.get(t.name) ?? 0;
      const info = this.put(t.name, t.topicId, Math.max(t.partitions, found), image.configs(t.name));
      partitionRecords(t.topicId, t.partitions, found, logs.nodeId, this.metadata.options.directoryId, adopted);
      for (let p = 0; p < t.partitions; p++) logs.ensureLog(t.name, p, info.config);
      if (!logs.hadCleanShutdown) for (let p = 0; p < t.partitions; p++) logs.repairPartitionMetadata(t.name, p, t.topicId);
    }
    for (const [name, n] of counts) {
      if (this.topics.has(name)) continue;
      let topicId: string;
      try {
        topicId = logs.topicId(name);
      } catch {
        // a torn partition.metadata (written without fsync) of a topic whose records were lost
        topicId = randomUuid();
        for (let p = 0; p < n; p++) logs.repairPartitionMetadata(name, p, topicId);
      }
      const info = this.put(name, topicId, n, {});
      for (const r of createTopicRecords(name, info.topicId, n, {}, logs.nodeId, this.metadata.options.directoryId)) adopted.push(r);
    }
    this.metadata.append(adopted);
  }

  private put(name: string, topicId: string, partitions: number, overrides: Record<string, string>): TopicInfo {
    const config = logConfigFromProperties(overrides, this.defaults());
    return this.set({ name, topicId, topicIdBytes: parseUuid(topicId), partitions, overrides: { ...overrides }, config });
  }

  private set(info: TopicInfo): TopicInfo {
    this.topics.set(info.name, info);
    this.byIdString.set(info.topicId, info);
    this.collisionKeys.set(collisionKey(info.name), info.name);
    return info;
  }

  /** Runs `fn` (a request's changes) with one fsync of the metadata log at its end. */
  batch<T>(fn: () => T): T {
    return this.metadata.deferFlush(fn);
  }

  get(name: string): TopicInfo | undefined {
    return this.topics.get(name);
  }

  byId(id: Buffer): TopicInfo | undefined {
    return id.length === 16 ? this.byIdString.get(uuidToString(id)) : undefined;
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
    const other = this.collisionKeys.get(collisionKey(name));
    if (other !== undefined) throw new InvalidTopicError(`Topic '${name}' collides with existing topic: ${other}`);
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
    const info = this.put(name, logs.topicId(name), partitions, configs);
    this.metadata.append(createTopicRecords(name, info.topicId, partitions, configs, logs.nodeId, this.metadata.options.directoryId));
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
    const next = this.set({ ...info, partitions: count });
    this.metadata.append(partitionRecords(info.topicId, info.partitions, count, logs.nodeId, this.metadata.options.directoryId));
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
      const log = logs.openedLog(name, p); // a log opened later takes the registry's config (LogManager.configSource)
      if (log !== undefined) log.config = config;
    }
    const next = this.set({ ...info, overrides: { ...overrides }, config });
    // one ConfigRecord per key set, changed or removed (ConfigurationControlManager.incrementalAlterConfig)
    const records: MetadataRecord[] = [];
    for (const [k, v] of Object.entries(overrides)) if (info.overrides[k] !== v) records.push(configRecord(name, k, v));
    for (const k of Object.keys(info.overrides)) if (!(k in overrides)) records.push(configRecord(name, k, null));
    this.metadata.append(records);
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
        const log = logs.openedLog(info.name, p);
        if (log !== undefined) log.config = config;
      }
      this.set({ ...info, config });
    }
  }

  delete(name: string, logs: LogManager): boolean {
    const info = this.topics.get(name);
    if (info === undefined) return false;
    logs.checkOnline();
    this.topics.delete(name);
    this.byIdString.delete(info.topicId);
    this.collisionKeys.delete(collisionKey(name));
    this.metadata.append([removeTopicRecord(info.topicId)]);
    for (let p = 0; p < info.partitions; p++) logs.deleteLog(name, p);
    return true;
  }
}

/**
 * Writes the topics of `kafkalite-topics.json` (an earlier kafkalite's format) into the metadata
 * log, then renames the file. Each topic keeps the id its `partition.metadata` files hold. Run
 * again after a crash midway, it appends only what the log still lacks.
 */
function migrateTopicsFile(dataDir: string, metadata: ClusterMetadataLog): void {
  const path = join(dataDir, TOPICS_FILE);
  if (!existsSync(path)) return;
  const stored = readStored(path);
  const image = metadata.image;
  const { nodeId, directoryId } = metadata.options;
  metadata.deferFlush(() => {
    for (const [name, t] of Object.entries(stored)) {
      if (name === CLUSTER_METADATA_TOPIC) continue; // an entry an older kafkalite let CreateTopics write
      const known = image.topic(name);
      if (known === undefined) {
        metadata.append(createTopicRecords(name, storedTopicId(dataDir, name, t.partitions), t.partitions, t.configs, nodeId, directoryId));
        continue;
      }
      const records = partitionRecords(known.topicId, known.partitions, t.partitions, nodeId, directoryId);
      const configs = image.configs(name);
      for (const [k, v] of Object.entries(t.configs)) if (configs[k] !== v) records.push(configRecord(name, k, v));
      metadata.append(records);
    }
  });
  renameSync(path, `${path}.migrated`);
  fsyncDirSync(dataDir);
}

/** The id a topic's partition directories recorded (the first one found), or a new one. */
function storedTopicId(dataDir: string, name: string, partitions: number): string {
  for (let p = 0; p < partitions; p++) {
    const path = join(dataDir, partitionDirName(name, p), PARTITION_METADATA_FILE);
    if (existsSync(path)) return readPartitionMetadata(path).topicId;
  }
  return randomUuid();
}

function readStored(path: string): Record<string, StoredTopic> {
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
