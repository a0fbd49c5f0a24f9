/**
 * @platformatic/kafka's per-version request writers and response parsers as oracles for flexible
 * versions (they run on Node 20): requests it encodes decode with our codec and
 * re-encode to the same bytes; responses we encode parse with its reader to the same fields.
 * Covers Metadata v9-v12 and ApiVersions v3-v4 (first pass; more APIs still to add).
 */
import { test } from 'node:test';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { decodeMessage, encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { API_SCHEMAS } from '../../src/protocol/schemas/index.js';

const platformatic = (await import('@platformatic/kafka')) as any;
const { Reader } = platformatic;

/** The package's per-version module, e.g. metadataV12 = { createRequest, parseResponse, ... }. */
async function api(name: string): Promise<any> {
  const m = platformatic[name];
  assert.ok(m?.createRequest && m?.parseResponse, `@platformatic/kafka exports no ${name}`);
  return m;
}

test('Metadata v9-v12 requests written by @platformatic/kafka decode with our codec and re-encode byte for byte', async () => {
  const schema = API_SCHEMAS.get(3)!.request;
  for (const v of [9, 10, 11, 12]) {
    const m = await api(`metadataV${v}`);
    const bytes: Buffer = m.createRequest(['orders', 'payments'], true, false).buffer;
    const { value, offset } = decodeMessage(schema, v, bytes);
    assert.deepStrictEqual(value.topics.map((t: any) => t.name), ['orders', 'payments']);
    assert.equal(value.allowAutoTopicCreation, true);
    if (v === 11) {
      // platformatic's metadata-v11 still writes include_cluster_authorized_operations, which
      // MetadataRequest.json has only in v8-v10: Kafka, like us, reads one byte less (the extra
      // false lands in include_topic_authorized_operations, the real one reads as an empty tag buffer).
      assert.equal(offset, bytes.length - 1, `v${v}`);
      assert.ok(Buffer.concat([encodeMessageToBuffer(schema, v, value), Buffer.from([0])]).equals(bytes), `v${v}`);
      continue;
    }
    assert.equal(offset, bytes.length, `v${v}`);
    assert.ok(encodeMessageToBuffer(schema, v, value).equals(bytes), `v${v}`);
  }
});

test('Metadata v9-v12 responses encoded by our codec parse with @platformatic/kafka to the same fields', async () => {
  const schema = API_SCHEMAS.get(3)!.response;
  const topicId = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
  const value = {
    throttleTimeMs: 0,
    brokers: [{ nodeId: 1, host: 'localhost', port: 9092, rack: null }],
    clusterId: 'kafkalite-cluster',
    controllerId: 1,
    topics: [{ errorCode: ErrorCode.NONE, name: 'orders', topicId, isInternal: false, partitions: [
      { errorCode: ErrorCode.NONE, partitionIndex: 0, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] },
      { errorCode: ErrorCode.NONE, partitionIndex: 1, leaderId: 1, leaderEpoch: 3, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] },
    ], topicAuthorizedOperations: -2147483648 }],
  };
  for (const v of [9, 10, 11, 12]) {
    const m = await api(`metadataV${v}`);
    const bytes = encodeMessageToBuffer(schema, v, value);
    const parsed = m.parseResponse(1, 3, v, Reader.from(bytes));
    assert.deepStrictEqual(parsed.brokers, value.brokers, `v${v}`);
    assert.equal(parsed.clusterId, value.clusterId);
    assert.equal(parsed.controllerId, 1);
    assert.deepStrictEqual(parsed.topics.map((t: any) => [t.name, t.partitions.map((p: any) => [p.partitionIndex, p.leaderId, p.leaderEpoch, p.replicaNodes, p.isrNodes])]),
      [['orders', [[0, 1, 0, [1], [1]], [1, 1, 3, [1], [1]]]]], `v${v}`);
  }
});

test('ApiVersions v3-v4: @platformatic/kafka requests decode; our responses parse with its reader', async () => {
  const pair = API_SCHEMAS.get(18)!;
  for (const v of [3, 4]) {
    const m = await api(`apiVersionsV${v}`);
    const req: Buffer = m.createRequest('kafkalite-test', '1.0.0').buffer;
    const { value, offset } = decodeMessage(pair.request, v, req);
    assert.equal(offset, req.length);
    assert.deepStrictEqual(value, { clientSoftwareName: 'kafkalite-test', clientSoftwareVersion: '1.0.0' });
    assert.ok(encodeMessageToBuffer(pair.request, v, value).equals(req));
    const apiKeys = [{ apiKey: 0, minVersion: 3, maxVersion: 9 }, { apiKey: 18, minVersion: 0, maxVersion: 4 }];
    const res = encodeMessageToBuffer(pair.response, v, { errorCode: ErrorCode.NONE, apiKeys, throttleTimeMs: 0 });
    const parsed = m.parseResponse(1, 18, v, Reader.from(res));
    assert.deepStrictEqual(parsed.apiKeys.map((k: any) => [k.apiKey, k.minVersion, k.maxVersion]), [[0, 3, 9], [18, 0, 4]], `v${v}`);
  }
});
