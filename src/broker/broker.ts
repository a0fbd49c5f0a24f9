/**
 * A single-node Kafka broker on the kafkalite log: a TCP listener, the data directory (LogManager),
 * the topics, the API handlers and the periodic log tasks (retention, flush, checkpoints), as
 * Kafka's `BrokerServer` + `LogManager` schedulers do on one node.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogCleaner } from '../storage/cleaner/log-cleaner.js';
import { LogManager } from '../storage/log-manager.js';
import type { LogSink } from '../storage/local-log.js';
import { DynamicBrokerConfigs } from './dynamic-broker-configs.js';
import { ClientQuotaStore } from './quotas/client-quotas.js';
import { BrokerQuotas } from './quotas/quota-manager.js';
import { brokerConfigFromProperties, DEFAULT_BROKER_CONFIG, type BrokerConfig } from './config.js';
import { advertisedMinVersion, servedMinVersion, type ProtocolCompat } from './protocol-compat.js';
import { Connection, forgetClosedConnectionOf } from './connection.js';
import type { AnyApiHandler } from './handler.js';
import { ApiKey } from '../protocol/api-keys.js';
import { ALL_HANDLERS } from './handlers/index.js';
import { createLogger, type Logger, type LogLevel } from './logger.js';
import { ProducerIdManager } from './producer-ids.js';
import { TopicRegistry } from './topic-registry.js';
import type { ClusterMetadataLog } from '../internal-topics/metadata-log.js';
import { AppendNotifier } from './append-notifier.js';
import { HeldAppends } from '../storage/held-appends.js';
import { groupConfigFromProperties, takeGroupProperties } from './group/config.js';
import { GroupCoordinator } from './group/coordinator.js';
import { takeTransactionProperties, transactionConfigFromProperties } from './txn/config.js';
import { TransactionCoordinator } from './txn/coordinator.js';
import { SYSTEM_TIMER, type Timer } from './timer.js';
import { BufferPool, ByteReservations } from '../bytes/buffer-pool.js';
import { ConnectionQuotas } from './connection-quotas.js';
import { QueuedBytes, type QueuedBytesStats } from './queued-bytes.js';
import type { LogDirFailure } from '../storage/log-dir-failure.js';
import { logDirFailureLine } from './log-dir-failure.js';
import { createAuthorizer, takeAuthorizerProperties, type StandardAuthorizer } from './auth/index.js';
import type { UiServer } from '../ui/server.js';
import { makeSelfSignedTls, selfSignedTlsProperties, type SelfSignedTls, type SelfSignedTlsOptions } from './security/self-signed.js';
import { securityConfigFromProperties, takeSecurityProperties, type ListenerSecurity, type SecurityConfig } from './security/config.js';
import { createListenerServer } from './security/listener-server.js';
import { ScramCredentialStore } from './security/scram-store.js';
import { credentialFromPassword } from './security/scram-formatter.js';
import type { ConnectionState } from './handler.js';
import { formatRequestMetrics, RequestMetrics, type RequestMetricsSnapshot } from './request-metrics.js';

/** How often `--log-level debug` prints the request latency summary (request-metrics.ts). */
const REQUEST_METRICS_LOG_MS = 30_000;

/**
 * Memory of answered Produce frames kept for the next ones, shared by all connections: eight
 * clients with five 1 MiB requests in flight each need 40 MiB at once; fresh memory for each frame
 * would cost more in page faults than appending it (bench/README.md).
 */
const FRAME_POOL_BYTES = 32 * 1024 * 1024;
/** Memory Fetch reads records into, back once each answer is written (the same reasoning). */
const FETCH_READ_POOL_BYTES = 32 * 1024 * 1024;
/**
 * Bytes of request frames allocated before they arrived, over all connections (ByteReservations):
 * in-place assembly for sixteen 4 MiB frames at once, then frames are assembled from what arrived.
 */
const IN_PLACE_FRAME_BYTES = 64 * 1024 * 1024;

export interface BrokerOptions {
  /** Data directory; a fresh temp directory (removed on close) when not given. */
  dataDir?: string;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /**
   * Kafka broker properties (`num.partitions`, `log.segment.bytes`, `auto.create.topics.enable`, ...)
   * and kafkalite's own (`kafkalite.page.cache.budget.bytes`, ...; config.ts); a bad value fails the start.
   */
  config?: Record<string, string>;
  logLevel?: LogLevel;
  logger?: Logger;
  /** kafkalite.protocol.compat: `4.0` serves only the versions Kafka 4.x serves (protocol-compat.ts); wins over `config`. */
  protocolCompat?: ProtocolCompat;
  /** Highest version advertised per API key (for negotiation tests); can be changed later with capApiVersion. */
  maxVersions?: Record<number, number>;
  /** The group coordinator's clock and scheduler (tests step a manual one); the system clock by default. */
  timer?: Timer;
  /** The web console next to the broker (src/ui): `true` for 127.0.0.1 on a free port; its address is `uiUrl`. */
  ui?: boolean | { port?: number; host?: string; password?: string };
  /**
   * SASL users, name → password: PLAIN users of every SASL listener, and SCRAM-SHA-256/512
   * credentials stored at start (kafkalite's shorthand for JAAS `user_<name>` and kafka-configs.sh).
   */
  users?: Record<string, string>;
  /**
   * `'self-signed'`: a CA and a server certificate made at start (security/self-signed.ts) serve
   * every TLS listener (SSL unless `listeners` says otherwise); the CA is `broker.tls.caPem`. The
   * object form also asks for a client certificate (`broker.tls.client`) for mutual TLS.
   */
  tls?: 'self-signed' | ({ mode: 'self-signed' } & SelfSignedTlsOptions);
}

/**
 * Emits `'error'` (a StorageError) when its log directory failed and it halted (log-dir-failure.ts):
 * as with any EventEmitter, an `'error'` nobody listens to is thrown, which ends the process.
 */
export class Broker extends EventEmitter {
  readonly config: BrokerConfig;
  readonly logger: Logger;
  readonly logs: LogManager;
  readonly topics: TopicRegistry;
  /** Log defaults changed at runtime (AlterConfigs on the BROKER resource), kept in the data dir. */
  readonly dynamicConfigs: DynamicBrokerConfigs;
  /** Client quotas (AlterClientQuotas), kept in the data dir, and the byte-rate managers enforcing them. */
  readonly quotas: BrokerQuotas;
  readonly appends = new AppendNotifier();
  /** Per-API request latency by phase (request-metrics.ts): `requestMetrics.snapshot()`. */
  readonly requestMetrics = new RequestMetrics();
  /** Produce appends whose file writes wait until an answer is about to leave (held-appends.ts, connection.ts). */
  readonly heldAppends: HeldAppends;
  /** Where connections copy request frames that span socket reads (see FRAME_POOL_BYTES). */
  readonly framePool = new BufferPool(FRAME_POOL_BYTES);
  /** Bounds the frame bytes connections allocate ahead of their arrival (framing.ts in-place assembly). */
  readonly inPlaceFrames = new ByteReservations(IN_PLACE_FRAME_BYTES);
  /** Where Fetch reads records (handlers/fetch.ts). */
  readonly fetchReadPool = new BufferPool(FETCH_READ_POOL_BYTES);
  readonly producerIds: ProducerIdManager;
  /** Compacts cleanup.policy=compact topics in the background (Kafka's LogCleaner). */
  readonly cleaner: LogCleaner;
  /** The group coordinator (consumer groups, committed offsets in __consumer_offsets). */
  readonly groups: GroupCoordinator;
  /** The transaction coordinator (transactional ids in __transaction_state, markers). */
  readonly transactions: TransactionCoordinator;
  /** The ACL authorizer (auth/), undefined when `authorizer.class.name` is empty: every check passes. */
  readonly authorizer: StandardAuthorizer | undefined;
  private readonly handlers = new Map<number, AnyApiHandler>();
  private readonly caps = new Map<number, number>();
  /** Request frames received and not yet handled, over all connections (queued.max.request.bytes). */
  readonly queuedRequests: QueuedBytes;
  /** Answers handed to sockets and not yet written (kafkalite.queued.max.response.bytes). */
  readonly queuedResponses: QueuedBytes;
  /** Served connections and the IP each counts against (max.connections, max.connections.per.ip). */
  private readonly connections = new Map<Connection, string>();
  private readonly connectionQuotas: ConnectionQuotas;
  private readonly timers: NodeJS.Timeout[] = [];
  /** The clock of delayed work (quota mutes; the coordinators take it too); a manual one in tests. */
  readonly timer: Timer;
  /** The listeners (`listeners`, TLS and SASL settings; security/config.ts). */
  readonly security: SecurityConfig;
  /** SCRAM credentials (AlterUserScramCredentials), kept in the data dir. */
  readonly scramCredentials: ScramCredentialStore;
  private readonly servers: Server[] = [];
  /** Bound port per listener name. */
  private readonly boundPorts = new Map<string, number>();
  /** The listener and transport principal of each accepted socket, until it is served. */
  private readonly accepted = new WeakMap<Socket, { listener: ListenerSecurity; principal: string }>();
  private boundPort = 0;
  private closing: Promise<void> | undefined;
  /** The self-signed TLS setup made at start (`tls: 'self-signed'`): the CA to trust, the client certificate. */
  tls: SelfSignedTls | undefined;
  /** The web console, when started with `ui`. */
  private uiServer: UiServer | undefined;

  private constructor(
    readonly dataDir: string,
    private readonly ownsDataDir: boolean,
    options: BrokerOptions,
  ) {
    super();
    // the coordinator's properties (offsets.*, group.*) are parsed by the coordinator
    const { security: securityProps, rest: nonSecurityProps } = takeSecurityProperties(options.config ?? {});
    const { group: groupProps, rest: nonGroupProps } = takeGroupProperties(nonSecurityProps);
    const { txn: txnProps, rest: nonTxnProps } = takeTransactionProperties(nonGroupProps);
    const { auth: authProps, rest: props } = takeAuthorizerProperties(nonTxnProps);
    this.config = brokerConfigFromProperties(props, {
      ...DEFAULT_BROKER_CONFIG,
      port: options.port ?? 0,
      host: options.host ?? DEFAULT_BROKER_CONFIG.host,
      advertisedHost: options.host ?? DEFAULT_BROKER_CONFIG.advertisedHost,
    });
    if (options.protocolCompat !== undefined) this.config.protocolCompat = options.protocolCompat;
    this.logger = options.logger ?? createLogger(options.logLevel ?? 'warn');
    const users = new Map(Object.entries(options.users ?? {}));
    this.security = securityConfigFromProperties(securityProps, this.config, users, (m) => this.logger.warn(m));
    this.scramCredentials = ScramCredentialStore.load(dataDir);
    this.queuedRequests = new QueuedBytes(this.config.queuedMaxRequestBytes);
    this.queuedResponses = new QueuedBytes(this.config.queuedMaxResponseBytes);
    this.connectionQuotas = new ConnectionQuotas(this.config, this.logger, (socket, ip) => this.serve(socket, ip));
    this.dynamicConfigs = DynamicBrokerConfigs.load(dataDir);
    this.config.logConfig = this.dynamicConfigs.logConfig(this.config);
    this.quotas = new BrokerQuotas(ClientQuotaStore.load(dataDir));
    this.authorizer = createAuthorizer(authProps, dataDir);
    for (const h of ALL_HANDLERS) this.handlers.set(h.api.apiKey, h);
    for (const [k, v] of Object.entries(options.maxVersions ?? {})) this.capApiVersion(Number(k), v);
    const logSink = storageLogSink(this.logger);
    let metadata: ClusterMetadataLog | undefined;
    this.logs = LogManager.open(dataDir, {
      defaultConfig: this.config.logConfig,
      topicConfigs: (logs) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(logs, { maxBytesBetweenSnapshots: this.config.metadataMaxBytesBetweenSnapshots })), this.config.logConfig),
      nodeId: this.config.nodeId,
      logger: logSink,
      pageCacheBudgetBytes: this.config.pageCacheBudgetBytes,
      indexCacheBudgetBytes: this.config.indexCacheBudgetBytes,
      ...(this.config.openFileBudget !== undefined ? { openFileBudget: this.config.openFileBudget } : {}),
      backgroundFlush: this.config.backgroundFlush,
      mappedTail: this.config.mappedTail,
      openLogsAtFirstUse: true,
    });
    // the users' SCRAM credentials are written once the directory exists and is this broker's (its lock taken)
    if (users.size > 0) {
      const upsertions = [];
      for (const [user, password] of users) {
        for (const mech of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) upsertions.push({ user, mech, credential: credentialFromPassword(mech, password, randomBytes(32), 4096) });
      }
      this.scramCredentials.apply([], upsertions);
    }
    const logDirFailure = this.logs.resources.logDirFailure;
    this.heldAppends = new HeldAppends(undefined, logDirFailure);
    logDirFailure.onFailure((failure) => this.halt(failure));
    this.topics = new TopicRegistry(metadata!, () => this.config.logConfig);
    this.logs.configSource = (topic) => this.topics.get(topic)?.config;
    this.topics.load(this.logs);
    this.producerIds = new ProducerIdManager(dataDir, () => {
      let maxPid = -1n;
      for (const log of this.logs.openAll()) for (const pid of log.producerStateManager.activeProducers().keys()) if (pid > maxPid) maxPid = pid;
      return maxPid + 1n;
    });
    this.cleaner = new LogCleaner(dataDir, () => this.logs.allLogs(), {
      config: this.config.cleaner,
      logger: logSink,
    });
    this.timer = options.timer ?? SYSTEM_TIMER;
    this.groups = new GroupCoordinator(this, groupConfigFromProperties(groupProps, this.config.groupInitialRebalanceDelayMs), options.timer);
    this.transactions = new TransactionCoordinator(this, transactionConfigFromProperties(txnProps, this.config.transactionMaxTimeoutMs), options.timer);
  }

  /** Opens the data directory and starts listening. */
  static async start(options: BrokerOptions = {}): Promise<Broker> {
    let tls: SelfSignedTls | undefined;
    if (options.tls !== undefined) {
      tls = await makeSelfSignedTls({ ...(typeof options.tls === 'string' ? {} : options.tls), hosts: [options.host ?? DEFAULT_BROKER_CONFIG.host] });
      const host = options.host ?? DEFAULT_BROKER_CONFIG.host;
      const listeners: Record<string, string> = options.config?.['listeners'] === undefined ? { listeners: `SSL://${host}:${options.port ?? 0}` } : {};
      options = { ...options, config: { ...listeners, ...selfSignedTlsProperties(tls), ...options.config } };
    }
    const owns = options.dataDir === undefined;
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kafkalite-'));
    let broker: Broker;
    try {
      broker = new Broker(dataDir, owns, options);
      broker.tls = tls;
    } catch (e) {
      // a bad property, or a data directory that cannot be opened: no temp directory is left behind
      if (owns) rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
    try {
      broker.groups.start();
      broker.transactions.start();
      await broker.listen();
    } catch (e) {
      broker.transactions.close();
      broker.groups.close();
      broker.logs.close();
      throw e;
    }
    broker.scheduleLogTasks();
    broker.cleaner.startup();
    if (options.ui) {
      const ui = options.ui === true ? {} : options.ui;
      try {
        // loaded when asked for: the console and the CLI readers it serves are not a broker's to load
        const { UiServer } = await import('../ui/server.js');
        broker.uiServer = await UiServer.start({ ...ui, bootstrap: broker.bootstrap, dataDir, requestMetrics: broker.requestMetrics });
      } catch (e) {
        await broker.close();
        throw e;
      }
    }
    return broker;
  }

  /** Starts every listener (security/listener-server.ts); the first one's port is `port`. */
  private async listen(): Promise<void> {
    for (const listener of this.security.listeners) {
      const server = createListenerServer(listener, this.logger, (socket, principal) => this.accept(socket, listener, principal));
      this.servers.push(server);
      const spec = listener.spec;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(spec.port, spec.host === '' ? undefined : spec.host, () => {
          server.off('error', reject);
          const address = server.address();
          const port = typeof address === 'object' && address !== null ? address.port : spec.port;
          this.boundPorts.set(spec.name, port);
          if (this.boundPort === 0) this.boundPort = port;
          this.logger.info(`kafkalite broker ${this.config.nodeId} listening on ${spec.name} (${spec.protocol}) ${this.listenerBootstrap(spec.name)}, data in ${this.dataDir}`);
          resolve();
        });
      });
    }
  }

  private accept(socket: Socket, listener: ListenerSecurity, principal: string): void {
    if (this.closing !== undefined) {
      socket.destroy();
      return;
    }
    this.accepted.set(socket, { listener, principal });
    this.connectionQuotas.accept(socket);
  }

  private serve(socket: Socket, ip: string): void {
    const a = this.accepted.get(socket);
    const c = new Connection(this, socket, a?.listener ?? this.security.listeners[0]!, a?.principal ?? 'User:ANONYMOUS');
    this.connections.set(c, ip);
    this.logger.debug(`connection from ${c.remote} on listener ${a?.listener.spec.name ?? '?'} as ${a?.principal ?? 'User:ANONYMOUS'}`);
  }

  connectionClosed(c: Connection): void {
    const ip = this.connections.get(c);
    if (ip === undefined) return;
    this.connections.delete(c);
    this.logger.debug(`connection ${c.remote} closed`);
    if (this.closing === undefined) this.connectionQuotas.released(ip);
  }

  /** How many connections are served now (connection.ts answers a lone one without waiting for the turn's end). */
  get servedConnections(): number {
    return this.connections.size;
  }

  /** Connections served, and accepted ones waiting for a max.connections slot. */
  get connectionCounts(): { served: number; waiting: number } {
    return { served: this.connectionQuotas.count, waiting: this.connectionQuotas.waitingCount };
  }

  /** The bytes connections hold for clients now and at most so far (queued-bytes.ts). */
  get queuedBytes(): QueuedBytesStats {
    return {
      requestBytes: this.queuedRequests.bytes,
      requestBytesHighWater: this.queuedRequests.highWater,
      responseBytes: this.queuedResponses.bytes,
      responseBytesHighWater: this.queuedResponses.highWater,
      responseBytesPerConnectionHighWater: this.queuedResponses.holderHighWater,
    };
  }

  /** Kafka's periodic log work: retention, time-based flush, producer expiry, checkpoints. */
  private scheduleLogTasks(): void {
    const every = (ms: number, task: () => void): void => {
      const t = setInterval(() => {
        try {
          task();
        } catch (e) {
          this.logger.error(`scheduled log task failed: ${(e as Error).stack ?? String(e)}`);
        }
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    // logs left unopened at a clean start open a few at a time (a tenth of a core at most), so that
    // retention, the cleaner and producer expiry, which walk the open logs, reach each within minutes
    if (this.logs.unopenedCount > 0) {
      const began = performance.now();
      const warmUp = setInterval(() => {
        try {
          if (this.logs.openNext(20) > 0) return;
          clearInterval(warmUp);
          this.logger.info(`Opened the logs left for first use in ${Math.round(performance.now() - began)} ms`);
        } catch (e) {
          clearInterval(warmUp); // the directory went offline (log-dir-failure.ts): the broker halts
          this.logger.error(`opening logs failed: ${(e as Error).message}`);
        }
      }, 200);
      warmUp.unref();
      this.timers.push(warmUp);
    }
    every(this.config.logRetentionCheckIntervalMs, () => {
      for (const log of this.logs.allLogs()) log.deleteOldSegments();
    });
    every(Math.min(this.config.logFlushSchedulerIntervalMs, 60_000), () => {
      for (const log of this.logs.allLogs()) {
        log.maybeFlushByTime();
        log.deleteDueFiles();
      }
    });
    // producer.id.expiration.check.interval.ms (Kafka default 600000)
    every(600_000, () => {
      for (const log of this.logs.allLogs()) log.removeExpiredProducers();
    });
    // log.flush.offset.checkpoint.interval.ms / log.flush.start.offset.checkpoint.interval.ms (60000)
    // written off the event loop (LogManager.checkpointInBackground); a failure took the directory offline
    every(60_000, () => void this.logs.checkpointInBackground().catch((e: unknown) => this.logger.error(`checkpoint failed: ${(e as Error).message}`)));
    if (this.logger.level === 'debug') {
      let last: RequestMetricsSnapshot | undefined;
      every(REQUEST_METRICS_LOG_MS, () => {
        const now = this.requestMetrics.snapshot(last);
        last = now;
        for (const line of formatRequestMetrics(now)) this.logger.debug(line);
      });
    }
    const maxIdleMs = this.config.connectionsMaxIdleMs;
    if (maxIdleMs >= 0) {
      // Kafka looks at the oldest connection on every poll; a sweep a tenth of the limit apart
      // (at most a second) closes an idle one within 10% of it. The sweep runs after the event
      // loop's next I/O phase (setImmediate): Kafka's Selector.poll handles the reads it selected
      // before maybeCloseOldestConnection, so a request that arrived while the loop was busy
      // counts before the connection is judged idle (timers run before I/O in Node's loop).
      every(Math.min(Math.max(Math.floor(maxIdleMs / 10), 10), 1000), () => {
        setImmediate(() => {
          const now = Date.now();
          for (const c of this.connections.keys()) c.expireIfIdle(now, maxIdleMs);
        });
      });
    }
  }

  /** True once close() was called (long polls answer at once). */
  get isClosing(): boolean {
    return this.closing !== undefined;
  }

  get port(): number {
    return this.boundPort;
  }

  /** host:port clients bootstrap from: the first listener's advertised endpoint. */
  get bootstrap(): string {
    return this.listenerBootstrap(this.security.listeners[0]!.spec.name);
  }

  /** The advertised host:port of a listener (`listenerBootstrap('SASL_SSL')`). */
  listenerBootstrap(name: string): string {
    const e = this.advertisedEndpoint(name);
    return `${e.host}:${e.port}`;
  }

  /** The advertised endpoint of a listener: port 0 advertises the bound port (ListenerInfo.withEphemeralPortsCorrected). */
  advertisedEndpoint(name: string): { host: string; port: number } {
    const l = this.security.listeners.find((x) => x.spec.name === name.toUpperCase());
    if (l === undefined) throw new Error(`no listener ${name}`);
    const port = l.spec.advertisedPort !== 0 ? l.spec.advertisedPort : (this.boundPorts.get(l.spec.name) ?? 0);
    return { host: l.spec.advertisedHost, port };
  }

  /** The endpoint a client of this connection is told about (Metadata, FindCoordinator: the listener it came in on). */
  endpointFor(connection: ConnectionState): { host: string; port: number } {
    return this.advertisedEndpoint(connection.security?.listener.spec.name ?? this.security.listeners[0]!.spec.name);
  }

  handlerFor(apiKey: number, version: number): AnyApiHandler | undefined {
    const h = this.handlers.get(apiKey);
    if (h === undefined) return undefined;
    // ApiVersions answers every version (KIP-511); others only what is advertised
    if (apiKey === ApiKey.ApiVersions) return h;
    // versionRange's bounds without its array (one per request)
    const max = Math.min(h.maxVersion, this.caps.get(apiKey) ?? h.maxVersion);
    return version <= max && version >= servedMinVersion(this.config.protocolCompat, apiKey, h.minVersion) ? h : undefined;
  }

  /** The handler of an API whatever the version asked (unsupported-version.ts answers with it). */
  knownHandler(apiKey: number): AnyApiHandler | undefined {
    return this.handlers.get(apiKey);
  }

  /** The served [min, max] of an API, after the protocol compat and runtime caps; undefined when not served. */
  versionRange(apiKey: number): [number, number] | undefined {
    const h = this.handlers.get(apiKey);
    if (h === undefined) return undefined;
    const min = servedMinVersion(this.config.protocolCompat, apiKey, h.minVersion);
    const max = Math.min(h.maxVersion, this.caps.get(apiKey) ?? h.maxVersion);
    return max >= min ? [min, max] : undefined;
  }

  /** Every served API with its advertised range, sorted by key (ApiVersions; Kafka 4 advertises Produce from v0). */
  advertisedApis(): { apiKey: number; minVersion: number; maxVersion: number }[] {
    const out = [];
    for (const key of [...this.handlers.keys()].sort((a, b) => a - b)) {
      const r = this.versionRange(key);
      const h = this.handlers.get(key)!;
      if (r !== undefined) out.push({ apiKey: key, minVersion: advertisedMinVersion(this.config.protocolCompat, key, h.minVersion), maxVersion: r[1] });
    }
    return out;
  }

  /** Caps the advertised max version of an API (below its min: the API is not advertised at all). */
  capApiVersion(apiKey: number, maxVersion: number | undefined): void {
    if (maxVersion === undefined) this.caps.delete(apiKey);
    else this.caps.set(apiKey, maxVersion);
  }

  /**
   * The log directory failed (log-dir-failure.ts): one line with the file and the errno, then the
   * halt once the current event-loop turn has answered what it handled (storage errors), then
   * `'error'`. Kafka halts at once; answering first tells the clients why.
   */
  private halt(failure: LogDirFailure): void {
    this.logger.error(logDirFailureLine(this.dataDir, failure));
    setImmediate(() => {
      void this.close().then(
        () => this.emit('error', failure.error),
        (e: unknown) => this.emit('error', e),
      );
    });
  }

  /** The log directory's failure, once it failed (the broker then halts). */
  get logDirFailure(): LogDirFailure | undefined {
    return this.logs.resources.logDirFailure.failed;
  }

  /**
   * Graceful shutdown: stop accepting, let each connection finish its request in progress, then
   * flush every log and write the checkpoints and the clean-shutdown marker.
   */
  readonly close = (): Promise<void> => {
    this.closing ??= this.doClose();
    return this.closing;
  };

  /** The web console's address (`ui` option), e.g. http://127.0.0.1:8080/. */
  get uiUrl(): string | undefined {
    return this.uiServer?.url;
  }

  private async doClose(): Promise<void> {
    await this.uiServer?.close();
    for (const t of this.timers) clearInterval(t);
    this.cleaner.shutdown();
    const serverClosed = Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.appends.wakeAll();
    // waiting JoinGroup/SyncGroup answers must complete before connections can finish
    this.groups.close();
    this.transactions.close();
    this.connectionQuotas.close();
    await Promise.all([...this.connections.keys()].map((c) => c.close()));
    for (const c of this.connections.keys()) c.destroy();
    forgetClosedConnectionOf(this);
    await serverClosed;
    await this.logs.checkpointWritten();
    await this.logs.removalsDone();
    const failed = this.logDirFailure;
    if (failed !== undefined) {
      // a log may be ahead of its files: no clean-shutdown marker, so the next start recovers it
      this.logs.closeUnclean();
      this.logger.error(`kafkalite broker ${this.config.nodeId} stopped without the clean-shutdown marker: ${failed.error.message}`);
    } else {
      this.logs.close();
      this.logger.info(`kafkalite broker ${this.config.nodeId} stopped`);
    }
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The storage layer's log sink, made outside the Broker's constructor: an arrow function there
 * shares the constructor's closure context, which holds `this`, and storage keeps its sink in
 * objects that can outlive the broker (the last ProducerAppendInfo, which map-anchors.ts keeps for
 * the process's life): such a sink kept the last broker that had appended to a log it reopened.
 */
function storageLogSink(logger: Logger): LogSink {
  return (level, message) => (level === 'warn' ? logger.warn(message) : logger.info(message));
}

/**
 * Starts an in-process broker: `const { bootstrap, close } = await startBroker()`. Unless `config`
 * sets it, `group.initial.rebalance.delay.ms` is 0 here, as in the Kafka container images tests
 * use, so a test's first consumer joins at once; `kafkalite serve` keeps Kafka's 3000.
 */
export async function startBroker(options: BrokerOptions = {}): Promise<Broker> {
  return Broker.start({ ...options, config: { 'group.initial.rebalance.delay.ms': '0', ...options.config } });
}
