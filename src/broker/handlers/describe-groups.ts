/**
 * DescribeGroups (15). v3+ may ask for the authorized operations: with no authorizer every group
 * operation is allowed (READ, DELETE, DESCRIBE: Kafka's AclOperation codes 3, 6, 8 as bits).
 */
import { DescribeGroups, type DescribeGroupsRequest, type DescribeGroupsResponse } from '../../protocol/schemas/describe-groups.js';
import type { ApiHandler } from '../handler.js';
import { describeGroup } from '../group/group-admin.js';
import { AclOperation, ResourceType } from '../auth/acl.js';
import { authorizedOperations, groupError } from '../auth/checks.js';
import { ErrorCode } from '../../protocol/error-codes.js';

const GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
const OPERATIONS_NOT_REQUESTED = -2147483648;

export const describeGroupsHandler: ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> = {
  api: DescribeGroups,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const ops = ctx.apiVersion >= 3 && request.includeAuthorizedOperations === true ? GROUP_OPERATIONS : OPERATIONS_NOT_REQUESTED;
    return {
      throttleTimeMs: 0,
      groups: request.groups.map((id) => {
        // DESCRIBE on each group (KafkaApis.handleDescribeGroupsRequest); the bits only for groups answered
        const denied = groupError(ctx, AclOperation.DESCRIBE, id);
        if (denied) return { errorCode: denied, groupId: id, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED };
        const described = describeGroup(ctx.broker.groups, id);
        const bits = ctx.broker.authorizer === undefined || ops === OPERATIONS_NOT_REQUESTED ? ops : authorizedOperations(ctx, true, ResourceType.GROUP, id);
        return { ...described, authorizedOperations: described.errorCode === ErrorCode.NONE ? bits : OPERATIONS_NOT_REQUESTED };
      }),
    };
  },
};
