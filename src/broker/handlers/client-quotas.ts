/**
 * DescribeClientQuotas (48) and AlterClientQuotas (49), KIP-546: quotas per user / client id / IP
 * entity (quotas/client-quotas.ts). Describe filters entities by components (exact name, the
 * default entity, or any named one), `strict` admitting no other entity types; a filter naming a
 * type twice or with an unknown match type is INVALID_REQUEST for the whole answer. Alter answers
 * each entry with its own error.
 */
import {
  AlterClientQuotas,
  type AlterClientQuotasRequest,
  type AlterClientQuotasResponse,
  type AlterClientQuotasResponseEntryData,
} from '../../protocol/schemas/alter-client-quotas.js';
import {
  DescribeClientQuotas,
  type ComponentData,
  type DescribeClientQuotasRequest,
  type DescribeClientQuotasResponse,
  type EntryData,
} from '../../protocol/schemas/describe-client-quotas.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import type { ApiHandler } from '../handler.js';
import { IP, type QuotaEntity } from '../quotas/client-quotas.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized } from '../auth/checks.js';

/** DescribeClientQuotasRequest match types. */
const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

function checkFilter(components: readonly ComponentData[]): void {
  const types = new Set<string>();
  for (const c of components) {
    if (types.has(c.entityType)) throw new ApiError(ErrorCode.INVALID_REQUEST, `Duplicate ${c.entityType} filter component entity type`);
    types.add(c.entityType);
    if (c.matchType !== MATCH_EXACT && c.matchType !== MATCH_DEFAULT && c.matchType !== MATCH_SPECIFIED) {
      throw new ApiError(ErrorCode.INVALID_REQUEST, `Unknown match type: ${c.matchType}`);
    }
    if (c.matchType === MATCH_EXACT && c.match === null) throw new ApiError(ErrorCode.INVALID_REQUEST, `Exact match of ${c.entityType} needs a name`);
    if (c.entityType === '') throw new ApiError(ErrorCode.INVALID_REQUEST, 'Invalid empty entity type');
  }
  if (types.has(IP) && types.size > 1) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.');
}

function matches(entity: QuotaEntity, components: readonly ComponentData[], strict: boolean): boolean {
  if (strict && entity.size !== components.length) return false;
  for (const c of components) {
    if (!entity.has(c.entityType)) return false;
    const name = entity.get(c.entityType)!;
    if (c.matchType === MATCH_EXACT && name !== c.match) return false;
    if (c.matchType === MATCH_DEFAULT && name !== null) return false;
    if (c.matchType === MATCH_SPECIFIED && name === null) return false;
  }
  return true;
}

export const describeClientQuotasHandler: ApiHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse> = {
  api: DescribeClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    if (!clusterAuthorized(ctx, AclOperation.DESCRIBE_CONFIGS)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, entries: null };
    try {
      checkFilter(request.components);
    } catch (e) {
      return { throttleTimeMs: 0, errorCode: errorCodeOf(e), errorMessage: errorMessageOf(e), entries: null };
    }
    const entries: EntryData[] = [];
    for (const q of ctx.broker.quotas.all()) {
      if (!matches(q.entity, request.components, request.strict)) continue;
      entries.push({
        entity: [...q.entity].map(([entityType, entityName]) => ({ entityType, entityName })),
        values: [...q.values].map(([key, value]) => ({ key, value })),
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
  },
};

export const alterClientQuotasHandler: ApiHandler<AlterClientQuotasRequest, AlterClientQuotasResponse> = {
  api: AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const entries: AlterClientQuotasResponseEntryData[] = [];
    for (const e of request.entries) {
      const out: AlterClientQuotasResponseEntryData = { errorCode: ErrorCode.NONE, errorMessage: null, entity: e.entity.map((c) => ({ entityType: c.entityType, entityName: c.entityName })) };
      entries.push(out);
      try {
        if (!clusterAuthorized(ctx, AclOperation.ALTER_CONFIGS)) throw new ApiError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
        ctx.broker.quotas.alter(e.entity, e.ops, request.validateOnly);
      } catch (err) {
        out.errorCode = errorCodeOf(err);
        out.errorMessage = errorMessageOf(err);
      }
    }
    return { throttleTimeMs: 0, entries };
  },
};
