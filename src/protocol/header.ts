/**
 * Request and response headers (Kafka's RequestHeader.json v0-2, ResponseHeader.json v0-1).
 *
 * - Request header v1 = apiKey int16, apiVersion int16, correlationId int32, clientId nullable
 *   string with an int16 length even in v2 (the field's flexibleVersions is "none", so that any
 *   broker can read any ApiVersions request); v2 adds a tag buffer. v2 is used exactly when the
 *   request's version is flexible for its API (Kafka's ApiMessageTypeGenerator header rule). v0
 *   belongs to ControlledShutdown v0 only, which kafkalite does not speak.
 * - Response header v0 = correlationId; v1 adds a tag buffer, used when the response version is
 *   flexible, except for ApiVersions, whose response header is always v0 (KIP-511) because a
 *   client must parse it before it knows what the broker speaks.
 */
import { readInt16BE, readInt32BE, writeInt32BE } from '../bytes/big-endian.js';
import { ApiKey } from './api-keys.js';
import { decodeMessage, encodeMessageAfter } from './codec.js';
import { ProtocolError } from './errors.js';
import { isFlexibleVersion, isValidVersion, type MessageSchema } from './schema.js';
import { RequestHeader } from './schemas/headers.js';
import { schemaForApi } from './schemas/index.js';

/** ApiVersions' first flexible version: the header rule for versions above the schema's max. */
const API_VERSIONS_FIRST_FLEXIBLE = 3;

export interface RequestHeaderValue {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** '' when the client sent null (Kafka's RequestHeader treats null as empty). */
  clientId: string;
  headerVersion: 1 | 2;
  /** Offset of the request body in the frame. */
  bodyOffset: number;
}

/**
 * The request header version for (apiKey, apiVersion): 2 when that version of the API is
 * flexible. Unknown APIs and versions outside the API's range parse as v1, so the broker still
 * gets the correlation id to answer or close as Kafka does; ApiVersions above its max uses v2 from
 * its first flexible version on (a newer client's ApiVersions must still be answered).
 */
export function requestHeaderVersion(apiKey: number, apiVersion: number): 1 | 2 {
  const api = schemaForApi(apiKey);
  if (!api) return 1;
  if (isValidVersion(api.request, apiVersion)) return isFlexibleVersion(api.request, apiVersion) ? 2 : 1;
  if (apiKey === ApiKey.ApiVersions && apiVersion > api.request.validVersions[1]) return apiVersion >= API_VERSIONS_FIRST_FLEXIBLE ? 2 : 1;
  return 1;
}

/**
 * Parses the header of one frame (without its 4-byte size prefix). Throws ProtocolError. Given
 * `into`, the usual header is written there and `into` returned (a connection reuses one object
 * for its requests, read one at a time); otherwise, and for the unusual ones, a new object.
 */
export function readRequestHeader(buf: Buffer, into?: RequestHeaderValue): RequestHeaderValue {
  if (buf.length < 8) throw new ProtocolError(`request frame of ${buf.length} bytes is shorter than a request header`, { position: buf.length });
  const apiKey = readInt16BE(buf, 0);
  const apiVersion = readInt16BE(buf, 2);
  const headerVersion = requestHeaderVersion(apiKey, apiVersion);
  const fast = readCommonHeader(buf, apiKey, apiVersion, headerVersion, into);
  if (fast !== undefined) return fast;
  const { value, offset } = decodeMessage<{ correlationId: number; clientId: string | null }>(RequestHeader, headerVersion, buf, 0);
  return { apiKey, apiVersion, correlationId: value.correlationId, clientId: value.clientId ?? '', headerVersion, bodyOffset: offset };
}

/**
 * The usual header read by hand, which the generic decoder costs a few µs per request more: a
 * client id of 0..32767 bytes and, in v2, an empty tag buffer. Anything else (a truncated frame,
 * tagged fields) returns undefined and goes through decodeMessage, whose errors are the reference.
 */
function readCommonHeader(buf: Buffer, apiKey: number, apiVersion: number, headerVersion: 1 | 2, into: RequestHeaderValue | undefined): RequestHeaderValue | undefined {
  if (buf.length < 10) return undefined;
  const correlationId = readInt32BE(buf, 4);
  const n = readInt16BE(buf, 8);
  let offset = 10;
  let clientId = '';
  if (n > 0) {
    offset += n;
    if (offset > buf.length) return undefined;
    clientId = lastClientId(buf, 10, offset);
  } else if (n < -1) return undefined;
  if (headerVersion === 2) {
    if (offset >= buf.length || buf[offset] !== 0) return undefined;
    offset++;
  }
  if (into === undefined) return { apiKey, apiVersion, correlationId, clientId, headerVersion, bodyOffset: offset };
  into.apiKey = apiKey;
  into.apiVersion = apiVersion;
  into.correlationId = correlationId;
  into.clientId = clientId;
  into.headerVersion = headerVersion;
  into.bodyOffset = offset;
  return into;
}

/** The last client id decoded and its bytes: a connection sends the same one on every request. */
let cachedClientId = '';
let cachedClientIdBytes: Buffer = Buffer.alloc(0);

/**
 * Whether buf[start, start + n) holds `bytes`, by a loop: a client id is a few dozen bytes, and
 * Buffer.compare with a range checks its five arguments and calls into C++ (0.2 µs of a 16 KiB
 * Produce request's broker CPU, perf).
 */
function sameBytes(buf: Buffer, start: number, bytes: Buffer, n: number): boolean {
  for (let i = 0; i < n; i++) if (buf[start + i] !== bytes[i]) return false;
  return true;
}

function lastClientId(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n === cachedClientIdBytes.length && sameBytes(buf, start, cachedClientIdBytes, n)) return cachedClientId;
  const clientId = buf.toString('utf8', start, end);
  if (n <= 256) {
    cachedClientId = clientId;
    cachedClientIdBytes = Buffer.from(buf.subarray(start, end));
  }
  return clientId;
}

/** Response header version: 1 when the response version is flexible, ApiVersions always 0. */
export function responseHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 {
  if (apiKey === ApiKey.ApiVersions) return 0;
  const api = schemaForApi(apiKey);
  return api && isFlexibleVersion(api.response, apiVersion) ? 1 : 0;
}

/**
 * A response frame as chunks, `value` encoded as `schema` at `apiVersion` after the int32 size and
 * response header, which share its first chunk: the same bytes as encodeResponseFrame of
 * encodeMessage's chunks (test/protocol/header.test.ts), without a header buffer of its own.
 */
export function encodeResponse(schema: MessageSchema, apiKey: number, apiVersion: number, correlationId: number, value: unknown): Buffer[] {
  const headerSize = responseHeaderVersion(apiKey, apiVersion) === 1 ? 5 : 4; // v1: correlationId + an empty tag buffer
  const chunks = encodeMessageAfter(schema, apiVersion, value, 4 + headerSize);
  let size = -4;
  for (let i = 0; i < chunks.length; i++) size += chunks[i]!.length;
  const first = chunks[0]!;
  writeInt32BE(first, 0, size);
  writeInt32BE(first, 4, correlationId);
  if (headerSize === 5) first[8] = 0;
  return chunks;
}

/**
 * A response frame as chunks: [int32 size + response header, ...body]. The size counts the
 * header and the body, not itself; the body chunks are not copied.
 */
export function encodeResponseFrame(apiKey: number, apiVersion: number, correlationId: number, body: Buffer[]): Buffer[] {
  const headerVersion = responseHeaderVersion(apiKey, apiVersion);
  const headerSize = headerVersion === 1 ? 5 : 4; // v1: correlationId + an empty tag buffer
  let bodySize = 0;
  for (const b of body) bodySize += b.length;
  const prefix = Buffer.allocUnsafe(4 + headerSize);
  writeInt32BE(prefix, 0, headerSize + bodySize);
  writeInt32BE(prefix, 4, correlationId);
  if (headerVersion === 1) prefix[8] = 0;
  return [prefix, ...body];
}
