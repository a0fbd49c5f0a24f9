/**
 * ConsumerGroupHeartbeat (68), the KIP-848 consumer protocol: join (epoch 0), heartbeat and
 * reconcile, leave (−1), static leave (−2). v1 adds the topic regex and client-generated member
 * ids (KIP-1082). The state machine is src/broker/group/consumer/coordinator.ts.
 */
import { ConsumerGroupHeartbeat, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse } from '../../protocol/schemas/consumer-group-heartbeat.js';
import type { ApiHandler } from '../handler.js';
import { clientHostOf } from '../group/member.js';

export const consumerGroupHeartbeatHandler: ApiHandler<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse> = {
  api: ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
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
      { apiVersion: ctx.apiVersion, clientId: ctx.clientId, clientHost: clientHostOf(ctx.remote) },
    );
    return { throttleTimeMs: 0, ...r };
  },
};
