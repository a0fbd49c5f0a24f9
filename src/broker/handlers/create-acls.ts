/**
 * CreateAcls (30), v0-3: each creation answered in order (`AclApis.handleCreateAcls`,
 * `AclControlManager.validateNewAcl`): INVALID_REQUEST for a CLUSTER resource not named
 * kafka-cluster, an empty name, an ANY/MATCH pattern, an ANY operation or permission, or a principal
 * without a type; an ACL already stored is a success. The valid ones are persisted before the
 * answer. Needs ALTER on the cluster. UNKNOWN codes close the connection (Kafka cannot parse them).
 */
import { CreateAcls, type AclCreationResult, type CreateAclsRequest, type CreateAclsResponse } from '../../protocol/schemas/create-acls.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { NO_RESPONSE, type ApiHandler } from '../handler.js';
import { AclOperation, invalidBindingReason, PatternType, type AclBinding } from '../auth/acl.js';
import { clusterAuthorized } from '../auth/checks.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';

const UNKNOWN = 0;

export const createAclsHandler: ApiHandler<CreateAclsRequest, CreateAclsResponse> = {
  api: CreateAcls,
  minVersion: 0,
  maxVersion: 3,
  handle(request, ctx) {
    const bindings: AclBinding[] = request.creations.map((c) => ({
      resourceType: c.resourceType,
      resourceName: c.resourceName,
      patternType: c.resourcePatternType ?? PatternType.LITERAL,
      principal: c.principal,
      host: c.host,
      operation: c.operation,
      permissionType: c.permissionType,
    }));
    // CreateAclsRequest.validate: an UNKNOWN code anywhere fails the parse
    if (bindings.some((b) => b.resourceType === UNKNOWN || b.patternType === UNKNOWN || b.operation === UNKNOWN || b.permissionType === UNKNOWN)) {
      ctx.connection.closeAfterResponse = true;
      return NO_RESPONSE;
    }
    const all = (errorCode: number, errorMessage: string | null): CreateAclsResponse => ({ throttleTimeMs: 0, results: bindings.map(() => ({ errorCode, errorMessage })) });
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    if (!clusterAuthorized(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const results: AclCreationResult[] = bindings.map((b) => {
      const invalid = invalidBindingReason(b);
      return invalid === undefined ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid };
    });
    try {
      authorizer.store.add(bindings.filter((_b, i) => results[i]!.errorCode === ErrorCode.NONE));
    } catch (e) {
      // the file could not be written: nothing valid was acknowledged
      for (const r of results) if (r.errorCode === ErrorCode.NONE) Object.assign(r, { errorCode: errorCodeOf(e), errorMessage: errorMessageOf(e) });
    }
    const created = results.filter((r) => r.errorCode === ErrorCode.NONE).length;
    if (created > 0) ctx.broker.logger.info(`${ctx.connection.principal} created ${created} ACL(s)`);
    return { throttleTimeMs: 0, results };
  },
};
