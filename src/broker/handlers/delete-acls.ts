/**
 * DeleteAcls (31), v0-3: every stored ACL binding matching each filter is removed and listed under
 * that filter (`AclApis.handleDeleteAcls`, `AclControlManager.deleteAcls`); a binding matched by two
 * filters is listed under both. The removal is persisted before the answer. Needs ALTER on the
 * cluster. UNKNOWN codes close the connection, as Kafka cannot parse them.
 */
import { DeleteAcls, type DeleteAclsFilterResult, type DeleteAclsRequest, type DeleteAclsResponse } from '../../protocol/schemas/delete-acls.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { NO_RESPONSE, type ApiHandler } from '../handler.js';
import { AclOperation, filterUnknownReason, PatternType, type AclBindingFilter } from '../auth/acl.js';
import { clusterAuthorized } from '../auth/checks.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';

export const deleteAclsHandler: ApiHandler<DeleteAclsRequest, DeleteAclsResponse> = {
  api: DeleteAcls,
  minVersion: 0,
  maxVersion: 3,
  handle(request, ctx) {
    const filters: AclBindingFilter[] = request.filters.map((f) => ({
      resourceType: f.resourceTypeFilter,
      resourceName: f.resourceNameFilter,
      patternType: f.patternTypeFilter ?? PatternType.LITERAL,
      principal: f.principalFilter,
      host: f.hostFilter,
      operation: f.operation,
      permissionType: f.permissionType,
    }));
    if (filters.some((f) => filterUnknownReason(f) !== undefined)) {
      ctx.connection.closeAfterResponse = true;
      return NO_RESPONSE;
    }
    const all = (errorCode: number, errorMessage: string | null): DeleteAclsResponse => ({
      throttleTimeMs: 0,
      filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    });
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    if (!clusterAuthorized(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    let removed;
    try {
      removed = authorizer.store.remove(filters);
    } catch (e) {
      return all(errorCodeOf(e), errorMessageOf(e));
    }
    const filterResults: DeleteAclsFilterResult[] = removed.map((list) => ({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      matchingAcls: list.map((b) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...b })),
    }));
    return { throttleTimeMs: 0, filterResults };
  },
};
