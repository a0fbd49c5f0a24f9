/**
 * The `kafkalite` command: one module per subcommand, dispatched through one table (a command is
 * its summary, its usage text, its argument parser and its runner).
 */
import { readFileSync } from 'node:fs';
import { acls, ACLS_USAGE, parseAclsArgs } from './acls.js';
import { parseUsersArgs, users, USERS_USAGE } from './users.js';
import { compact, COMPACT_USAGE, parseCompactArgs } from './compact.js';
import { lockedDirNotes } from './lock-note.js';
import { dumpLog, DUMP_LOG_USAGE, parseDumpLogArgs } from './dump-log.js';
import { groups, GROUPS_USAGE, parseGroupsArgs } from './groups.js';
import { LineWriter, PROCESS_IO, writeText, type CliIo } from './output.js';
import { stderrProgress } from './progress.js';
import { parseRecoverArgs, recover, RECOVER_USAGE } from './recover.js';
import { parseServeArgs, serve, SERVE_USAGE } from './serve.js';
import { parseStatsArgs, stats, STATS_USAGE } from './stats.js';
import { transactions } from './transactions.js';
import { parseUiArgs, ui, UI_USAGE } from './ui.js';
import { parseTransactionsArgs, TRANSACTIONS_USAGE } from './transactions-args.js';
import { parseVerifyArgs, verify, VERIFY_USAGE } from './verify.js';

interface Command<O> {
  summary: string;
  usage: string;
  parse(argv: string[]): O | { error: string } | { help: true };
  /** Runs the command, writing to `io` (the process's stdout and stderr in the binary). */
  run(opts: O, io: CliIo): number | Promise<number>;
  /** A usage error is one line, pointing at `--help`, rather than the line and the whole usage text. */
  oneLineErrors?: boolean;
  /** For read-only commands: the paths they read, checked for a live holder of the directory's `.lock`. */
  reads?(opts: O): string[];
}

/** Binds a command's parser and runner to the same options type. */
function command<O extends object>(c: Command<O>): Command<object> {
  return c as unknown as Command<object>;
}

const COMMANDS: { [name: string]: Command<object> } = {
  serve: command({
    summary: 'run a single-node Kafka broker (Kafka clients connect to it)',
    usage: SERVE_USAGE,
    parse: parseServeArgs,
    run: serve,
  }),
  'dump-log': command({
    summary: 'print the contents of Kafka log segment files (kafka-dump-log.sh compatible)',
    usage: DUMP_LOG_USAGE,
    parse: parseDumpLogArgs,
    run: (opts, io) => dumpLog({ ...opts, progress: stderrProgress(io.stderr) }, new LineWriter(io.stdout), new LineWriter(io.stderr)),
    reads: (opts) => opts.files,
  }),
  compact: command({
    summary: 'compact the partition logs of a data directory (log cleaner)',
    usage: COMPACT_USAGE,
    parse: parseCompactArgs,
    run: compact,
  }),
  verify: command({
    summary: 'check a data dir, partition dir or file (CRCs, offsets, indexes, checkpoints, snapshots)',
    usage: VERIFY_USAGE,
    parse: parseVerifyArgs,
    run: (opts, io) => verify({ ...opts, progress: stderrProgress(io.stderr) }, new LineWriter(io.stdout), new LineWriter(io.stderr)),
    reads: (opts) => [opts.path],
  }),
  recover: command({
    summary: "run the storage engine's recovery on a directory and report what it changed",
    usage: RECOVER_USAGE,
    parse: parseRecoverArgs,
    run: (opts, io) => recover({ ...opts, progress: stderrProgress(io.stderr) }, new LineWriter(io.stdout), new LineWriter(io.stderr)),
  }),
  groups: command({
    summary: 'list the consumer groups and committed offsets stored in a data directory',
    usage: GROUPS_USAGE,
    parse: parseGroupsArgs,
    run: groups,
    reads: (opts) => [opts.dir],
  }),
  stats: command({
    summary: 'per topic-partition segments, bytes, offsets, timestamps, records, codecs, producers',
    usage: STATS_USAGE,
    parse: parseStatsArgs,
    run: (opts, io) => stats({ ...opts, progress: stderrProgress(io.stderr) }, new LineWriter(io.stdout), new LineWriter(io.stderr)),
    reads: (opts) => [opts.path],
  }),
  transactions: command({
    summary: 'list and describe the transactions of a data directory, or abort a hanging one',
    usage: TRANSACTIONS_USAGE,
    parse: parseTransactionsArgs,
    run: transactions,
    oneLineErrors: true,
    // list and describe only read; abort takes the directory's lock (LogManager.open)
    reads: (opts) => (opts.command === 'abort' ? [] : [opts.dir]),
  }),
  acls: command({
    summary: 'list, add or remove the ACLs of a data directory (kafka-acls.sh options)',
    usage: ACLS_USAGE,
    parse: parseAclsArgs,
    run: acls,
    reads: (opts) => (opts.action === 'list' ? [opts.dir] : []),
  }),
  users: command({
    summary: 'list, add or remove the SCRAM users of a data directory (kafka-configs.sh options)',
    usage: USERS_USAGE,
    parse: parseUsersArgs,
    run: users,
    reads: (opts) => (opts.action === 'list' ? [opts.dir] : []),
  }),
  ui: command({
    summary: 'the web console: a cluster (--bootstrap) or a data directory offline (--data-dir)',
    usage: UI_USAGE,
    parse: parseUiArgs,
    run: ui,
    reads: (opts) => (opts.dataDir !== undefined && opts.bootstrap === undefined ? [opts.dataDir] : []),
  }),
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: kafkalite <command> [options]
       kafkalite --version

Commands:
${lines.join('\n')}

Run 'kafkalite <command> --help' for a command's options.`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Runs `kafkalite <argv>` and returns its exit code. The binary writes to the process's stdout and
 * stderr; tests pass sinks (`io`) and run commands in their own process.
 */
export function main(argv: string[], io: CliIo = PROCESS_IO): number | Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    writeText(io.stdout, usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    writeText(io.stdout, `kafkalite ${version()}\n`);
    return 0;
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (cmd === undefined) {
    writeText(io.stderr, `Unknown command: ${name}\n${usage()}\n`);
    return 2;
  }
  const opts = cmd.parse(rest);
  if ('help' in opts) {
    writeText(io.stdout, cmd.usage + '\n');
    return 0;
  }
  if ('error' in opts) {
    writeText(io.stderr, cmd.oneLineErrors === true ? `Error: ${opts.error} (see 'kafkalite ${name} --help')\n` : `Error: ${opts.error}\n${cmd.usage}\n`);
    return 2;
  }
  for (const note of lockedDirNotes(cmd.reads?.(opts) ?? [])) writeText(io.stderr, note + '\n');
  return cmd.run(opts, io);
}
