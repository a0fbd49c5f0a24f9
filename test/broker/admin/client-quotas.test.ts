/**
 * DescribeClientQuotas (48) and AlterClientQuotas (49) at every version served: Kafka's validation
 * (entity types and combinations, keys per entity, values), validate_only, filters (exact,
 * default, specified; strict), persistence across a restart; and the byte-rate quotas enforced:
 * a Produce or Fetch over its quota carries throttle_time_ms (a throttled Fetch answers empty),
 * with the rate computed as Kafka's `Rate` over 11 one-second samples (a manual clock here).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { ClientQuotaStore, entityKey, userClientEntityKey } from '../../../src/broker/quotas/client-quotas.js';
import { ClientQuotaManager, SampledRate } from '../../../src/broker/quotas/quota-manager.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const DESCRIBE = 48;
const ALTER = 49;

type Entity = { entityType: string; entityName: string | null }[];
const user = (name: string | null) => ({ entityType: 'user', entityName: name });
const client = (name: string | null) => ({ entityType: 'client-id', entityName: name });

async function alter(broker: Broker, version: number, entries: { entity: Entity; ops: { key: string; value: number; remove: boolean }[] }[], validateOnly = false): Promise<(string | undefined)[]> {
  const r = await call(broker, ALTER, version, { entries, validateOnly });
  return r.entries.map((e: { errorCode: number }) => errorName(e.errorCode));
}

async function describeQuotas(broker: Broker, version: number, components: { entityType: string; matchType: number; match: string | null }[], strict = false) {
  const r = await call(broker, DESCRIBE, version, { components, strict });
  if (r.errorCode !== 0) return errorName(r.errorCode);
  return (r.entries as { entity: Entity; values: { key: string; value: number }[] }[])
    .map((e) => [e.entity.map((x) => `${x.entityType}=${x.entityName ?? '<default>'}`).sort().join(','), Object.fromEntries(e.values.map((v) => [v.key, v.value]))])
    .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
}

describe('client quotas: DescribeClientQuotas and AlterClientQuotas', () => {
  for (const version of [0, 1]) {
    test(`v${version}: validation, validate_only, filters`, async () => {
      await withBroker({}, async (broker) => {
        const set = (key: string, value: number) => ({ key, value, remove: false });
        assert.deepEqual(await alter(broker, version, [{ entity: [user('alice')], ops: [set('producer_byte_rate', 1024)] }], true), ['NONE']);
        assert.deepEqual(await describeQuotas(broker, version, []), []);
        assert.deepEqual(
          await alter(broker, version, [
            { entity: [user('alice')], ops: [set('producer_byte_rate', 1024), set('consumer_byte_rate', 2048)] },
            { entity: [user('alice'), client('app')], ops: [set('request_percentage', 12.5)] },
            { entity: [client(null)], ops: [set('producer_byte_rate', 500)] },
            { entity: [{ entityType: 'ip', entityName: '10.0.0.1' }], ops: [set('connection_creation_rate', 5)] },
            { entity: [], ops: [set('producer_byte_rate', 1)] },
            { entity: [user('bob')], ops: [set('no_such_quota', 1)] },
            { entity: [user('bob')], ops: [set('producer_byte_rate', 1.5)] },
            { entity: [user('bob')], ops: [set('producer_byte_rate', 0)] },
            { entity: [user('bob'), user('carol')], ops: [set('producer_byte_rate', 10)] },
            { entity: [user('bob'), { entityType: 'ip', entityName: '10.0.0.2' }], ops: [set('producer_byte_rate', 10)] },
            { entity: [{ entityType: 'ip', entityName: 'not an address' }], ops: [set('connection_creation_rate', 5)] },
            { entity: [{ entityType: 'ip', entityName: null }], ops: [set('producer_byte_rate', 5)] },
            { entity: [{ entityType: 'group', entityName: 'g' }], ops: [set('producer_byte_rate', 5)] },
          ]),
          ['NONE', 'NONE', 'NONE', 'NONE', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'UNSUPPORTED_VERSION'],
        );
        assert.deepEqual(await describeQuotas(broker, version, [{ entityType: 'user', matchType: 0, match: 'alice' }]), [
          ['client-id=app,user=alice', { request_percentage: 12.5 }],
          ['user=alice', { producer_byte_rate: 1024, consumer_byte_rate: 2048 }],
        ]);
        assert.deepEqual(await describeQuotas(broker, version, [{ entityType: 'user', matchType: 0, match: 'alice' }], true), [['user=alice', { producer_byte_rate: 1024, consumer_byte_rate: 2048 }]]);
        assert.deepEqual(await describeQuotas(broker, version, [{ entityType: 'client-id', matchType: 1, match: null }]), [['client-id=<default>', { producer_byte_rate: 500 }]]);
        assert.deepEqual(await describeQuotas(broker, version, [{ entityType: 'client-id', matchType: 2, match: null }]), [['client-id=app,user=alice', { request_percentage: 12.5 }]]);
        assert.deepEqual((await describeQuotas(broker, version, [])) as unknown[], [
          ['client-id=<default>', { producer_byte_rate: 500 }],
          ['client-id=app,user=alice', { request_percentage: 12.5 }],
          ['ip=10.0.0.1', { connection_creation_rate: 5 }],
          ['user=alice', { producer_byte_rate: 1024, consumer_byte_rate: 2048 }],
        ]);
        assert.equal(await describeQuotas(broker, version, [{ entityType: 'user', matchType: 0, match: 'a' }, { entityType: 'user', matchType: 2, match: null }]), 'INVALID_REQUEST');
        assert.equal(await describeQuotas(broker, version, [{ entityType: 'user', matchType: 9, match: null }]), 'INVALID_REQUEST');
        // removing the last value removes the entity
        assert.deepEqual(await alter(broker, version, [{ entity: [client(null)], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }]), ['NONE']);
        assert.deepEqual(await describeQuotas(broker, version, [{ entityType: 'client-id', matchType: 1, match: null }]), []);
      });
    });
  }

  test('quotas persist across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-quotas-'));
    await withBroker({ dataDir }, async (broker) => {
      assert.deepEqual(await alter(broker, 1, [{ entity: [user(null), client('c1')], ops: [{ key: 'consumer_byte_rate', value: 4096, remove: false }] }]), ['NONE']);
    });
    await withBroker({ dataDir }, async (broker) => {
      assert.deepEqual(await describeQuotas(broker, 1, []), [['client-id=c1,user=<default>', { consumer_byte_rate: 4096 }]]);
    });
  });
});

describe('byte-rate quotas enforced', () => {
  test('the per-request entity key is the stored entity key of {user, client-id}', () => {
    const names = [undefined, null, 'u', 'client-id', '"q"'];
    for (const u of names) for (const c of names) {
      if (u === undefined && c === undefined) continue;
      const entity = new Map<string, string | null>();
      if (c !== undefined) entity.set('client-id', c);
      if (u !== undefined) entity.set('user', u);
      assert.equal(userClientEntityKey(u, c), entityKey(entity));
      const reversed = new Map([...entity].reverse());
      assert.equal(userClientEntityKey(u, c), entityKey(reversed));
    }
  });

  test("Kafka's Rate: at least 10 full windows, samples expire after 11", () => {
    const rate = new SampledRate();
    rate.record(10_000, 0);
    assert.equal(rate.windowMs(0), 10_000);
    assert.equal(rate.rate(0), 1000);
    rate.record(10_000, 5_500);
    // 5.5 s elapsed, padded to 10 full windows
    assert.equal(rate.windowMs(5_500), 10_500);
    assert.equal(rate.rate(10_999), 20_000 / 10.999);
    // the first sample expires 11 windows after it started
    assert.equal(rate.rate(11_000), 10_000 / 10.5);
    assert.equal(rate.rate(16_500), 0);
  });

  test('throttle time: (rate - quota) / quota x window, at most one window; under the quota none', () => {
    let now = 1_000_000;
    const store = ClientQuotaStore.load(mkdtempSync(join(tmpdir(), 'kafkalite-quota-store-')));
    store.alter([client('fast')], [{ key: 'producer_byte_rate', value: 1000, remove: false }], false);
    const manager = new ClientQuotaManager(store, 'producer_byte_rate', () => now);
    assert.equal(manager.recordAndGetThrottleTimeMs('other', 1e9), 0);
    assert.equal(manager.recordAndGetThrottleTimeMs('fast', 10_000), 0);
    now += 100;
    // 10500 bytes over 10.1 s: 1039.6 B/s, 3.96 % over: 400 ms
    assert.equal(manager.recordAndGetThrottleTimeMs('fast', 500), Math.round(((10_500 / 10.1 - 1000) / 1000) * 10_100));
    assert.equal(manager.recordAndGetThrottleTimeMs('fast', 100_000), 1000);
  });

  test('Produce and Fetch over their quotas carry throttle_time_ms; a throttled Fetch answers empty', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create('q', 1, {}, broker.logs);
      const produce = (clientId: string) =>
        call(broker, 0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'q', partitionData: [{ index: 0, records: encodeRecordBatch([{ value: 'x'.repeat(20_000) }]) }] }] }, clientId);
      const fetch = (clientId: string) =>
        call(broker, 1, 12, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: 'q', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }], forgottenTopicsData: [], rackId: '' }, clientId);
      assert.equal((await produce('slow')).throttleTimeMs, 0);
      assert.deepEqual(await alter(broker, 1, [{ entity: [client('slow')], ops: [{ key: 'producer_byte_rate', value: 1000, remove: false }, { key: 'consumer_byte_rate', value: 1000, remove: false }] }]), ['NONE']);
      const throttled = await produce('slow');
      assert.equal(errorName(throttled.responses[0].partitionResponses[0].errorCode), 'NONE');
      // 20 KB in a window of about 10 s is about twice the quota: the throttle is capped at one window
      assert.equal(throttled.throttleTimeMs, 1000);
      assert.equal((await produce('free')).throttleTimeMs, 0);
      const f = await fetch('slow');
      assert.deepEqual([f.throttleTimeMs, f.responses.length], [1000, 0]);
      const g = await fetch('free');
      assert.deepEqual([g.throttleTimeMs, g.responses.length], [0, 1]);
    });
  });
});
