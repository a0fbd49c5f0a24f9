/**
 * `kafkalite compact <dir>`: cleans the compacted partitions of a data directory now (the same
 * rounds as the background cleaner, Kafka `Cleaner.doClean`), whatever their dirty ratio, then records the
 * new first dirty offsets in `cleaner-offset-checkpoint`. The directory's logs are recovered as at
 * broker start. Kafka keeps topic configs outside the data directory, so the policy and the other
 * topic settings come from `--config name=value` (cleanup.policy defaults to compact here).
 * Progress goes to stderr when it is a terminal.
 */
import { parseArgs } from 'node:util';
import { KafkaliteError } from '../errors.js';
import { LogCleaner } from '../storage/cleaner/log-cleaner.js';
import { logConfigFromProperties } from '../storage/log-config.js';
import { LogManager } from '../storage/log-manager.js';
import { isTerminalStderr, PROCESS_IO, writeText, type CliIo } from './output.js';

export const COMPACT_USAGE = `Usage: kafkalite compact <data-dir> [options]

Compacts the partition logs of a kafkalite/Kafka data directory (log cleaner rounds).

Options:
  --topic <name>          only this topic (repeatable)
  --partition <n>         only this partition number
  --config <name=value>   topic config for the logs (repeatable), e.g. delete.retention.ms=0
  --dedupe-buffer-size <bytes>  offset map memory (log.cleaner.dedupe.buffer.size, default 134217728)
  -h, --help              this help`;

export interface CompactOptions {
  dir: string;
  topics: string[];
  partition: number | undefined;
  config: Map<string, string>;
  dedupeBufferSize: number | undefined;
}

export function parseCompactArgs(argv: string[]): CompactOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        topic: { type: 'string', multiple: true },
        partition: { type: 'string' },
        config: { type: 'string', multiple: true },
        'dedupe-buffer-size': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  if (parsed.positionals.length !== 1) return { error: 'expected exactly one data directory' };
  const config = new Map<string, string>([['cleanup.policy', 'compact']]);
  for (const c of v.config ?? []) {
    const eq = c.indexOf('=');
    if (eq <= 0) return { error: `--config expects name=value, got '${c}'` };
    config.set(c.slice(0, eq), c.slice(eq + 1));
  }
  const partition = v.partition === undefined ? undefined : Number(v.partition);
  if (partition !== undefined && (!Number.isInteger(partition) || partition < 0)) return { error: `invalid partition '${v.partition}'` };
  const dedupe = v['dedupe-buffer-size'] === undefined ? undefined : Number(v['dedupe-buffer-size']);
  if (dedupe !== undefined && (!Number.isInteger(dedupe) || dedupe < 24)) return { error: `invalid dedupe buffer size '${v['dedupe-buffer-size']}'` };
  return { dir: parsed.positionals[0]!, topics: v.topic ?? [], partition, config, dedupeBufferSize: dedupe };
}

export function compact(opts: CompactOptions, io: CliIo = PROCESS_IO): number {
  let manager: LogManager | undefined;
  try {
    const config = logConfigFromProperties(Object.fromEntries(opts.config));
    manager = LogManager.open(opts.dir, { defaultConfig: config });
    const cleaner = new LogCleaner(opts.dir, () => manager!.allLogs(), {
      config: opts.dedupeBufferSize !== undefined ? { dedupeBufferSize: opts.dedupeBufferSize } : {},
    });
    const tty = isTerminalStderr(io.stderr);
    const logs = manager
      .allLogs()
      .filter((l) => (opts.topics.length === 0 || opts.topics.includes(l.topic)) && (opts.partition === undefined || l.partition === opts.partition))
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
    for (const log of logs) {
      const name = `${log.topic}-${log.partition}`;
      const before = log.size;
      const result = cleaner.compact(log, (done, total) => {
        if (tty) process.stderr.write(`\r${name}: ${total === 0 ? 100 : Math.floor((100 * done) / total)}%`);
      });
      if (tty) process.stderr.write('\r\x1b[K');
      if (result === undefined) {
        writeText(io.stdout, `${name}: nothing to clean\n`);
      } else {
        const s = result.stats;
        writeText(
          io.stdout,
          `${name}: cleaned ${s.segmentsCleaned} segments in ${s.groups} groups up to offset ${result.endOffset}; ` +
            `${s.messagesRetained} of ${s.messagesRead} records kept, ${before} -> ${log.size} bytes\n`,
        );
      }
    }
    manager.close();
    return 0;
  } catch (err) {
    // whatever failed, the directory's lock is released (the CLI also runs inside test processes)
    manager?.closeUnclean();
    if (!(err instanceof KafkaliteError)) throw err;
    writeText(io.stderr, `Error: ${err.message}\n`);
    return 1;
  }
}
