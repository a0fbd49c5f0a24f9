/** The `kafkalite` command: one module per subcommand. */
import { compact, COMPACT_USAGE, parseCompactArgs } from './compact.js';
import { dumpLog, DUMP_LOG_USAGE, parseDumpLogArgs } from './dump-log.js';
import { groups, GROUPS_USAGE, parseGroupsArgs } from './groups.js';
import { parseServeArgs, serve, SERVE_USAGE } from './serve.js';

const USAGE = `Usage: kafkalite <command> [options]

Commands:
  serve       run a single-node Kafka broker (Kafka clients connect to it)
  dump-log    print the contents of Kafka log segment files (kafka-dump-log.sh compatible)
  compact     compact the partition logs of a data directory (log cleaner)
  groups      list the consumer groups and committed offsets stored in a data directory

Run 'kafkalite <command> --help' for a command's options.`;

export function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dump-log': {
      const opts = parseDumpLogArgs(rest);
      if ('help' in opts) {
        process.stdout.write(DUMP_LOG_USAGE + '\n');
        return 0;
      }
      if ('error' in opts) {
        process.stderr.write(`Error: ${opts.error}\n${DUMP_LOG_USAGE}\n`);
        return 2;
      }
      return dumpLog(opts);
    }
    case 'serve': {
      const opts = parseServeArgs(rest);
      if ('help' in opts) {
        process.stdout.write(SERVE_USAGE + '\n');
        return 0;
      }
      if ('error' in opts) {
        process.stderr.write(`Error: ${opts.error}\n${SERVE_USAGE}\n`);
        return 2;
      }
      return serve(opts);
    }
    case 'compact': {
      const opts = parseCompactArgs(rest);
      if ('help' in opts) {
        process.stdout.write(COMPACT_USAGE + '\n');
        return 0;
      }
      if ('error' in opts) {
        process.stderr.write(`Error: ${opts.error}\n${COMPACT_USAGE}\n`);
        return 2;
      }
      return compact(opts);
    }
    case 'groups': {
      const opts = parseGroupsArgs(rest);
      if ('help' in opts) return process.stdout.write(GROUPS_USAGE + '\n'), 0;
      if ('error' in opts) return process.stderr.write(`Error: ${opts.error}\n${GROUPS_USAGE}\n`), 2;
      return groups(opts);
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command: ${command}\n${USAGE}\n`);
      return 2;
  }
}
