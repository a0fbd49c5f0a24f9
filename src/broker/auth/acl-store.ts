/**
 * The ACLs, kept in `kafkalite-acls.json` in the data directory (Kafka keeps them as AccessControlEntryRecords
 * in the metadata log, `AclControlManager`). Every change is written atomically before it is answered, so a
 * restarted broker, and `kafkalite acls` offline, see what was acknowledged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfigError } from '../../errors.js';
import { atomicWriteFileSync } from '../../storage/fs-util.js';
import { bindingKey, filterMatches, invalidBindingReason, PatternType, WILDCARD_RESOURCE, type AclBinding, type AclBindingFilter } from './acl.js';

export const ACLS_FILE = 'kafkalite-acls.json';

const EMPTY: readonly AclBinding[] = [];
const NONE: readonly (readonly AclBinding[])[] = [];

const FIELDS = ['resourceType', 'resourceName', 'patternType', 'principal', 'host', 'operation', 'permissionType'] as const;

function parseBinding(v: unknown): AclBinding {
  if (typeof v !== 'object' || v === null) throw new InvalidConfigError('an ACL is not an object');
  const o = v as Record<string, unknown>;
  const num = (k: string): number => {
    const x = o[k];
    if (typeof x !== 'number' || !Number.isInteger(x)) throw new InvalidConfigError(`ACL field ${k} is not an integer`);
    return x;
  };
  const str = (k: string): string => {
    const x = o[k];
    if (typeof x !== 'string') throw new InvalidConfigError(`ACL field ${k} is not a string`);
    return x;
  };
  const b: AclBinding = {
    resourceType: num('resourceType'), resourceName: str('resourceName'), patternType: num('patternType'),
    principal: str('principal'), host: str('host'), operation: num('operation'), permissionType: num('permissionType'),
  };
  const invalid = invalidBindingReason(b);
  if (invalid !== undefined) throw new InvalidConfigError(invalid);
  return b;
}

/** One resource type's bindings by pattern: a check reads only those that may cover its name. */
interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: AclBinding[];
}

export class AclStore {
  private readonly acls = new Map<string, AclBinding>();
  /** Bindings by resource type, rebuilt on each change (as StandardAuthorizerData keeps them sorted by resource). */
  private index = new Map<number, TypeIndex>();
  private constructor(readonly path: string) {}

  static load(dataDir: string): AclStore {
    const store = new AclStore(join(dataDir, ACLS_FILE));
    if (!existsSync(store.path)) return store;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(store.path, 'utf8'));
    } catch (e) {
      throw new InvalidConfigError(`${store.path}: not valid JSON (${(e as Error).message})`);
    }
    const list = typeof parsed === 'object' && parsed !== null ? (parsed as { acls?: unknown }).acls : undefined;
    if (!Array.isArray(list)) throw new InvalidConfigError(`${store.path}: no "acls" list`);
    for (const raw of list) {
      try {
        const b = parseBinding(raw);
        store.acls.set(bindingKey(b), b);
      } catch (e) {
        throw new InvalidConfigError(`${store.path}: ${(e as Error).message}`);
      }
    }
    store.reindex();
    return store;
  }

  /**
   * The bindings whose pattern may cover a literal resource name of the type: its LITERAL name, the
   * LITERAL wildcard and every PREFIXED pattern (the caller checks the prefix).
   */
  candidates(resourceType: number, name: string): readonly (readonly AclBinding[])[] {
    const t = this.index.get(resourceType);
    if (t === undefined) return NONE;
    return [t.literal.get(name) ?? EMPTY, name === WILDCARD_RESOURCE ? EMPTY : (t.literal.get(WILDCARD_RESOURCE) ?? EMPTY), t.prefixed];
  }

  private reindex(): void {
    const index = new Map<number, TypeIndex>();
    for (const b of this.acls.values()) {
      let t = index.get(b.resourceType);
      if (t === undefined) index.set(b.resourceType, (t = { literal: new Map(), prefixed: [] }));
      if (b.patternType === PatternType.PREFIXED) t.prefixed.push(b);
      else {
        const list = t.literal.get(b.resourceName);
        if (list === undefined) t.literal.set(b.resourceName, [b]);
        else list.push(b);
      }
    }
    this.index = index;
  }

  all(): IterableIterator<AclBinding> {
    return this.acls.values();
  }

  get size(): number {
    return this.acls.size;
  }

  /** Bindings matching the filter, in creation order. */
  matching(filter: AclBindingFilter): AclBinding[] {
    return [...this.acls.values()].filter((b) => filterMatches(filter, b));
  }

  /** Adds valid bindings (one already stored is a no-op, as in Kafka) and persists them. */
  add(bindings: readonly AclBinding[]): void {
    for (const b of bindings) this.acls.set(bindingKey(b), { ...b });
    this.reindex();
    this.persist();
  }

  /** Removes every binding matching one of the filters; each filter's removed bindings, in filter order. */
  remove(filters: readonly AclBindingFilter[]): AclBinding[][] {
    const removed = filters.map((f) => this.matching(f));
    const seen = new Set<string>();
    for (const list of removed) for (const b of list) seen.add(bindingKey(b));
    for (const k of seen) this.acls.delete(k);
    if (seen.size > 0) {
      this.reindex();
      this.persist();
    }
    return removed;
  }

  private persist(): void {
    const acls = [...this.acls.values()].map((b) => Object.fromEntries(FIELDS.map((f) => [f, b[f]])));
    atomicWriteFileSync(this.path, JSON.stringify({ version: 1, acls }, null, 1) + '\n');
  }
}
