/**
 * ConsumerGroupHeartbeat (68), the KIP-848 consumer protocol: join (epoch 0), heartbeat and
 * reconcile, leave (−1), static leave (−2). v1 adds the topic regex and client-generated member
 * ids (KIP-1082). The state machine is src/broker/group/consumer/coordinator.ts.
 *
 * Authorization (`KafkaApis.handleConsumerGroupHeartbeat`): READ on the group, else
 * GROUP_AUTHORIZATION_FAILED; then, when topic names are subscribed, DESCRIBE on every one of them,
 * else TOPIC_AUTHORIZATION_FAILED (both as bare error answers, nothing reaches the coordinator).
 * Topics a regex matches are filtered by the member's DESCRIBE rights instead (member.ts).
 */
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse } from '../../protocol/schemas/consumer-group-heartbeat.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ApiHandler } from '../handler.js';
import { clientHostOf } from '../group/member.js';
import { AclOperation, ResourceType } from '../auth/acl.js';
import { groupError, requesterOf, topicsDescribable } from '../auth/checks.js';

/** `ConsumerGroupHeartbeatRequest.getErrorResponse`: the error code and the schema's defaults. */
function refused(errorCode: number): ConsumerGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export const consumerGroupHeartbeatHandler: ApiHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> = {
  api: ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const groupDenied = groupError(ctx, AclOperation.READ, request.groupId);
    if (groupDenied !== ErrorCode.NONE) return refused(groupDenied);
    if (request.subscribedTopicNames !== null && !topicsDescribable(ctx, request.subscribedTopicNames)) return refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    const authorizer = ctx.broker.authorizer;
    const requester = requesterOf(ctx);
    const r = ctx.broker.groups.consumer.heartbeat(
      {
        groupId: request.groupId,
        memberId: request.memberId,
        memberEpoch: request.memberEpoch,
        instanceId: request.instanceId,
        rackId: request.rackId,
        rebalanceTimeoutMs: request.rebalanceTimeoutMs,
        subscribedTopicNames: request.subscribedTopicNames,
        subscribedTopicRegex: request.subscribedTopicRegex ?? null,
        serverAssignor: request.serverAssignor,
        topicPartitions: request.topicPartitions,
      },
      {
        apiVersion: ctx.apiVersion,
        clientId: ctx.clientId,
        clientHost: clientHostOf(ctx.remote),
        canDescribeTopic: authorizer === undefined ? undefined : (topic) => authorizer.authorize(requester, AclOperation.DESCRIBE, ResourceType.TOPIC, topic),
      },
    );
    return { throttleTimeMs: 0, ...r };
  },
};
