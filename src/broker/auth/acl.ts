/**
 * Kafka's ACL model: resource patterns, access control entries and their filters, with the codes
 * of Kafka's enums (`ResourceType`, `PatternType`, `AclOperation`, `AclPermissionType` in
 * clients/.../common/{resource,acl}/) and the filter matching of `ResourcePatternFilter.matches`
 * and `AccessControlEntryFilter.matches`. ANY and MATCH exist only in filters.
 */

export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14,
} as const;
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeCode = (typeof ResourceType)[keyof typeof ResourceType];
export type AclOperationCode = (typeof AclOperation)[keyof typeof AclOperation];

/** The one name of the CLUSTER resource (`Resource.CLUSTER_NAME`). */
export const CLUSTER_NAME = 'kafka-cluster';
/** `ResourcePattern.WILDCARD_RESOURCE`, `AclEntry.WILDCARD_PRINCIPAL_STRING`, `AclEntry.WILDCARD_HOST`. */
export const WILDCARD_RESOURCE = '*';
export const WILDCARD_PRINCIPAL = 'User:*';
export const WILDCARD_HOST = '*';

/** An ACL binding as stored: a LITERAL or PREFIXED resource pattern and an ALLOW or DENY entry. */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

/** A filter over bindings (DescribeAcls, DeleteAcls): null strings and ANY codes match everything. */
export interface AclBindingFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permissionType: number;
}

const codes = (o: Record<string, number>): ReadonlySet<number> => new Set(Object.values(o));
const RESOURCE_TYPES = codes(ResourceType);
const PATTERN_TYPES = codes(PatternType);
const OPERATIONS = codes(AclOperation);
const PERMISSIONS = codes(AclPermissionType);

/** A key equal for equal bindings (a binding created twice is stored once, `AclControlManager`). */
export function bindingKey(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType]);
}

/** Why a binding may not be stored (`AclControlManager.validateNewAcl`, `AclApis.handleCreateAcls`), or undefined. */
export function invalidBindingReason(b: AclBinding): string | undefined {
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (b.resourceName === '') return 'Invalid empty resource name';
  if (!RESOURCE_TYPES.has(b.resourceType) || b.resourceType === ResourceType.ANY || b.resourceType === ResourceType.UNKNOWN) return `Invalid resourceType ${b.resourceType}`;
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) return `Invalid patternType ${b.patternType}`;
  if (!OPERATIONS.has(b.operation) || b.operation === AclOperation.ANY || b.operation === AclOperation.UNKNOWN) return `Invalid operation ${b.operation}`;
  if (b.permissionType !== AclPermissionType.ALLOW && b.permissionType !== AclPermissionType.DENY) return `Invalid permissionType ${b.permissionType}`;
  // Kafka (KRaft) stores a principal without a type, which then matches nobody (security notes §9.7):
  // kafkalite refuses it, as Kafka's own SecurityUtils.parseKafkaPrincipal would at authorization
  if (b.principal.indexOf(':') <= 0) return `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`;
  if (b.host === '') return 'Invalid empty host';
  return undefined;
}

/** Whether a filter names an UNKNOWN code anywhere (`AclBindingFilter.matchesAtMostOne`/`isUnknown`): Kafka refuses such a request. */
export function filterUnknownReason(f: AclBindingFilter): string | undefined {
  if (!RESOURCE_TYPES.has(f.resourceType) || f.resourceType === ResourceType.UNKNOWN || !PATTERN_TYPES.has(f.patternType) || f.patternType === PatternType.UNKNOWN) {
    return 'Unknown patternFilter.';
  }
  if (!OPERATIONS.has(f.operation) || f.operation === AclOperation.UNKNOWN || !PERMISSIONS.has(f.permissionType) || f.permissionType === AclPermissionType.UNKNOWN) {
    return 'Unknown entryFilter.';
  }
  return undefined;
}

/** `ResourcePatternFilter.matches`. */
function patternMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName === null) return true;
  if (f.patternType === PatternType.ANY || f.patternType === b.patternType) return f.resourceName === b.resourceName;
  // MATCH: every stored pattern that would apply to a resource of this name
  if (b.patternType === PatternType.LITERAL) return f.resourceName === b.resourceName || b.resourceName === WILDCARD_RESOURCE;
  if (b.patternType === PatternType.PREFIXED) return f.resourceName.startsWith(b.resourceName);
  return false;
}

/** `AccessControlEntryFilter.matches`. */
function entryMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== b.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === b.permissionType;
}

export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  return patternMatches(f, b) && entryMatches(f, b);
}
