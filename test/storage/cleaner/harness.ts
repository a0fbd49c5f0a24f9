/**
 * Shared pieces of the cleaner tests: a compacted partition log in a temp dir with a test clock,
 * appends of keyed records, and an independent read of every batch and record on disk.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecordBatch, readRecordBatches, type RecordInput } from '../../../src/record/index.js';
import { LogCleaner, type LogCleanerConfig } from '../../../src/storage/cleaner/log-cleaner.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../../src/storage/log-config.js';
import { PartitionLog } from '../../../src/storage/partition-log.js';

export const T0 = 1_700_000_000_000;

export interface Harness {
  dataDir: string;
  log: PartitionLog;
  cleaner: LogCleaner;
  clock: { now: number };
  reopen(): void;
}

export function compactConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return {
    ...DEFAULT_LOG_CONFIG,
    cleanupPolicy: 'compact',
    segmentBytes: 1024 * 1024,
    indexIntervalBytes: 256,
    segmentIndexBytes: 4096,
    fileDeleteDelayMs: 0,
    minCleanableDirtyRatio: 0,
    messageTimestampAfterMaxMs: 1n << 62n,
    ...overrides,
  };
}

export function openHarness(dataDir: string, config: LogConfig, cleanerConfig: Partial<LogCleanerConfig> = {}): Harness {
  const clock = { now: T0 };
  const time = () => clock.now;
  const partitionDir = join(dataDir, 't-0');
  mkdirSync(partitionDir, { recursive: true });
  const h: Harness = {
    dataDir,
    clock,
    log: PartitionLog.open(partitionDir, 't', 0, { config, time }),
    cleaner: undefined as unknown as LogCleaner,
    reopen() {
      h.log.close();
      h.log = PartitionLog.open(partitionDir, 't', 0, { config, time, hadCleanShutdown: true });
      h.cleaner = new LogCleaner(dataDir, () => [h.log], { config: { dedupeBufferSize: 1 << 20, ioBufferSize: 64 * 1024, ...cleanerConfig }, time });
    },
  };
  h.cleaner = new LogCleaner(dataDir, () => [h.log], { config: { dedupeBufferSize: 1 << 20, ioBufferSize: 64 * 1024, ...cleanerConfig }, time });
  return h;
}


export interface Rec {
  key?: string | null;
  value?: string | null;
  timestamp?: number;
}

/** Appends one batch of keyed records (client append: offsets assigned by the log). */
export function appendRecords(
  log: PartitionLog,
  records: readonly Rec[],
  options: { producerId?: bigint; producerEpoch?: number; baseSequence?: number; isTransactional?: boolean; compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'; now?: number } = {},
): { firstOffset: bigint; lastOffset: bigint } {
  const inputs: RecordInput[] = records.map((r) => ({
    key: r.key === undefined ? null : r.key,
    value: r.value === undefined ? null : r.value,
    timestamp: r.timestamp ?? options.now ?? T0,
  }));
  const bytes = encodeRecordBatch(inputs, {
    ...(options.producerId !== undefined ? { producerId: options.producerId, producerEpoch: options.producerEpoch ?? 0, baseSequence: options.baseSequence ?? 0 } : {}),
    ...(options.isTransactional ? { isTransactional: true } : {}),
    ...(options.compression ? { compression: options.compression } : {}),
  });
  const r = log.append(bytes);
  return { firstOffset: r.firstOffset, lastOffset: r.lastOffset };
}

export interface DiskRecord {
  offset: bigint;
  key: string | null;
  value: string | null;
  timestamp: bigint;
}
export interface DiskBatch {
  segment: string;
  baseOffset: bigint;
  lastOffset: bigint;
  lastOffsetDelta: number;
  baseSequence: number;
  producerId: bigint;
  producerEpoch: number;
  isControl: boolean;
  isTransactional: boolean;
  hasDeleteHorizon: boolean;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  compression: number;
  count: number;
  size: number;
  bytes: Buffer;
  records: DiskRecord[];
}

/** Every batch of every `.log` in the partition dir, in file-name order, CRCs verified. */
export function readDisk(partitionDir: string): DiskBatch[] {
  const out: DiskBatch[] = [];
  for (const name of readdirSync(partitionDir).filter((n) => n.endsWith('.log')).sort()) {
    const data = readFileSync(join(partitionDir, name));
    for (const b of readRecordBatches(data, { verifyCrc: true })) {
      if (b.kind !== 'v2') throw new Error('v2 only');
      out.push({
        segment: name,
        baseOffset: b.baseOffset,
        lastOffset: b.lastOffset,
        lastOffsetDelta: b.lastOffsetDelta,
        baseSequence: b.baseSequence,
        producerId: b.producerId,
        producerEpoch: b.producerEpoch,
        isControl: b.isControl,
        isTransactional: b.isTransactional,
        hasDeleteHorizon: b.hasDeleteHorizon,
        baseTimestamp: b.baseTimestamp,
        maxTimestamp: b.maxTimestamp,
        compression: b.compressionType,
        count: b.recordsCount,
        size: b.sizeInBytes,
        bytes: Buffer.from(b.bytes),
        records: b.records().map((r) => ({
          offset: r.offset,
          key: r.key === null ? null : r.key.toString(),
          value: r.value === null ? null : r.value.toString(),
          timestamp: r.timestamp,
        })),
      });
    }
  }
  return out;
}

export function diskRecords(partitionDir: string): DiskRecord[] {
  return readDisk(partitionDir).flatMap((b) => (b.isControl ? [] : b.records));
}
