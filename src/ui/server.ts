/**
 * The web console's HTTP server: the page (an HTML shell from src/ui/assets, and the front end that
 * `npm run build` bundles from src/ui/web into one ES module and one style sheet; no network fetch
 * at run time) and a JSON API over two sources: a cluster reached
 * through the Kafka protocol (ClusterView) and a data directory read offline (DiskView). Serve mode
 * has both (the broker's own data dir), `--bootstrap` the cluster only, `--data-dir` the disk only.
 *
 * It binds 127.0.0.1 unless told otherwise; any other address needs a password (HTTP basic auth,
 * any user name), since the console can produce to topics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import { INDEX_HTML } from './assets/index-html.js';
import { webAsset } from './web-assets.js';
import { ClusterError, ClusterView } from './cluster.js';
import { DiskError, DiskView } from './disk.js';
import { KafkaClientError } from './kafka-client.js';
import type { StartPosition } from './messages.js';
import { alterConfigs, brokerPage, ConfigResourceType, parseConfigChanges } from './admin.js';
import type { BrowseQuery, MessageFilter } from './browse.js';
import { deleteGroup, parseReset, resetOffsets } from './groups.js';
import type { RequestMetrics } from '../broker/request-metrics.js';
import { EventStream } from './live.js';
import { tail } from './tail.js';
import { producers, transactions } from './transactions.js';
import { MAX_INTERVAL_MS, MIN_INTERVAL_MS, Sampler, topicRates, type TopicSample } from './sampler.js';

interface UiServerOptions {
  /** Address to bind (default 127.0.0.1); anything but loopback needs `password`. */
  host?: string;
  /** Port (default 0: a free one). */
  port?: number;
  password?: string;
  /** A Kafka cluster to browse (host:port). */
  bootstrap?: string;
  /** A data directory to read (offline, or the broker's own in serve mode). */
  dataDir?: string;
  /** The broker's request counts (serve mode), for the broker page. */
  requestMetrics?: RequestMetrics;
}

class UiError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_PAGE = 500;

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\./.test(host);
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export class UiServer {
  private cluster: Promise<ClusterView> | undefined;
  /** The event streams open to pages (live tails, samplers); each ends with its page. */
  private readonly streams = new Set<EventStream>();
  /** The sampling loops pages watch, by what they sample and how often. */
  private readonly samplers = new Map<string, { watch(stream: EventStream): void; readonly isRunning: boolean }>();
  readonly disk: DiskView | undefined;

  private constructor(
    private readonly server: Server,
    private readonly options: UiServerOptions,
  ) {
    this.disk = options.dataDir !== undefined ? new DiskView(options.dataDir) : undefined;
  }

  static async start(options: UiServerOptions): Promise<UiServer> {
    const host = options.host ?? '127.0.0.1';
    if (options.bootstrap === undefined && options.dataDir === undefined) throw new UiError('the console needs a cluster (bootstrap) or a data directory');
    if (!isLoopback(host) && !options.password) throw new UiError(`binding the console to ${host} needs a password (kafkalite ui --password, serve --ui-password): it can produce to topics`);
    let ui: UiServer | undefined;
    const server = createServer((req, res) => {
      if (ui) void ui.handle(req, res);
    });
    ui = new UiServer(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return ui;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === 'object' && a !== null ? a.port : 0;
  }

  get url(): string {
    const host = this.options.host ?? '127.0.0.1';
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}/`;
  }

  /** Event streams open now (a page with a live tail or a sampler). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Sampling loops running now (some page watches each). */
  get runningSamplers(): number {
    return [...this.samplers.values()].filter((x) => x.isRunning).length;
  }

  async close(): Promise<void> {
    for (const s of [...this.streams]) s.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    const c = this.cluster;
    this.cluster = undefined;
    if (c) (await c.catch(() => undefined))?.close();
  }

  /** The cluster connection, made on first use and again after it closed. */
  private async clusterView(): Promise<ClusterView> {
    if (this.options.bootstrap === undefined) throw new UiError('no cluster in offline mode (--data-dir): the console reads the files only', 404);
    const current = this.cluster;
    if (current) {
      const c = await current.catch(() => undefined);
      if (c && !c.isClosed) return c;
    }
    const next = ClusterView.connect(this.options.bootstrap);
    this.cluster = next;
    return next;
  }

  private diskView(): DiskView {
    if (!this.disk) throw new UiError('no data directory: the log on disk is shown in serve mode and with --data-dir', 404);
    return this.disk;
  }

  /**
   * Bound to loopback without a password, the console trusts whoever reaches it; a web page on
   * another site could still reach it by DNS rebinding (its own name resolving to 127.0.0.1) and,
   * being same-origin then, reset offsets or delete groups. So the Host header must be a loopback
   * name too. With a password (any address), basic auth guards it instead.
   */
  private hostAllowed(req: IncomingMessage): boolean {
    if (this.options.password || !isLoopback(this.options.host ?? '127.0.0.1')) return true;
    const host = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(req.headers.host ?? '')?.[1] ?? '';
    const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    return name === '' || name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
  }

  private authorized(req: IncomingMessage): boolean {
    const password = this.options.password;
    if (!password) return true;
    const m = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (!m) return false;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const given = decoded.slice(decoded.indexOf(':') + 1);
    return timingSafeEqual(digest(given), digest(password));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!this.hostAllowed(req)) {
      send(res, 403, 'text/plain; charset=utf-8', 'the console answers only under a loopback name (Host: localhost, 127.0.0.1 or [::1])\n');
      return;
    }
    if (!this.authorized(req)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="kafkalite console", charset="UTF-8"', 'Content-Type': 'text/plain' });
      res.end('password required\n');
      return;
    }
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    try {
      if (req.method === 'GET' && (path === '/' || path === '/index.html')) return send(res, 200, 'text/html; charset=utf-8', INDEX_HTML);
      if (req.method === 'GET' && path.startsWith('/assets/')) {
        const asset = webAsset(path.slice('/assets/'.length));
        if (asset) return send(res, 200, asset.type, asset.body);
      }
      if (path.startsWith('/api/')) {
        const segments = path.slice('/api/'.length).split('/').map((s) => decodeURIComponent(s));
        if (req.method === 'GET' && (await this.stream(req, res, segments, url.searchParams))) return;
        const json = JSON.stringify(await this.api(req, segments, url.searchParams));
        // the server's share of the answer's time, which the browser's resource timing shows (W3C Server Timing)
        res.setHeader('Server-Timing', `api;dur=${(performance.now() - started).toFixed(1)}`);
        return send(res, 200, 'application/json; charset=utf-8', json);
      }
      throw new UiError(`no page ${path}`, 404);
    } catch (e) {
      const status = e instanceof UiError || e instanceof ClusterError || e instanceof DiskError ? e.status : e instanceof KafkaClientError ? 502 : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (!res.headersSent) send(res, status, 'application/json; charset=utf-8', JSON.stringify({ error: message }));
      else res.destroy();
    }
  }

  /**
   * The event-stream endpoints: `topics/<t>/tail?partition=N[&from=offset:N]`. Parameters are
   * checked (400, 404 as JSON) before the stream opens; false when the path is not one of them.
   */
  private async stream(req: IncomingMessage, res: ServerResponse, s: string[], q: URLSearchParams): Promise<boolean> {
    if (s.length === 3 && s[0] === 'topics' && s[2] === 'tail') {
      const topic = s[1]!;
      const partition = intParam(q, 'partition', 0);
      const fromParam = q.get('from');
      let from: bigint | null = null;
      if (fromParam !== null) {
        const m = /^offset:(\d{1,19})$/.exec(fromParam);
        if (!m) throw new UiError(`from must be offset:N (the tail starts at the end without it), got ${JSON.stringify(fromParam)}`);
        from = bigOf(m[1]!, 'offset');
      }
      if (this.options.bootstrap === undefined) throw new UiError('no live tail in offline mode (--data-dir): the files do not change', 404);
      const cluster = await this.clusterView();
      if (!(await cluster.partitionsOf(topic)).includes(partition)) throw new UiError(`topic ${topic} has no partition ${partition}`, 404);
      this.open(req, res, (stream) => tail(cluster, topic, partition, from, stream));
      return true;
    }
    if (s[0] === 'samples' && ((s.length === 2 && s[1] === 'topics') || (s.length === 3 && s[1] === 'groups' && s[2] !== ''))) {
      const interval = intParam(q, 'interval', 2000);
      if (interval < MIN_INTERVAL_MS || interval > MAX_INTERVAL_MS) throw new UiError(`interval must be ${MIN_INTERVAL_MS}-${MAX_INTERVAL_MS} ms`);
      const key = `${s.slice(1).join('\0')}@${interval}`;
      let sampler = this.samplers.get(key);
      if (!sampler) {
        if (s[1] === 'topics') {
          sampler = new Sampler<Record<string, TopicSample>>(async (previous) => topicRates(Date.now(), await this.topicList(), previous), interval);
        } else {
          const groupId = s[2]!;
          // an unknown group is a 404 now, not an error event later
          await (await this.clusterView()).group(groupId);
          sampler = new Sampler(async () => {
            const g = await (await this.clusterView()).group(groupId);
            return { state: g.state, totalLag: g.totalLag, partitions: Object.fromEntries(g.offsets.map((o) => [`${o.topic}-${o.partition}`, o.lag])) };
          }, interval);
        }
        // loops nobody watches keep their samples for a page opened again, up to a bound
        for (const [k, x] of this.samplers) if (this.samplers.size >= 32 && !x.isRunning) this.samplers.delete(k);
        this.samplers.set(key, sampler);
      }
      const chosen = sampler;
      this.open(req, res, async (stream) => chosen.watch(stream));
      return true;
    }
    return false;
  }

  private open(req: IncomingMessage, res: ServerResponse, run: (stream: EventStream) => Promise<void>): void {
    const stream = new EventStream(req, res);
    this.streams.add(stream);
    stream.whenClosed(() => this.streams.delete(stream));
    run(stream).catch((e: unknown) => {
      stream.send('error', { error: e instanceof Error ? e.message : String(e) });
      stream.close();
    });
  }

  /** Every topic with its partitions, messages, end offsets and bytes on disk (where the console has the data directory). */
  private async topicList(): Promise<{ name: string; partitions: number; endOffsets: string; messages: string; bytes: number | null }[]> {
    if (this.options.bootstrap === undefined) {
      return this.diskView().topics().map((t) => ({ name: t.name, internal: t.name.startsWith('__'), partitions: t.partitions.length, endOffsets: String(t.partitions.reduce((n, p) => n + BigInt(p.endOffset ?? '0'), 0n)), messages: String(t.partitions.reduce((n, p) => n + (p.endOffset !== null && p.startOffset !== null ? BigInt(p.endOffset) - BigInt(p.startOffset) : 0n), 0n)), bytes: t.partitions.reduce((n, p) => n + p.bytes, 0) }));
    }
    const topics = await (await this.clusterView()).topics();
    const bytes = this.disk ? this.disk.bytesByTopic() : new Map<string, number>();
    return topics.map((t) => ({ ...t, bytes: bytes.get(t.name) ?? null }));
  }

  private async api(req: IncomingMessage, s: string[], q: URLSearchParams): Promise<unknown> {
    const get = req.method === 'GET';
    const post = req.method === 'POST';
    const del = req.method === 'DELETE';
    const fail = (m: string): UiError => new UiError(m);
    const [a, b, c, d, e, f, g] = s;
    if (get && a === 'info' && s.length === 1) {
      return { bootstrap: this.options.bootstrap ?? null, dataDir: this.options.dataDir ?? null, mode: this.options.bootstrap === undefined ? 'offline' : this.disk ? 'serve' : 'bootstrap', readOnly: this.options.bootstrap === undefined, streams: this.streams.size, samplers: this.runningSamplers };
    }
    if (a === 'topics') {
      if (get && s.length === 1) return this.topicList();
      const topic = b;
      if (topic === undefined || topic === '') throw new UiError('missing topic name');
      if (get && s.length === 2) {
        if (this.options.bootstrap === undefined) {
          const t = this.diskView().topics().find((x) => x.name === topic);
          if (!t) throw new UiError(`no topic ${topic} in ${this.options.dataDir}`, 404);
          return { name: topic, internal: topic.startsWith('__'), partitions: t.partitions.map((p) => ({ partition: p.partition, leader: -1, startOffset: p.startOffset, endOffset: p.endOffset, lastStableOffset: null, messages: String(BigInt(p.endOffset ?? '0') - BigInt(p.startOffset ?? '0')) })) };
        }
        return (await this.clusterView()).topic(topic);
      }
      if (get && c === 'configs' && s.length === 3) return (await this.clusterView()).configs(topic);
      if (post && c === 'configs' && s.length === 3) {
        const r = parseConfigChanges(await readJson(req), fail);
        return alterConfigs(await this.clusterView(), ConfigResourceType.TOPIC, topic, r.changes, r.validateOnly);
      }
      if (c === 'messages' && s.length === 3) {
        if (get) {
          const partition = intParam(q, 'partition', 0);
          const query = browseQuery(q);
          if (this.options.bootstrap === undefined) return this.diskView().messages(topic, partition, query);
          return (await this.clusterView()).messages(topic, partition, query);
        }
        if (post) {
          if (this.options.bootstrap === undefined) throw new UiError('offline mode is read-only', 405);
          const r = produceBody(await readJson(req));
          return (await this.clusterView()).produce(topic, r.partition, r);
        }
      }
    }
    if (a === 'groups') {
      if (get && s.length === 1) return (await this.clusterView()).groups();
      if (get && s.length === 2 && b) return (await this.clusterView()).group(b);
      if (del && s.length === 2 && b) return deleteGroup(await this.clusterView(), b);
      if (post && s.length === 3 && b && c === 'reset-offsets') return resetOffsets(await this.clusterView(), b, parseReset(await readJson(req), fail));
    }
    if (get && a === 'transactions' && s.length === 1) return transactions(await this.clusterView());
    if (get && a === 'producers' && s.length === 1) return producers(await this.clusterView(), q.get('topic') || null);
    if (a === 'brokers') {
      if (get && s.length <= 2) return brokerPage(await this.clusterView(), b === undefined ? null : intOf(b, 'broker id'), this.options.requestMetrics);
      if (post && s.length === 3 && b !== undefined && c === 'configs') {
        const r = parseConfigChanges(await readJson(req), fail);
        return alterConfigs(await this.clusterView(), ConfigResourceType.BROKER, String(intOf(b, 'broker id')), r.changes, r.validateOnly);
      }
    }
    if (a === 'disk' && get) {
      const disk = this.diskView();
      if (s.length === 1) return disk.topics();
      // disk/<topic>/<partition>/segments[/<base>[/batches/<position>]], disk/<topic>/<partition>/lookup?offset=N
      if (b !== undefined && c !== undefined && d === 'segments') {
        const partition = intOf(c, 'partition');
        if (s.length === 4) return disk.segments(b, partition);
      }
      if (b !== undefined && c !== undefined && d === 'lookup' && s.length === 4) {
        const v = q.get('offset');
        if (v === null) throw new UiError('lookup needs ?offset=N');
        return disk.lookup(b, intOf(c, 'partition'), bigOf(v, 'offset'));
      }
      if (b !== undefined && c !== undefined && d === 'segments') {
        const partition = intOf(c, 'partition');
        if (s.length === 5) return disk.segment(b, partition, bigOf(e!, 'segment base offset'));
        if (s.length === 7 && f === 'batches') return disk.batch(b, partition, bigOf(e!, 'segment base offset'), intOf(g!, 'position'));
      }
    }
    throw new UiError(`no API ${req.method} /api/${s.join('/')}`, 404);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function intOf(v: string, name: string): number {
  if (!/^\d{1,10}$/.test(v) || Number(v) > 0x7fffffff) throw new UiError(`${name} must be a non-negative int32, got ${JSON.stringify(v)}`);
  return Number(v);
}

function bigOf(v: string, name: string): bigint {
  if (!/^\d{1,19}$/.test(v) || BigInt(v) > 0x7fffffffffffffffn) throw new UiError(`${name} must be a non-negative int64, got ${JSON.stringify(v)}`);
  return BigInt(v);
}

function intParam(q: URLSearchParams, name: string, dflt: number): number {
  const v = q.get(name);
  return v === null ? dflt : intOf(v, name);
}

/** `beginning`, `end`, `offset:N` or `timestamp:MS`. */
export function startPosition(v: string): StartPosition {
  if (v === 'beginning' || v === 'end') return { kind: v };
  const m = /^(offset|timestamp):(\d{1,19})$/.exec(v);
  if (!m) throw new UiError(`from must be beginning, end, offset:N or timestamp:MS, got ${JSON.stringify(v)}`);
  const n = bigOf(m[2]!, m[1]!);
  return m[1] === 'offset' ? { kind: 'offset', offset: n } : { kind: 'timestamp', timestamp: n };
}

/** The message browser's query: `from`, `limit`, `direction` (forward, backward) and `key`, `value`, `header` filters. */
function browseQuery(q: URLSearchParams): BrowseQuery {
  const limit = intParam(q, 'limit', 50);
  if (limit < 1 || limit > MAX_PAGE) throw new UiError(`limit must be 1-${MAX_PAGE}`);
  const direction = q.get('direction') ?? 'forward';
  if (direction !== 'forward' && direction !== 'backward') throw new UiError(`direction must be forward or backward, got ${JSON.stringify(direction)}`);
  const filter: MessageFilter = {};
  for (const k of ['key', 'value', 'header'] as const) {
    const v = q.get(k);
    if (v === null || v === '') continue;
    if (v.length > 1024) throw new UiError(`the ${k} filter is longer than 1024 characters`);
    filter[k] = v;
  }
  return { from: startPosition(q.get('from') ?? 'beginning'), limit, direction, filter };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) throw new UiError('a POST body must be application/json', 415);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    n += b.length;
    if (n > MAX_BODY_BYTES) throw new UiError(`body larger than ${MAX_BODY_BYTES} bytes`, 413);
    chunks.push(b);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new UiError('the body is not JSON');
  }
}

function isRecord(v: unknown): v is { [k: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(o: { [k: string]: unknown }, k: string): string | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new UiError(`${k} must be a string or null`);
  return v;
}

/** `{ partition, key, value, headers: [{ key, value }] }`, checked field by field. */
export function produceBody(v: unknown): { partition: number; key: string | null; value: string | null; headers: { key: string; value: string }[] } {
  if (!isRecord(v)) throw new UiError('the body must be a JSON object');
  const partition = v.partition === undefined ? 0 : v.partition;
  if (typeof partition !== 'number' || !Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) throw new UiError('partition must be a non-negative integer');
  const rawHeaders = v.headers === undefined ? [] : v.headers;
  if (!Array.isArray(rawHeaders)) throw new UiError('headers must be an array of { key, value }');
  const headers = rawHeaders.map((h: unknown) => {
    if (!isRecord(h) || typeof h.key !== 'string' || typeof h.value !== 'string') throw new UiError('each header must be { key: string, value: string }');
    return { key: h.key, value: h.value };
  });
  return { partition, key: optString(v, 'key'), value: optString(v, 'value'), headers };
}
