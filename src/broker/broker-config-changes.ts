/**
 * AlterConfigs / IncrementalAlterConfigs on the BROKER resource. Kafka checks the resource name
 * (this node's id, or "" for the cluster default) and refuses configs that cannot change at
 * runtime with INVALID_REQUEST ("Cannot update these configs dynamically", `DynamicBrokerConfig`).
 * The dynamic log defaults (`log.retention.ms`, `log.segment.bytes`, ... : Kafka `DynamicLogConfig`)
 * pass those checks, but kafkalite does not yet keep dynamic broker configs, so it refuses them
 * with POLICY_VIOLATION, as a broker with an `alter.config.policy.class.name` rejecting them
 * would, rather than acknowledge a change it would not apply.
 */
import { ApiError } from './api-error.js';
import type { Broker } from './broker.js';
import { BROKER_SYNONYMS } from './config.js';
import type { ConfigOp } from './config-changes.js';
import { ErrorCode } from '../protocol/error-codes.js';

/** Broker properties kafkalite reads that Kafka only takes at start (`DynamicConfig.Broker.nonDynamicProps` among them). */
const STATIC_BROKER_CONFIGS = new Set([
  'node.id', 'broker.id', 'auto.create.topics.enable', 'num.partitions', 'socket.request.max.bytes', 'fetch.max.bytes',
  'group.initial.rebalance.delay.ms', 'transaction.max.timeout.ms', 'log.retention.check.interval.ms', 'log.dirs', 'log.dir',
  'listeners', 'advertised.listeners', 'offsets.topic.num.partitions', 'default.replication.factor',
]);

export function alterBrokerConfigs(broker: Broker, resourceName: string, ops: readonly ConfigOp[], _replace: boolean, _validateOnly: boolean): void {
  const nodeId = broker.config.nodeId;
  if (resourceName !== '' && resourceName !== String(nodeId)) {
    throw new ApiError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${nodeId} or empty string, but received ${resourceName}`);
  }
  const names = new Set<string>();
  for (const o of ops) {
    if (names.has(o.name)) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    names.add(o.name);
  }
  if (names.size === 0) return;
  const nonDynamic = [...names].filter((n) => STATIC_BROKER_CONFIGS.has(n));
  if (nonDynamic.length > 0) {
    throw new ApiError(ErrorCode.INVALID_REQUEST, `Invalid config value for resource ConfigResource(type=BROKER, name='${resourceName}'): Cannot update these configs dynamically: Set(${nonDynamic.join(', ')})`);
  }
  const logDefaults = [...names].filter((n) => BROKER_SYNONYMS[n] !== undefined);
  throw new ApiError(
    ErrorCode.POLICY_VIOLATION,
    `kafkalite does not change broker configs at runtime${logDefaults.length > 0 ? ` (${logDefaults.join(', ')})` : ''}: set them at start (kafkalite serve --config, startBroker({ config })), or per topic`,
  );
}
