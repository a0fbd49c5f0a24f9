/**
 * A small Kafka client on kafkalite's own protocol codec, for the web console: one connection to
 * one bootstrap broker, requests answered in order (Kafka answers a connection FIFO, as its
 * `NetworkClient` relies on), the version of each API negotiated from the broker's ApiVersions
 * answer (KIP-35): the console's preferred version, capped at the broker's highest.
 */
import { connect, type Socket } from 'node:net';
import { decodeMessage, encodeMessage } from '../protocol/codec.js';
import { FrameDecoder } from '../protocol/framing.js';
import { requestHeaderVersion, responseHeaderVersion } from '../protocol/header.js';
import type { ApiSchemaPair } from '../protocol/schema.js';
import { ApiVersions, type ApiVersionsResponse } from '../protocol/schemas/api-versions.js';
import { RequestHeader, ResponseHeader } from '../protocol/schemas/headers.js';
import { ErrorCode, errorName } from '../protocol/error-codes.js';

/** Responses (a Fetch of a large partition) can be big; this only stops a nonsense size prefix. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
const CLIENT_ID = 'kafkalite-ui';

export class KafkaClientError extends Error {}

interface Pending {
  api: ApiSchemaPair;
  version: number;
  correlationId: number;
  resolve: (body: unknown) => void;
  reject: (e: Error) => void;
}

export class KafkaClient {
  private readonly decoder = new FrameDecoder(MAX_RESPONSE_BYTES);
  private readonly pending: Pending[] = [];
  private nextCorrelationId = 1;
  private closed = false;
  /** Highest version the broker serves, per API key (from ApiVersions). */
  private readonly brokerVersions = new Map<number, { min: number; max: number }>();

  private constructor(
    private readonly socket: Socket,
    readonly bootstrap: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      let frames: Buffer[];
      try {
        frames = this.decoder.push(chunk);
      } catch (e) {
        this.fail(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      for (const f of frames) this.answer(f);
    });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new KafkaClientError(`connection to ${bootstrap} closed`)));
  }

  /** Connects to `host:port` and learns the API versions the broker serves. */
  static async connect(bootstrap: string, timeoutMs = 10_000): Promise<KafkaClient> {
    const { host, port } = parseBootstrap(bootstrap);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host, port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new KafkaClientError(`no connection to ${bootstrap} within ${timeoutMs} ms`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(new KafkaClientError(`cannot connect to ${bootstrap}: ${e.message}`));
      });
    });
    const client = new KafkaClient(socket, bootstrap);
    // v0: every broker answers it, whatever its range (KIP-511 answers a too-high version with v0)
    const av = await client.send<ApiVersionsResponse>(ApiVersions, 0, {});
    if (av.errorCode !== ErrorCode.NONE) throw new KafkaClientError(`ApiVersions failed: ${errorName(av.errorCode) ?? av.errorCode}`);
    for (const k of av.apiKeys) client.brokerVersions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
    return client;
  }

  get host(): string {
    return parseBootstrap(this.bootstrap).host;
  }

  get port(): number {
    return parseBootstrap(this.bootstrap).port;
  }

  /** The versions the broker serves, as it advertised them. */
  get apiVersions(): ReadonlyMap<number, { min: number; max: number }> {
    return this.brokerVersions;
  }

  /**
   * Sends `body` at the highest version in [minVersion, preferred] the broker serves; the body
   * must be valid at every version of that range (optional fields are left out where absent).
   */
  request<Res>(api: ApiSchemaPair, preferred: number, minVersion: number, body: object): Promise<{ version: number; body: Res }> {
    const served = this.brokerVersions.get(api.apiKey);
    if (!served) return Promise.reject(new KafkaClientError(`the broker does not serve ${api.name}`));
    const version = Math.min(preferred, served.max);
    if (version < minVersion || version < served.min) {
      return Promise.reject(new KafkaClientError(`the broker serves ${api.name} ${served.min}-${served.max}, the console needs ${minVersion}-${preferred}`));
    }
    return this.send<Res>(api, version, body).then((b) => ({ version, body: b }));
  }

  private send<Res>(api: ApiSchemaPair, version: number, body: object): Promise<Res> {
    if (this.closed) return Promise.reject(new KafkaClientError(`connection to ${this.bootstrap} closed`));
    const correlationId = this.nextCorrelationId++;
    const header = encodeMessage(RequestHeader, requestHeaderVersion(api.apiKey, version), {
      requestApiKey: api.apiKey,
      requestApiVersion: version,
      correlationId,
      clientId: CLIENT_ID,
    });
    const chunks = [...header, ...encodeMessage(api.request, version, body)];
    const size = Buffer.allocUnsafe(4);
    size.writeInt32BE(chunks.reduce((n, c) => n + c.length, 0), 0);
    return new Promise<Res>((resolve, reject) => {
      this.pending.push({ api, version, correlationId, resolve: resolve as (b: unknown) => void, reject });
      this.socket.cork();
      this.socket.write(size);
      for (const c of chunks) this.socket.write(c);
      this.socket.uncork();
    });
  }

  private answer(frame: Buffer): void {
    const p = this.pending.shift();
    if (!p) {
      this.fail(new KafkaClientError('an answer arrived for no request'));
      return;
    }
    try {
      const header = decodeMessage<{ correlationId: number }>(ResponseHeader, responseHeaderVersion(p.api.apiKey, p.version), frame);
      if (header.value.correlationId !== p.correlationId) {
        throw new KafkaClientError(`answer carries correlation id ${header.value.correlationId}, expected ${p.correlationId}`);
      }
      p.resolve(decodeMessage(p.api.response, p.version, frame, header.offset).value);
    } catch (e) {
      p.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private fail(e: Error): void {
    this.closed = true;
    for (const p of this.pending.splice(0)) p.reject(e);
    this.socket.destroy();
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

function parseBootstrap(bootstrap: string): { host: string; port: number } {
  const first = bootstrap.split(',')[0]!.trim();
  const m = /^(.*):(\d+)$/.exec(first);
  if (!m || m[1] === '' || Number(m[2]) > 65535) throw new KafkaClientError(`bootstrap must be host:port, got ${bootstrap}`);
  return { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
}
