/**
 * ConsumerGroupDescribe (69): a KIP-848 group's epochs, state, assignor and members with their
 * current and target assignments (Kafka `ConsumerGroup.asDescribedGroup`). A missing group, or a
 * classic one, answers GROUP_ID_NOT_FOUND.
 */
import { ConsumerGroupDescribe, type ConsumerGroupDescribeRequest, type ConsumerGroupDescribeResponse } from '../../protocol/schemas/consumer-group-describe.js';
import type { ApiHandler } from '../handler.js';
import { describeConsumerGroup } from '../group/consumer/describe.js';

export const consumerGroupDescribeHandler: ApiHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  api: ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    return { throttleTimeMs: 0, groups: request.groupIds.map((id) => describeConsumerGroup(ctx.broker.groups, id, request.includeAuthorizedOperations)) };
  },
};
