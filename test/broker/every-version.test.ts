/**
 * Every advertised (API, version) answers a well-formed request: the handler's answer must be
 * encodable in exactly that version (a field set outside its versions and not `ignorable` would
 * make the codec throw and the broker close the connection). Requests name a topic that exists
 * and has data, so the handlers' success paths run, not only their error paths.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { encodeLegacyMessageSet } from '../../src/record/legacy-builder.js';
import { withBroker } from '../helpers/broker.js';
import { RawClient, type Msg } from '../helpers/raw-client.js';
import { readRecordBatches } from '../../src/index.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { startBroker } from '../../src/broker/broker.js';

const T = 'every-version';

/** A realistic request body per API key and version; APIs not listed get the schema defaults. */
const BODIES: Record<number, (v: number) => Msg> = {
  0: (v) => ({
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: T, partitionData: [{ index: 0, records: v < 3 ? encodeLegacyMessageSet([{ key: 'k', value: 'v' }], { magic: v < 2 ? 0 : 1 }) : encodeRecordBatch([{ key: 'k', value: 'v', headers: [{ key: 'h', value: 'x' }] }]) }] }],
  }),
  1: () => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, topics: [{ topic: T, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }], forgottenTopicsData: [], rackId: '' }),
  2: () => ({ replicaId: -1, isolationLevel: 0, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -1n }, { partitionIndex: 0, timestamp: -2n }, { partitionIndex: 0, timestamp: 0n }] }] }),
  3: (v) => ({ topics: v === 0 ? [] : [{ name: T }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false }),
  10: (v) => (v >= 4 ? { keyType: 0, coordinatorKeys: ['group-a', 'group-b'] } : { key: 'group-a' }),
  18: () => ({ clientSoftwareName: 'every-version', clientSoftwareVersion: '1.0' }),
  19: (v) => ({ topics: [{ name: `created-v${v}`, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '1000' }] }], timeoutMs: 5000, validateOnly: false }),
  20: (v) => (v >= 6 ? { topics: [{ name: `created-v${Math.min(v, 7)}`, topicId: Buffer.alloc(16) }], timeoutMs: 5000 } : { topicNames: [`created-v${v + 2}`], timeoutMs: 5000 }),
  21: () => ({ topics: [{ name: T, partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 5000 }),
  22: () => ({ transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 }),
  // ACL filters and creations need known codes: an UNKNOWN (0) one is a request Kafka cannot parse
  29: (v) => ({ resourceTypeFilter: 1, resourceNameFilter: null, ...(v >= 1 ? { patternTypeFilter: 1 } : {}), principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }),
  30: () => ({ creations: [{ resourceType: 2, resourceName: T, principal: 'User:a', host: '*', operation: 3, permissionType: 3 }] }),
  31: (v) => ({ filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, ...(v >= 1 ? { patternTypeFilter: 1 } : {}), principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] }),
  32: (v) => ({ resources: [{ resourceType: 2, resourceName: T, configurationKeys: null }, { resourceType: 4, resourceName: '', configurationKeys: null }], includeSynonyms: v >= 1, includeDocumentation: v >= 3 }),
};

describe('every advertised API version', () => {
  test('answers a well-formed request on the same connection', async () => {
    await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      broker.topics.create(T, 1, {}, broker.logs);
      const c = await RawClient.connect(broker.port);
      try {
        await c.request(0, 9, BODIES[0]!(9));
        const answered: string[] = [];
        for (const { apiKey, minVersion, maxVersion } of broker.advertisedApis()) {
          for (let v = minVersion; v <= maxVersion; v++) {
            const body = BODIES[apiKey]?.(v) ?? {};
            let response: Msg;
            try {
              response = await c.request(apiKey, v, body);
            } catch (e) {
              assert.fail(`API ${apiKey} v${v}: ${(e as Error).message}`);
            }
            assert.equal(typeof response, 'object');
            answered.push(`${apiKey}v${v}`);
          }
        }
        // Kafka 3.9's floors: every one of these is served from v0
        for (const k of ['0v0', '1v0', '2v0', '3v0', '8v0', '9v0', '11v0', '19v0', '20v0', '32v0', '1v12', '32v4']) assert.ok(answered.includes(k), `${k} not answered: ${answered.join(' ')}`);
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('old Fetch versions read down-converted records', () => {
  test('v0-1 read magic 0, v2-3 magic 1, v4+ the stored magic 2; headers dropped, offsets kept', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create(T, 1, {}, broker.logs);
      const c = await RawClient.connect(broker.port);
      try {
        const records = encodeRecordBatch([{ key: 'k0', value: 'v0', headers: [{ key: 'h', value: 'x' }] }, { key: 'k1', value: 'v1' }, { key: null, value: 'v2' }]);
        const produced = await c.request(0, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: T, partitionData: [{ index: 0, records }] }] });
        assert.equal(errorName(produced.responses[0].partitionResponses[0].errorCode), 'NONE');
        for (const [version, magic] of [[0, 0], [1, 0], [2, 1], [3, 1], [4, 2]] as const) {
          for (const fetchOffset of [0n, 1n]) {
            const r = await c.request(1, version, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, topics: [{ topic: T, partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }] });
            const p = r.responses[0].partitions[0];
            assert.equal(errorName(p.errorCode), 'NONE');
            const batches = [...readRecordBatches(p.records)];
            assert.ok(batches.length > 0, `v${version}: no batches`);
            const got = batches.flatMap((b) => b.records().map((rec) => ({ magic: b.magic, offset: rec.offset, key: rec.key?.toString() ?? null, value: rec.value?.toString(), headers: rec.headerCount })));
            // an uncompressed batch converted for an old client starts at the fetch offset (RecordsUtil.downConvert)
            const from = magic < 2 ? Number(fetchOffset) : 0;
            assert.deepEqual(
              got,
              [
                { magic, offset: 0n, key: 'k0', value: 'v0', headers: magic < 2 ? 0 : 1 },
                { magic, offset: 1n, key: 'k1', value: 'v1', headers: 0 },
                { magic, offset: 2n, key: null, value: 'v2', headers: 0 },
              ].slice(from),
              `Fetch v${version} from ${fetchOffset}`,
            );
          }
        }
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('topic ids: Metadata v10-12 and Fetch v13-17', () => {
  test('Metadata gives the id, v12 looks a topic up by it, Fetch v17 reads by it; an unknown id is UNKNOWN_TOPIC_ID, an id below Metadata v12 INVALID_REQUEST', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create(T, 1, {}, broker.logs);
      const c = await RawClient.connect(broker.port);
      try {
        await c.request(0, 9, BODIES[0]!(9));
        const byName = await c.request(3, 10, { topics: [{ name: T, topicId: Buffer.alloc(16) }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        const id: Buffer = byName.topics[0].topicId;
        assert.ok(id.equals(broker.topics.get(T)!.topicIdBytes) && !id.equals(Buffer.alloc(16)));
        const unknownId = Buffer.alloc(16, 7);
        const byId = await c.request(3, 12, { topics: [{ name: null, topicId: id }, { name: null, topicId: unknownId }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        assert.equal(byId.topics[0].name, T);
        assert.equal(errorName(byId.topics[1].errorCode), 'UNKNOWN_TOPIC_ID');
        const refused = await c.request(3, 11, { topics: [{ name: T, topicId: id }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
        assert.equal(errorName(refused.topics[0].errorCode), 'INVALID_REQUEST');
        for (const v of [13, 17]) {
          const f = await c.request(1, v, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topicId: id, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }, { topicId: unknownId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }], forgottenTopicsData: [], rackId: '' });
          assert.ok(f.responses[0].topicId.equals(id));
          assert.equal(errorName(f.responses[0].partitions[0].errorCode), 'NONE');
          assert.equal([...readRecordBatches(f.responses[0].partitions[0].records)].length, 1, `Fetch v${v}`);
          assert.equal(errorName(f.responses[1].partitions[0].errorCode), 'UNKNOWN_TOPIC_ID');
        }
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('ListOffsets v0 and v8-10', () => {
  test('v0 answers segment-boundary offsets newest first (legacyFetchOffsetsBefore); v8 EARLIEST_LOCAL is the log start, v9 LATEST_TIERED finds nothing; leader epochs, undefined timestamps, fenced epochs, duplicates', async () => {
    await withBroker({}, async (broker) => {
      broker.topics.create(T, 1, {}, broker.logs);
      const c = await RawClient.connect(broker.port);
      try {
        const records = encodeRecordBatch([{ value: 'a' }, { value: 'b' }, { value: 'c' }]);
        await c.request(0, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: T, partitionData: [{ index: 0, records }] }] });
        const v0 = await c.request(2, 0, { replicaId: -1, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -1n, maxNumOffsets: 10 }, { partitionIndex: 0, timestamp: -2n, maxNumOffsets: 10 }, { partitionIndex: 0, timestamp: -1n, maxNumOffsets: 1 }, { partitionIndex: 0, timestamp: 1n, maxNumOffsets: 10 }] }, { name: 'nope', partitions: [{ partitionIndex: 0, timestamp: -1n, maxNumOffsets: 1 }] }] });
        assert.deepEqual(v0.topics[0].partitions.map((p: Msg) => p.oldStyleOffsets), [[3n, 0n], [0n], [3n], []]);
        assert.equal(errorName(v0.topics[1].partitions[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        // one partition per request: a partition listed twice is INVALID_REQUEST (below)
        const at = async (v: number, timestamp: bigint, currentLeaderEpoch = -1): Promise<[string, bigint, number]> => {
          const r = await c.request(2, v, { replicaId: -1, isolationLevel: 0, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch }] }] });
          const p = r.topics[0].partitions[0];
          return [errorName(p.errorCode) ?? String(p.errorCode), p.offset, p.leaderEpoch];
        };
        // the batch was appended in leader epoch 0: earliest carries it, latest the partition's epoch (0)
        assert.deepEqual(await at(9, -4n), ['NONE', 0n, 0]);
        assert.deepEqual(await at(9, -5n), ['NONE', -1n, -1]);
        assert.deepEqual(await at(9, -1n), ['NONE', 3n, 0]);
        assert.deepEqual(await at(9, -2n), ['NONE', 0n, 0]);
        // a negative timestamp is defined from a version on (ReplicaManager.isListOffsetsTimestampUnsupported)
        assert.deepEqual(await at(6, -3n), ['UNSUPPORTED_VERSION', -1n, -1]);
        assert.deepEqual(await at(7, -4n), ['UNSUPPORTED_VERSION', -1n, -1]);
        assert.deepEqual(await at(8, -5n), ['UNSUPPORTED_VERSION', -1n, -1]);
        assert.deepEqual(await at(10, -6n), ['UNSUPPORTED_VERSION', -1n, -1]);
        const v0Negative = await c.request(2, 0, { replicaId: -1, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -3n, maxNumOffsets: 1 }] }] });
        assert.equal(errorName(v0Negative.topics[0].partitions[0].errorCode), 'UNSUPPORTED_VERSION');
        // a current leader epoch other than the partition's (0): older is fenced, newer unknown
        assert.deepEqual(await at(9, -1n, 1), ['UNKNOWN_LEADER_EPOCH', -1n, -1]);
        assert.deepEqual(await at(9, -1n, -2), ['FENCED_LEADER_EPOCH', -1n, -1]);
        assert.deepEqual(await at(9, -1n, 0), ['NONE', 3n, 0]);
        // ListOffsetsRequest.duplicatePartitions: every copy of a partition listed twice
        const twice = await c.request(2, 9, { replicaId: -1, isolationLevel: 0, topics: [{ name: T, partitions: [{ partitionIndex: 0, timestamp: -1n }, { partitionIndex: 0, timestamp: -2n }] }] });
        assert.deepEqual(twice.topics[0].partitions.map((p: Msg) => errorName(p.errorCode)), ['INVALID_REQUEST', 'INVALID_REQUEST']);
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('JoinGroup v9 and SyncGroup v5', () => {
  test('a static leader rejoining a stable group gets the members and skipAssignment at v9 (KIP-814), not at v8; SyncGroup v5 checks the protocol type and name', async () => {
    await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        const join = (v: number) =>
          c.request(11, v, { groupId: 'g9', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: 'static-1', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1]) }], reason: null });
        const first = await join(9);
        assert.equal(errorName(first.errorCode), 'NONE');
        assert.equal(first.skipAssignment, false);
        const sync = (v: number, protocolType: string, memberId: string) =>
          c.request(14, v, { groupId: 'g9', generationId: first.generationId, memberId, groupInstanceId: 'static-1', protocolType, protocolName: 'range', assignments: [{ memberId, assignment: Buffer.from([9]) }] });
        assert.equal(errorName((await sync(5, 'other', first.memberId)).errorCode), 'INCONSISTENT_GROUP_PROTOCOL');
        const synced = await sync(5, 'consumer', first.memberId);
        assert.equal(errorName(synced.errorCode), 'NONE');
        assert.equal(synced.protocolName, 'range');
        const again = await join(9);
        assert.equal(errorName(again.errorCode), 'NONE');
        assert.equal(again.skipAssignment, true);
        assert.deepEqual(again.members.map((m: Msg) => m.groupInstanceId), ['static-1']);
        assert.equal(again.leader, again.memberId);
        const old = await join(8);
        assert.equal(errorName(old.errorCode), 'NONE');
        assert.deepEqual(old.members, []);
      } finally {
        c.socket.destroy();
      }
    });
  });
});

describe('kafkalite.protocol.compat=4.0', () => {
  test('advertises Kafka 4 floors (Produce still from v0) and answers a Kafka 3-only version UNSUPPORTED_VERSION', async () => {
    const broker = await startBroker({ protocolCompat: '4.0' });
    const c = await RawClient.connect(broker.port);
    try {
      const apis = new Map(broker.advertisedApis().map((a) => [a.apiKey, a]));
      assert.equal(apis.get(0)?.minVersion, 0);
      assert.equal(apis.get(1)?.minVersion, 4);
      assert.equal(apis.get(2)?.minVersion, 1);
      assert.equal(apis.get(8)?.minVersion, 2);
      assert.equal(apis.get(11)?.minVersion, 0);
      assert.equal(apis.get(19)?.minVersion, 2);
      const produce = await c.request(0, 2, { acks: -1, timeoutMs: 5000, topicData: [{ name: T, partitionData: [{ index: 0, records: encodeLegacyMessageSet([{ key: 'k', value: 'v' }], { magic: 1 }) }] }] });
      assert.equal(errorName(produce.responses[0].partitionResponses[0].errorCode), 'UNSUPPORTED_VERSION');
      const fetch = await c.request(1, 3, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, topics: [{ topic: T, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }] });
      assert.equal(errorName(fetch.responses[0].partitions[0].errorCode), 'UNSUPPORTED_VERSION');
      const created = await c.request(19, 1, { topics: [{ name: 'x', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
      assert.equal(errorName(created.topics[0].errorCode), 'UNSUPPORTED_VERSION');
      assert.equal(broker.topics.get('x'), undefined);
      // the connection stays open: a served version still answers
      const meta = await c.request(3, 1, { topics: null });
      assert.ok(Array.isArray(meta.brokers));
    } finally {
      c.socket.destroy();
      await broker.close();
    }
  });

  test('startBroker defaults group.initial.rebalance.delay.ms to 0, a given value wins; Broker.start keeps 3000', async () => {
    const a = await startBroker();
    const b = await startBroker({ config: { 'group.initial.rebalance.delay.ms': '1500' } });
    try {
      assert.equal(a.config.groupInitialRebalanceDelayMs, 0);
      assert.equal(b.config.groupInitialRebalanceDelayMs, 1500);
    } finally {
      await a.close();
      await b.close();
    }
    await withBroker({}, async (broker) => assert.equal(broker.config.groupInitialRebalanceDelayMs, 3000));
  });
});
