/**
 * The fuzz loop of protocol-request-fuzz.test.ts, run in a worker thread so the test can kill it on
 * a hang. Every case is derived from (seed, case index) alone, so any case can be replayed:
 *   KAFKALITE_FUZZ_SEED=<seed> KAFKALITE_FUZZ_CASE=<index> node --test dist/test/fuzz/protocol-request-fuzz.test.js
 *
 * Inputs are whole request frames (int32 size, request header v1/v2, body) built from random values
 * of every request version of every API (test/protocol/value-gen.ts), then mutated: byte flips,
 * hostile int16/int32 lengths and counts (0x7fff, 0x7fffffff, -2, ...), over-long and huge
 * uvarints, truncations and extensions with the size prefix fixed up (so the body decoder is
 * reached), byte insertions and deletions, splices of two frames, another version or an unknown
 * API key in the header, random bodies, hostile size prefixes. Each goes through FrameDecoder
 * (whole or split), readRequestHeader and decodeMessage, or through the header and body decoders
 * directly.
 */
import { isDeepStrictEqual } from 'node:util';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { decodeMessage, encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { readRequestHeader, requestHeaderVersion } from '../../src/protocol/header.js';
import { isValidVersion } from '../../src/protocol/schema.js';
import { API_SCHEMAS, RequestHeader, schemaForApi } from '../../src/protocol/schemas/index.js';
import { Rng } from '../helpers/ref.js';
import { randomMessage } from '../protocol/value-gen.js';
import { planCases, runCases, type FuzzResult, type FuzzRunConfig, type MakeCase } from './harness.js';

export interface ProtocolFuzzConfig extends FuzzRunConfig {
  kind: 'protocol-request-fuzz';
  plainCases: number;
  /** Frames cut at every byte position. */
  truncationFrames: number;
}

const SEED_SALT = 0x70726f74;
const MAX_FRAME = 1 << 20;

interface PoolFrame {
  frame: Buffer;
  value: Record<string, unknown>;
}

/** Valid request frames: two random values of every request version of every API. */
function buildPool(seed: number): PoolFrame[] {
  const rng = new Rng(seed ^ 0x1234567);
  const pool: PoolFrame[] = [];
  for (const [apiKey, api] of API_SCHEMAS) {
    for (let v = api.request.validVersions[0]; v <= api.request.validVersions[1]; v++) {
      for (let i = 0; i < 2; i++) {
        const value = randomMessage(api.request, v, rng, { largeBytes: 0.02 });
        const header = encodeMessageToBuffer(RequestHeader, requestHeaderVersion(apiKey, v), {
          requestApiKey: apiKey,
          requestApiVersion: v,
          correlationId: rng.int(2 ** 31),
          clientId: rng.bool(0.1) ? null : 'fuzz-client',
        });
        const body = encodeMessageToBuffer(api.request, v, value);
        const frame = Buffer.allocUnsafe(4 + header.length + body.length);
        frame.writeInt32BE(header.length + body.length, 0);
        header.copy(frame, 4);
        body.copy(frame, 4 + header.length);
        pool.push({ frame, value });
      }
    }
  }
  return pool;
}

function fixSize(b: Buffer): Buffer {
  if (b.length >= 4) b.writeInt32BE(b.length - 4, 0);
  return b;
}

const HOSTILE_32 = [0x7fffffff, -1, -2, -0x80000000, 0x10000, 1000000];
const HOSTILE_16 = [0x7fff, -1, -2, -0x8000, 0x100];
const HOSTILE_VARINTS = [
  [0xff, 0xff, 0xff, 0xff, 0x0f],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
  [0x80, 0x80, 0x80, 0x80, 0x80],
  [0xfe, 0xff, 0xff, 0xff, 0x07],
  [0x81, 0x80, 0x04],
];

function decodeFrame(frame: Buffer): unknown {
  const h = readRequestHeader(frame);
  const api = schemaForApi(h.apiKey);
  if (!api || !isValidVersion(api.request, h.apiVersion)) return { header: h };
  return { header: h, value: decodeMessage(api.request, h.apiVersion, frame, h.bodyOffset).value };
}

function exercise(buf: Buffer, mode: number): unknown {
  if (mode === 2) return buf.length >= 4 ? decodeFrame(buf.subarray(4)) : undefined;
  const d = new FrameDecoder(MAX_FRAME);
  const frames = mode === 0 ? d.push(buf) : [...d.push(buf.subarray(0, buf.length >> 1)), ...d.push(buf.subarray(buf.length >> 1))];
  return frames.map(decodeFrame);
}

function plans(cfg: ProtocolFuzzConfig, pool: PoolFrame[]) {
  const pick = (rng: Rng) => pool[rng.int(pool.length)]!;
  const copy = (rng: Rng) => Buffer.from(pick(rng).frame);
  const at = (rng: Rng, b: Buffer, width: number) => 4 + rng.int(Math.max(1, b.length - 4 - width + 1));
  const kinds: [string, number, MakeCase<Record<string, unknown>>][] = [
    ['pristine', 6, (rng) => {
      const p = pick(rng);
      return { buf: Buffer.from(p.frame), expect: p.value };
    }],
    ['byte-flips', 14, (rng) => {
      const b = copy(rng);
      const n = 1 + rng.int(6);
      for (let i = 0; i < n && b.length > 4; i++) b[4 + rng.int(b.length - 4)] = rng.int(256);
      return { buf: b };
    }],
    ['hostile-int32', 12, (rng) => {
      const b = copy(rng);
      if (b.length >= 8) b.writeInt32BE(rng.pick(HOSTILE_32), at(rng, b, 4));
      return { buf: b };
    }],
    ['hostile-int16', 12, (rng) => {
      const b = copy(rng);
      if (b.length >= 6) b.writeInt16BE(rng.pick(HOSTILE_16), at(rng, b, 2));
      return { buf: b };
    }],
    ['hostile-uvarint', 12, (rng) => {
      const b = copy(rng);
      const v = rng.pick(HOSTILE_VARINTS);
      const p = at(rng, b, v.length);
      for (let i = 0; i < v.length && p + i < b.length; i++) b[p + i] = v[i]!;
      return { buf: b };
    }],
    ['truncate-fixed-size', 10, (rng) => {
      const b = copy(rng);
      return { buf: fixSize(Buffer.from(b.subarray(0, 4 + rng.int(b.length - 3)))) };
    }],
    ['extend-fixed-size', 4, (rng) => ({ buf: fixSize(Buffer.concat([copy(rng), rng.bytes(1 + rng.int(64))])) })],
    ['insert-delete', 8, (rng) => {
      const b = copy(rng);
      const p = 4 + rng.int(Math.max(1, b.length - 4));
      const out = rng.bool() ? Buffer.concat([b.subarray(0, p), rng.bytes(1 + rng.int(8)), b.subarray(p)]) : Buffer.concat([b.subarray(0, p), b.subarray(Math.min(b.length, p + 1 + rng.int(8)))]);
      return { buf: fixSize(out) };
    }],
    ['splice', 5, (rng) => {
      const a = copy(rng);
      const b = copy(rng);
      return { buf: fixSize(Buffer.concat([a.subarray(0, 4 + rng.int(a.length - 3)), b.subarray(4 + rng.int(b.length - 3))])) };
    }],
    ['other-version', 8, (rng) => {
      const b = copy(rng);
      b.writeInt16BE(rng.bool(0.8) ? rng.int(20) : rng.pick([-1, 0x7fff, 1698, rng.int(0x8000)]), 6);
      return { buf: b };
    }],
    ['unknown-api', 3, (rng) => {
      const b = copy(rng);
      let k = rng.range(-0x8000, 0x7fff);
      while (API_SCHEMAS.has(k)) k = rng.range(-0x8000, 0x7fff);
      b.writeInt16BE(k, 4);
      return { buf: b };
    }],
    ['random-body', 4, (rng) => {
      const api = rng.pick([...API_SCHEMAS.values()]);
      const v = rng.range(api.request.validVersions[0], api.request.validVersions[1]);
      const head = Buffer.alloc(12);
      head.writeInt16BE(api.apiKey, 4);
      head.writeInt16BE(v, 6);
      head.writeInt32BE(rng.int(2 ** 31), 8);
      return { buf: fixSize(Buffer.concat([head, rng.bytes(rng.int(200))])) };
    }],
    ['hostile-size-prefix', 2, (rng) => {
      const b = copy(rng);
      b.writeInt32BE(rng.pick([...HOSTILE_32, MAX_FRAME + 1, b.length]), 0);
      return { buf: b };
    }],
  ];
  const truncSources: Buffer[] = [];
  const trng = new Rng(cfg.seed ^ 0x7777);
  for (let i = 0; i < cfg.truncationFrames; i++) truncSources.push(pool[trng.int(pool.length)]!.frame);
  return planCases<Record<string, unknown>>({
    plainCases: cfg.plainCases,
    plainKinds: kinds,
    codecCases: 0,
    codecs: [],
    codecName: () => '',
    codecKinds: [],
    truncSources,
    fixCut: (cut) => void fixSize(cut),
  });
}

export function runProtocolFuzz(cfg: ProtocolFuzzConfig): FuzzResult {
  const pool = buildPool(cfg.seed);
  return runCases(cfg, plans(cfg, pool), {
    salt: SEED_SALT,
    noun: 'request frame',
    exercise,
    compare: (got, expect) => {
      const frames = got as { value?: unknown }[];
      if (frames.length !== 1) return `a pristine frame gave ${frames.length} frames`;
      return isDeepStrictEqual(frames[0]!.value, expect) ? undefined : 'a pristine frame decoded to a different value';
    },
  });
}

if (!isMainThread && parentPort && (workerData as ProtocolFuzzConfig | undefined)?.kind === 'protocol-request-fuzz') {
  parentPort.postMessage(runProtocolFuzz(workerData as ProtocolFuzzConfig));
}
