/**
 * `kafkalite serve`: a single-node Kafka broker on a data directory, until SIGINT/SIGTERM, which
 * shut it down cleanly (flush, checkpoints, clean-shutdown marker), or until its log directory
 * fails, which halts it with exit status 1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Broker } from '../broker/broker.js';
import { createLogger, isLogLevel, type LogLevel } from '../broker/logger.js';
import { readPasswordFile } from './password-file.js';
import { PROCESS_IO, writeText, type CliIo } from './output.js';
import { applyServeV8Flags } from './serve-v8-flags.js';

export const SERVE_USAGE = `Usage: kafkalite serve [options]

Runs a single-node Kafka broker that Kafka clients (librdkafka, kafkajs, kafka-python, ...) connect to.

Options:
  --port <n>           port to listen on (default 9092; 0 picks a free port)
  --host <addr>        address to bind and advertise (default 127.0.0.1)
  --data-dir <dir>     Kafka log directory to serve (default ./kafkalite-data, created if missing)
  --config <k=v>       a Kafka broker property, repeatable (num.partitions=4, log.segment.bytes=..., 
                       auto.create.topics.enable=false, message.max.bytes=..., log.retention.ms=...;
                       listeners=SASL_SSL://127.0.0.1:9094, ssl.keystore.location=..., sasl.enabled.mechanisms=...)
  --user <name:pass>   a SASL user, repeatable: PLAIN on every SASL listener, and SCRAM-SHA-256/512
                       credentials stored in the data directory
  --tls self-signed    make a CA and a server certificate at start for the TLS listeners (an SSL
                       listener unless --config listeners=... says otherwise); the CA is written to
                       <tls-dir>/ca.pem for clients (ssl.ca.location)
  --tls-client <cn>    with --tls self-signed, also a client certificate for mutual TLS
                       (<tls-dir>/client.pem, client.key; principal User:CN=<cn>)
  --tls-dir <dir>      where the self-signed PEM files go (default <data-dir>-tls)
  --log-level <level>  debug | info | warn | error | silent (default info)
  --ui-port <n>        also serve the web console on this HTTP port (0 picks a free one)
  --ui-host <addr>     address the console binds (default 127.0.0.1; any other needs --ui-password)
  --ui-password <p>    HTTP basic-auth password of the console
  --ui-password-file <f>  the same, from the first line of a file (kept off the command line)
  -h, --help           this help`;

export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  config: Record<string, string>;
  logLevel: LogLevel;
  /** The web console (src/ui), when --ui-port is given. */
  ui?: { port: number; host: string; password?: string };
  /** --user name:password (SASL users). */
  users?: Record<string, string>;
  /** --tls self-signed, --tls-client, --tls-dir. */
  tls?: { clientCommonName?: string; dir?: string };
}

export function parseServeArgs(args: string[]): ServeOptions | { help: true } | { error: string } {
  const o: ServeOptions = { port: 9092, host: '127.0.0.1', dataDir: './kafkalite-data', config: {}, logLevel: 'info' };
  let tlsGiven = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (): string | undefined => args[++i];
    switch (a) {
      case '-h':
      case '--help':
        return { help: true };
      case '--port': {
        const v = value();
        if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) return { error: `--port needs a port number, got ${v ?? 'nothing'}` };
        o.port = Number(v);
        break;
      }
      case '--host': {
        const v = value();
        if (v === undefined) return { error: '--host needs an address' };
        o.host = v;
        break;
      }
      case '--data-dir': {
        const v = value();
        if (v === undefined) return { error: '--data-dir needs a directory' };
        o.dataDir = v;
        break;
      }
      case '--config': {
        const v = value();
        const eq = v?.indexOf('=') ?? -1;
        if (v === undefined || eq <= 0) return { error: `--config needs key=value, got ${v ?? 'nothing'}` };
        o.config[v.slice(0, eq)] = v.slice(eq + 1);
        break;
      }
      case '--ui-port': {
        const v = value();
        if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) return { error: `--ui-port needs a port number, got ${v ?? 'nothing'}` };
        o.ui = { host: '127.0.0.1', ...o.ui, port: Number(v) };
        break;
      }
      case '--ui-host': {
        const v = value();
        if (v === undefined) return { error: '--ui-host needs an address' };
        o.ui = { port: 8080, ...o.ui, host: v };
        break;
      }
      case '--ui-password': {
        const v = value();
        if (v === undefined || v === '') return { error: '--ui-password needs a value' };
        o.ui = { port: 8080, host: '127.0.0.1', ...o.ui, password: v };
        break;
      }
      case '--ui-password-file': {
        const p = readPasswordFile('--ui-password-file', value());
        if (typeof p !== 'string') return p;
        o.ui = { port: 8080, host: '127.0.0.1', ...o.ui, password: p };
        break;
      }
      case '--user': {
        const v = value();
        const colon = v?.indexOf(':') ?? -1;
        if (v === undefined || colon <= 0) return { error: `--user needs name:password, got ${v ?? 'nothing'}` };
        (o.users ??= {})[v.slice(0, colon)] = v.slice(colon + 1);
        break;
      }
      case '--tls': {
        const v = value();
        if (v !== 'self-signed') return { error: `--tls takes self-signed, got ${v ?? 'nothing'}` };
        o.tls = { ...o.tls };
        tlsGiven = true;
        break;
      }
      case '--tls-client': {
        const v = value();
        if (v === undefined || v === '') return { error: '--tls-client needs a common name' };
        o.tls = { ...o.tls, clientCommonName: v };
        break;
      }
      case '--tls-dir': {
        const v = value();
        if (v === undefined || v === '') return { error: '--tls-dir needs a directory' };
        o.tls = { ...o.tls, dir: v };
        break;
      }
      case '--log-level': {
        const v = value();
        if (v === undefined || !isLogLevel(v)) return { error: `--log-level must be one of debug, info, warn, error, silent` };
        o.logLevel = v;
        break;
      }
      default:
        return { error: `unknown option ${a}` };
    }
  }
  if (o.tls !== undefined && !tlsGiven) return { error: '--tls-client and --tls-dir need --tls self-signed' };
  return o;
}

/** Writes the self-signed CA (and client certificate) where clients can read them; the lines to print. */
function writeSelfSignedFiles(broker: Broker, dir: string): string[] {
  const tls = broker.tls;
  if (tls === undefined) return [];
  mkdirSync(dir, { recursive: true });
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, tls.caPem);
  const lines = [`TLS: self-signed CA written to ${ca} (clients: ssl.ca.location=${ca})`];
  if (tls.client !== undefined) {
    const cert = join(dir, 'client.pem');
    const key = join(dir, 'client.key');
    writeFileSync(cert, tls.client.certPem);
    writeFileSync(key, tls.client.keyPem, { mode: 0o600 });
    lines.push(`TLS: client certificate ${cert}, key ${key} (principal ${tls.client.principal})`);
  }
  return lines;
}

export async function serve(o: ServeOptions, io: CliIo = PROCESS_IO): Promise<number> {
  const logger = createLogger(o.logLevel);
  applyServeV8Flags();
  let broker: Broker;
  try {
    broker = await Broker.start({ dataDir: o.dataDir, port: o.port, host: o.host, config: o.config, logger, ...(o.ui ? { ui: o.ui } : {}), ...(o.users ? { users: o.users } : {}), ...(o.tls ? { tls: { mode: 'self-signed' as const, ...(o.tls.clientCommonName ? { clientCommonName: o.tls.clientCommonName } : {}) } } : {}) });
  } catch (e) {
    writeText(io.stderr, `kafkalite serve: ${(e as Error).message}\n`);
    return 1;
  }
  writeText(io.stdout, `kafkalite broker listening on ${broker.bootstrap} (data: ${o.dataDir})\n`);
  if (broker.uiUrl !== undefined) writeText(io.stdout, `kafkalite console on ${broker.uiUrl}\n`);
  for (const l of broker.security.listeners.slice(1)) writeText(io.stdout, `  listener ${l.spec.name} (${l.spec.protocol}) on ${broker.listenerBootstrap(l.spec.name)}\n`);
  try {
    for (const line of writeSelfSignedFiles(broker, o.tls?.dir ?? `${o.dataDir.replace(/\/+$/, '')}-tls`)) writeText(io.stdout, `${line}\n`);
  } catch (e) {
    writeText(io.stderr, `kafkalite serve: cannot write the self-signed certificates: ${(e as Error).message}\n`);
    await broker.close();
    return 1;
  }
  return new Promise((resolve) => {
    const stop = (signal: string): void => {
      logger.info(`${signal}: shutting down`);
      broker.close().then(
        () => resolve(0),
        (e: unknown) => {
          writeText(io.stderr, `kafkalite serve: shutdown failed: ${(e as Error).message}\n`);
          resolve(1);
        },
      );
    };
    // the log directory failed and the broker halted (broker/log-dir-failure.ts): a non-zero exit,
    // so that a supervisor restarts it and recovery runs, as Kafka's Exit.halt(1)
    broker.once('error', () => resolve(1));
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
