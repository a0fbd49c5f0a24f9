/**
 * AlterConfigs / IncrementalAlterConfigs on the BROKER resource (Kafka `ConfigAdminManager`,
 * `DynamicBrokerConfig`): the resource is this node's id (per-node configs) or "" (the
 * cluster-wide default). Any other id is INVALID_REQUEST; configs that cannot change at runtime are
 * INVALID_REQUEST ("Cannot update these configs dynamically"); a bad value is INVALID_CONFIG. The
 * log defaults (`log.retention.ms`, `log.segment.bytes`, `log.cleanup.policy`, `message.max.bytes`,
 * `compression.type`, ...) change at once for every topic without an override of its own and
 * persist (dynamic-broker-configs.ts).
 */
import { InvalidConfigError } from '../errors.js';
import { ApiError } from './api-error.js';
import type { Broker } from './broker.js';
import { BROKER_SYNONYMS } from './config.js';
import { applyConfigOps, type ConfigOp } from './config-changes.js';
import { DynamicBrokerConfigs, isDynamicBrokerConfig } from './dynamic-broker-configs.js';
import { ConfigType, TOPIC_CONFIG_DEFS } from './topic-configs.js';
import { ErrorCode } from '../protocol/error-codes.js';

/** Broker properties whose topic config is a LIST (APPEND and SUBTRACT apply). */
function isListBrokerConfig(name: string): boolean {
  const topicName = BROKER_SYNONYMS[name];
  return TOPIC_CONFIG_DEFS.some((d) => d.name === topicName && d.type === ConfigType.LIST);
}

export function alterBrokerConfigs(broker: Broker, resourceName: string, ops: readonly ConfigOp[], replace: boolean, validateOnly: boolean): void {
  const nodeId = broker.config.nodeId;
  if (resourceName !== '' && resourceName !== String(nodeId)) {
    throw new ApiError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${nodeId} or empty string, but received ${resourceName}`);
  }
  const clusterWide = resourceName === '';
  const dynamic = broker.dynamicConfigs;
  const nonDynamic = ops.map((o) => o.name).filter((n) => !isDynamicBrokerConfig(n));
  if (nonDynamic.length > 0) {
    throw new ApiError(ErrorCode.INVALID_REQUEST, `Invalid config value for resource ConfigResource(type=BROKER, name='${resourceName}'): Cannot update these configs dynamically: Set(${nonDynamic.join(', ')})`);
  }
  const effective = (name: string): string => {
    const topicName = BROKER_SYNONYMS[name];
    return TOPIC_CONFIG_DEFS.find((d) => d.name === topicName)?.value(broker.config.logConfig) ?? '';
  };
  const next = applyConfigOps(replace ? {} : dynamic.of(clusterWide), ops, isListBrokerConfig, effective);
  let logConfig;
  try {
    logConfig = DynamicBrokerConfigs.logConfigOf(broker.config, clusterWide ? next : dynamic.clusterDefault, clusterWide ? dynamic.perBroker : next);
  } catch (e) {
    if (e instanceof InvalidConfigError) throw e;
    throw new InvalidConfigError(String((e as Error).message));
  }
  if (validateOnly) return;
  dynamic.set(clusterWide, next);
  broker.config.logConfig = logConfig;
  broker.topics.refreshDefaults(broker.logs);
  broker.logger.info(`dynamic broker configs (${clusterWide ? 'cluster default' : `node ${nodeId}`}) now ${JSON.stringify(next)}`);
}
