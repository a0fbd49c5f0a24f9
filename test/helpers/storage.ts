/**
 * Shared pieces of the storage tests: temp dirs, batches with assigned offsets, independent
 * framing of a `.log` file, raw index file decoding, and Kafka's two index-placement rules
 * (Kafka `LogSegment.append` and `LogSegment.recover`) computed from batch positions alone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecordBatch, type RecordInput } from '../../src/record/index.js';

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `kafkalite-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BuiltBatch {
  bytes: Buffer;
  baseOffset: bigint;
  lastOffset: bigint;
  maxTimestamp: bigint;
}

/**
 * A v2 batch of `count` records at `baseOffset`, record i stamped `timestamps[i]` (or ts + i),
 * values padded to `valueSize` bytes.
 */
export function makeBatch(
  baseOffset: bigint | number,
  count: number,
  ts: bigint | number | readonly (bigint | number)[],
  options: { valueSize?: number; partitionLeaderEpoch?: number; compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd' } = {},
): BuiltBatch {
  const base = BigInt(baseOffset);
  const stamps = Array.isArray(ts) ? (ts as (bigint | number)[]).map(BigInt) : Array.from({ length: count }, (_, i) => BigInt(ts as bigint | number) + BigInt(i));
  const records: RecordInput[] = stamps.map((t, i) => ({
    key: `k${base + BigInt(i)}`,
    value: `v${base + BigInt(i)}-`.padEnd(options.valueSize ?? 20, 'x'),
    timestamp: t,
  }));
  const bytes = encodeRecordBatch(records, {
    baseOffset: base,
    partitionLeaderEpoch: options.partitionLeaderEpoch ?? 0,
    ...(options.compression ? { compression: options.compression } : {}),
  });
  let max = -1n;
  for (const t of stamps) if (t > max) max = t;
  return { bytes, baseOffset: base, lastOffset: base + BigInt(count - 1), maxTimestamp: max };
}

/** Records for a client append (baseOffset 0 assigned by the log). */
export function clientBatch(count: number, ts: number | bigint, valueSize = 20, prefix = 'v'): Buffer {
  return encodeRecordBatch(
    Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}-`.padEnd(valueSize, 'x'), timestamp: BigInt(ts) + BigInt(i) })),
  );
}

/** A batch as framed in a `.log` file (read independently of kafkalite's FileRecords). */
export interface FramedBatch {
  position: number;
  size: number;
  baseOffset: bigint;
  lastOffset: bigint;
  maxTimestamp: bigint;
  magic: number;
  bytes: Buffer;
}

/**
 * A segment file as a reader of a running (or killed) broker's directory should take it: without
 * the zeros past its last whole batch. The mapped tail (src/storage/mapped-tail.ts) grows the
 * active segment's file ahead of its records until it rolls or closes, as Kafka's preallocated
 * segments are. Only an all-zero remainder after a whole batch is dropped; anything else stays for
 * the reader to trip on.
 */
export function segmentBytes(path: string): Buffer {
  const data = readFileSync(path);
  const last = frameLog(data).at(-1);
  const end = last === undefined ? 0 : last.position + last.size;
  return end < data.length && data.subarray(end).every((b) => b === 0) ? data.subarray(0, end) : data;
}

/** Splits a v2 `.log` by its framing (offset int64, length int32): whole batches only. */
export function frameLog(data: Buffer): FramedBatch[] {
  const out: FramedBatch[] = [];
  let p = 0;
  while (p + 12 <= data.length) {
    const len = data.readInt32BE(p + 8);
    if (len < 14 || p + 12 + len > data.length) break;
    const bytes = data.subarray(p, p + 12 + len);
    const magic = bytes.readInt8(16);
    const baseOffset = bytes.readBigInt64BE(0);
    const lastOffset = magic === 2 ? baseOffset + BigInt(bytes.readInt32BE(23)) : baseOffset;
    const maxTimestamp = magic === 2 ? bytes.readBigInt64BE(35) : -1n;
    out.push({ position: p, size: 12 + len, baseOffset, lastOffset, maxTimestamp, magic, bytes });
    p += 12 + len;
  }
  return out;
}

export interface OffsetEntry {
  offset: bigint;
  position: number;
}
export interface TimeEntry {
  timestamp: bigint;
  offset: bigint;
}

/** Every whole 8-byte slot of a `.index` file (Kafka trusts the length). */
export function readOffsetIndexFile(path: string, base: bigint): OffsetEntry[] {
  const b = readFileSync(path);
  const out: OffsetEntry[] = [];
  for (let i = 0; i + 8 <= b.length; i += 8) out.push({ offset: base + BigInt(b.readInt32BE(i)), position: b.readInt32BE(i + 4) });
  return out;
}

/** Every whole 12-byte slot of a `.timeindex` file. */
export function readTimeIndexFile(path: string, base: bigint): TimeEntry[] {
  const b = readFileSync(path);
  const out: TimeEntry[] = [];
  for (let i = 0; i + 12 <= b.length; i += 12) out.push({ timestamp: b.readBigInt64BE(i), offset: base + BigInt(b.readInt32BE(i + 8)) });
  return out;
}

export function encodeOffsetIndex(entries: readonly OffsetEntry[], base: bigint): Buffer {
  const b = Buffer.alloc(entries.length * 8);
  entries.forEach((e, i) => {
    b.writeInt32BE(Number(e.offset - base), i * 8);
    b.writeInt32BE(e.position, i * 8 + 4);
  });
  return b;
}

export function encodeTimeIndex(entries: readonly TimeEntry[], base: bigint): Buffer {
  const b = Buffer.alloc(entries.length * 12);
  entries.forEach((e, i) => {
    b.writeBigInt64BE(e.timestamp, i * 12);
    b.writeInt32BE(Number(e.offset - base), i * 12 + 8);
  });
  return b;
}

/** One append call: a chunk of consecutive batches. */
export interface AppendChunk {
  size: number;
  largestOffset: bigint;
  maxTimestamp: bigint;
  shallowOffsetOfMaxTimestamp: bigint;
}

/**
 * Kafka's append-time rule (`LogSegment.append`): entry iff bytes since the last entry > interval, checked before
 * counting this append, pointing at the chunk start with its largest offset; the time index gets
 * the max timestamp so far if strictly larger than its last entry. `final` adds the roll/close entry.
 */
export function appendRuleIndexes(chunks: readonly AppendChunk[], base: bigint, interval: number, final = true): { offsets: OffsetEntry[]; times: TimeEntry[] } {
  const offsets: OffsetEntry[] = [];
  const times: TimeEntry[] = [];
  let since = 0;
  let position = 0;
  let max: TimeEntry = { timestamp: -1n, offset: base };
  const maybeTime = (e: TimeEntry) => {
    const lastTs = times.length === 0 ? -1n : times[times.length - 1]!.timestamp;
    if (e.timestamp > lastTs) times.push({ ...e });
  };
  for (const c of chunks) {
    if (c.maxTimestamp > max.timestamp) max = { timestamp: c.maxTimestamp, offset: c.shallowOffsetOfMaxTimestamp };
    if (since > interval) {
      offsets.push({ offset: c.largestOffset, position });
      maybeTime(max);
      since = 0;
    }
    since += c.size;
    position += c.size;
  }
  if (final) maybeTime(max);
  return { offsets, times };
}

/**
 * Kafka's recovery rule (`LogSegment.recover`): per batch, entry iff
 * validBytes − lastIndexEntryPosition > interval, at (batch.lastOffset, batch start); then the final
 * time-index entry.
 */
export function recoveryRuleIndexes(batches: readonly Pick<FramedBatch, 'size' | 'lastOffset' | 'maxTimestamp'>[], base: bigint, interval: number): { offsets: OffsetEntry[]; times: TimeEntry[] } {
  const offsets: OffsetEntry[] = [];
  const times: TimeEntry[] = [];
  let valid = 0;
  let lastEntry = 0;
  let max: TimeEntry = { timestamp: -1n, offset: base };
  const maybeTime = (e: TimeEntry) => {
    const lastTs = times.length === 0 ? -1n : times[times.length - 1]!.timestamp;
    if (e.timestamp > lastTs) times.push({ ...e });
  };
  for (const b of batches) {
    if (b.maxTimestamp > max.timestamp) max = { timestamp: b.maxTimestamp, offset: b.lastOffset };
    if (valid - lastEntry > interval) {
      offsets.push({ offset: b.lastOffset, position: valid });
      maybeTime(max);
      lastEntry = valid;
    }
    valid += b.size;
  }
  maybeTime(max);
  return { offsets, times };
}

/** Deterministic PRNG (tests must be reproducible). */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

export function randomBytes(n: number, rand: () => number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}
