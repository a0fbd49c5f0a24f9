/**
 * `ApiKey` names every API in the schema registry under the name Kafka gives it, with the key the
 * registry serves it at, and nothing else; spot checks against Kafka's `ApiKeys` numbering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../../src/protocol/api-keys.js';
import { API_SCHEMAS } from '../../src/protocol/schemas/index.js';

test('ApiKey and the schema registry name the same APIs at the same keys', () => {
  const fromRegistry = [...API_SCHEMAS].map(([key, pair]) => [pair.name, key]).sort();
  assert.deepStrictEqual(Object.entries(ApiKey).sort(), fromRegistry);
  assert.equal(new Set(Object.values(ApiKey)).size, Object.keys(ApiKey).length);
});

test("ApiKey agrees with Kafka's numbering for the keys the broker special-cases", () => {
  assert.equal(ApiKey.Produce, 0);
  assert.equal(ApiKey.Fetch, 1);
  assert.equal(ApiKey.ApiVersions, 18);
  assert.equal(ApiKey.DescribeCluster, 60);
});
