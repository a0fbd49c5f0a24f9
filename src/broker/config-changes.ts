/**
 * Config changes of AlterConfigs (33) and IncrementalAlterConfigs (44) on topic resources, with
 * Kafka's rules (`ConfigAdminManager.preprocess`, `ConfigurationControlManager`): a resource named
 * twice or a key given twice is INVALID_REQUEST; the result is validated as a whole set of
 * overrides (unknown name, bad value: INVALID_CONFIG); a topic that does not exist is
 * UNKNOWN_TOPIC_OR_PARTITION. AlterConfigs replaces the topic's whole set of overrides (configs
 * left out return to their defaults); IncrementalAlterConfigs applies SET, DELETE, APPEND and
 * SUBTRACT to the current overrides. Applied changes reach the live partition logs at once and
 * persist in the topic registry; DescribeConfigs then reports them as DYNAMIC_TOPIC_CONFIG.
 */
import { ApiError } from './api-error.js';
import type { Broker } from './broker.js';
import { ConfigType, TOPIC_CONFIG_DEFS } from './topic-configs.js';
import { ErrorCode } from '../protocol/error-codes.js';

/** ConfigResource.Type values. */
export const ConfigResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;

/** AlterConfigOp.OpType ids. */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface ConfigOp {
  name: string;
  op: number;
  value: string | null;
}

/** INVALID_REQUEST for every occurrence of a resource named twice (Kafka answers each one). */
export function duplicateResources(resources: readonly { resourceType: number; resourceName: string }[]): Set<string> {
  const seen = new Map<string, number>();
  for (const r of resources) seen.set(`${r.resourceType}:${r.resourceName}`, (seen.get(`${r.resourceType}:${r.resourceName}`) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([k]) => k));
}

const LIST_CONFIGS = new Set(TOPIC_CONFIG_DEFS.filter((d) => d.type === ConfigType.LIST).map((d) => d.name));

function splitList(value: string): string[] {
  return value.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/** INVALID_REQUEST when a key is given twice in one resource (`ConfigAdminManager.preprocess`). */
export function checkDuplicateKeys(ops: readonly ConfigOp[]): void {
  const names = new Set<string>();
  for (const o of ops) {
    if (names.has(o.name)) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    names.add(o.name);
  }
}

/**
 * `ops` applied in order to `start` (a resource's dynamic configs): SET, DELETE, and APPEND /
 * SUBTRACT on the names `isList` accepts, starting from `current(name)` when `start` lacks it.
 */
export function applyConfigOps(start: Readonly<Record<string, string>>, ops: readonly ConfigOp[], isList: (name: string) => boolean, current: (name: string) => string): Record<string, string> {
  checkDuplicateKeys(ops);
  const next: Record<string, string> = { ...start };
  for (const o of ops) {
    switch (o.op) {
      case AlterConfigOp.SET:
        if (o.value === null) throw new ApiError(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${o.name}`);
        next[o.name] = o.value;
        break;
      case AlterConfigOp.DELETE:
        delete next[o.name];
        break;
      case AlterConfigOp.APPEND:
      case AlterConfigOp.SUBTRACT: {
        const opName = o.op === AlterConfigOp.APPEND ? 'APPEND' : 'SUBTRACT';
        if (!isList(o.name)) throw new ApiError(ErrorCode.INVALID_CONFIG, `Can't ${opName} to key ${o.name} because its type is not LIST.`);
        const values = splitList(next[o.name] ?? current(o.name));
        const given = o.value === null ? [] : splitList(o.value);
        const result = o.op === AlterConfigOp.APPEND ? [...values, ...given.filter((v) => !values.includes(v))] : values.filter((v) => !given.includes(v));
        next[o.name] = result.join(',');
        break;
      }
      default:
        throw new ApiError(ErrorCode.INVALID_REQUEST, `Unknown alter configs operation type ${o.op}`);
    }
  }
  return next;
}

/**
 * The topic's overrides after `ops`; `replace` (AlterConfigs) starts from none instead of the
 * current ones. Throws ApiError / InvalidConfigError with Kafka's code.
 */
export function applyTopicConfigOps(broker: Broker, topic: string, ops: readonly ConfigOp[], replace: boolean): Record<string, string> {
  const info = broker.topics.get(topic);
  if (info === undefined) throw new ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic}' does not exist.`);
  const current = (name: string): string => TOPIC_CONFIG_DEFS.find((d) => d.name === name)?.value(info.config) ?? '';
  const next = applyConfigOps(replace ? {} : info.overrides, ops, (name) => LIST_CONFIGS.has(name), current);
  broker.topics.validateOverrides(next);
  return next;
}
