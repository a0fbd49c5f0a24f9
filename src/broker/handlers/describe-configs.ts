/**
 * DescribeConfigs (32): topic resources list every topic config (value, source, synonyms
 * when asked); the broker resource lists the broker properties kafkalite honours.
 */
import {
  DescribeConfigs,
  type DescribeConfigsRequest,
  type DescribeConfigsResourceResult,
  type DescribeConfigsResponse,
  type DescribeConfigsResult,
} from '../../protocol/schemas/describe-configs.js';
import type { Broker } from '../broker.js';
import { ConfigSource, ConfigType, describeTopicConfigs, type DescribedConfig } from '../topic-configs.js';
import type { ApiHandler } from '../handler.js';
import { isDynamicBrokerConfig } from '../dynamic-broker-configs.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { configResourceError } from '../auth/checks.js';

/** ConfigResource.Type */
const TOPIC = 2;
const BROKER = 4;

function brokerConfigs(broker: Broker): DescribedConfig[] {
  const c = broker.config;
  const entries: [string, string, number][] = [
    ['node.id', String(c.nodeId), ConfigType.INT],
    ['auto.create.topics.enable', String(c.autoCreateTopics), ConfigType.BOOLEAN],
    ['num.partitions', String(c.numPartitions), ConfigType.INT],
    ['socket.request.max.bytes', String(c.socketRequestMaxBytes), ConfigType.INT],
    ['fetch.max.bytes', String(c.fetchMaxBytes), ConfigType.INT],
    ['group.initial.rebalance.delay.ms', String(c.groupInitialRebalanceDelayMs), ConfigType.INT],
    ['transaction.max.timeout.ms', String(c.transactionMaxTimeoutMs), ConfigType.INT],
    ['log.retention.check.interval.ms', String(c.logRetentionCheckIntervalMs), ConfigType.LONG],
  ];
  const out: DescribedConfig[] = entries.map(([name, value, type]) => {
    const source = c.overrides[name] !== undefined ? ConfigSource.STATIC_BROKER_CONFIG : ConfigSource.DEFAULT_CONFIG;
    return { name, value, type, source, synonyms: [{ name, value, source }] };
  });
  // the broker-level log defaults, under their broker names
  for (const t of describeTopicConfigs({}, c.logConfig, c.overrides, broker.dynamicConfigs)) {
    const brokerSynonym = t.synonyms.find((s) => s.name !== t.name) ?? t.synonyms[0]!;
    if (brokerSynonym.name === t.name) continue;
    out.push({ name: brokerSynonym.name, value: t.value, type: t.type, source: t.source, synonyms: t.synonyms });
  }
  return out;
}

export const describeConfigsHandler: ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> = {
  api: DescribeConfigs,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const broker = ctx.broker;
    const results: DescribeConfigsResult[] = [];
    for (const r of request.resources) {
      const configs: DescribeConfigsResourceResult[] = [];
      const result: DescribeConfigsResult = { errorCode: ErrorCode.NONE, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs };
      results.push(result);
      result.errorCode = configResourceError(ctx, AclOperation.DESCRIBE_CONFIGS, r.resourceType, r.resourceName);
      if (result.errorCode !== ErrorCode.NONE) continue;
      let described: DescribedConfig[];
      if (r.resourceType === TOPIC) {
        const t = broker.topics.get(r.resourceName);
        if (t === undefined) {
          result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          result.errorMessage = `Topic ${r.resourceName} does not exist`;
          continue;
        }
        described = describeTopicConfigs(t.overrides, t.config, broker.config.overrides, broker.dynamicConfigs);
      } else if (r.resourceType === BROKER) {
        if (r.resourceName !== '' && r.resourceName !== String(broker.config.nodeId)) {
          result.errorCode = ErrorCode.INVALID_REQUEST;
          result.errorMessage = `Unexpected broker id, expected ${broker.config.nodeId} or empty string, but received ${r.resourceName}`;
          continue;
        }
        described = brokerConfigs(broker);
      } else {
        result.errorCode = ErrorCode.INVALID_REQUEST;
        result.errorMessage = `Unsupported resource type ${r.resourceType}`;
        continue;
      }
      const keys = r.configurationKeys;
      const wanted = keys === null || keys.length === 0 ? undefined : new Set(keys);
      for (const d of described) {
        if (wanted !== undefined && !wanted.has(d.name)) continue;
        configs.push({
          name: d.name,
          value: d.value,
          // the log defaults change at runtime (AlterConfigs on the broker); the rest only at start
          readOnly: r.resourceType === BROKER && !isDynamicBrokerConfig(d.name),
          // v0 only (not ignorable); v1+ say the same through configSource
          ...(ctx.apiVersion === 0 ? { isDefault: d.source === ConfigSource.DEFAULT_CONFIG } : {}),
          configSource: d.source,
          isSensitive: false,
          synonyms: request.includeSynonyms ? d.synonyms : [],
          configType: d.type,
          documentation: null,
        });
      }
    }
    return { throttleTimeMs: 0, results };
  },
};
