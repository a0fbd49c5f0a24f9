/**
 * Byte-rate quotas enforced as Kafka's `ClientQuotaManager` does: each request's bytes are recorded
 * in a rate over `quota.window.num` (11) samples of `quota.window.size.seconds` (1 s); when the
 * rate is above the quota the answer carries throttle_time_ms = (rate - quota) / quota x the
 * rate's window, at most one window (`QuotaUtils.boundedThrottleTime`), and clients back off that
 * long (KIP-219). The quota is resolved in Kafka's precedence (`ClientQuotaManager.quotaLimit`):
 * /users/u/clients/c, /users/u/clients/<default>, /users/u, /users/<default>/clients/c,
 * /users/<default>/clients/<default>, /users/<default>, /clients/c, /clients/<default>; clients
 * share a rate when they share the entity that set their quota, and each client id gets its own
 * rate under a default one (Kafka's metric tags). Without SASL every client is user ANONYMOUS.
 */
import type { ClientQuotaStore } from './client-quotas.js';

export const QUOTA_WINDOW_MS = 1000;
export const QUOTA_WINDOW_NUM = 11;
/** `KafkaPrincipal.ANONYMOUS`: the user of a connection without authentication. */
export const ANONYMOUS = 'ANONYMOUS';

interface Sample {
  start: number;
  value: number;
}

/** Kafka's `Rate` over a `SampledStat` (per second). */
export class SampledRate {
  private readonly samples: Sample[] = [];

  record(value: number, now: number): void {
    this.purge(now);
    const current = this.samples[this.samples.length - 1];
    if (current === undefined || now >= current.start + QUOTA_WINDOW_MS) {
      this.samples.push({ start: now, value });
      if (this.samples.length > QUOTA_WINDOW_NUM) this.samples.shift();
    } else {
      current.value += value;
    }
  }

  /** `Rate.windowSize`: the time the samples cover, at least `samples - 1` full windows. */
  windowMs(now: number): number {
    this.purge(now);
    const oldest = this.samples[0]?.start ?? now;
    let elapsed = now - oldest;
    const fullWindows = Math.floor(elapsed / QUOTA_WINDOW_MS);
    if (fullWindows < QUOTA_WINDOW_NUM - 1) elapsed += (QUOTA_WINDOW_NUM - 1 - fullWindows) * QUOTA_WINDOW_MS;
    return elapsed;
  }

  /** Per second. */
  rate(now: number): number {
    this.purge(now);
    const total = this.samples.reduce((n, s) => n + s.value, 0);
    return total / (this.windowMs(now) / 1000);
  }

  private purge(now: number): void {
    while (this.samples.length > 0 && now - this.samples[0]!.start >= QUOTA_WINDOW_NUM * QUOTA_WINDOW_MS) this.samples.shift();
  }
}

/** The quota that applies to (user, clientId) and the rate's key (Kafka's metric tags), if any is set. */
export function resolveQuota(store: ClientQuotaStore, key: string, user: string, clientId: string): { quota: number; tags: string } | undefined {
  // no entity sets this key (the usual broker): nothing to resolve, and no key built per request
  if (!store.holds(key)) return undefined;
  const candidates: [string | null | undefined, string | null | undefined][] = [
    [user, clientId], [user, null], [user, undefined],
    [null, clientId], [null, null], [null, undefined],
    [undefined, clientId], [undefined, null],
  ];
  for (const [u, c] of candidates) {
    const quota = store.getForUserClient(u, c, key);
    if (quota !== undefined) return { quota, tags: JSON.stringify([u === undefined ? '' : user, c === undefined ? '' : clientId]) };
  }
  return undefined;
}

export class ClientQuotaManager {
  private readonly rates = new Map<string, SampledRate>();

  constructor(
    private readonly store: ClientQuotaStore,
    /** `producer_byte_rate` or `consumer_byte_rate` */
    private readonly key: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records `bytes` for the client and returns the throttle time its answer carries (0 without a
   * quota). With `unrecordIfThrottled` (Fetch: a throttled fetch is answered empty, Kafka
   * `KafkaApis.handleFetchRequest`) the bytes of a throttled request are taken back out.
   */
  recordAndGetThrottleTimeMs(clientId: string, bytes: number, options?: { user?: string; unrecordIfThrottled?: boolean }): number {
    // no default `{}`: that was an object per request for the usual broker, which has no quota
    const user = options?.user ?? ANONYMOUS;
    const resolved = resolveQuota(this.store, this.key, user, clientId);
    if (resolved === undefined) return 0;
    const now = this.now();
    let rate = this.rates.get(resolved.tags);
    if (rate === undefined) {
      rate = new SampledRate();
      this.rates.set(resolved.tags, rate);
    }
    rate.record(bytes, now);
    const observed = rate.rate(now);
    if (observed <= resolved.quota) return 0;
    const throttle = Math.round(((observed - resolved.quota) / resolved.quota) * rate.windowMs(now));
    if (options?.unrecordIfThrottled === true) rate.record(-bytes, now);
    return Math.min(throttle, QUOTA_WINDOW_MS);
  }
}

/** The broker's quotas: the stored values and the produce and fetch byte-rate managers. */
export class BrokerQuotas {
  readonly produce: ClientQuotaManager;
  readonly fetch: ClientQuotaManager;

  constructor(
    readonly store: ClientQuotaStore,
    now: () => number = Date.now,
  ) {
    this.produce = new ClientQuotaManager(store, 'producer_byte_rate', now);
    this.fetch = new ClientQuotaManager(store, 'consumer_byte_rate', now);
  }

  all(): ReturnType<ClientQuotaStore['all']> {
    return this.store.all();
  }

  alter(...args: Parameters<ClientQuotaStore['alter']>): void {
    this.store.alter(...args);
  }
}

/** The record bytes of a Produce request (what the producer quota counts; Kafka counts the whole request). */
export function producedBytes(request: { topicData: readonly { partitionData: readonly { records: Buffer | null }[] }[] }): number {
  let n = 0;
  for (const t of request.topicData) for (const p of t.partitionData) n += p.records?.length ?? 0;
  return n;
}
