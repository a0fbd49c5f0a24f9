/**
 * The group coordinator's broker properties (Kafka `GroupCoordinatorConfig` / `OffsetConfig`).
 * They are taken out of the broker's properties before the rest is parsed, so the coordinator
 * owns its settings in one place. `group.initial.rebalance.delay.ms` stays a broker setting
 * (`BrokerConfig.groupInitialRebalanceDelayMs`).
 *
 * `offsets.topic.num.partitions` defaults to 1 here, not Kafka's 50: a single node gains nothing
 * from spreading groups, and each partition costs files. The value only matters when
 * `__consumer_offsets` is created; afterwards the topic's own partition count is used, as in Kafka.
 */
import { InvalidConfigError } from '../../errors.js';

export interface GroupConfig {
  /** group.min.session.timeout.ms (Kafka default 6000). */
  minSessionTimeoutMs: number;
  /** group.max.session.timeout.ms (Kafka default 1800000). */
  maxSessionTimeoutMs: number;
  /** group.max.size (Kafka default Integer.MAX_VALUE). */
  maxSize: number;
  /** group.initial.rebalance.delay.ms (from the broker config). */
  initialRebalanceDelayMs: number;
  /** offsets.topic.num.partitions (kafkalite default 1, Kafka 50). */
  offsetsTopicPartitions: number;
  /** offsets.topic.segment.bytes (Kafka default 104857600). */
  offsetsTopicSegmentBytes: number;
  /** offsets.retention.minutes (Kafka default 10080 = 7 days), in ms. */
  offsetsRetentionMs: number;
  /** offsets.retention.check.interval.ms (Kafka default 600000). */
  offsetsRetentionCheckIntervalMs: number;
  /** offset.metadata.max.bytes (Kafka default 4096). */
  offsetMetadataMaxBytes: number;
  /** group.consumer.session.timeout.ms (KIP-848 members; Kafka default 45000). */
  consumerSessionTimeoutMs: number;
  /** group.consumer.heartbeat.interval.ms (Kafka default 5000). */
  consumerHeartbeatIntervalMs: number;
  /** group.consumer.max.size (Kafka default Integer.MAX_VALUE). */
  consumerMaxSize: number;
  /** group.consumer.migration.policy (KIP-848 online upgrade/downgrade between classic and consumer groups; Kafka default bidirectional). */
  consumerMigrationPolicy: ConsumerGroupMigrationPolicy;
}

/** Kafka `ConsumerGroupMigrationPolicy`. */
export type ConsumerGroupMigrationPolicy = 'disabled' | 'upgrade' | 'downgrade' | 'bidirectional';
const MIGRATION_POLICIES: readonly ConsumerGroupMigrationPolicy[] = ['disabled', 'upgrade', 'downgrade', 'bidirectional'];
const MIGRATION_POLICY = 'group.consumer.migration.policy';

export function upgradeEnabled(p: ConsumerGroupMigrationPolicy): boolean {
  return p === 'upgrade' || p === 'bidirectional';
}

export function downgradeEnabled(p: ConsumerGroupMigrationPolicy): boolean {
  return p === 'downgrade' || p === 'bidirectional';
}

export const DEFAULT_GROUP_CONFIG: Readonly<GroupConfig> = Object.freeze({
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1800000,
  maxSize: 2147483647,
  initialRebalanceDelayMs: 3000,
  offsetsTopicPartitions: 1,
  offsetsTopicSegmentBytes: 104857600,
  offsetsRetentionMs: 10080 * 60000,
  offsetsRetentionCheckIntervalMs: 600000,
  offsetMetadataMaxBytes: 4096,
  consumerSessionTimeoutMs: 45000,
  consumerHeartbeatIntervalMs: 5000,
  consumerMaxSize: 2147483647,
  consumerMigrationPolicy: 'bidirectional',
});

/** The numeric settings. */
type NumericField = { [K in keyof GroupConfig]: GroupConfig[K] extends number ? K : never }[keyof GroupConfig];

const PROPERTIES: Readonly<Record<string, { field: NumericField; min: number; factor?: number }>> = {
  'group.min.session.timeout.ms': { field: 'minSessionTimeoutMs', min: 0 },
  'group.max.session.timeout.ms': { field: 'maxSessionTimeoutMs', min: 0 },
  'group.max.size': { field: 'maxSize', min: 1 },
  'offsets.topic.num.partitions': { field: 'offsetsTopicPartitions', min: 1 },
  'offsets.topic.segment.bytes': { field: 'offsetsTopicSegmentBytes', min: 1 },
  'offsets.retention.minutes': { field: 'offsetsRetentionMs', min: 1, factor: 60000 },
  'offsets.retention.check.interval.ms': { field: 'offsetsRetentionCheckIntervalMs', min: 1 },
  'offset.metadata.max.bytes': { field: 'offsetMetadataMaxBytes', min: 0 },
  'group.consumer.session.timeout.ms': { field: 'consumerSessionTimeoutMs', min: 1 },
  'group.consumer.heartbeat.interval.ms': { field: 'consumerHeartbeatIntervalMs', min: 1 },
  'group.consumer.max.size': { field: 'consumerMaxSize', min: 1 },
};

/** Splits broker properties into the coordinator's and the rest (which the broker config parses). */
export function takeGroupProperties(props: Readonly<Record<string, string>>): { group: Record<string, string>; rest: Record<string, string> } {
  const group: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) (PROPERTIES[k] !== undefined || k === MIGRATION_POLICY ? group : rest)[k] = v;
  return { group, rest };
}

export function groupConfigFromProperties(props: Readonly<Record<string, string>>, initialRebalanceDelayMs: number): GroupConfig {
  const c: GroupConfig = { ...DEFAULT_GROUP_CONFIG, initialRebalanceDelayMs };
  for (const [name, raw] of Object.entries(props)) {
    if (name === MIGRATION_POLICY) {
      // Kafka's ConfigDef: one of the enum's names, case-insensitive
      const policy = MIGRATION_POLICIES.find((m) => m === raw.trim().toLowerCase());
      if (policy === undefined) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: String must be one of (case insensitive): ${MIGRATION_POLICIES.map((m) => m.toUpperCase()).join(', ')}`);
      c.consumerMigrationPolicy = policy;
      continue;
    }
    const p = PROPERTIES[name];
    if (p === undefined) throw new InvalidConfigError(`Unknown group coordinator config name: ${name}`);
    if (!/^-?\d+$/.test(raw.trim())) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Not a number of type INT`);
    const v = Number(raw.trim());
    if (v < p.min || v > 2147483647) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Value must be at least ${p.min}`);
    c[p.field] = v * (p.factor ?? 1);
  }
  if (c.minSessionTimeoutMs > c.maxSessionTimeoutMs) {
    throw new InvalidConfigError('group.min.session.timeout.ms must not be above group.max.session.timeout.ms');
  }
  // Kafka `GroupCoordinatorConfig`: the heartbeat interval must be below the session timeout
  if (c.consumerHeartbeatIntervalMs >= c.consumerSessionTimeoutMs) {
    throw new InvalidConfigError('group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms');
  }
  return c;
}
