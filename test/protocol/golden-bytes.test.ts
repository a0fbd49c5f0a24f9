/**
 * Golden bytes this code did not produce:
 * - kafkajs's request/response captures (corpora/kafkajs/src/protocol/requests/<api>/fixtures,
 *   bodies without size or header; responses recorded from real brokers): each decodes with the
 *   API/version its file name gives, consumes every byte and re-encodes to the same bytes; for
 *   several APIs the decoded fields are compared with what kafkajs's own response decoder reads;
 * - the kafka-tester transcripts: hexdumps of real frames exchanged with Kafka 4.0 (ApiVersions v4,
 *   Produce, Fetch v16), decoded frame by frame (size, header, body) and re-encoded.
 */
import { test } from 'node:test';
import { ErrorCode, errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { decodeMessage, encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { encodeResponseFrame, readRequestHeader, responseHeaderVersion } from '../../src/protocol/header.js';
import { API_SCHEMAS } from '../../src/protocol/schemas/index.js';
import type { ApiSchemaPair } from '../../src/protocol/schema.js';
import { CORPORA } from '../helpers/paths.js';
import { loadBufferJson } from '../helpers/protocol.js';

const KAFKAJS = join(CORPORA, 'kafkajs/src/protocol/requests');
const TESTER = join(CORPORA, 'kafka-tester/@HEAD-018f9bc/internal/test_helpers/fixtures');
const require = createRequire(import.meta.url);

/** kafkajs folder name (camelCase API name) -> our API. */
const byFolder = new Map<string, ApiSchemaPair>([...API_SCHEMAS.values()].map((a) => [a.name[0]!.toLowerCase() + a.name.slice(1), a]));

interface Fixture {
  folder: string;
  file: string;
  api: ApiSchemaPair;
  version: number;
  kind: 'request' | 'response';
  bytes: Buffer;
}

/** Fixture files that are not a request/response body of an API we speak (nested data, SASL tokens, a deliberately cut response). */
const NOT_BODIES = /memberAssignment|memberMetadata|assignerMetadata|_bytes|firstRequest|missing_throttle_time/;

function kafkajsFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const folder of readdirSync(KAFKAJS).sort()) {
    const api = byFolder.get(folder);
    if (!api) continue;
    for (const file of readdirSync(join(KAFKAJS, folder, 'fixtures')).sort()) {
      if (NOT_BODIES.test(file)) continue;
      const m = /^v(\d+)_.*?(request|response)/.exec(file);
      assert.ok(m, `${folder}/${file}: name gives no version and direction`);
      const version = Number(m[1]);
      const kind = m[2] as 'request' | 'response';
      let bytes = loadBufferJson(join(KAFKAJS, folder, 'fixtures', file));
      // kafkajs writes a flexible version's header tag buffer (request header v2, response header
      // v1: one 0 byte when empty) into its body encoders, so its captures start with it
      const flexible = api[kind].flexibleVersions;
      if (flexible !== null && version >= flexible) {
        assert.equal(bytes[0], 0, `${folder}/${file}: no empty header tag buffer first`);
        bytes = bytes.subarray(1);
      }
      out.push({ folder, file, api, version, kind, bytes });
    }
  }
  return out;
}

test('kafkajs captures: every request and response body decodes whole and re-encodes byte for byte', () => {
  const fixtures = kafkajsFixtures();
  assert.ok(fixtures.length >= 160, `only ${fixtures.length} fixtures`);
  const apis = new Set<string>();
  for (const f of fixtures) {
    const schema = f.api[f.kind];
    const where = `${f.folder}/${f.file}`;
    const { value, offset } = decodeMessage(schema, f.version, f.bytes);
    assert.equal(offset, f.bytes.length, `${where}: decoded ${offset} of ${f.bytes.length} bytes`);
    assert.ok(encodeMessageToBuffer(schema, f.version, value).equals(f.bytes), `${where}: re-encoding differs`);
    apis.add(f.api.name);
  }
  assert.ok(apis.size >= 24, `only ${apis.size} APIs covered`);
});

test('a kafkajs response cut short (v1_response_missing_throttle_time) is refused with a position', () => {
  const bytes = loadBufferJson(join(KAFKAJS, 'apiVersions/fixtures/v1_response_missing_throttle_time.json'));
  assert.throws(() => decodeMessage(API_SCHEMAS.get(18)!.response, 1, bytes), (e: any) => errorName(e.kafkaErrorCode) === 'INVALID_REQUEST' && e.position === bytes.length);
});

/** Our decoding of a kafkajs response fixture next to kafkajs's own decoder's reading of it. */
async function both(folder: string, file: string, version: number): Promise<{ ours: any; theirs: any }> {
  const bytes = loadBufferJson(join(KAFKAJS, folder, 'fixtures', file));
  const ours = decodeMessage(byFolder.get(folder)!.response, version, bytes).value;
  const theirs = await require(`kafkajs/src/protocol/requests/${folder}/v${version}/response.js`).decode(bytes);
  return { ours, theirs };
}

test('kafkajs captures: decoded fields agree with kafkajs 2.2.4 response decoders', async () => {
  for (const v of [0, 1, 2]) {
    const { ours, theirs } = await both('apiVersions', `v${Math.min(v, 1)}_response.json`, Math.min(v, 1));
    assert.equal(ours.errorCode, theirs.errorCode);
    assert.deepStrictEqual(ours.apiKeys, theirs.apiVersions);
  }
  for (const v of [3, 4, 5]) {
    const { ours, theirs } = await both('metadata', `v${v}_response.json`, v);
    assert.deepStrictEqual(ours.brokers.map((b: any) => [b.nodeId, b.host, b.port]), theirs.brokers.map((b: any) => [b.nodeId, b.host, b.port]), `metadata v${v}`);
    assert.deepStrictEqual(
      ours.topics.map((t: any) => [t.name, t.errorCode, t.partitions.map((p: any) => [p.partitionIndex, p.leaderId, p.replicaNodes, p.isrNodes])]),
      theirs.topicMetadata.map((t: any) => [t.topic, t.topicErrorCode, t.partitionMetadata.map((p: any) => [p.partitionId, p.leader, p.replicas, p.isr])]),
      `metadata v${v}`,
    );
  }
  for (const v of [2, 3, 4, 5, 6, 7]) {
    const { ours, theirs } = await both('produce', `v${v}_response.json`, v);
    assert.deepStrictEqual(
      ours.responses.flatMap((t: any) => t.partitionResponses.map((p: any) => [t.name, p.index, p.errorCode, String(p.baseOffset)])),
      theirs.topics.flatMap((t: any) => t.partitions.map((p: any) => [t.topicName, p.partition, p.errorCode, p.baseOffset ?? p.offset])),
      `produce v${v}`,
    );
  }
  for (const v of [4, 5, 6, 7, 8, 9, 10, 11]) {
    const { ours, theirs } = await both('fetch', `v${v}_response.json`, v);
    assert.deepStrictEqual(
      ours.responses.flatMap((t: any) => t.partitions.map((p: any) => [t.topic, p.partitionIndex, p.errorCode, String(p.highWatermark)])),
      theirs.responses.flatMap((t: any) => t.partitions.map((p: any) => [t.topicName, p.partition, p.errorCode, p.highWatermark])),
      `fetch v${v}`,
    );
  }
});

// ---- kafka-tester transcripts ------------------------------------------------------------------

interface Dump {
  direction: 'sent' | 'received';
  name: string;
  bytes: Buffer;
}

/** Hexdumps in a transcript (ANSI colours stripped): `Idx | hex (48 columns) | ascii` rows. */
function hexdumps(path: string): Dump[] {
  const lines = readFileSync(path, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const out: Dump[] = [];
  let cur: Dump | undefined;
  let hex = '';
  for (const line of lines) {
    const start = /Hexdump of (sent|received) "(\w+)" (?:request|response)/.exec(line);
    if (start) {
      cur = { direction: start[1] as 'sent' | 'received', name: start[2]!, bytes: Buffer.alloc(0) };
      hex = '';
      continue;
    }
    if (!cur) continue;
    const row = /\] ([0-9a-f]{4}) \| (.{48})/.exec(line);
    if (row) hex += row[2]!.replace(/\s+/g, '');
    else if (/\] -----\+|\] Idx/.test(line)) continue;
    else {
      cur.bytes = Buffer.from(hex, 'hex');
      out.push(cur);
      cur = undefined;
    }
  }
  return out;
}

test('kafka-tester transcripts of a real Kafka 4.0 broker: request and response frames decode and re-encode', () => {
  const seen = new Map<string, number>();
  for (const stage of ['base', 'produce', 'fetch', 'concurrent_stages']) {
    const dumps = hexdumps(join(TESTER, stage, 'pass'));
    // several clients interleave in concurrent_stages: responses are matched by correlation id
    const pending = new Map<number, { apiKey: number; apiVersion: number; correlationId: number }>();
    for (const d of dumps) {
      const frames = new FrameDecoder(1 << 20).push(d.bytes);
      assert.equal(frames.length, 1, `${stage} ${d.name}: one whole frame`);
      const frame = frames[0]!;
      if (d.direction === 'sent') {
        const h = readRequestHeader(frame);
        const api = API_SCHEMAS.get(h.apiKey);
        pending.set(h.correlationId, h);
        if (!api) continue; // DescribeTopicPartitions: not an API kafkalite speaks
        if (h.apiVersion > api.request.validVersions[1]) {
          // ApiVersions v1698: the header is v2 by the "3+" rule; the broker answers with a v0 body
          assert.deepStrictEqual([h.apiKey, h.headerVersion, h.clientId], [18, 2, 'kafka-tester']);
          continue;
        }
        const { value, offset } = decodeMessage(api.request, h.apiVersion, frame, h.bodyOffset);
        assert.equal(offset, frame.length, `${stage} ${d.name} v${h.apiVersion} request`);
        assert.ok(encodeMessageToBuffer(api.request, h.apiVersion, value).equals(frame.subarray(h.bodyOffset)));
        if (h.apiKey === 18) assert.equal(value.clientSoftwareName, 'kafka-cli');
      } else {
        const req = pending.get(frame.readInt32BE(0));
        assert.ok(req, `${stage} ${d.name}: response to no request`);
        pending.delete(req.correlationId);
        const api = API_SCHEMAS.get(req.apiKey);
        if (!api) continue;
        const bodyAt = responseHeaderVersion(req.apiKey, req.apiVersion) === 1 ? 5 : 4;
        if (req.apiVersion > api.response.validVersions[1]) {
          // Kafka's answer to an ApiVersions version it does not know: v0 body, error 35, its own range
          const { value, offset } = decodeMessage(api.response, 0, frame, bodyAt);
          assert.equal(offset, frame.length);
          assert.deepStrictEqual(value, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }], throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false });
          seen.set('ApiVersions unsupported', 1);
          continue;
        }
        const { value, offset } = decodeMessage(api.response, req.apiVersion, frame, bodyAt);
        assert.equal(offset, frame.length, `${stage} ${d.name} v${req.apiVersion} response`);
        const re = Buffer.concat(encodeResponseFrame(req.apiKey, req.apiVersion, req.correlationId, [encodeMessageToBuffer(api.response, req.apiVersion, value)]));
        assert.ok(re.equals(d.bytes), `${stage} ${d.name} v${req.apiVersion}: re-encoded frame differs`);
        if (req.apiKey === 18) {
          assert.equal(value.apiKeys.length, 61);
          assert.deepStrictEqual(value.apiKeys[0], { apiKey: 0, minVersion: 0, maxVersion: 11 });
          assert.deepStrictEqual(value.apiKeys[1], { apiKey: 1, minVersion: 0, maxVersion: 17 });
        }
        const key = `${api.name} v${req.apiVersion}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
    }
  }
  const keys = [...seen.keys()];
  assert.ok(keys.includes('ApiVersions v4'), keys.join(', '));
  assert.ok(keys.includes('ApiVersions unsupported'), keys.join(', '));
  assert.ok(keys.includes('Fetch v16'), keys.join(', '));
  assert.ok(keys.some((k) => k.startsWith('Produce')), keys.join(', '));
});
