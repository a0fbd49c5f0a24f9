/**
 * ConsumerGroupDescribe (69): a KIP-848 group's epochs, state, assignor and members with their
 * current and target assignments (Kafka `ConsumerGroup.asDescribedGroup`). A missing group, or a
 * classic one, answers GROUP_ID_NOT_FOUND.
 *
 * Authorization (`KafkaApis.handleConsumerGroupDescribe`): a group the principal may not DESCRIBE
 * answers GROUP_AUTHORIZATION_FAILED, listed before the others; asked for, a found group carries
 * the principal's group operations; with an authorizer, a group whose members' current or target
 * assignments name a topic the principal may not DESCRIBE answers TOPIC_AUTHORIZATION_FAILED with
 * Kafka's message and no members.
 */
import { ConsumerGroupDescribe, type ConsumerGroupDescribeRequest, type ConsumerGroupDescribeResponse, type DescribedGroup } from '../../protocol/schemas/consumer-group-describe.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ApiHandler } from '../handler.js';
import { describeConsumerGroup } from '../group/consumer/describe.js';
import { AclOperation, ResourceType } from '../auth/acl.js';
import { authorizedOperations, groupError, OPERATIONS_NOT_REQUESTED, topicsDescribable } from '../auth/checks.js';

export const consumerGroupDescribeHandler: ApiHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  api: ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    // a refused group carries only its id, its error and the schema's defaults
    const refused = (groupId: string, errorCode: number, errorMessage: string | null): DescribedGroup =>
      ({ errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED });
    const denied: DescribedGroup[] = [];
    const described: DescribedGroup[] = [];
    for (const groupId of request.groupIds) {
      const error = groupError(ctx, AclOperation.DESCRIBE, groupId);
      if (error !== ErrorCode.NONE) {
        denied.push(refused(groupId, error, null));
        continue;
      }
      const operations = authorizedOperations(ctx, request.includeAuthorizedOperations, ResourceType.GROUP, groupId);
      const g = describeConsumerGroup(ctx.broker.groups, groupId, operations);
      if (g.errorCode !== ErrorCode.NONE) g.authorizedOperations = OPERATIONS_NOT_REQUESTED;
      const topics = g.members.flatMap((m) => [...m.assignment.topicPartitions, ...m.targetAssignment.topicPartitions].map((tp) => tp.topicName));
      if (ctx.broker.authorizer !== undefined && !topicsDescribable(ctx, new Set(topics))) {
        described.push(refused(groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.'));
        continue;
      }
      described.push(g);
    }
    return { throttleTimeMs: 0, groups: [...denied, ...described] };
  },
};
