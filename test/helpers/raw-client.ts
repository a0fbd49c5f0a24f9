/**
 * A raw Kafka wire client on the repo's own codec, for driving the broker byte by byte: request
 * frames are built by hand (int32 size + request header + body, Kafka's `NetworkReceive` and RequestHeader.json) so tests
 * can pipeline, send malformed or partial frames, and watch exactly when the broker answers or
 * closes. Responses are matched in order (Kafka answers one connection's requests FIFO); the
 * correlation id of each answer is checked by the caller, not assumed.
 */
import { connect, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { decodeMessage, encodeMessage } from '../../src/protocol/codec.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { requestHeaderVersion, responseHeaderVersion } from '../../src/protocol/header.js';
import { RequestHeader } from '../../src/protocol/schemas/headers.js';
import { schemaForApi } from '../../src/protocol/schemas/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = Record<string, any>;

/** Responses can be far larger than any request cap; the client only guards against nonsense. */
const MAX_RESPONSE_BYTES = 1 << 30;

function apiOf(apiKey: number) {
  const api = schemaForApi(apiKey);
  if (!api) throw new Error(`no schema for API key ${apiKey}`);
  return api;
}

/**
 * Request header + body, without the size prefix. The header version follows the API version;
 * bodyVersion (default: apiVersion) lets a test claim a version the schema has no layout for
 * (ApiVersions v99 carrying a v3 body, as a newer client sends it).
 */
export function encodeRequestPayload(apiKey: number, apiVersion: number, correlationId: number, body: Msg, clientId: string | null = 'raw-client', bodyVersion = apiVersion): Buffer[] {
  const header = encodeMessage(RequestHeader, requestHeaderVersion(apiKey, apiVersion), { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId, clientId });
  return [...header, ...encodeMessage(apiOf(apiKey).request, bodyVersion, body)];
}

/** A whole request frame: int32 size, header, body. */
export function encodeRequestFrame(apiKey: number, apiVersion: number, correlationId: number, body: Msg, clientId: string | null = 'raw-client', bodyVersion = apiVersion): Buffer {
  const payload = Buffer.concat(encodeRequestPayload(apiKey, apiVersion, correlationId, body, clientId, bodyVersion));
  return sizePrefixed(payload);
}

export function sizePrefixed(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeInt32BE(payload.length, 0);
  payload.copy(out, 4);
  return out;
}

/** Splits one response frame (without its size prefix) into correlation id and decoded body. */
export function decodeResponseFrame(apiKey: number, apiVersion: number, frame: Buffer): { correlationId: number; body: Msg } {
  const correlationId = frame.readInt32BE(0);
  // ApiVersions above the served max is answered with a v0 body (KIP-511)
  const headerSize = responseHeaderVersion(apiKey, apiVersion) === 1 ? 5 : 4;
  const body = decodeMessage(apiOf(apiKey).response, apiVersion, frame, headerSize).value as Msg;
  return { correlationId, body };
}

interface Waiter {
  resolve: (frame: Buffer) => void;
  reject: (e: Error) => void;
}

export class RawClient {
  private readonly decoder = new FrameDecoder(MAX_RESPONSE_BYTES);
  private readonly waiters: Waiter[] = [];
  /** Response frames that arrived with nobody waiting (a test expecting none checks this). */
  readonly unclaimed: Buffer[] = [];
  private nextCorrelationId = 1;
  isClosed = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      for (const f of this.decoder.push(chunk)) {
        const w = this.waiters.shift();
        if (w) w.resolve(f);
        else this.unclaimed.push(f);
      }
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.isClosed = true;
        for (const w of this.waiters.splice(0)) w.reject(new Error('connection closed by the broker'));
        resolve();
      }),
    );
  }

  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host }, () => {
        s.off('error', reject);
        resolve(new RawClient(s));
      });
      s.once('error', reject);
    });
  }

  /** The same client over TLS (an SSL or SASL_SSL listener); resolves once the handshake is done. */
  static connectTls(port: number, options: ConnectionOptions, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connectTls({ ...options, port, host }, () => {
        s.off('error', reject);
        resolve(new RawClient(s));
      });
      s.once('error', reject);
    });
  }

  correlationId(): number {
    return this.nextCorrelationId++;
  }

  /** Writes raw bytes (the caller built the frame). */
  send(bytes: Buffer | Buffer[]): void {
    if (Array.isArray(bytes)) {
      this.socket.cork();
      for (const b of bytes) this.socket.write(b);
      this.socket.uncork();
    } else this.socket.write(bytes);
  }

  /** The next response frame (without its size prefix), in arrival order. */
  nextFrame(): Promise<Buffer> {
    const early = this.unclaimed.shift();
    if (early) return Promise.resolve(early);
    if (this.isClosed) return Promise.reject(new Error('connection closed by the broker'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Sends one request and resolves with its decoded answer (checks the correlation id). */
  async request(apiKey: number, apiVersion: number, body: Msg): Promise<Msg> {
    const id = this.correlationId();
    const pending = this.nextFrame();
    this.send(encodeRequestFrame(apiKey, apiVersion, id, body));
    const r = decodeResponseFrame(apiKey, apiVersion, await pending);
    if (r.correlationId !== id) throw new Error(`answer carries correlation id ${r.correlationId}, expected ${id}`);
    return r.body;
  }

  /** True when the broker closes the connection within timeoutMs (a hang guard, not a timing claim). */
  async closesWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const t = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const r = await Promise.race([this.closed.then(() => true), t]);
    clearTimeout(timer);
    return r;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
