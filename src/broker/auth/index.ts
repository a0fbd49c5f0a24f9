/** The broker's authorization (Kafka's StandardAuthorizer semantics): ACL model, store, authorizer, handler checks. */
import { AclStore } from './acl-store.js';
import { authorizerConfigFromProperties } from './config.js';
import { StandardAuthorizer } from './standard-authorizer.js';

export { takeAuthorizerProperties, STANDARD_AUTHORIZER_CLASS } from './config.js';
export { StandardAuthorizer } from './standard-authorizer.js';
export { AclStore, ACLS_FILE } from './acl-store.js';

/** The authorizer the properties configure over the data dir's ACLs, or undefined when none is configured. */
export function createAuthorizer(props: Readonly<Record<string, string>>, dataDir: string): StandardAuthorizer | undefined {
  const config = authorizerConfigFromProperties(props);
  return config === undefined ? undefined : new StandardAuthorizer(config, AclStore.load(dataDir));
}
