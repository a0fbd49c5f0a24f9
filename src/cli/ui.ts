/**
 * `kafkalite ui`: the web console on its own, over any Kafka-compatible cluster (`--bootstrap`,
 * through the Kafka protocol) or over a data directory offline and read-only (`--data-dir`, the
 * files read directly, the directory's lock not taken), or both.
 */
import { UiServer } from '../ui/server.js';
import { readPasswordFile } from './password-file.js';
import { PROCESS_IO, writeText, type CliIo } from './output.js';

export const UI_USAGE = `Usage: kafkalite ui (--bootstrap <host:port> | --data-dir <dir>) [options]

Serves the web console: topics, messages, consumer groups and lag, configs, and the log on disk
(segments, indexes, a batch's header bytes).

Options:
  --bootstrap <host:port>  a Kafka-compatible broker to browse (Kafka protocol); a comma list is tried in order
  --data-dir <dir>         a Kafka log directory to read, offline and read-only (no broker)
  --port <n>               HTTP port (default 8080; 0 picks a free port)
  --host <addr>            address to bind (default 127.0.0.1; any other needs --password)
  --password <p>           HTTP basic-auth password
  --password-file <f>      the same, from the first line of a file (kept off the command line)
  -h, --help               this help`;

export interface UiCliOptions {
  bootstrap?: string;
  dataDir?: string;
  port: number;
  host: string;
  password?: string;
}

export function parseUiArgs(args: string[]): UiCliOptions | { help: true } | { error: string } {
  const o: UiCliOptions = { port: 8080, host: '127.0.0.1' };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = (): string | undefined => args[++i];
    switch (a) {
      case '-h':
      case '--help':
        return { help: true };
      case '--bootstrap': {
        const x = v();
        if (x === undefined || !/:\d+$/.test(x)) return { error: `--bootstrap needs host:port, got ${x ?? 'nothing'}` };
        o.bootstrap = x;
        break;
      }
      case '--data-dir': {
        const x = v();
        if (x === undefined) return { error: '--data-dir needs a directory' };
        o.dataDir = x;
        break;
      }
      case '--port': {
        const x = v();
        if (x === undefined || !/^\d+$/.test(x) || Number(x) > 65535) return { error: `--port needs a port number, got ${x ?? 'nothing'}` };
        o.port = Number(x);
        break;
      }
      case '--host': {
        const x = v();
        if (x === undefined) return { error: '--host needs an address' };
        o.host = x;
        break;
      }
      case '--password': {
        const x = v();
        if (x === undefined || x === '') return { error: '--password needs a value' };
        o.password = x;
        break;
      }
      case '--password-file': {
        const p = readPasswordFile('--password-file', v());
        if (typeof p !== 'string') return p;
        o.password = p;
        break;
      }
      default:
        return { error: `unknown option ${a}` };
    }
  }
  if (o.bootstrap === undefined && o.dataDir === undefined) return { error: 'give --bootstrap host:port or --data-dir DIR' };
  return o;
}

export async function ui(o: UiCliOptions, io: CliIo = PROCESS_IO): Promise<number> {
  let server: UiServer;
  try {
    server = await UiServer.start(o);
  } catch (e) {
    writeText(io.stderr, `kafkalite ui: ${(e as Error).message}\n`);
    return 1;
  }
  writeText(io.stdout, `kafkalite console on ${server.url}\n`);
  return new Promise((resolve) => {
    const stop = (): void => void server.close().then(() => resolve(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
