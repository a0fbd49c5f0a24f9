/**
 * The authorizer's semantics, mirroring Kafka's StandardAuthorizerTest and AuthorizerTest: super
 * users, the no-ACL default, ALLOW implication (READ/WRITE/DELETE/ALTER → DESCRIBE, ALTER_CONFIGS →
 * DESCRIBE_CONFIGS) that DENY does not have, DENY over ALLOW, wildcard and prefixed patterns, host
 * matching, authorizeByResourceType (KIP-679), the config keys, and the ACL file kept and reloaded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT, type AclBinding } from '../../../src/broker/auth/acl.js';
import { ACLS_FILE, AclStore } from '../../../src/broker/auth/acl-store.js';
import { authorizerConfigFromProperties, STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { StandardAuthorizer } from '../../../src/broker/auth/standard-authorizer.js';
import { InvalidConfigError } from '../../../src/errors.js';

const alice = { principal: 'User:alice', host: '10.0.0.1' };
const bob = { principal: 'User:bob', host: '10.0.0.2' };

function acl(resourceType: number, resourceName: string, principal: string, operation: number, permissionType: number = Perm.ALLOW, patternType: number = PatternType.LITERAL, host = '*'): AclBinding {
  return { resourceType, resourceName, patternType, principal, host, operation, permissionType };
}

function withAuthorizer(props: Record<string, string>, acls: AclBinding[], body: (a: StandardAuthorizer, dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-authz-'));
  try {
    const store = AclStore.load(dir);
    if (acls.length > 0) store.add(acls);
    body(new StandardAuthorizer(authorizerConfigFromProperties({ 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, ...props })!, store), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('StandardAuthorizer', () => {
  test('no ACL on a resource: allow.everyone.if.no.acl.found decides (default false)', () => {
    withAuthorizer({}, [], (a) => assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 't'), false));
    withAuthorizer({ 'allow.everyone.if.no.acl.found': ' true ' }, [], (a) => assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 't'), true));
    // one ACL for anybody on the topic makes the default irrelevant (testNoAclFoundOverride)
    withAuthorizer({ 'allow.everyone.if.no.acl.found': 'true' }, [acl(RT.TOPIC, 't', 'User:bob', Op.READ)], (a) => {
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 't'), false);
      assert.equal(a.authorize(bob, Op.READ, RT.TOPIC, 't'), true);
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 'other'), true);
    });
  });

  test('super users pass every check, DENY included', () => {
    withAuthorizer({ 'super.users': 'User:admin; User:root' }, [acl(RT.TOPIC, '*', 'User:*', Op.ALL, Perm.DENY)], (a) => {
      assert.equal(a.authorize({ principal: 'User:root', host: '1.2.3.4' }, Op.WRITE, RT.TOPIC, 't'), true);
      assert.equal(a.authorize({ principal: 'User:admin', host: '1.2.3.4' }, Op.ALTER, RT.CLUSTER, 'kafka-cluster'), true);
      assert.equal(a.authorize(alice, Op.WRITE, RT.TOPIC, 't'), false);
    });
  });

  test('ALLOW implies DESCRIBE and DESCRIBE_CONFIGS; DENY implies nothing (testFindResultImplication)', () => {
    withAuthorizer({}, [acl(RT.TOPIC, 'r', 'User:alice', Op.READ), acl(RT.TOPIC, 'w', 'User:alice', Op.WRITE), acl(RT.TOPIC, 'c', 'User:alice', Op.CREATE), acl(RT.TOPIC, 'ac', 'User:alice', Op.ALTER_CONFIGS)], (a) => {
      assert.equal(a.authorize(alice, Op.DESCRIBE, RT.TOPIC, 'r'), true);
      assert.equal(a.authorize(alice, Op.DESCRIBE, RT.TOPIC, 'w'), true);
      assert.equal(a.authorize(alice, Op.WRITE, RT.TOPIC, 'r'), false);
      // CREATE does not imply DESCRIBE
      assert.equal(a.authorize(alice, Op.DESCRIBE, RT.TOPIC, 'c'), false);
      assert.equal(a.authorize(alice, Op.DESCRIBE_CONFIGS, RT.TOPIC, 'ac'), true);
      assert.equal(a.authorize(alice, Op.DESCRIBE, RT.TOPIC, 'ac'), false);
    });
    withAuthorizer({}, [acl(RT.TOPIC, 't', 'User:alice', Op.ALL), acl(RT.TOPIC, 't', 'User:alice', Op.READ, Perm.DENY)], (a) => {
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 't'), false);
      assert.equal(a.authorize(alice, Op.DESCRIBE, RT.TOPIC, 't'), true);
      assert.equal(a.authorize(alice, Op.WRITE, RT.TOPIC, 't'), true);
    });
  });

  test('DENY wins over ALLOW whatever the patterns (testDenyTakesPrecedence, testDenyPrecedenceWithOperationAll)', () => {
    withAuthorizer({}, [acl(RT.TOPIC, 'pay', 'User:alice', Op.ALL, Perm.ALLOW, PatternType.PREFIXED), acl(RT.TOPIC, '*', 'User:*', Op.WRITE, Perm.DENY)], (a) => {
      assert.equal(a.authorize(alice, Op.WRITE, RT.TOPIC, 'payments'), false);
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 'payments'), true);
    });
  });

  test('prefixed, wildcard resource and wildcard principal ACLs (testPrefixAcls, testWildCardAcls)', () => {
    withAuthorizer({}, [acl(RT.TOPIC, 'foo', 'User:alice', Op.READ, Perm.ALLOW, PatternType.PREFIXED), acl(RT.GROUP, '*', 'User:*', Op.READ)], (a) => {
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 'foo'), true);
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 'foobar'), true);
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 'fo'), false);
      assert.equal(a.authorize(bob, Op.READ, RT.TOPIC, 'foobar'), false);
      assert.equal(a.authorize(bob, Op.READ, RT.GROUP, 'any-group'), true);
      // resource types never mix
      assert.equal(a.authorize(bob, Op.READ, RT.TRANSACTIONAL_ID, 'any-group'), false);
    });
  });

  test('host ACLs compare the client IP exactly (testHostAddressAclValidation)', () => {
    withAuthorizer({}, [acl(RT.TOPIC, 't', 'User:alice', Op.READ, Perm.ALLOW, PatternType.LITERAL, '10.0.0.1')], (a) => {
      assert.equal(a.authorize(alice, Op.READ, RT.TOPIC, 't'), true);
      assert.equal(a.authorize({ ...alice, host: '10.0.0.9' }, Op.READ, RT.TOPIC, 't'), false);
    });
  });

  test('authorizeByResourceType: WRITE on some topic (KIP-679), a prefixed DENY covering a literal ALLOW', () => {
    withAuthorizer({}, [], (a) => assert.equal(a.authorizeByResourceType(alice, Op.WRITE, RT.TOPIC), false));
    withAuthorizer({}, [acl(RT.TOPIC, 'orders', 'User:alice', Op.WRITE)], (a) => {
      assert.equal(a.authorizeByResourceType(alice, Op.WRITE, RT.TOPIC), true);
      assert.equal(a.authorizeByResourceType(bob, Op.WRITE, RT.TOPIC), false);
    });
    withAuthorizer({}, [acl(RT.TOPIC, 'orders', 'User:alice', Op.WRITE), acl(RT.TOPIC, 'ord', 'User:alice', Op.WRITE, Perm.DENY, PatternType.PREFIXED)], (a) => {
      assert.equal(a.authorizeByResourceType(alice, Op.WRITE, RT.TOPIC), false);
    });
  });

  test('authorized operations bitfield: READ ALLOW sets READ and DESCRIBE', () => {
    withAuthorizer({}, [acl(RT.TOPIC, 't', 'User:alice', Op.READ)], (a) => {
      assert.equal(a.authorizedOperations(alice, RT.TOPIC, 't'), (1 << Op.READ) | (1 << Op.DESCRIBE));
    });
  });
});

describe('authorizer config', () => {
  test('empty class name: no authorizer; another class: refused; super.users entries need a type', () => {
    assert.equal(authorizerConfigFromProperties({}), undefined);
    assert.equal(authorizerConfigFromProperties({ 'authorizer.class.name': '' }), undefined);
    assert.throws(() => authorizerConfigFromProperties({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' }), InvalidConfigError);
    assert.throws(() => authorizerConfigFromProperties({ 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'super.users': 'alice' }), /principalType:principalName/);
    const c = authorizerConfigFromProperties({ 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'super.users': 'User:CN=a,O=b;User:c' })!;
    assert.deepEqual([...c.superUsers], ['User:CN=a,O=b', 'User:c']);
    assert.equal(c.allowEveryoneIfNoAclFound, false);
  });
});

describe('AclStore', () => {
  test('bindings persist, a duplicate is stored once, removals persist, a bad file is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-acls-'));
    try {
      const s = AclStore.load(dir);
      s.add([acl(RT.TOPIC, 't', 'User:alice', Op.READ), acl(RT.TOPIC, 't', 'User:alice', Op.READ), acl(RT.GROUP, 'g', 'User:alice', Op.READ)]);
      assert.equal(AclStore.load(dir).size, 2);
      const removed = s.remove([{ resourceType: RT.GROUP, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY }]);
      assert.equal(removed[0]!.length, 1);
      assert.deepEqual([...AclStore.load(dir).all()].map((b) => b.resourceName), ['t']);
      // the authorizer reads the store's index, which follows every change
      const a = new StandardAuthorizer(authorizerConfigFromProperties({ 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'allow.everyone.if.no.acl.found': 'true' })!, s);
      assert.equal(a.authorize(alice, Op.READ, RT.GROUP, 'g'), true);
      assert.equal(a.authorize(bob, Op.READ, RT.TOPIC, 't'), false);
      s.add([acl(RT.GROUP, 'g', 'User:bob', Op.READ)]);
      assert.equal(a.authorize(alice, Op.READ, RT.GROUP, 'g'), false);
      assert.ok(readFileSync(join(dir, ACLS_FILE), 'utf8').includes('User:alice'));
      writeFileSync(join(dir, ACLS_FILE), JSON.stringify({ acls: [{ ...acl(RT.CLUSTER, 'other', 'User:a', Op.ALTER) }] }));
      assert.throws(() => AclStore.load(dir), /kafka-cluster/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
