/**
 * Metadata (3): this node is every partition's leader, the only replica and the controller.
 *
 * All topics: an empty list in v0, a null list in v1+ (MetadataRequest.json; `MetadataRequest.isAllTopics`). Unknown topics are
 * created when `auto.create.topics.enable` and the request allows it (v4+ flag; always before v4),
 * with `num.partitions`. Kafka answers LEADER_NOT_AVAILABLE while the controller creates the topic;
 * kafkalite creates it synchronously, so the first answer already carries its partitions.
 */
import { Metadata, type MetadataRequest, type MetadataResponse, type MetadataResponseTopic } from '../../protocol/schemas/metadata.js';
import { errorCodeOf } from '../api-error.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import type { TopicInfo } from '../topic-registry.js';
import { INTERNAL_TOPICS, invalidTopicReason } from '../../storage/topic.js';
import { ErrorCode } from '../../protocol/error-codes.js';

/** The default of topicAuthorizedOperations when not requested (the JSON's Integer.MIN_VALUE). */
const OPS_NOT_REQUESTED = -2147483648;

export function topicMetadata(broker: Broker, t: TopicInfo, errorCode: number = ErrorCode.NONE): MetadataResponseTopic {
  const nodeId = broker.config.nodeId;
  const partitions = [];
  for (let p = 0; p < t.partitions; p++) {
    partitions.push({ errorCode: ErrorCode.NONE, partitionIndex: p, leaderId: nodeId, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [] });
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
  if (invalidTopicReason(name) !== undefined) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION };
  if (!allowed || !broker.config.autoCreateTopics) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  try {
    const topic = broker.topics.create(name, broker.config.numPartitions, {}, broker.logs);
    broker.logger.info(`auto-created topic ${name} with ${topic.partitions} partition(s)`);
    return { topic, errorCode: ErrorCode.NONE };
  } catch (e) {
    return { errorCode: errorCodeOf(e) };
  }
}

export const metadataHandler: ApiHandler<MetadataRequest, MetadataResponse> = {
  api: Metadata,
  minVersion: 0,
  maxVersion: 9,
  handle(request, ctx) {
    const broker = ctx.broker;
    const requested = request.topics;
    const all = requested === null || (ctx.apiVersion === 0 && requested.length === 0);
    const topics: MetadataResponseTopic[] = [];
    if (all) {
      for (const t of broker.topics.all()) topics.push(topicMetadata(broker, t));
    } else {
      const allowAuto = ctx.apiVersion < 4 || request.allowAutoTopicCreation !== false;
      const seen = new Set<string>();
      for (const { name } of requested) {
        // a null name asks by topic id, from v10 on (not served): the decoder refuses null below it
        if (name === null || seen.has(name)) continue;
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
      brokers: [{ nodeId: broker.config.nodeId, ...broker.endpointFor(ctx.connection), rack: null }],
      clusterId: broker.logs.clusterId,
      controllerId: broker.config.nodeId,
      topics,
      clusterAuthorizedOperations: OPS_NOT_REQUESTED,
    };
  },
};
