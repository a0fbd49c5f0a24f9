/**
 * `kafkalite recover <data-dir | partition-dir> [--dry-run] [--full]`: runs the storage engine's
 * own load-and-recovery (LogManager / PartitionLog, after Kafka's `LogLoader`: `.swap`/`.cleaned`/`.deleted`
 * resolved, torn or corrupt tails truncated with later segments deleted, indexes rebuilt, producer
 * state and snapshots rebuilt), closes cleanly, and reports exactly what changed on disk.
 *
 * "Exactly" comes from comparing the directory tree before and after (size and SHA-256 of every
 * file; a file that vanished and one that appeared with the same content are a rename), plus the
 * recovery reports the logs produce (which segment was cut, at which byte).
 *
 * `--dry-run` copies the directory to a temp dir, recovers the copy, reports the same diff and
 * removes the copy: the real recovery code runs, so the report is what a real run would do, and
 * the original is never opened for writing.
 *
 * Which segments are recovered follows Kafka: a data dir with a clean-shutdown marker skips
 * recovery, and only segments from the recovery-point checkpoint on are checked. `--full` removes
 * the marker and the recovery-point checkpoint first, so every segment is checked (a partition dir
 * given on its own has neither, so it is always recovered in full).
 *
 * The KRaft metadata log (`__cluster_metadata-0`) is not one of LogManager's logs, but Kafka loads
 * it with the same log loader (`KafkaMetadataLog.apply` opens a UnifiedLog with recoveryPoint 0 and
 * lastShutdownClean false, so it is recovered in full at every start): a data dir's recovery runs it
 * the same way, so every log that `verify` flags is one that `recover` repairs.
 */
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { KafkaliteError } from '../errors.js';
import { readCleanShutdownFile } from '../storage/clean-shutdown.js';
import { CLEAN_SHUTDOWN_FILE, LOCK_FILE, RECOVERY_POINT_CHECKPOINT_FILE } from '../storage/file-names.js';
import { DEFAULT_LOG_CONFIG } from '../storage/log-config.js';
import { LogManager } from '../storage/log-manager.js';
import { PartitionLog, type RecoveryReport } from '../storage/partition-log.js';
import { CLUSTER_METADATA_TOPIC, parseTopicPartitionName } from '../storage/topic.js';
import { cliErrorLine } from './errors.js';
import { classifyTarget, UsageError } from './data-dir.js';
import { parseFlagsAndPath, type Parsed } from './args.js';
import { toJson } from './json.js';
import { LineWriter } from './output.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';

export const RECOVER_USAGE = `Usage: kafkalite recover [--dry-run] [--full] [--json] <data-dir | partition-dir>

Runs Kafka's log recovery with kafkalite's storage engine: resolves .swap/.cleaned/.deleted
files, truncates torn or corrupt segment tails (deleting later segments), rebuilds indexes and
producer snapshots, then closes cleanly. Reports every file created, deleted, renamed, truncated
or rewritten.

Options:
  --dry-run    recover a temporary copy and report what would change; the directory is untouched
  --full       check every segment: ignore the clean-shutdown marker and recovery-point checkpoint
               of a data dir (Kafka recovers only unflushed segments after an unclean shutdown)
  --json       one JSON report object on stdout
  -h, --help   this text`;

export interface RecoverOptions {
  path: string;
  dryRun: boolean;
  full: boolean;
  json: boolean;
  progress?: ProgressSink;
}

export function parseRecoverArgs(argv: string[]): Parsed<RecoverOptions> {
  const r = parseFlagsAndPath(argv, ['dry-run', 'full', 'json'] as const, 'directory');
  return 'path' in r ? { path: r.path, dryRun: r.flags['dry-run'], full: r.flags.full, json: r.flags.json } : r;
}

interface FileState {
  size: number;
  sha256: string;
}

export type FileChange =
  | { change: 'created'; file: string; size: number }
  | { change: 'deleted'; file: string; size: number }
  | { change: 'renamed'; file: string; to: string; size: number }
  | { change: 'truncated' | 'extended'; file: string; from: number; to: number }
  | { change: 'rewritten'; file: string; size: number };

export interface RecoverReport {
  path: string;
  dryRun: boolean;
  full: boolean;
  /** What recovery cut from each segment (position = first byte removed). */
  truncations: RecoveryReport[];
  changes: FileChange[];
  /** The storage engine's own log lines (Kafka logs these at WARN/INFO). */
  log: string[];
}

const hashBuffer = Buffer.allocUnsafe(1 << 20);

function hashFile(path: string): string {
  const h = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, hashBuffer, 0, hashBuffer.length, null); n > 0; n = readSync(fd, hashBuffer, 0, hashBuffer.length, null)) {
      h.update(hashBuffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/**
 * Every regular file under `root` by relative path, with size and content hash. The data dir's
 * `.lock` is left out: opening the directory takes it and notes the holder's pid there, which is
 * not a change to the data.
 */
function snapshotTree(root: string, progress: ProgressSink, label: string): Map<string, FileState> {
  const out = new Map<string, FileState>();
  const walk = (dir: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (dir === root && d.name === LOCK_FILE) continue;
      if (d.isDirectory()) walk(p);
      else if (d.isFile()) {
        out.set(relative(root, p), { size: statSync(p).size, sha256: hashFile(p) });
        progress.update(out.size, out.size + 1, `${label} ${d.name}`);
      }
    }
  };
  walk(root);
  return out;
}

function diffTrees(before: Map<string, FileState>, after: Map<string, FileState>, root: string): FileChange[] {
  const changes: FileChange[] = [];
  const gone: [string, FileState][] = [];
  const appeared: [string, FileState][] = [];
  for (const [file, b] of before) {
    const a = after.get(file);
    if (a === undefined) gone.push([file, b]);
    else if (a.size !== b.size) changes.push({ change: a.size < b.size ? 'truncated' : 'extended', file: join(root, file), from: b.size, to: a.size });
    else if (a.sha256 !== b.sha256) changes.push({ change: 'rewritten', file: join(root, file), size: a.size });
  }
  for (const [file, a] of after) if (!before.has(file)) appeared.push([file, a]);
  for (const [file, b] of gone) {
    const i = appeared.findIndex(([, a]) => a.sha256 === b.sha256 && a.size === b.size);
    if (i >= 0) {
      changes.push({ change: 'renamed', file: join(root, file), to: join(root, appeared[i]![0]), size: b.size });
      appeared.splice(i, 1);
    } else {
      changes.push({ change: 'deleted', file: join(root, file), size: b.size });
    }
  }
  for (const [file, a] of appeared) changes.push({ change: 'created', file: join(root, file), size: a.size });
  return changes.sort((x, y) => (x.file < y.file ? -1 : x.file > y.file ? 1 : 0));
}

/** Recovers `dir` in place with the storage engine; returns its truncation reports and log lines. */
function runRecovery(dir: string, kind: 'data-dir' | 'partition-dir', full: boolean): { truncations: RecoveryReport[]; log: string[] } {
  const log: string[] = [];
  const logger = (level: 'info' | 'warn', message: string) => log.push(`${level.toUpperCase()} ${message}`);
  if (kind === 'data-dir') {
    const brokerEpoch = readCleanShutdownFile(dir)?.brokerEpoch ?? 0n;
    if (full) {
      rmSync(join(dir, CLEAN_SHUTDOWN_FILE), { force: true });
      rmSync(join(dir, RECOVERY_POINT_CHECKPOINT_FILE), { force: true });
    }
    const manager = LogManager.open(dir, { logger });
    const truncations = manager.allLogs().flatMap((l) => l.recoveryReports);
    manager.close(brokerEpoch);
    const metadataDir = join(dir, `${CLUSTER_METADATA_TOPIC}-0`);
    if (existsSync(metadataDir)) truncations.push(...recoverPartitionDir(metadataDir, CLUSTER_METADATA_TOPIC, 0, logger));
    return { truncations, log };
  }
  let topic = basename(dir);
  let partition = 0;
  try {
    const tp = parseTopicPartitionName(basename(dir));
    topic = tp.topic;
    partition = tp.partition;
  } catch {
    // a partition dir under another name (a copy): the name only labels the log
  }
  return { truncations: recoverPartitionDir(dir, topic, partition, logger), log };
}

/** One partition dir recovered in full (recovery point 0, as after an unclean shutdown), then closed. */
function recoverPartitionDir(dir: string, topic: string, partition: number, logger: (level: 'info' | 'warn', message: string) => void): RecoveryReport[] {
  const plog = PartitionLog.open(dir, topic, partition, { config: DEFAULT_LOG_CONFIG, recoveryPoint: 0n, hadCleanShutdown: false, logger });
  const truncations = [...plog.recoveryReports];
  plog.close();
  return truncations;
}

export function recoverPath(opts: Pick<RecoverOptions, 'path' | 'dryRun' | 'full'>, progress: ProgressSink = NO_PROGRESS): RecoverReport {
  const target = classifyTarget(opts.path);
  if (target.kind === 'file') throw new UsageError(`${opts.path} is a file: recover works on a data dir or a partition dir`);
  let work = opts.path;
  let tmp: string | undefined;
  try {
    if (opts.dryRun) {
      tmp = mkdtempSync(join(tmpdir(), 'kafkalite-recover-'));
      work = join(tmp, basename(opts.path));
      cpSync(opts.path, work, { recursive: true });
    }
    const before = snapshotTree(work, progress, 'before');
    const { truncations, log } = runRecovery(work, target.kind, opts.full);
    const after = snapshotTree(work, progress, 'after');
    progress.clear();
    // paths are reported against the directory the user named, also for a dry run's copy
    const rename = (p: string) => (tmp === undefined ? p : join(opts.path, relative(work, p)));
    const changes = diffTrees(before, after, opts.path);
    return {
      path: opts.path,
      dryRun: opts.dryRun,
      full: opts.full,
      truncations: truncations.map((t) => ({ ...t, segment: rename(t.segment) })),
      changes,
      log: log.map((l) => (tmp === undefined ? l : l.split(work).join(opts.path))),
    };
  } finally {
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  }
}

const VERBS: { [change in FileChange['change']]: [done: string, wouldDo: string] } = {
  created: ['created', 'would create'],
  deleted: ['deleted', 'would delete'],
  renamed: ['renamed', 'would rename'],
  truncated: ['truncated', 'would truncate'],
  extended: ['extended', 'would extend'],
  rewritten: ['rewritten', 'would rewrite'],
};

function describe(c: FileChange, dryRun: boolean): string {
  const verb = VERBS[c.change][dryRun ? 1 : 0];
  switch (c.change) {
    case 'created':
    case 'deleted':
      return `${verb} ${c.file} (${c.size} bytes)`;
    case 'renamed':
      return `${verb} ${c.file} -> ${c.to}`;
    case 'truncated':
    case 'extended':
      return `${verb} ${c.file} (${c.from} -> ${c.to} bytes)`;
    case 'rewritten':
      return `${verb} ${c.file} (${c.size} bytes, content changed)`;
  }
}

export function recover(opts: RecoverOptions, out = new LineWriter(1), err = new LineWriter(2)): number {
  let report: RecoverReport;
  try {
    report = recoverPath(opts, opts.progress);
  } catch (e) {
    opts.progress?.clear();
    if (e instanceof UsageError) {
      err.line(`Error: ${e.message}`);
      err.flush();
      return 2;
    }
    // the storage engine refused the directory (e.g. a lock held by a running broker)
    const line = e instanceof KafkaliteError ? cliErrorLine(e, opts.path) : cliErrorLine(e);
    if (line === undefined) throw e;
    err.line(line);
    err.flush();
    return 1;
  }
  if (opts.json) {
    out.line(toJson(report));
  } else {
    for (const t of report.truncations) {
      out.line(`${opts.dryRun ? 'would truncate' : 'truncated'} ${t.segment} at byte ${t.position}: ${t.bytesTruncated} bytes`);
    }
    for (const c of report.changes) out.line(describe(c, opts.dryRun));
    out.line(`${report.changes.length === 0 ? 'No changes' : `${report.changes.length} file change${report.changes.length === 1 ? '' : 's'}`}${opts.dryRun ? ' (dry run: nothing was written)' : ''} in ${opts.path}`);
  }
  out.flush();
  return 0;
}
