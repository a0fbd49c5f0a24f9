/**
 * `kafkalite stats <data-dir | partition-dir | file>`: per topic-partition, the segments and bytes,
 * offset and timestamp ranges, batch and record counts, compression codecs with the compression
 * ratio (decompressed record bytes / stored record bytes of the compressed batches), and the
 * producers (distinct producer ids of v2 batches, `DefaultRecordBatch.producerId`). A table, or `--json` (one
 * object per partition, NDJSON).
 *
 * Read-only and streaming: one pass over each segment's batches, records decoded to count them and
 * find the timestamps (a batch's baseTimestamp is its first record's, not its smallest). A corrupt
 * batch ends that segment's scan and is noted (`kafkalite verify` says more).
 */
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KafkaliteError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { RECORD_BATCH_OVERHEAD } from '../record/constants.js';
import { FileRecords } from '../storage/file-records.js';
import { LOG_SUFFIX, logFilePath } from '../storage/file-names.js';
import { classifyTarget, partitionDirs, segmentBaseOffsets, totalBytes, UsageError } from './data-dir.js';
import { parseFlagsAndPath, type Parsed } from './args.js';
import { toJson } from './json.js';
import { LineWriter } from './output.js';
import { formatBytes, NO_PROGRESS, type ProgressSink } from './progress.js';

export const STATS_USAGE = `Usage: kafkalite stats [--json] <data-dir | partition-dir | file.log>

Per topic-partition: segments, bytes, offset range, timestamp range, batch and record counts,
compression codecs and ratio, producers. Reads only.

Options:
  --json       one JSON object per partition (NDJSON)
  -h, --help   this text`;

export interface StatsOptions {
  path: string;
  json: boolean;
  progress?: ProgressSink;
}

export interface PartitionStats {
  partition: string;
  segments: number;
  bytes: number;
  firstOffset: bigint | null;
  lastOffset: bigint | null;
  minTimestamp: bigint | null;
  maxTimestamp: bigint | null;
  batches: number;
  records: number;
  controlBatches: number;
  transactionalBatches: number;
  /** Batches per codec name. */
  codecs: { [codec: string]: number };
  /** Decompressed / stored record bytes over the compressed batches; null when none is compressed. */
  compressionRatio: number | null;
  producers: number;
  /** Where a scan stopped at a corrupt batch or a torn tail: file and byte position. */
  unreadable: { file: string; position: number; reason: string }[];
}

export function parseStatsArgs(argv: string[]): Parsed<StatsOptions> {
  const r = parseFlagsAndPath(argv, ['json'] as const);
  return 'path' in r ? { path: r.path, json: r.flags.json } : r;
}

class PartitionAccumulator {
  readonly s: PartitionStats;
  private readonly producerIds = new Set<bigint>();
  private storedCompressed = 0;
  private decompressed = 0;

  constructor(name: string) {
    this.s = {
      partition: name,
      segments: 0,
      bytes: 0,
      firstOffset: null,
      lastOffset: null,
      minTimestamp: null,
      maxTimestamp: null,
      batches: 0,
      records: 0,
      controlBatches: 0,
      transactionalBatches: 0,
      codecs: {},
      compressionRatio: null,
      producers: 0,
      unreadable: [],
    };
  }

  private timestamps(min: bigint, max: bigint): void {
    const s = this.s;
    if (min >= 0n && (s.minTimestamp === null || min < s.minTimestamp)) s.minTimestamp = min;
    if (max >= 0n && (s.maxTimestamp === null || max > s.maxTimestamp)) s.maxTimestamp = max;
  }

  batch(batch: AnyRecordBatch): void {
    const s = this.s;
    s.batches++;
    s.codecs[batch.compression] = (s.codecs[batch.compression] ?? 0) + 1;
    if (batch.kind === 'v2') {
      let n = 0;
      let recordBytes = 0;
      let minDelta: number | bigint | undefined;
      const it = batch.recordIterator();
      for (let r = it.readNext(); r !== null; r = it.readNext()) {
        n++;
        recordBytes += r.sizeInBytes;
        if (minDelta === undefined || r.timestampDelta < minDelta) minDelta = r.timestampDelta;
      }
      s.records += n;
      if (batch.compressionType !== 0) {
        this.storedCompressed += batch.sizeInBytes - RECORD_BATCH_OVERHEAD;
        this.decompressed += recordBytes;
      }
      // LogAppendTime: every record's timestamp is the batch's maxTimestamp (DefaultRecordBatch's RecordIterator)
      const min = batch.timestampType === 'LogAppendTime' || minDelta === undefined ? batch.maxTimestamp : batch.baseTimestamp + BigInt(minDelta);
      this.timestamps(min, batch.maxTimestamp);
      if (batch.isControl) s.controlBatches++;
      if (batch.isTransactional) s.transactionalBatches++;
      if (batch.producerId >= 0n) this.producerIds.add(batch.producerId);
      if (n > 0 && s.firstOffset === null) s.firstOffset = batch.baseOffset;
    } else {
      const records = batch.records();
      s.records += records.length;
      if (batch.isCompressed) {
        this.storedCompressed += batch.sizeInBytes;
        for (const r of records) this.decompressed += r.sizeInBytes;
      }
      for (const r of records) this.timestamps(r.timestamp, r.timestamp);
      if (records.length > 0 && s.firstOffset === null) s.firstOffset = records[0]!.offset;
    }
    s.lastOffset = batch.lastOffset;
  }

  finish(): PartitionStats {
    this.s.producers = this.producerIds.size;
    this.s.compressionRatio = this.storedCompressed > 0 ? Math.round((this.decompressed / this.storedCompressed) * 1000) / 1000 : null;
    return this.s;
  }
}

function scanLog(file: string, acc: PartitionAccumulator, progress: ProgressSink, done: { bytes: number }, total: number): void {
  const records = FileRecords.open(file);
  let valid = 0;
  try {
    for (const { position, sizeInBytes, batch } of records.batches()) {
      try {
        acc.batch(batch);
      } catch (e) {
        if (!(e instanceof KafkaliteError)) throw e;
        acc.s.unreadable.push({ file, position, reason: e.detail });
        return;
      }
      valid = position + sizeInBytes;
      progress.update(done.bytes + valid, total, file);
    }
    if (valid < records.sizeInBytes) {
      acc.s.unreadable.push({ file, position: valid, reason: `${records.sizeInBytes - valid} bytes do not form a whole batch` });
    }
  } catch (e) {
    if (!(e instanceof KafkaliteError)) throw e;
    acc.s.unreadable.push({ file, position: e.position ?? valid, reason: e.detail });
  } finally {
    acc.s.segments++;
    acc.s.bytes += records.sizeInBytes;
    done.bytes += records.sizeInBytes;
    records.close();
  }
}

/** Stats of every partition under `path` (a data dir's partitions, a partition dir, or one `.log`). */
export function collectStats(path: string, progress: ProgressSink = NO_PROGRESS): PartitionStats[] {
  const target = classifyTarget(path);
  const total = totalBytes(path, (n) => n.endsWith(LOG_SUFFIX));
  const done = { bytes: 0 };
  const out: PartitionStats[] = [];
  const partition = (dir: string, name: string) => {
    const acc = new PartitionAccumulator(name);
    for (const base of segmentBaseOffsets(dir)) scanLog(logFilePath(dir, base), acc, progress, done, total);
    out.push(acc.finish());
  };
  if (target.kind === 'data-dir') for (const name of partitionDirs(path)) partition(join(path, name), name);
  else if (target.kind === 'partition-dir') partition(path, basename(path));
  else {
    if (!path.endsWith(LOG_SUFFIX)) throw new UsageError(`${path} is not a .log file or a directory`);
    statSync(path);
    const acc = new PartitionAccumulator(basename(path));
    scanLog(path, acc, progress, done, total);
    out.push(acc.finish());
  }
  progress.clear();
  return out;
}

const range = (a: bigint | null, b: bigint | null) => (a === null || b === null ? '-' : `${a}..${b}`);

function table(rows: PartitionStats[]): string[] {
  const header = ['PARTITION', 'SEGMENTS', 'BYTES', 'OFFSETS', 'TIMESTAMPS', 'BATCHES', 'RECORDS', 'CODECS', 'RATIO', 'PRODUCERS'];
  const cells = rows.map((s) => [
    s.partition + (s.unreadable.length > 0 ? ' (!)' : ''),
    String(s.segments),
    formatBytes(s.bytes),
    range(s.firstOffset, s.lastOffset),
    range(s.minTimestamp, s.maxTimestamp),
    String(s.batches),
    String(s.records),
    Object.entries(s.codecs).map(([c, n]) => `${c}:${n}`).join(',') || '-',
    s.compressionRatio === null ? '-' : s.compressionRatio.toFixed(2),
    String(s.producers),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells].map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
}

export function stats(opts: StatsOptions, out = new LineWriter(1), err = new LineWriter(2)): number {
  let rows: PartitionStats[];
  try {
    rows = collectStats(opts.path, opts.progress);
  } catch (e) {
    opts.progress?.clear();
    if (!(e instanceof UsageError)) throw e;
    err.line(`Error: ${e.message}`);
    err.flush();
    return 2;
  }
  if (opts.json) for (const r of rows) out.line(toJson(r));
  else {
    for (const line of table(rows)) out.line(line);
    for (const r of rows) for (const u of r.unreadable) out.line(`(!) ${u.file} at byte ${u.position}: ${u.reason}; the scan of that segment stopped there`);
  }
  out.flush();
  return 0;
}
