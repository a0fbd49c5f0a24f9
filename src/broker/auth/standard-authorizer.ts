/**
 * Kafka's StandardAuthorizer (`metadata/.../authorizer/StandardAuthorizer`, `StandardAuthorizerData`)
 * over the ACLs of an AclStore: super users pass every check; a resource with no covering ACL gets
 * `allow.everyone.if.no.acl.found`; otherwise a matching DENY wins over any ALLOW, and an ALLOW of
 * READ/WRITE/DELETE/ALTER grants DESCRIBE and of ALTER_CONFIGS grants DESCRIBE_CONFIGS (ALLOW only).
 */
import { AclOperation, AclPermissionType, PatternType, ResourceType, WILDCARD_HOST, WILDCARD_PRINCIPAL, WILDCARD_RESOURCE, type AclBinding } from './acl.js';
import type { AclStore } from './acl-store.js';
import type { AuthorizerConfig } from './config.js';

/** Who asks, from where: the session's principal (`User:alice`) and the client's IP text. */
export interface Requester {
  principal: string;
  host: string;
}

/** `StandardAuthorizerData.findResult`: whether one ACL applies to an operation (implication for ALLOW only). */
function operationMatches(acl: AclBinding, operation: number): boolean {
  if (acl.operation === AclOperation.ALL || acl.operation === operation) return true;
  if (acl.permissionType !== AclPermissionType.ALLOW) return false;
  if (operation === AclOperation.DESCRIBE) {
    return acl.operation === AclOperation.READ || acl.operation === AclOperation.WRITE || acl.operation === AclOperation.DELETE || acl.operation === AclOperation.ALTER;
  }
  return operation === AclOperation.DESCRIBE_CONFIGS && acl.operation === AclOperation.ALTER_CONFIGS;
}

/** A stored pattern covers a literal resource name (`StandardAuthorizerData.findAclRule`). */
function covers(acl: AclBinding, resourceType: number, name: string): boolean {
  if (acl.resourceType !== resourceType) return false;
  if (acl.patternType === PatternType.LITERAL) return acl.resourceName === name || acl.resourceName === WILDCARD_RESOURCE;
  return acl.patternType === PatternType.PREFIXED && name.startsWith(acl.resourceName);
}

function entryApplies(acl: AclBinding, who: Requester): boolean {
  return (acl.principal === who.principal || acl.principal === WILDCARD_PRINCIPAL) && (acl.host === WILDCARD_HOST || acl.host === who.host);
}

/** Operations reported in authorized-operations fields, per resource type (`AclEntry.supportedOperations`). */
const SUPPORTED_OPERATIONS: ReadonlyMap<number, readonly number[]> = new Map([
  [ResourceType.TOPIC, [AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]],
  [ResourceType.GROUP, [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]],
  [ResourceType.CLUSTER, [AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE]],
  [ResourceType.TRANSACTIONAL_ID, [AclOperation.DESCRIBE, AclOperation.WRITE]],
]);

export class StandardAuthorizer {
  constructor(
    readonly config: AuthorizerConfig,
    readonly store: AclStore,
  ) {}

  isSuperUser(principal: string): boolean {
    return this.config.superUsers.has(principal);
  }

  /** `StandardAuthorizer.authorize` for one action on a literal resource name. */
  authorize(who: Requester, operation: number, resourceType: number, name: string): boolean {
    if (this.isSuperUser(who.principal)) return true;
    let anyCovering = false;
    let allowed = false;
    for (const list of this.store.candidates(resourceType, name)) {
      for (const acl of list) {
        if (!covers(acl, resourceType, name)) continue;
        // "the resource has ACLs" ignores principal, host and operation (StandardAuthorizerData.findAclRule)
        anyCovering = true;
        if (!entryApplies(acl, who) || !operationMatches(acl, operation)) continue;
        if (acl.permissionType === AclPermissionType.DENY) return false;
        allowed = true;
      }
    }
    return anyCovering ? allowed : this.config.allowEveryoneIfNoAclFound;
  }

  /**
   * `Authorizer.authorizeByResourceType` (the default method): whether the operation is allowed on
   * at least one resource of the type; InitProducerId's KIP-679 check (WRITE on any topic).
   */
  authorizeByResourceType(who: Requester, operation: number, resourceType: number): boolean {
    // covers super users, a wildcard ALLOW and the no-ACL default, as Kafka's probe of "hardcode" does
    if (this.authorize(who, operation, resourceType, 'hardcode')) return true;
    const denyLiteral = new Set<string>();
    const denyPrefixed: string[] = [];
    const allowLiteral: string[] = [];
    const allowPrefixed: string[] = [];
    for (const acl of this.store.all()) {
      if (acl.resourceType !== resourceType || !entryApplies(acl, who)) continue;
      if (acl.operation !== operation && acl.operation !== AclOperation.ALL) continue;
      const deny = acl.permissionType === AclPermissionType.DENY;
      if (acl.patternType === PatternType.LITERAL) {
        if (acl.resourceName === WILDCARD_RESOURCE && deny) return false;
        if (deny) denyLiteral.add(acl.resourceName);
        else allowLiteral.push(acl.resourceName);
      } else if (acl.patternType === PatternType.PREFIXED) {
        (deny ? denyPrefixed : allowPrefixed).push(acl.resourceName);
      }
    }
    if (allowLiteral.includes(WILDCARD_RESOURCE)) return true;
    const deniedByPrefix = (n: string): boolean => denyPrefixed.some((p) => n.startsWith(p));
    return allowLiteral.some((n) => !denyLiteral.has(n) && !deniedByPrefix(n)) || allowPrefixed.some((n) => !deniedByPrefix(n));
  }

  /** The authorized-operations bitfield of a resource (`AuthHelper.authorizedOperations`): bit 1 << op per allowed op. */
  authorizedOperations(who: Requester, resourceType: number, name: string): number {
    let bits = 0;
    for (const op of SUPPORTED_OPERATIONS.get(resourceType) ?? []) if (this.authorize(who, op, resourceType, name)) bits |= 1 << op;
    return bits;
  }
}

/** The bitfield when no authorizer is configured: every supported operation (Kafka's `AuthHelper` without an authorizer). */
export function allOperations(resourceType: number): number {
  let bits = 0;
  for (const op of SUPPORTED_OPERATIONS.get(resourceType) ?? []) bits |= 1 << op;
  return bits;
}
