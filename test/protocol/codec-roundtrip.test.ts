/**
 * Round trips of every version of every API's request and response, the headers and the internal
 * record schemas, with random values from the schema-driven generator (value-gen.ts): nullable
 * nulls, tagged fields set and unset, large zero-copy `bytes`/`records`, and unknown tags injected
 * into every flexible struct, which the decoder must skip.
 *
 * For each value x: decode(encode(x)) deep-equals x (absent fields at their defaults) and
 * encode(decode(bytes)) reproduces the bytes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, encodeMessage, encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { isFlexibleVersion, type MessageSchema } from '../../src/protocol/schema.js';
import { API_SCHEMAS, RequestHeader, ResponseHeader } from '../../src/protocol/schemas/index.js';
import * as internal from '../../src/protocol/schemas/internal/index.js';
import { Rng } from '../helpers/ref.js';
import { tierCount } from '../helpers/tier.js';
import { cloneValue, fillUnknownTags, randomMessage, withoutUnknownTags, withUnknownTags } from './value-gen.js';

/** Random values per version of each message; the unit tier (test/tiers.ts) runs half. */
const CASES_PER_VERSION = tierCount(12, 6);

function roundTripAllVersions(schema: MessageSchema, seed: number): number {
  const rng = new Rng(seed);
  const tagged = withUnknownTags(schema);
  let n = 0;
  for (let v = schema.validVersions[0]; v <= schema.validVersions[1]; v++) {
    for (let i = 0; i < CASES_PER_VERSION; i++) {
      const where = `${schema.name} v${v} case ${i} (seed ${seed})`;
      const x = randomMessage(schema, v, rng, { largeBytes: 0.1 });
      const chunks = encodeMessage(schema, v, x);
      const bytes = Buffer.concat(chunks);
      const { value, offset } = decodeMessage(schema, v, bytes);
      assert.equal(offset, bytes.length, `${where}: decode stopped at ${offset} of ${bytes.length}`);
      assert.deepStrictEqual(value, x, where);
      assert.ok(encodeMessageToBuffer(schema, v, value).equals(bytes), `${where}: re-encoding differs`);
      // Decoding a message inside a larger buffer: offsets are relative to the whole buffer.
      const framed = Buffer.concat([Buffer.from([9, 9, 9]), bytes, Buffer.from([7])]);
      const inner = decodeMessage(schema, v, framed, 3);
      assert.equal(inner.offset, 3 + bytes.length, where);
      assert.deepStrictEqual(inner.value, x, where);
      if (isFlexibleVersion(schema, v)) {
        const withTags = cloneValue(x);
        fillUnknownTags(withTags, rng);
        const tbytes = encodeMessageToBuffer(tagged, v, withTags);
        assert.ok(tbytes.length > bytes.length, `${where}: no unknown tags were written`);
        const got = decodeMessage(schema, v, tbytes);
        assert.equal(got.offset, tbytes.length, where);
        assert.deepStrictEqual(got.value, withoutUnknownTags(withTags), `${where} with unknown tags`);
        assert.ok(encodeMessageToBuffer(schema, v, got.value).equals(bytes), `${where}: unknown tags were not dropped`);
      }
      n++;
    }
  }
  return n;
}

for (const [apiKey, api] of API_SCHEMAS) {
  test(`round trip: ${api.name} (key ${apiKey}) requests v${api.request.validVersions.join('-v')} and responses v${api.response.validVersions.join('-v')}, ${CASES_PER_VERSION} values per version`, () => {
    const n = roundTripAllVersions(api.request, 1000 + apiKey) + roundTripAllVersions(api.response, 2000 + apiKey);
    assert.ok(n >= CASES_PER_VERSION * 2);
  });
}

test('round trip: request header v0-v2 and response header v0-v1', () => {
  roundTripAllVersions(RequestHeader, 31);
  roundTripAllVersions(ResponseHeader, 32);
});

test('round trip: internal record schemas (group and transaction coordinators, raft, KRaft metadata, consumer protocol)', () => {
  let count = 0;
  for (const [name, s] of Object.entries(internal)) {
    if (name === 'METADATA_RECORD_SCHEMAS') continue;
    roundTripAllVersions(s as MessageSchema, 500 + count++);
  }
  assert.ok(count >= 25 + 4 + 2 + 5 + 2, `only ${count} internal schemas`);
});

test('records and large bytes are zero-copy chunks of the encoded message', () => {
  const api = API_SCHEMAS.get(1)!;
  const records = Buffer.alloc(4096, 7);
  const value = {
    responses: [{ topic: 't', partitions: [{ partitionIndex: 0, highWatermark: 5n, records }, { partitionIndex: 1, records: Buffer.alloc(0) }] }],
  };
  for (const v of [4, 11, 12, 16]) {
    const chunks = encodeMessage(api.response, v, value);
    assert.ok(chunks.some((c) => c === records), `Fetch v${v}: records were copied`);
    const decoded = decodeMessage(api.response, v, Buffer.concat(chunks)).value;
    assert.deepStrictEqual(decoded.responses[0].partitions[0].records, records);
    assert.deepStrictEqual(decoded.responses[0].partitions[1].records, Buffer.alloc(0), `Fetch v${v}: empty records must stay empty, not null`);
  }
});

test('encode refuses non-default values in versions without the field unless ignorable, and nulls in non-nullable fields', () => {
  const produce = API_SCHEMAS.get(0)!.request;
  // transactionalId (v3+) is not ignorable: a v2 request cannot carry it
  assert.throws(() => encodeMessage(produce, 2, { transactionalId: 'tx', acks: 1, timeoutMs: 1, topicData: [] }), { code: 'INVALID_ARGUMENT' });
  assert.doesNotThrow(() => encodeMessage(produce, 2, { transactionalId: null, acks: 1, timeoutMs: 1, topicData: [] }));
  // Fetch response throttleTimeMs (v1+) is ignorable: dropped silently at v0
  const fetch = API_SCHEMAS.get(1)!.response;
  const v0 = decodeMessage(fetch, 0, encodeMessageToBuffer(fetch, 0, { throttleTimeMs: 100, responses: [] })).value;
  assert.equal(v0.throttleTimeMs, 0);
  assert.throws(() => encodeMessage(fetch, 4, { responses: null }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => encodeMessage(fetch, 99, {}), { code: 'INVALID_ARGUMENT' });
});

test('a field name that is not a plain identifier still reads and writes (the generic struct codec)', () => {
  const odd: MessageSchema = {
    type: 'data',
    name: 'OddNames',
    validVersions: [0, 1],
    flexibleVersions: 1,
    fields: [
      { name: 'plain', type: 'int32', versions: '0+' },
      { name: 'not-plain', type: 'string', versions: '0+' },
      { name: 'onlyV1', type: 'int16', versions: '1+', default: 0 },
    ],
  };
  for (const v of [0, 1]) {
    const x = { plain: 7, 'not-plain': 'é', onlyV1: v === 1 ? 3 : 0 };
    assert.deepStrictEqual(decodeMessage(odd, v, encodeMessageToBuffer(odd, v, x)).value, x);
  }
  assert.throws(() => encodeMessage(odd, 0, { plain: 1, 'not-plain': '', onlyV1: 5 }), { code: 'INVALID_ARGUMENT' });
});

test('int64 fields: the bytes of Buffer.writeBigInt64BE and back, around ±2^32, ±2^53 and the int64 limits', () => {
  const schema: MessageSchema = { type: 'data', name: 'Int64s', validVersions: [0, 0], flexibleVersions: null, fields: [{ name: 'v', type: 'int64', versions: '0+' }] };
  const values: bigint[] = [0n, 1n, -1n, 255n, -256n, 2n ** 31n, -(2n ** 31n), 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), -(2n ** 32n) - 1n];
  for (const e of [52n, 53n, 54n, 62n]) for (const d of [-1n, 0n, 1n]) values.push(2n ** e + d, -(2n ** e) + d);
  values.push(2n ** 63n - 1n, -(2n ** 63n), 1733100000000n, -1733100000000n);
  for (const v of values) {
    const expected = Buffer.alloc(8);
    expected.writeBigInt64BE(v);
    const bytes = encodeMessageToBuffer(schema, 0, { v });
    assert.deepStrictEqual(bytes, expected, `encode ${v}`);
    assert.equal(decodeMessage(schema, 0, bytes).value.v, v, `decode ${v}`);
    if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) assert.deepStrictEqual(encodeMessageToBuffer(schema, 0, { v: Number(v) }), expected, `encode number ${v}`);
  }
  assert.throws(() => encodeMessage(schema, 0, { v: 2n ** 63n }), { code: 'INVALID_ARGUMENT' });
  assert.throws(() => encodeMessage(schema, 0, { v: 1.5 }), { code: 'INVALID_ARGUMENT' });
});

test('string fields decode to their value whatever the field held before: repeated, changed at the same length, multi-byte, over the 64 remembered bytes', () => {
  const produce = API_SCHEMAS.get(0)!.request;
  const names = ['topic-a', 'topic-a', 'topic-b', 'topic-a', 'tópic-a', 'tópic-a', 'x'.repeat(64), 'x'.repeat(63) + 'y', 'x'.repeat(64), 'y'.repeat(200), 'y'.repeat(200), 'y'.repeat(199) + 'z', '', 'topic-a', '😀😀', '😀😁'];
  for (const [i, name] of names.entries()) {
    const value = { transactionalId: i % 3 === 0 ? null : name, acks: -1, timeoutMs: 30000, topicData: [{ name, partitionData: [] }] };
    for (const v of [3, 9]) {
      const decoded = decodeMessage(produce, v, Buffer.concat(encodeMessage(produce, v, value))).value;
      assert.equal(decoded.topicData[0].name, name, `v${v} #${i}`);
      assert.equal(decoded.transactionalId, value.transactionalId, `v${v} #${i}`);
    }
  }
});
