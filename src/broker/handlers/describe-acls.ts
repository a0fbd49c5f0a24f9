/**
 * DescribeAcls (29), v0-3 (v1 adds pattern types, v2 is flexible, v3 admits the USER resource
 * type): the stored ACL bindings matching one filter, grouped by resource pattern
 * (`AclApis.handleDescribeAcls`). Needs DESCRIBE on the cluster. A filter naming an UNKNOWN code is
 * a request Kafka cannot parse: the connection is closed. Without an authorizer: SECURITY_DISABLED.
 */
import { DescribeAcls, type DescribeAclsRequest, type DescribeAclsResource, type DescribeAclsResponse } from '../../protocol/schemas/describe-acls.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { NO_RESPONSE, type ApiHandler } from '../handler.js';
import { AclOperation, filterUnknownReason, PatternType } from '../auth/acl.js';
import { clusterAuthorized } from '../auth/checks.js';

export const describeAclsHandler: ApiHandler<DescribeAclsRequest, DescribeAclsResponse> = {
  api: DescribeAcls,
  minVersion: 0,
  maxVersion: 3,
  handle(request, ctx) {
    const filter = {
      resourceType: request.resourceTypeFilter,
      resourceName: request.resourceNameFilter,
      patternType: request.patternTypeFilter ?? PatternType.LITERAL,
      principal: request.principalFilter,
      host: request.hostFilter,
      operation: request.operation,
      permissionType: request.permissionType,
    };
    if (filterUnknownReason(filter) !== undefined) {
      ctx.connection.closeAfterResponse = true;
      return NO_RESPONSE;
    }
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return { throttleTimeMs: 0, errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] };
    if (!clusterAuthorized(ctx, AclOperation.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, resources: [] };
    const byPattern = new Map<string, DescribeAclsResource>();
    for (const b of authorizer.store.matching(filter)) {
      const key = JSON.stringify([b.resourceType, b.resourceName, b.patternType]);
      let r = byPattern.get(key);
      if (r === undefined) byPattern.set(key, (r = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }));
      r.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permissionType });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...byPattern.values()] };
  },
};
