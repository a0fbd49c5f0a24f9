/**
 * DescribeTopicPartitions (75, KIP-966): the Java admin client's describeTopics since 3.8. Topics
 * in name order, their partitions from the cursor on, at most `responsePartitionLimit` partitions
 * (clamped to 1..`max.request.partition.size.limit`, 2000) per answer; `nextCursor` names the
 * first partition left out, as `DescribeTopicPartitionsRequestHandler` and
 * `KRaftMetadataCache.describeTopicResponse` page them:
 * - no topics named: every topic, skipping none with errors; named: each with its error
 *   (UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for a name Kafka rejects);
 * - topics before the cursor's are skipped; the cursor's topic starts at its partition;
 * - a full page that ends exactly at a topic's end points the cursor at the next topic's partition 0;
 * - a cursor with a negative partition, or naming a topic outside the named list, is
 *   INVALID_REQUEST on every named topic (`DescribeTopicPartitionsRequest.getErrorResponse`).
 *
 * Authorization (`DescribeTopicPartitionsRequestHandler`): topics the principal may not DESCRIBE
 * are left out of an all-topics answer; named, they come after the others as
 * TOPIC_AUTHORIZATION_FAILED with a zero topic id (existence is not revealed) and no authorized
 * operations. Every other topic, unknown ones included, carries the principal's topic operations.
 */
import {
  DescribeTopicPartitions,
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponse,
  type DescribeTopicPartitionsResponsePartition,
  type DescribeTopicPartitionsResponseTopic,
} from '../../protocol/schemas/describe-topic-partitions.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { INTERNAL_TOPICS, invalidTopicReason } from '../../storage/topic.js';
import type { ApiHandler } from '../handler.js';
import { ResourceType } from '../auth/acl.js';
import { authorizedOperations, canDescribeTopic, OPERATIONS_NOT_REQUESTED } from '../auth/checks.js';
import { PARTITION_LEADER_EPOCH } from './leader-epoch.js';

/** Kafka's `max.request.partition.size.limit` default. */
export const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000;

const ZERO_UUID = Buffer.alloc(16);

export const describeTopicPartitionsHandler: ApiHandler<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse> = {
  api: DescribeTopicPartitions,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const broker = ctx.broker;
    const named = request.topics.map((t) => t.name);
    const fetchAll = named.length === 0;
    const cursor = request.cursor;
    const invalid = (): DescribeTopicPartitionsResponse => ({
      throttleTimeMs: 0,
      nextCursor: null,
      topics: named.map((name) => ({ errorCode: ErrorCode.INVALID_REQUEST, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED })),
    });
    if (cursor !== null && cursor.partitionIndex < 0) return invalid(); // a negative cursor partition
    if (cursor !== null && !fetchAll && !named.includes(cursor.topicName)) return invalid(); // the cursor's topic must be among those named

    const cursorTopic = cursor?.topicName ?? '';
    const candidates = [...new Set(fetchAll ? broker.topics.all().map((t) => t.name) : named)].filter((n) => n >= cursorTopic).sort();
    const names: string[] = [];
    const denied: string[] = [];
    for (const n of candidates) (canDescribeTopic(ctx, n) ? names : denied).push(n);
    const unauthorized: DescribeTopicPartitionsResponseTopic[] = fetchAll
      ? []
      : denied.map((name) => ({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED }));
    const operations = (name: string): number => authorizedOperations(ctx, true, ResourceType.TOPIC, name);
    let remaining = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.responsePartitionLimit), 1);
    const nodeId = broker.config.nodeId;
    const response: DescribeTopicPartitionsResponse = { throttleTimeMs: 0, topics: [], nextCursor: null };
    for (const name of names) {
      if (remaining === 0) {
        // the page ended exactly at the previous topic's end: resume at this one's start
        response.nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const t = broker.topics.get(name);
      if (t === undefined) {
        if (!fetchAll) {
          const errorCode = invalidTopicReason(name) === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION;
          response.topics.push({ errorCode, name, topicId: ZERO_UUID, isInternal: INTERNAL_TOPICS.has(name), partitions: [], topicAuthorizedOperations: operations(name) });
        }
        continue;
      }
      const start = name === cursorTopic && cursor !== null ? cursor.partitionIndex : 0;
      const end = Math.min(t.partitions, start + remaining);
      const partitions: DescribeTopicPartitionsResponsePartition[] = [];
      for (let p = start; p < end; p++) {
        partitions.push({ errorCode: ErrorCode.NONE, partitionIndex: p, leaderId: nodeId, leaderEpoch: PARTITION_LEADER_EPOCH, replicaNodes: [nodeId], isrNodes: [nodeId], eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [] });
      }
      response.topics.push({ errorCode: ErrorCode.NONE, name, topicId: t.topicIdBytes, isInternal: INTERNAL_TOPICS.has(name), partitions, topicAuthorizedOperations: operations(name) });
      if (end < t.partitions) {
        response.nextCursor = { topicName: name, partitionIndex: end };
        break;
      }
      remaining -= partitions.length;
    }
    response.topics.push(...unauthorized);
    return response;
  },
};
