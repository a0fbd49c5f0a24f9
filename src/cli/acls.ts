/**
 * `kafkalite acls <data-dir>`: lists, adds and removes the ACLs a data directory keeps
 * (`kafkalite-acls.json`, src/broker/auth/acl-store.ts) without a broker, with kafka-acls.sh's
 * options: `--list`, `--add`, `--remove`; `--allow-principal`/`--deny-principal`,
 * `--allow-host`/`--deny-host` (default `*`), `--operation` (Read, Write, Create, Delete, Alter,
 * Describe, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, All); one resource of
 * `--topic`, `--group`, `--cluster`, `--transactional-id`, `--delegation-token`, `--user-principal`;
 * `--resource-pattern-type` literal|prefixed (any|match also for --list and --remove). A running
 * broker holds the directory's lock and its own copy of the ACLs, so changes are refused then: the
 * ACL APIs (CreateAcls, DeleteAcls) change a live broker's.
 */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AclOperation, AclPermissionType, CLUSTER_NAME, invalidBindingReason, PatternType, ResourceType, type AclBinding, type AclBindingFilter } from '../broker/auth/acl.js';
import { AclStore } from '../broker/auth/acl-store.js';
import { dataDirLockState } from '../storage/dir-lock.js';
import { PROCESS_IO, writeText, type CliIo } from './output.js';

export const ACLS_USAGE = `Usage: kafkalite acls <data-dir> (--list | --add | --remove) [options]

Lists, adds or removes the ACLs kept in the data directory (offline; kafka-acls.sh's options).

Options:
  --list | --add | --remove
  --allow-principal <Type:name>   principal the ALLOW ACLs are for (repeatable)
  --deny-principal <Type:name>    principal the DENY ACLs are for (repeatable)
  --allow-host <ip>               host of the ALLOW ACLs (repeatable, default *)
  --deny-host <ip>                host of the DENY ACLs (repeatable, default *)
  --operation <op>                Read, Write, Create, Delete, Alter, Describe, ClusterAction,
                                  DescribeConfigs, AlterConfigs, IdempotentWrite, All (repeatable)
  --topic <name> | --group <id> | --cluster | --transactional-id <id> | --delegation-token <id>
  | --user-principal <name>       the resource (* for every one of its type)
  --resource-pattern-type <t>     literal (default) | prefixed; also any | match for --list/--remove
  --principal <Type:name>         --list, --remove: only this principal's ACLs
  -h, --help                      this help`;

export interface AclsOptions {
  dir: string;
  action: 'list' | 'add' | 'remove';
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  entries: { principal: string; host: string; permissionType: number }[];
  operations: number[];
  principal: string | null;
}

const OPERATIONS: Readonly<Record<string, number>> = {
  read: AclOperation.READ, write: AclOperation.WRITE, create: AclOperation.CREATE, delete: AclOperation.DELETE, alter: AclOperation.ALTER,
  describe: AclOperation.DESCRIBE, clusteraction: AclOperation.CLUSTER_ACTION, describeconfigs: AclOperation.DESCRIBE_CONFIGS,
  alterconfigs: AclOperation.ALTER_CONFIGS, idempotentwrite: AclOperation.IDEMPOTENT_WRITE, all: AclOperation.ALL,
};
const PATTERNS: Readonly<Record<string, number>> = { literal: PatternType.LITERAL, prefixed: PatternType.PREFIXED, any: PatternType.ANY, match: PatternType.MATCH };
const NAMES = (o: Record<string, number>): Map<number, string> => new Map(Object.entries(o).map(([k, v]) => [v, k]));
const RESOURCE_NAMES = NAMES(ResourceType);
const OPERATION_NAMES = NAMES(AclOperation);
const PERMISSION_NAMES = NAMES(AclPermissionType);
const PATTERN_NAMES = NAMES(PatternType);

export function parseAclsArgs(argv: string[]): AclsOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        list: { type: 'boolean' }, add: { type: 'boolean' }, remove: { type: 'boolean' },
        'allow-principal': { type: 'string', multiple: true }, 'deny-principal': { type: 'string', multiple: true },
        'allow-host': { type: 'string', multiple: true }, 'deny-host': { type: 'string', multiple: true },
        operation: { type: 'string', multiple: true },
        topic: { type: 'string' }, group: { type: 'string' }, cluster: { type: 'boolean' }, 'transactional-id': { type: 'string' },
        'delegation-token': { type: 'string' }, 'user-principal': { type: 'string' },
        'resource-pattern-type': { type: 'string' }, principal: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  if (parsed.positionals.length !== 1) return { error: 'expected exactly one data directory' };
  const actions = (['list', 'add', 'remove'] as const).filter((a) => v[a] === true);
  if (actions.length !== 1) return { error: 'exactly one of --list, --add, --remove is required' };
  const action = actions[0]!;
  const resources: [number, string][] = [];
  if (v.topic !== undefined) resources.push([ResourceType.TOPIC, v.topic]);
  if (v.group !== undefined) resources.push([ResourceType.GROUP, v.group]);
  if (v.cluster === true) resources.push([ResourceType.CLUSTER, CLUSTER_NAME]);
  if (v['transactional-id'] !== undefined) resources.push([ResourceType.TRANSACTIONAL_ID, v['transactional-id']]);
  if (v['delegation-token'] !== undefined) resources.push([ResourceType.DELEGATION_TOKEN, v['delegation-token']]);
  if (v['user-principal'] !== undefined) resources.push([ResourceType.USER, v['user-principal']]);
  if (resources.length > 1) return { error: 'at most one resource (--topic, --group, --cluster, --transactional-id, --delegation-token, --user-principal)' };
  if (resources.length === 0 && action === 'add') return { error: '--add needs a resource (--topic, --group, --cluster, ...)' };
  const patternName = (v['resource-pattern-type'] ?? 'literal').toLowerCase();
  const patternType = PATTERNS[patternName];
  if (patternType === undefined) return { error: `unknown --resource-pattern-type ${v['resource-pattern-type']}` };
  if (action === 'add' && patternType !== PatternType.LITERAL && patternType !== PatternType.PREFIXED) return { error: '--add takes --resource-pattern-type literal or prefixed' };
  const operations: number[] = [];
  for (const o of v.operation ?? []) {
    const op = OPERATIONS[o.toLowerCase().replace(/[-_]/g, '')];
    if (op === undefined) return { error: `unknown --operation ${o}` };
    operations.push(op);
  }
  if (action === 'add' && operations.length === 0) return { error: '--add needs at least one --operation' };
  const entries: AclsOptions['entries'] = [];
  for (const [principals, hosts, permissionType] of [[v['allow-principal'], v['allow-host'], AclPermissionType.ALLOW], [v['deny-principal'], v['deny-host'], AclPermissionType.DENY]] as const) {
    for (const principal of principals ?? []) for (const host of hosts ?? ['*']) entries.push({ principal, host, permissionType });
  }
  if (action === 'add' && entries.length === 0) return { error: '--add needs --allow-principal or --deny-principal' };
  const [resourceType, resourceName] = resources[0] ?? [ResourceType.ANY, null];
  return { dir: parsed.positionals[0]!, action, resourceType, resourceName, patternType: resources.length === 0 && v['resource-pattern-type'] === undefined ? PatternType.ANY : patternType, entries, operations, principal: v.principal ?? null };
}

function describe(b: AclBinding): string {
  return `ResourcePattern(resourceType=${RESOURCE_NAMES.get(b.resourceType)}, name=${b.resourceName}, patternType=${PATTERN_NAMES.get(b.patternType)}): ` +
    `(principal=${b.principal}, host=${b.host}, operation=${OPERATION_NAMES.get(b.operation)}, permissionType=${PERMISSION_NAMES.get(b.permissionType)})`;
}

/** The filters --list/--remove mean: one per entry and operation given, ANY for what is left out. */
function filtersOf(o: AclsOptions): AclBindingFilter[] {
  const base = { resourceType: o.resourceType, resourceName: o.resourceName, patternType: o.patternType };
  const entries = o.entries.length > 0 ? o.entries : [{ principal: o.principal, host: null, permissionType: AclPermissionType.ANY }];
  const ops = o.operations.length > 0 ? o.operations : [AclOperation.ANY];
  return entries.flatMap((e) => ops.map((operation) => ({ ...base, principal: e.principal, host: o.entries.length > 0 ? e.host : null, permissionType: e.permissionType, operation })));
}

export function acls(o: AclsOptions, io: CliIo = PROCESS_IO): number {
  if (!existsSync(o.dir) || !statSync(o.dir).isDirectory()) {
    writeText(io.stderr, `Error: ${o.dir} is not a directory\n`);
    return 1;
  }
  if (o.action !== 'list' && dataDirLockState(o.dir).locked) {
    writeText(io.stderr, `Error: ${o.dir} is locked by a running broker or tool: change its ACLs with the ACL APIs (CreateAcls, DeleteAcls) instead\n`);
    return 1;
  }
  const store = AclStore.load(o.dir);
  if (o.action === 'add') {
    const bindings: AclBinding[] = o.entries.flatMap((e) => o.operations.map((operation) => ({ resourceType: o.resourceType, resourceName: o.resourceName ?? '', patternType: o.patternType, ...e, operation })));
    for (const b of bindings) {
      const invalid = invalidBindingReason(b);
      if (invalid !== undefined) {
        writeText(io.stderr, `Error: ${invalid}\n`);
        return 1;
      }
    }
    store.add(bindings);
    writeText(io.stdout, bindings.map((b) => `Added ACL ${describe(b)}\n`).join(''));
    return 0;
  }
  if (o.action === 'remove') {
    const removed = new Set(store.remove(filtersOf(o)).flat());
    writeText(io.stdout, [...removed].map((b) => `Removed ACL ${describe(b)}\n`).join(''));
    return 0;
  }
  const shown = new Set(filtersOf(o).flatMap((f) => store.matching(f)));
  writeText(io.stdout, [...shown].map((b) => `${describe(b)}\n`).join(''));
  return 0;
}
