/** ConsumerGroupDescribe's view of a group (Kafka `GroupMetadataManager.consumerGroupDescribe`). */
import type { DescribedGroup } from '../../../protocol/schemas/consumer-group-describe.js';
import { ErrorCode } from '../../../protocol/error-codes.js';
import type { GroupCoordinator } from '../coordinator.js';

/** Kafka leaves authorized operations unset (Integer.MIN_VALUE) unless asked for. */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** `authorizedOperations`: the group's bitfield the handler computed for the requester, set on a found group only. */
export function describeConsumerGroup(c: GroupCoordinator, groupId: string, authorizedOperations: number): DescribedGroup {
  const missing = (errorCode: number, errorMessage: string): DescribedGroup => ({
    errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  });
  if (!c.isActive) return missing(ErrorCode.NOT_COORDINATOR, 'The coordinator is not active.');
  const g = c.consumer.group(groupId);
  if (g === undefined) return missing(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId,
    groupState: g.state,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    assignorName: c.consumer.assignorName(g),
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: { topicPartitions: c.consumer.describeAssignment(m.assigned) },
      targetAssignment: { topicPartitions: c.consumer.describeAssignment(g.target(m.memberId)) },
    })),
    authorizedOperations,
  };
}
