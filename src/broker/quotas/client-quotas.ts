/**
 * Client quotas (KIP-55, KIP-546): quota values per entity, an entity being a user, a client id,
 * both, or an IP address, each named or the default (name null). Validation follows Kafka's
 * `ClientQuotaControlManager`: entity types `user`, `client-id`, `ip` (ip alone), each type once;
 * keys by entity (`producer_byte_rate`, `consumer_byte_rate`, `request_percentage`,
 * `controller_mutation_rate` for users and clients; `connection_creation_rate` for IPs); values
 * above 0, whole numbers for the integer keys. Kafka keeps them in the metadata log; kafkalite keeps
 * them in `kafkalite-client-quotas.json` in the data directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { InvalidConfigError } from '../../errors.js';
import { atomicWriteFileSync } from '../../storage/fs-util.js';
import { ApiError } from '../api-error.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const CLIENT_QUOTAS_FILE = 'kafkalite-client-quotas.json';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

/** entity type -> name (null: the default entity of that type) */
export type QuotaEntity = ReadonlyMap<string, string | null>;

/** Quota keys with whether they take whole numbers only (`QuotaConfig`). */
const CLIENT_KEYS: ReadonlyMap<string, boolean> = new Map([
  ['producer_byte_rate', true],
  ['consumer_byte_rate', true],
  ['request_percentage', false],
  ['controller_mutation_rate', false],
]);
const IP_KEYS: ReadonlyMap<string, boolean> = new Map([['connection_creation_rate', true]]);

/** A stable key for an entity: its components sorted by type. */
export function entityKey(entity: QuotaEntity): string {
  return JSON.stringify([...entity].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * entityKey of the entity {user: user, client-id: clientId} (undefined: that type absent), built
 * without the Map and the sort: every Produce and Fetch resolves its quota through up to eight of
 * these (quota-manager.ts resolveQuota), so the hot path must stay cheap. `client-id` sorts before `user`.
 */
export function userClientEntityKey(user: string | null | undefined, clientId: string | null | undefined): string {
  const components: [string, string | null][] = [];
  if (clientId !== undefined) components.push([CLIENT_ID, clientId]);
  if (user !== undefined) components.push([USER, user]);
  return JSON.stringify(components);
}

/** Kafka `ClientQuotaControlManager.validateEntity`. */
export function validateEntity(components: readonly { entityType: string; entityName: string | null }[]): QuotaEntity {
  if (components.length === 0) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Invalid empty client quota entity');
  const entity = new Map<string, string | null>();
  for (const c of components) {
    if (c.entityType !== USER && c.entityType !== CLIENT_ID && c.entityType !== IP) {
      throw new ApiError(ErrorCode.UNSUPPORTED_VERSION, `Unhandled client quota entity type: ${c.entityType}`);
    }
    if (entity.has(c.entityType)) throw new ApiError(ErrorCode.INVALID_REQUEST, `Invalid empty client quota entity, duplicate entity entry ${c.entityType}`);
    if (c.entityName === '') throw new ApiError(ErrorCode.INVALID_REQUEST, `Empty ${c.entityType} not supported`);
    entity.set(c.entityType, c.entityName);
  }
  if (entity.has(IP)) {
    if (entity.size > 1) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Invalid quota entity combination, IP entity should not be combined with User or ClientId');
    const ip = entity.get(IP);
    if (ip !== null && ip !== undefined && isIP(ip) === 0) throw new ApiError(ErrorCode.INVALID_REQUEST, `${ip} is not a valid IP or resolvable host.`);
  }
  return entity;
}

function validateOp(entity: QuotaEntity, key: string, value: number, remove: boolean): void {
  const keys = entity.has(IP) ? IP_KEYS : CLIENT_KEYS;
  const integer = keys.get(key);
  if (integer === undefined) throw new ApiError(ErrorCode.INVALID_REQUEST, `Invalid configuration key ${key}`);
  if (remove) return;
  if (!(value > 0)) throw new ApiError(ErrorCode.INVALID_REQUEST, `Invalid value ${value} for configuration key ${key}: must be greater than 0`);
  if (integer && (!Number.isInteger(value) || value > Number.MAX_SAFE_INTEGER)) {
    throw new ApiError(ErrorCode.INVALID_REQUEST, `Configuration ${key} must be a Long value`);
  }
}

export interface StoredQuota {
  entity: QuotaEntity;
  values: Map<string, number>;
}

export class ClientQuotaStore {
  private readonly quotas = new Map<string, StoredQuota>();
  /** The quota keys some entity sets (refreshed on every change): a request resolves nothing when its key is absent. */
  private keysInUse: ReadonlySet<string> = new Set();
  private constructor(private readonly dataDir: string) {}

  static load(dataDir: string): ClientQuotaStore {
    const store = new ClientQuotaStore(dataDir);
    const path = join(dataDir, CLIENT_QUOTAS_FILE);
    if (!existsSync(path)) return store;
    let parsed: { quotas?: unknown };
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8')) as typeof parsed;
    } catch (e) {
      throw new InvalidConfigError(`${path}: not valid JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(parsed.quotas)) throw new InvalidConfigError(`${path}: no "quotas" list`);
    for (const q of parsed.quotas as { entity?: unknown; values?: unknown }[]) {
      try {
        const entity = validateEntity((q.entity ?? []) as { entityType: string; entityName: string | null }[]);
        const values = new Map<string, number>();
        for (const [k, v] of Object.entries((q.values ?? {}) as Record<string, unknown>)) {
          if (typeof v !== 'number') throw new InvalidConfigError(`quota ${k} is not a number`);
          validateOp(entity, k, v, false);
          values.set(k, v);
        }
        store.quotas.set(entityKey(entity), { entity, values });
      } catch (e) {
        throw new InvalidConfigError(`${path}: ${(e as Error).message}`);
      }
    }
    store.indexKeys();
    return store;
  }

  /** Validates one AlterClientQuotas entry (throws ApiError) and, unless `validateOnly`, applies and persists it. */
  alter(components: readonly { entityType: string; entityName: string | null }[], ops: readonly { key: string; value: number; remove: boolean }[], validateOnly: boolean): void {
    const entity = validateEntity(components);
    const seen = new Set<string>();
    for (const op of ops) {
      if (seen.has(op.key)) throw new ApiError(ErrorCode.INVALID_REQUEST, `Duplicate quota key ${op.key} not updating quota for ${entityKey(entity)}`);
      seen.add(op.key);
      validateOp(entity, op.key, op.value, op.remove);
    }
    if (validateOnly) return;
    const key = entityKey(entity);
    const values = new Map(this.quotas.get(key)?.values ?? []);
    for (const op of ops) {
      if (op.remove) values.delete(op.key);
      else values.set(op.key, op.value);
    }
    if (values.size === 0) this.quotas.delete(key);
    else this.quotas.set(key, { entity, values });
    this.indexKeys();
    this.persist();
  }

  private indexKeys(): void {
    const keys = new Set<string>();
    for (const q of this.quotas.values()) for (const k of q.values.keys()) keys.add(k);
    this.keysInUse = keys;
  }

  /** Whether any entity sets `key` (e.g. `producer_byte_rate`). */
  holds(key: string): boolean {
    return this.keysInUse.has(key);
  }

  all(): StoredQuota[] {
    return [...this.quotas.values()];
  }

  /** The value set on exactly this entity, if any. */
  get(entity: QuotaEntity, key: string): number | undefined {
    return this.quotas.get(entityKey(entity))?.values.get(key);
  }

  /** get() for the entity {user, client-id} (undefined: that type absent), without building it. */
  getForUserClient(user: string | null | undefined, clientId: string | null | undefined, key: string): number | undefined {
    return this.quotas.get(userClientEntityKey(user, clientId))?.values.get(key);
  }

  private persist(): void {
    const quotas = this.all().map((q) => ({
      entity: [...q.entity].map(([entityType, entityName]) => ({ entityType, entityName })),
      values: Object.fromEntries(q.values),
    }));
    atomicWriteFileSync(join(this.dataDir, CLIENT_QUOTAS_FILE), `${JSON.stringify({ version: 1, quotas }, null, 1)}\n`);
  }
}
