/**
 * CreateTopics (19). numPartitions / replicationFactor -1 mean the broker defaults (kafkajs sends
 * -1 on every version); the only replication factor a single node can satisfy is 1. Manual
 * assignments must name this node. Configs are validated with Kafka's rules and honoured
 * (segment.bytes, retention.*, cleanup.policy, compression.type, ...). v5+ answers carry the
 * resulting configs, as Kafka's controller returns them.
 */
import { CreateTopics, type CreatableTopicResult, type CreateTopicsRequest, type CreateTopicsResponse } from '../../protocol/schemas/create-topics.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import { describeTopicConfigs } from '../topic-configs.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { canCreateTopic } from '../auth/checks.js';

export const createTopicsHandler: ApiHandler<CreateTopicsRequest, CreateTopicsResponse> = {
  api: CreateTopics,
  minVersion: 0,
  maxVersion: 7,
  handle(request, ctx) {
    // the request's metadata records share one fsync of the metadata log
    return ctx.broker.topics.batch(() => {
      const broker = ctx.broker;
      const topics: CreatableTopicResult[] = [];
      const counts = new Map<string, number>();
      for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
      for (const t of request.topics) {
        const out: CreatableTopicResult = { name: t.name, topicId: Buffer.alloc(16), errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: -1, replicationFactor: -1, configs: null };
        topics.push(out);
        try {
          if (counts.get(t.name)! > 1) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.');
          if (!canCreateTopic(ctx, t.name)) throw new ApiError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
          const configs: Record<string, string> = {};
          for (const c of t.configs) {
            if (c.value === null) throw new ApiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${c.name}`);
            configs[c.name] = c.value;
          }
          const assignments = t.assignments;
          let partitions = t.numPartitions === -1 ? broker.config.numPartitions : t.numPartitions;
          if (assignments.length > 0) {
            if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
              throw new ApiError(ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
            }
            for (const a of assignments) {
              const ids = a.brokerIds;
              if (ids.length !== 1 || ids[0] !== broker.config.nodeId) {
                throw new ApiError(ErrorCode.INVALID_REPLICATION_FACTOR, `Partition ${a.partitionIndex} must be assigned to broker ${broker.config.nodeId} alone`);
              }
            }
            partitions = assignments.length;
          }
          const config = broker.topics.validateCreate(t.name, partitions, t.replicationFactor, configs);
          const info = request.validateOnly ? undefined : broker.topics.create(t.name, partitions, configs, broker.logs);
          if (info !== undefined) broker.logger.info(`created topic ${t.name} with ${partitions} partition(s)${Object.keys(configs).length ? ` and configs ${JSON.stringify(configs)}` : ''}`);
          out.topicId = info?.topicIdBytes ?? Buffer.alloc(16);
          out.numPartitions = partitions;
          out.replicationFactor = 1;
          out.configs = describeTopicConfigs(configs, config, broker.config.overrides).map((d) => ({
            name: d.name,
            value: d.value,
            readOnly: false,
            configSource: d.source,
            isSensitive: false,
          }));
        } catch (e) {
          out.errorCode = errorCodeOf(e);
          out.errorMessage = errorMessageOf(e);
        }
      }
      return { throttleTimeMs: 0, topics };
    });
  },
};
