/**
 * Metadata (3), v0-9: this node is every partition's leader, the only replica and the controller.
 *
 * All topics: an empty list in v0, a null list in v1+ (protocol notes §4.2). Unknown topics are
 * created when `auto.create.topics.enable` and the request allows it (v4+ flag; always before v4),
 * with `num.partitions`. Kafka answers LEADER_NOT_AVAILABLE while the controller creates the topic;
 * kafkalite creates it synchronously, so the first answer already carries its partitions.
 */
import { errorCodeOf, ApiErrorCode } from '../api-error.js';
import type { Broker } from '../broker.js';
import type { ApiHandler, Message } from '../handler.js';
import type { TopicInfo } from '../topic-registry.js';
import { INTERNAL_TOPICS, invalidTopicReason } from '../../storage/topic.js';
import { apiSchemas } from './api.js';

/** The default of topicAuthorizedOperations when not requested (the JSON's Integer.MIN_VALUE). */
const OPS_NOT_REQUESTED = -2147483648;

export function topicMetadata(broker: Broker, t: TopicInfo, errorCode: number = ApiErrorCode.NONE): Message {
  const nodeId = broker.config.nodeId;
  const partitions = [];
  for (let p = 0; p < t.partitions; p++) {
    partitions.push({ errorCode: ApiErrorCode.NONE, partitionIndex: p, leaderId: nodeId, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [] });
  }
  return {
    errorCode,
    name: t.name,
    topicId: t.topicIdBytes,
    isInternal: INTERNAL_TOPICS.has(t.name),
    partitions,
    topicAuthorizedOperations: OPS_NOT_REQUESTED,
  };
}

/** Creates a topic on first use, as Kafka's AutoTopicCreationManager does; the error code if it cannot. */
export function autoCreateTopic(broker: Broker, name: string, allowed: boolean): { topic?: TopicInfo; errorCode: number } {
  if (invalidTopicReason(name) !== undefined) return { errorCode: ApiErrorCode.INVALID_TOPIC_EXCEPTION };
  if (!allowed || !broker.config.autoCreateTopics) return { errorCode: ApiErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  try {
    const topic = broker.topics.create(name, broker.config.numPartitions, {}, broker.logs);
    broker.logger.info(`auto-created topic ${name} with ${topic.partitions} partition(s)`);
    return { topic, errorCode: ApiErrorCode.NONE };
  } catch (e) {
    return { errorCode: errorCodeOf(e) };
  }
}

export const metadataHandler: ApiHandler = {
  api: apiSchemas(3),
  minVersion: 0,
  maxVersion: 9,
  handle(request, ctx) {
    const broker = ctx.broker;
    const requested = request.topics as { name: string }[] | null;
    const all = requested === null || (ctx.apiVersion === 0 && requested.length === 0);
    const topics: Message[] = [];
    if (all) {
      for (const t of broker.topics.all()) topics.push(topicMetadata(broker, t));
    } else {
      const allowAuto = ctx.apiVersion < 4 || request.allowAutoTopicCreation !== false;
      const seen = new Set<string>();
      for (const { name } of requested) {
        if (seen.has(name)) continue;
        seen.add(name);
        const t = broker.topics.get(name);
        if (t !== undefined) {
          topics.push(topicMetadata(broker, t));
          continue;
        }
        const created = autoCreateTopic(broker, name, allowAuto);
        if (created.topic !== undefined) topics.push(topicMetadata(broker, created.topic));
        else topics.push({ errorCode: created.errorCode, name, isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
      }
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.config.nodeId, host: broker.config.advertisedHost, port: broker.port, rack: null }],
      clusterId: broker.logs.clusterId,
      controllerId: broker.config.nodeId,
      topics,
      clusterAuthorizedOperations: OPS_NOT_REQUESTED,
    };
  },
};
