/**
 * Metadata (3): this node is every partition's leader, the only replica and the controller.
 *
 * All topics: an empty list in v0, a null list in v1+ (MetadataRequest.json; `MetadataRequest.isAllTopics`). Unknown topics are
 * created when `auto.create.topics.enable` and the request allows it (v4+ flag; always before v4),
 * with `num.partitions`. Kafka answers LEADER_NOT_AVAILABLE while the controller creates the topic;
 * kafkalite creates it synchronously, so the first answer already carries its partitions.
 * v10+ answer topic ids; v12 may ask by id (a null name), unknown ids answer UNKNOWN_TOPIC_ID.
 * Asking by id below v12 is refused with INVALID_REQUEST in every topic, as Kafka's
 * `handleTopicMetadataRequest` throws and `MetadataRequest.getErrorResponse` answers.
 *
 * Authorization (`KafkaApis.handleTopicMetadataRequest`): a topic the principal may not DESCRIBE is
 * left out of an all-topics answer and TOPIC_AUTHORIZATION_FAILED when named, with a zero id, exists
 * or not. Asked by id, an unknown id is UNKNOWN_TOPIC_ID for anyone, and a known one the principal
 * may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED carrying its id but no name (Kafka: ids are not
 * sensitive, names are). Topic authorized operations go on every topic the principal may DESCRIBE,
 * answered with an error or not.
 */
import { Metadata, type MetadataRequest, type MetadataResponse, type MetadataResponseTopic } from '../../protocol/schemas/metadata.js';
import { errorCodeOf } from '../api-error.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import type { TopicInfo } from '../topic-registry.js';
import { INTERNAL_TOPICS, invalidTopicReason } from '../../storage/topic.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { ResourceType } from '../auth/acl.js';
import { authorizedOperations, canCreateTopic, canDescribeTopic, clusterAuthorizedOperations } from '../auth/checks.js';

/** The default of topicAuthorizedOperations when not requested (the JSON's Integer.MIN_VALUE). */
const OPS_NOT_REQUESTED = -2147483648;
const ZERO_ID = Buffer.alloc(16);

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
  // v10+ carry topic ids, which KIP-848 clients need to map ConsumerGroupHeartbeat assignments to names
  maxVersion: 12,
  handle(request, ctx) {
    const broker = ctx.broker;
    const requested = request.topics;
    const byIdRefused = ctx.apiVersion < 12 && (requested ?? []).some((t) => t.name === null || (t.topicId !== undefined && !t.topicId.equals(ZERO_ID)));
    if (byIdRefused) {
      return {
        throttleTimeMs: 0,
        brokers: [],
        topics: (requested ?? []).map((t) => ({ errorCode: ErrorCode.INVALID_REQUEST, name: t.name ?? '', topicId: t.topicId ?? ZERO_ID, isInternal: false, partitions: [] })),
      };
    }
    const all = requested === null || (ctx.apiVersion === 0 && requested.length === 0);
    const topics: MetadataResponseTopic[] = [];
    if (all) {
      // all topics: those the principal may not DESCRIBE are left out silently (KafkaApis.getTopicMetadata)
      for (const t of broker.topics.all()) if (canDescribeTopic(ctx, t.name)) topics.push(topicMetadata(broker, t));
    } else {
      const allowAuto = ctx.apiVersion < 4 || request.allowAutoTopicCreation !== false;
      const seen = new Set<string>();
      for (const { name, topicId } of requested) {
        // a null name asks by topic id (v10+; Kafka answers UNKNOWN_TOPIC_ID for an id it does not know)
        if (name === null && ctx.apiVersion < 12) {
          // Kafka refuses it ("Topic name can not be null for version N", INVALID_REQUEST); the
          // response's name is not nullable below v12, so the topic answers with an empty name
          topics.push({ errorCode: ErrorCode.INVALID_REQUEST, name: '', isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
          continue;
        }
        if (name === null) {
          const byId = topicId === undefined ? undefined : broker.topics.byId(topicId);
          if (byId !== undefined && !canDescribeTopic(ctx, byId.name)) {
            topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: null, topicId: byId.topicIdBytes, isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
          } else if (byId !== undefined) topics.push(topicMetadata(broker, byId));
          else topics.push({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId: topicId ?? ZERO_ID, isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
          continue;
        }
        if (seen.has(name)) continue;
        seen.add(name);
        // named topics: TOPIC_AUTHORIZATION_FAILED whether or not they exist (KAFKA-5547)
        if (!canDescribeTopic(ctx, name)) {
          topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
          continue;
        }
        const t = broker.topics.get(name);
        if (t !== undefined) {
          topics.push(topicMetadata(broker, t));
          continue;
        }
        // auto-creation needs CREATE on the cluster or the topic; denied, the topic is TOPIC_AUTHORIZATION_FAILED
        const created = allowAuto && broker.config.autoCreateTopics && !canCreateTopic(ctx, name) ? { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED } : autoCreateTopic(broker, name, allowAuto);
        if (created.topic !== undefined) topics.push(topicMetadata(broker, created.topic));
        else topics.push({ errorCode: created.errorCode, name, isInternal: false, partitions: [], topicAuthorizedOperations: OPS_NOT_REQUESTED });
      }
    }
    const describable = (t: MetadataResponseTopic): boolean => t.name !== null && t.errorCode !== ErrorCode.TOPIC_AUTHORIZATION_FAILED && t.errorCode !== ErrorCode.INVALID_REQUEST;
    for (const t of topics) if (describable(t) && t.name !== null) t.topicAuthorizedOperations = authorizedOperations(ctx, request.includeTopicAuthorizedOperations, ResourceType.TOPIC, t.name);
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.config.nodeId, ...broker.endpointFor(ctx.connection), rack: null }],
      clusterId: broker.logs.clusterId,
      controllerId: broker.config.nodeId,
      topics,
      clusterAuthorizedOperations: clusterAuthorizedOperations(ctx, request.includeClusterAuthorizedOperations),
    };
  },
};
