/**
 * The authorizer's broker properties (Kafka `StandardAuthorizer.configure`, docs §7.5):
 * `authorizer.class.name` (empty: no authorizer, every check passes; Kafka's KRaft class name turns
 * on StandardAuthorizer semantics), `super.users` (semicolon-separated principals, each `Type:name`)
 * and `allow.everyone.if.no.acl.found` (default false, `Boolean.parseBoolean` of the trimmed value).
 */
import { InvalidConfigError } from '../../errors.js';

export const STANDARD_AUTHORIZER_CLASS = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

const NAMES = new Set(['authorizer.class.name', 'super.users', 'allow.everyone.if.no.acl.found']);

export interface AuthorizerConfig {
  superUsers: ReadonlySet<string>;
  allowEveryoneIfNoAclFound: boolean;
}

/** Splits broker properties into the authorizer's and the rest (which the broker config parses). */
export function takeAuthorizerProperties(props: Readonly<Record<string, string>>): { auth: Record<string, string>; rest: Record<string, string> } {
  const auth: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) (NAMES.has(k) ? auth : rest)[k] = v;
  return { auth, rest };
}

/** The authorizer's config, or undefined when `authorizer.class.name` is empty (Kafka's default). */
export function authorizerConfigFromProperties(props: Readonly<Record<string, string>>): AuthorizerConfig | undefined {
  const className = (props['authorizer.class.name'] ?? '').trim();
  if (className === '') return undefined;
  // the ZooKeeper-era AclAuthorizer is gone from Kafka 4; only the KRaft authorizer's semantics are served
  if (className !== STANDARD_AUTHORIZER_CLASS) {
    throw new InvalidConfigError(`Invalid value ${className} for configuration authorizer.class.name: kafkalite serves ${STANDARD_AUTHORIZER_CLASS} only`);
  }
  const superUsers = new Set<string>();
  for (const raw of (props['super.users'] ?? '').split(';')) {
    const p = raw.trim();
    if (p === '') continue;
    // StandardAuthorizer.getConfiguredSuperUsers
    if (p.indexOf(':') < 0) throw new InvalidConfigError(`super.users must be a semicolon-separated list of principals: expected a string in format principalType:principalName but got ${p}`);
    superUsers.add(p);
  }
  // Boolean.parseBoolean: "true" in any case is true, anything else false
  const allowEveryoneIfNoAclFound = (props['allow.everyone.if.no.acl.found'] ?? 'false').trim().toLowerCase() === 'true';
  return { superUsers, allowEveryoneIfNoAclFound };
}
