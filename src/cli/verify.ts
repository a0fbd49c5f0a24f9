/**
 * `kafkalite verify <data-dir | partition-dir | file>`: checks everything Kafka reads back from a
 * log directory without changing a byte: every segment (verify-segment.ts), producer snapshots
 * (`ProducerStateManager.readSnapshot`), KRaft snapshots, the records of the KRaft metadata log
 * (verify-metadata-records.ts), the text checkpoints (`CheckpointFile`),
 * `partition.metadata` (`PartitionMetadataFile`), `meta.properties` (`MetaProperties`),
 * `.kafka_cleanshutdown` (`CleanShutdownFileHandler`), and the leftovers of interrupted operations
 * that Kafka's load resolves (`LogLoader.removeTempFilesAndCollectSwapFiles`: `.swap`, `.cleaned`,
 * `.deleted`, indexes without a log).
 *
 * Exit status: 0 when clean (warnings and notes allowed), 1 when problems were found, 2 on usage
 * errors. Notes are the state an unclean shutdown leaves that recovery tidies (preallocated index
 * tails), kept apart from errors (damage) so a crashed-but-sound directory still exits 0.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { KafkaliteError } from '../errors.js';
import { readLeaderEpochCheckpoint, readOffsetCheckpoint } from '../storage/checkpoint.js';
import { readCleanShutdownFile } from '../storage/clean-shutdown.js';
import {
  BOOTSTRAP_SNAPSHOT_FILE,
  CLEAN_SHUTDOWN_FILE,
  CLEANED_SUFFIX,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  KRAFT_SNAPSHOT_SUFFIX,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  LOG_SUFFIX,
  META_PROPERTIES_FILE,
  offsetFromFileName,
  PARTITION_METADATA_FILE,
  parseKraftSnapshotName,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  SNAPSHOT_SUFFIX,
  SWAP_SUFFIX,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
} from '../storage/file-names.js';
import { readMetaProperties } from '../storage/meta-properties.js';
import { readPartitionMetadata } from '../storage/partition-metadata.js';
import { decodeProducerSnapshot } from '../storage/producer-snapshot.js';
import { classifyTarget, partitionDirs, segmentBaseOffsets, totalBytes, UsageError } from './data-dir.js';
import { parseFlagsAndPath, type Parsed } from './args.js';
import { toJson } from './json.js';
import { LineWriter } from './output.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';
import { isMetadataLogDir, metadataBatchProblem } from './verify-metadata-records.js';
import { present, type Problem, verifySegment } from './verify-segment.js';

export const VERIFY_USAGE = `Usage: kafkalite verify [--json] <data-dir | partition-dir | file>

Checks a Kafka log directory without changing it: every batch's CRC and records, offsets
increasing within and across segments, each .index/.timeindex/.txnindex against its .log,
producer and KRaft snapshots, every record of the KRaft metadata log (__cluster_metadata) and
its snapshots decoded, checkpoint files, partition.metadata, meta.properties, and files left by
interrupted operations (.swap, .cleaned, .deleted).

Exit status: 0 clean, 1 problems found (each listed with file, byte position and reason),
2 usage error. WARNING and NOTE lines do not fail verification: a NOTE is what a crash leaves
that recovery tidies (e.g. preallocated index tails of a segment never closed).

Options:
  --json       one JSON report object on stdout
  -h, --help   this text`;

export interface VerifyOptions {
  path: string;
  json: boolean;
  progress?: ProgressSink;
}

export interface VerifyReport {
  path: string;
  ok: boolean;
  files: number;
  segments: number;
  batches: number;
  records: number;
  bytes: number;
  problems: Problem[];
}

export function parseVerifyArgs(argv: string[]): Parsed<VerifyOptions> {
  const r = parseFlagsAndPath(argv, ['json'] as const);
  return 'path' in r ? { path: r.path, json: r.flags.json } : r;
}

const OFFSET_CHECKPOINTS = [
  RECOVERY_POINT_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  CLEANER_OFFSET_CHECKPOINT_FILE,
];
const INDEX_SUFFIXES = [INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX];

class Verifier {
  readonly report: VerifyReport;
  private progressDone = 0;

  constructor(
    path: string,
    private readonly progress: ProgressSink,
    private readonly progressTotal: number,
  ) {
    this.report = { path, ok: true, files: 0, segments: 0, batches: 0, records: 0, bytes: 0, problems: [] };
  }

  add(problem: Problem): void {
    this.report.problems.push(problem);
    if (problem.severity === 'error') this.report.ok = false;
  }

  fail(file: string, e: unknown): void {
    if (!(e instanceof KafkaliteError) && !(e instanceof SyntaxError) && (e as NodeJS.ErrnoException).code === undefined) throw e;
    const position = e instanceof KafkaliteError ? e.position : undefined;
    const reason = e instanceof KafkaliteError ? e.detail : (e as Error).message;
    this.add({ file, ...(position !== undefined ? { position } : {}), reason, severity: 'error' });
  }

  /** Runs `check`, turning an input error into a problem of `file`. */
  private guarded(file: string, check: () => void): void {
    this.report.files++;
    try {
      check();
    } catch (e) {
      this.fail(file, e);
    }
  }

  /** A `.log`-framed file: a segment with its indexes, a `.log.swap`, or a KRaft snapshot. */
  segment(log: string, baseOffset: bigint, prevLastOffset: bigint, options: { indexes: boolean; batchesOnly?: boolean; metadata?: boolean }): bigint {
    const prefix = join(dirname(log), basename(log).split('.')[0]!);
    const files = {
      log,
      baseOffset,
      ...(options.batchesOnly ? { batchesOnly: true } : {}),
      // the metadata log and its snapshots: every record must decode (Kafka's loader faults otherwise)
      ...(options.metadata || isMetadataLogDir(dirname(log)) ? { contentProblem: metadataBatchProblem } : {}),
      ...(options.indexes
        ? {
            ...optional('index', present(prefix + INDEX_SUFFIX)),
            ...optional('timeIndex', present(prefix + TIME_INDEX_SUFFIX)),
            ...optional('txnIndex', present(prefix + TXN_INDEX_SUFFIX)),
          }
        : {}),
    };
    const scan = verifySegment(files, prevLastOffset, this, this.progress, this.progressDone, this.progressTotal);
    this.report.files += 1 + (files.index ? 1 : 0) + (files.timeIndex ? 1 : 0) + (files.txnIndex ? 1 : 0);
    this.report.segments += options.batchesOnly ? 0 : 1;
    this.report.batches += scan.batches;
    this.report.records += scan.records;
    this.report.bytes += scan.bytes;
    this.progressDone += scan.bytes;
    return scan.lastOffset;
  }

  /** The files of a partition directory other than segments. */
  private otherFile(dir: string, name: string): void {
    const path = join(dir, name);
    if (name.endsWith(SWAP_SUFFIX)) {
      this.add({ file: path, reason: 'a .swap file left by an interrupted compaction or segment split (recovery resolves it)', severity: 'error' });
      if (name.endsWith(LOG_SUFFIX + SWAP_SUFFIX)) {
        this.guarded(path, () => this.segment(path, offsetFromFileName(name), -1n, { indexes: false }));
      }
    } else if (name.endsWith(CLEANED_SUFFIX)) {
      this.add({ file: path, reason: 'a .cleaned file left by an interrupted compaction (recovery deletes it)', severity: 'error' });
    } else if (name.endsWith(DELETED_SUFFIX)) {
      // Kafka deletes these asynchronously and at every load (KRaft .checkpoint.deleted are left alone)
      this.add({ file: path, reason: 'awaiting deletion (Kafka deletes it at the next load)', severity: 'warning' });
    } else if (INDEX_SUFFIXES.some((s) => name.endsWith(s))) {
      if (!existsSync(join(dir, name.slice(0, name.indexOf('.')) + LOG_SUFFIX))) {
        this.add({ file: path, reason: 'an index without its .log (recovery deletes it)', severity: 'error' });
      }
    } else if (name.endsWith(SNAPSHOT_SUFFIX)) {
      this.guarded(path, () => {
        offsetFromFileName(name);
        decodeProducerSnapshot(readFileSync(path), path);
      });
    } else if (name.endsWith(KRAFT_SNAPSHOT_SUFFIX)) {
      const id = parseKraftSnapshotName(name);
      if (id === undefined) this.add({ file: path, reason: 'not a KRaft snapshot name (<end offset>-<epoch>.checkpoint)', severity: 'error' });
      else this.segment(path, 0n, -1n, { indexes: false, batchesOnly: true });
    } else if (name === LEADER_EPOCH_CHECKPOINT_FILE) {
      this.guarded(path, () => checkEpochs(path));
    } else if (name === PARTITION_METADATA_FILE) {
      this.guarded(path, () => readPartitionMetadata(path));
    } else if (name === 'quorum-state') {
      this.guarded(path, () => JSON.parse(readFileSync(path, 'utf8')));
    }
  }

  partitionDir(dir: string): void {
    const names = readdirSync(dir).sort();
    for (const name of names) {
      if (!name.endsWith(LOG_SUFFIX)) this.otherFile(dir, name);
      else {
        try {
          offsetFromFileName(name);
        } catch (e) {
          this.fail(join(dir, name), e);
        }
      }
    }
    let prev = -1n;
    for (const base of segmentBaseOffsets(dir)) {
      const log = join(dir, names.find((n) => n.endsWith(LOG_SUFFIX) && offsetFromFileNameSafe(n) === base)!);
      if (!existsSync(log.slice(0, -LOG_SUFFIX.length) + INDEX_SUFFIX)) {
        // not damage: Kafka's loader rebuilds a missing offset index (LogLoader.loadSegmentFiles)
        this.add({ file: log, reason: 'the segment has no .index (Kafka rebuilds it at load)', severity: 'warning' });
      }
      prev = this.segment(log, base, prev, { indexes: true });
    }
  }

  dataDir(dir: string): void {
    const meta = join(dir, META_PROPERTIES_FILE);
    if (existsSync(meta)) this.guarded(meta, () => readMetaProperties(meta));
    else this.add({ file: meta, reason: 'missing (a formatted Kafka log dir has one)', severity: 'warning' });
    for (const name of OFFSET_CHECKPOINTS) {
      const path = join(dir, name);
      if (existsSync(path)) this.guarded(path, () => readOffsetCheckpoint(path));
    }
    const marker = join(dir, CLEAN_SHUTDOWN_FILE);
    if (existsSync(marker) && readCleanShutdownFile(dir) === undefined) {
      this.add({ file: marker, reason: 'not a {"version":0,"brokerEpoch":<long>} JSON object', severity: 'error' });
    }
    const bootstrap = join(dir, BOOTSTRAP_SNAPSHOT_FILE);
    if (existsSync(bootstrap)) this.segment(bootstrap, 0n, -1n, { indexes: false, batchesOnly: true, metadata: true });
    for (const name of partitionDirs(dir)) this.partitionDir(join(dir, name));
  }

  /** One file named on the command line. */
  file(path: string): void {
    const name = basename(path);
    if (name.endsWith(LOG_SUFFIX)) {
      this.segment(path, offsetFromFileName(name), -1n, { indexes: true });
    } else if (name.endsWith(INDEX_SUFFIX) || name.endsWith(TIME_INDEX_SUFFIX) || name.endsWith(TXN_INDEX_SUFFIX)) {
      const log = join(dirname(path), name.slice(0, name.indexOf('.')) + LOG_SUFFIX);
      if (!existsSync(log)) this.add({ file: path, reason: 'an index without its .log (recovery deletes it)', severity: 'error' });
      else this.segment(log, offsetFromFileName(name), -1n, { indexes: true });
    } else if (name === BOOTSTRAP_SNAPSHOT_FILE) {
      this.segment(path, 0n, -1n, { indexes: false, batchesOnly: true, metadata: true });
    } else if (OFFSET_CHECKPOINTS.includes(name)) {
      this.guarded(path, () => readOffsetCheckpoint(path));
    } else if (name === META_PROPERTIES_FILE) {
      this.guarded(path, () => readMetaProperties(path));
    } else if (name === CLEAN_SHUTDOWN_FILE) {
      if (readCleanShutdownFile(dirname(path)) === undefined) this.add({ file: path, reason: 'not a {"version":0,"brokerEpoch":<long>} JSON object', severity: 'error' });
    } else {
      this.otherFile(dirname(path), name);
    }
  }
}

function offsetFromFileNameSafe(name: string): bigint | undefined {
  try {
    return offsetFromFileName(name);
  } catch {
    return undefined;
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** leader-epoch-checkpoint: parses (CheckpointFile), epochs and start offsets ascending (LeaderEpochFileCache). */
function checkEpochs(path: string): void {
  let prev: { epoch: number; startOffset: bigint } | undefined;
  for (const e of readLeaderEpochCheckpoint(path)) {
    if (prev && (e.epoch <= prev.epoch || e.startOffset < prev.startOffset)) {
      throw new KafkaliteError('STORAGE_ERROR', `epoch ${e.epoch} at offset ${e.startOffset} does not follow epoch ${prev.epoch} at offset ${prev.startOffset}`);
    }
    prev = e;
  }
}

/** Verifies `path`; the report lists every problem found. Throws UsageError for a missing path. */
export function verifyPath(path: string, progress: ProgressSink = NO_PROGRESS): VerifyReport {
  const target = classifyTarget(path);
  const total = totalBytes(path, (n) => n.endsWith(LOG_SUFFIX) || n.endsWith(KRAFT_SNAPSHOT_SUFFIX));
  const v = new Verifier(path, progress, total);
  try {
    if (target.kind === 'data-dir') v.dataDir(path);
    else if (target.kind === 'partition-dir') v.partitionDir(path);
    else v.file(path);
  } catch (e) {
    v.fail(path, e); // e.g. a file name that is not an offset; bugs are rethrown
  }
  progress.clear();
  return v.report;
}

export function formatProblem(p: Problem): string {
  const at = p.position !== undefined ? ` at byte ${p.position}` : '';
  return `${p.severity === 'warning' ? 'WARNING' : p.severity === 'note' ? 'NOTE' : 'ERROR'} ${p.file}${at}: ${p.reason}`;
}

export function verify(opts: VerifyOptions, out = new LineWriter(1), err = new LineWriter(2)): number {
  let report: VerifyReport;
  try {
    report = verifyPath(opts.path, opts.progress);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.line(`Error: ${e.message}`);
    err.flush();
    return 2;
  }
  if (opts.json) {
    out.line(toJson(report));
  } else {
    for (const p of report.problems) out.line(formatProblem(p));
    const errors = report.problems.filter((p) => p.severity === 'error').length;
    const counts = `${report.files} files, ${report.segments} segments, ${report.batches} batches, ${report.records} records, ${report.bytes} bytes`;
    out.line(report.ok ? `OK ${opts.path}: ${counts}` : `FAILED ${opts.path}: ${errors} problem${errors === 1 ? '' : 's'} (${counts})`);
  }
  out.flush();
  return report.ok ? 0 : 1;
}
