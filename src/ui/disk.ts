/**
 * The log on disk, read-only: a data directory's partitions, each partition's segments with their
 * base offsets and sizes, the offset and time index entries (the sparse index Kafka's
 * `OffsetIndex`/`TimeIndex` keep, one entry per `index.interval.bytes`), and one batch's header
 * fields with their bytes, following the v2 layout of Kafka's `DefaultRecordBatch` or the legacy
 * message layout of `LegacyRecord` (magic 0 and 1).
 *
 * Files are opened read-only and closed after each answer, as `kafkalite dump-log` and `verify`
 * do: never through LogManager, which takes the directory's lock and recovers (writes) logs.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { partitionDirs, segmentBaseOffsets } from '../cli/data-dir.js';
import { readRecordBatches, type AnyRecordBatch } from '../record/batches.js';
import { FileRecords } from '../storage/file-records.js';
import { logFilePath, offsetIndexPath, timeIndexPath } from '../storage/file-names.js';
import { createLogResources, type LogResources } from '../storage/log-resources.js';
import { IndexReader } from './index-search.js';
import { browse, type BrowsePage, type BrowseQuery, type PartitionSource } from './browse.js';
import { batchMeta, messagesOfBatches, type MessageView } from './messages.js';

/** Kafka's `Topic.LEGAL_CHARS` and maximum length: a name from a URL is checked before it becomes a path. */
const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

export class DiskError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface SegmentView {
  baseOffset: string;
  sizeInBytes: number;
  batches: number;
  firstOffset: string | null;
  nextOffset: string | null;
  maxTimestamp: string | null;
  offsetIndexEntries: number;
  timeIndexEntries: number;
  active: boolean;
}

interface HeaderField {
  name: string;
  /** Offset within the batch. */
  offset: number;
  size: number;
  value: string;
  hex: string;
  note?: string;
}

interface BatchInspection {
  position: number;
  sizeInBytes: number;
  magic: number;
  fields: HeaderField[];
  attributes: { bit: string; value: string }[];
  crc: { stored: number; computed: number; valid: boolean; algorithm: string; coveredFrom: number };
  meta: ReturnType<typeof batchMeta>;
  /** The first bytes of the batch as hex (the header and the start of the records). */
  hex: string;
  records: number | null;
}

/** v2 header (DefaultRecordBatch): name, offset, size. */
const V2_FIELDS: [string, number, number][] = [
  ['baseOffset', 0, 8],
  ['batchLength', 8, 4],
  ['partitionLeaderEpoch', 12, 4],
  ['magic', 16, 1],
  ['crc', 17, 4],
  ['attributes', 21, 2],
  ['lastOffsetDelta', 23, 4],
  ['baseTimestamp', 27, 8],
  ['maxTimestamp', 35, 8],
  ['producerId', 43, 8],
  ['producerEpoch', 51, 2],
  ['baseSequence', 53, 4],
  ['recordsCount', 57, 4],
];

/** Legacy message (LegacyRecord, in its log entry): magic 1 has the timestamp, magic 0 not. */
function legacyFields(magic: number): [string, number, number][] {
  const f: [string, number, number][] = [
    ['offset', 0, 8],
    ['messageSize', 8, 4],
    ['crc', 12, 4],
    ['magic', 16, 1],
    ['attributes', 17, 1],
  ];
  if (magic === 1) f.push(['timestamp', 18, 8]);
  f.push(['keyLength', magic === 1 ? 26 : 18, 4]);
  return f;
}

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

function readField(buf: Buffer, offset: number, size: number, signed = true): string {
  if (offset + size > buf.length) return '(truncated)';
  if (size === 8) return String(buf.readBigInt64BE(offset));
  if (size === 4) return String(signed ? buf.readInt32BE(offset) : buf.readUInt32BE(offset));
  if (size === 2) return String(buf.readInt16BE(offset));
  return String(buf.readInt8(offset));
}

export class DiskView {
  private readonly resources: LogResources = createLogResources({ backgroundFlush: false });

  constructor(readonly dataDir: string) {
    if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) throw new DiskError(`${dataDir} is not a directory`, 400);
  }

  private partitionDir(topic: string, partition: number): string {
    if (!LEGAL_TOPIC.test(topic) || topic === '.' || topic === '..') throw new DiskError(`illegal topic name ${JSON.stringify(topic)}`, 400);
    if (!Number.isInteger(partition) || partition < 0) throw new DiskError(`illegal partition ${partition}`, 400);
    const dir = join(this.dataDir, `${topic}-${partition}`);
    if (!existsSync(dir)) throw new DiskError(`no partition ${topic}-${partition} in ${this.dataDir}`, 404);
    return dir;
  }

  private segmentFile(dir: string, baseOffset: bigint): FileRecords {
    const path = logFilePath(dir, baseOffset);
    if (!existsSync(path)) throw new DiskError(`no segment ${baseOffset} in ${dir}`, 404);
    return FileRecords.open(path, this.resources);
  }

  /**
   * Partitions of the directory, grouped by topic, with segment counts, bytes and offsets: from the
   * file sizes and each partition's bounds (source().bounds: the first batch of the first segment
   * holding one, the tail after the last offset index entry of the last), never a scan of the
   * segments, since the overview and the topic page ask for it on every load.
   */
  topics(): { name: string; partitions: { partition: number; segments: number; bytes: number; startOffset: string | null; endOffset: string | null }[] }[] {
    const topics = new Map<string, { partition: number; segments: number; bytes: number; startOffset: string | null; endOffset: string | null }[]>();
    for (const name of partitionDirs(this.dataDir)) {
      const dash = name.lastIndexOf('-');
      const topic = name.slice(0, dash);
      const partition = Number(name.slice(dash + 1));
      const dir = join(this.dataDir, name);
      const bases = segmentBaseOffsets(dir);
      const { start, end } = this.bounds(dir, bases);
      const row = { partition, segments: bases.length, bytes: bases.reduce((n, base) => n + statSync(logFilePath(dir, base)).size, 0), startOffset: start !== undefined ? String(start) : bases[0] !== undefined ? String(bases[0]) : null, endOffset: end === undefined ? null : String(end) };
      topics.set(topic, [...(topics.get(topic) ?? []), row]);
    }
    return [...topics].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, partitions]) => ({ name, partitions: partitions.sort((a, b) => a.partition - b.partition) }));
  }

  /** The first offset of the first segment holding a batch, and the next offset after the last segment holding one. */
  private bounds(dir: string, bases: bigint[]): { start: bigint | undefined; end: bigint | undefined } {
    let start: bigint | undefined;
    for (const base of bases) {
      start = this.firstOffsetOf(dir, base);
      if (start !== undefined) break;
    }
    let end: bigint | undefined;
    for (const base of [...bases].reverse()) {
      end = this.nextOffsetOf(dir, base);
      if (end !== undefined) break;
    }
    return { start, end };
  }

  /** Bytes of each topic's segment files, from their sizes alone (the overview's column; no header scan). */
  bytesByTopic(): Map<string, number> {
    const out = new Map<string, number>();
    for (const name of partitionDirs(this.dataDir)) {
      const topic = name.slice(0, name.lastIndexOf('-'));
      const dir = join(this.dataDir, name);
      const bytes = segmentBaseOffsets(dir).reduce((n, base) => n + statSync(logFilePath(dir, base)).size, 0);
      out.set(topic, (out.get(topic) ?? 0) + bytes);
    }
    return out;
  }

  /** A partition's segments, oldest first; the last one is the active segment. */
  segments(topic: string, partition: number): SegmentView[] {
    const dir = this.partitionDir(topic, partition);
    const bases = segmentBaseOffsets(dir);
    return bases.map((base, i) => {
      const file = this.segmentFile(dir, base);
      let batches = 0;
      let firstOffset: bigint | null = null;
      let nextOffset: bigint | null = null;
      let maxTimestamp: bigint | null = null;
      try {
        for (const h of file.headers()) {
          batches++;
          if (firstOffset === null) firstOffset = h.baseOffset ?? h.lastOffset;
          nextOffset = h.lastOffset + 1n;
          if (maxTimestamp === null || h.maxTimestamp > maxTimestamp) maxTimestamp = h.maxTimestamp;
        }
      } catch {
        // a damaged tail: what was read before it stands (kafkalite verify names the damage)
      } finally {
        file.close();
      }
      return {
        baseOffset: String(base),
        sizeInBytes: file.sizeInBytes,
        batches,
        firstOffset: firstOffset === null ? null : String(firstOffset),
        nextOffset: nextOffset === null ? null : String(nextOffset),
        maxTimestamp: maxTimestamp === null ? null : String(maxTimestamp),
        offsetIndexEntries: this.offsetIndex(dir, base).length,
        timeIndexEntries: this.timeIndex(dir, base).length,
        active: i === bases.length - 1,
      };
    });
  }

  /** Offset index entries (relative offset int32, position int32), without the preallocated zero tail. */
  private offsetIndex(dir: string, base: bigint): { offset: string; position: number }[] {
    const path = offsetIndexPath(dir, base);
    if (!existsSync(path)) return [];
    const b = readFileSync(path);
    const out: { offset: string; position: number }[] = [];
    for (let i = 0; i + 8 <= b.length; i += 8) {
      const rel = b.readInt32BE(i);
      const pos = b.readInt32BE(i + 4);
      // no entry points at position 0: LogSegment.append indexes a batch only once more than
      // index.interval.bytes precede it, so (0, 0) is the preallocated zero tail, even first
      if (rel === 0 && pos === 0) break;
      out.push({ offset: String(base + BigInt(rel)), position: pos });
    }
    return out;
  }

  /** Time index entries (timestamp int64, relative offset int32), without the zero tail. */
  private timeIndex(dir: string, base: bigint): { timestamp: string; offset: string }[] {
    const path = timeIndexPath(dir, base);
    if (!existsSync(path)) return [];
    const b = readFileSync(path);
    const out: { timestamp: string; offset: string }[] = [];
    for (let i = 0; i + 12 <= b.length; i += 12) {
      const ts = b.readBigInt64BE(i);
      const rel = b.readInt32BE(i + 8);
      if (ts === 0n && rel === 0) break;
      out.push({ timestamp: String(ts), offset: String(base + BigInt(rel)) });
    }
    return out;
  }

  /** One segment: its batches' positions and offsets, and both indexes, so the sparse index shows against the log. */
  segment(topic: string, partition: number, base: bigint, limit = 1000): {
    baseOffset: string;
    sizeInBytes: number;
    batches: { position: number; sizeInBytes: number; magic: number; baseOffset: string | null; lastOffset: string; maxTimestamp: string }[];
    truncated: boolean;
    offsetIndex: { offset: string; position: number }[];
    timeIndex: { timestamp: string; offset: string }[];
  } {
    const dir = this.partitionDir(topic, partition);
    const file = this.segmentFile(dir, base);
    const batches = [];
    let truncated = false;
    try {
      for (const h of file.headers()) {
        if (batches.length >= limit) {
          truncated = true;
          break;
        }
        batches.push({ position: h.position, sizeInBytes: h.sizeInBytes, magic: h.magic, baseOffset: h.baseOffset === undefined ? null : String(h.baseOffset), lastOffset: String(h.lastOffset), maxTimestamp: String(h.maxTimestamp) });
      }
    } catch {
      truncated = true;
    } finally {
      file.close();
    }
    return { baseOffset: String(base), sizeInBytes: file.sizeInBytes, batches, truncated, offsetIndex: this.offsetIndex(dir, base), timeIndex: this.timeIndex(dir, base) };
  }

  /** The batch at `position` of a segment: each header field with its bytes, the attribute bits, the CRC recomputed. */
  batch(topic: string, partition: number, base: bigint, position: number): BatchInspection {
    const dir = this.partitionDir(topic, partition);
    const file = this.segmentFile(dir, base);
    let bytes: Buffer;
    try {
      if (!Number.isInteger(position) || position < 0 || position + 17 > file.sizeInBytes) throw new DiskError(`position ${position} is outside the segment (${file.sizeInBytes} bytes)`, 400);
      const head = Buffer.from(file.readBytes(position, 17));
      const size = head.readInt32BE(8) + 12;
      if (size < 17 || position + size > file.sizeInBytes) throw new DiskError(`no whole batch at position ${position}`, 400);
      bytes = Buffer.from(file.readBytes(position, size));
    } finally {
      file.close();
    }
    const batch = readRecordBatches(bytes, { verifyCrc: false }).nextBatch();
    if (batch === null) throw new DiskError(`no batch at position ${position}`, 400);
    return inspect(batch, bytes, position);
  }

  /**
   * How Kafka's read path finds `offset`, step by step: the segment whose base offset is the
   * greatest at or below it (LocalLog.read, segments.floorSegment), the binary search of that
   * segment's offset index for the largest entry at or below it (AbstractIndex.largestLowerBoundSlotFor,
   * each probe recorded), then the scan of batch headers from that position to the first batch
   * whose last offset reaches it (FileRecords.searchForOffsetFromPosition).
   */
  lookup(topic: string, partition: number, offset: bigint): {
    offset: string;
    segments: string[];
    segment: string | null;
    probes: { lo: number; hi: number; mid: number; entryOffset: string; position: number; goes: 'lower' | 'higher' | 'found' }[];
    indexEntry: { slot: number; offset: string; position: number } | null;
    scanned: { position: number; lastOffset: string; sizeInBytes: number }[];
    batch: { position: number; baseOffset: string | null; lastOffset: string } | null;
  } {
    const dir = this.partitionDir(topic, partition);
    const bases = segmentBaseOffsets(dir);
    const floor = [...bases].reverse().find((b) => b <= offset);
    const out = { offset: String(offset), segments: bases.map(String), segment: floor === undefined ? null : String(floor), probes: [] as { lo: number; hi: number; mid: number; entryOffset: string; position: number; goes: 'lower' | 'higher' | 'found' }[], indexEntry: null as { slot: number; offset: string; position: number } | null, scanned: [] as { position: number; lastOffset: string; sizeInBytes: number }[], batch: null as { position: number; baseOffset: string | null; lastOffset: string } | null };
    if (floor === undefined) return out;
    const entries = this.offsetIndex(dir, floor);
    let slot = -1;
    if (entries.length > 0 && BigInt(entries[0]!.offset) <= offset) {
      let lo = 0;
      let hi = entries.length - 1;
      while (lo < hi) {
        const mid = Math.ceil(hi / 2 + lo / 2);
        const e = entries[mid]!;
        const at = BigInt(e.offset);
        const goes = at === offset ? 'found' : at < offset ? 'higher' : 'lower';
        out.probes.push({ lo, hi, mid, entryOffset: e.offset, position: e.position, goes });
        if (goes === 'found') {
          lo = hi = mid;
        } else if (goes === 'higher') lo = mid;
        else hi = mid - 1;
      }
      slot = lo;
      out.indexEntry = { slot, offset: entries[slot]!.offset, position: entries[slot]!.position };
    }
    const start = slot < 0 ? 0 : entries[slot]!.position;
    const file = this.segmentFile(dir, floor);
    try {
      for (const h of file.headers(start)) {
        out.scanned.push({ position: h.position, lastOffset: String(h.lastOffset), sizeInBytes: h.sizeInBytes });
        if (h.lastOffset >= offset) {
          out.batch = { position: h.position, baseOffset: h.baseOffset === undefined ? null : String(h.baseOffset), lastOffset: String(h.lastOffset) };
          break;
        }
      }
    } finally {
      file.close();
    }
    return out;
  }

  /**
   * A partition as the browser reads it offline: the log's start is the first batch of the first
   * segment holding one, its end the last batch of the last segment holding one (the active
   * segment, bounded by segment.bytes); a read starts at the index entry at or below the offset,
   * where Kafka's read path starts scanning. No full scan.
   */
  source(topic: string, partition: number): PartitionSource {
    const dir = this.partitionDir(topic, partition);
    const bases = segmentBaseOffsets(dir);
    return {
      bounds: async () => {
        const { start, end } = this.bounds(dir, bases);
        return { start: start ?? 0n, end: end ?? start ?? 0n };
      },
      offsetForTimestamp: async (timestamp, end) => this.offsetForTimestamp(dir, bases, timestamp) ?? end,
      read: async (offset, limit) => {
        const out: MessageView[] = [];
        let next = offset;
        const floor = [...bases].reverse().find((b) => b <= offset) ?? bases[0];
        for (const base of bases) {
          if (out.length >= limit) break;
          if (floor === undefined || base < floor) continue;
          const file = this.segmentFile(dir, base);
          try {
            for (const fb of file.batches(this.indexedPosition(dir, base, offset))) {
              if (out.length >= limit) break;
              if (fb.batch.nextOffset <= next) continue;
              // the batch view lives until the next read: its messages are decoded now
              const page = messagesOfBatches(fb.batch.bytes, partition, next, limit - out.length);
              out.push(...page.messages);
              next = page.nextOffset;
            }
          } finally {
            file.close();
          }
        }
        return { messages: out, nextOffset: next };
      },
    };
  }

  /** A page of messages read from the segments (offline browsing; browse.ts pages it). */
  messages(topic: string, partition: number, q: BrowseQuery): Promise<BrowsePage> {
    return browse(this.source(topic, partition), q);
  }

  private firstOffsetOf(dir: string, base: bigint): bigint | undefined {
    const file = this.segmentFile(dir, base);
    try {
      for (const h of file.headers()) return h.baseOffset ?? h.lastOffset;
      return undefined;
    } catch {
      // damaged from its first batch: no offset to tell (kafkalite verify names the damage)
      return undefined;
    } finally {
      file.close();
    }
  }

  private nextOffsetOf(dir: string, base: bigint): bigint | undefined {
    const file = this.segmentFile(dir, base);
    let next: bigint | undefined;
    try {
      // from the last offset index entry: the scan covers at most index.interval.bytes and the tail
      for (const h of file.headers(this.lastIndexedPosition(dir, base))) next = h.lastOffset + 1n;
    } catch {
      // a damaged tail: what was read before it stands
    } finally {
      file.close();
    }
    return next;
  }

  /** Where Kafka's read path starts scanning segment `base` for `offset`: its offset index entry at or below it (OffsetIndex.lookup), else the start. */
  private indexedPosition(dir: string, base: bigint, offset: bigint): number {
    const index = IndexReader.open(offsetIndexPath(dir, base), 'offset', base);
    if (index === undefined) return 0;
    try {
      return index.offsetFloor(offset)?.position ?? 0;
    } finally {
      index.close();
    }
  }

  private lastIndexedPosition(dir: string, base: bigint): number {
    const index = IndexReader.open(offsetIndexPath(dir, base), 'offset', base);
    if (index === undefined) return 0;
    try {
      return index.lastOffsetEntry()?.position ?? 0;
    } finally {
      index.close();
    }
  }

  private lastTimeEntry(dir: string, base: bigint): { timestamp: bigint; offset: bigint } | undefined {
    const index = IndexReader.open(timeIndexPath(dir, base), 'time', base);
    if (index === undefined) return undefined;
    try {
      return index.lastTimeEntry();
    } finally {
      index.close();
    }
  }

  private timeFloor(dir: string, base: bigint, ts: bigint): { timestamp: bigint; offset: bigint } | undefined {
    const index = IndexReader.open(timeIndexPath(dir, base), 'time', base);
    if (index === undefined) return undefined;
    try {
      return index.timeFloor(ts);
    } finally {
      index.close();
    }
  }

  /**
   * A segment's largest timestamp as LogSegment.maxTimestampAndOffset knows it: the last time
   * index entry (an inactive segment's last entry is its largest, written at the roll) and the
   * batch headers after the batch that entry points into, never the whole segment.
   */
  private largestTimestampOf(dir: string, base: bigint): bigint | undefined {
    const last = this.lastTimeEntry(dir, base);
    let largest = last?.timestamp;
    const file = this.segmentFile(dir, base);
    try {
      for (const h of file.headers(last === undefined ? 0 : this.indexedPosition(dir, base, last.offset))) if (largest === undefined || h.maxTimestamp > largest) largest = h.maxTimestamp;
    } catch {
      // a damaged tail: what was read before it stands
    } finally {
      file.close();
    }
    return largest;
  }

  /**
   * The first offset whose timestamp is at or after `ts`, as Kafka's UnifiedLog.fetchOffsetByTimestamp
   * finds it: the first segment whose largest timestamp reaches it, then LogSegment.findOffsetByTimestamp
   * (the time index entry at or below `ts`, the offset index position of its offset, the batch
   * headers from there to the first batch whose max timestamp reaches `ts`, that batch's records).
   */
  private offsetForTimestamp(dir: string, bases: bigint[], ts: bigint): bigint | undefined {
    for (const base of bases) {
      const largest = this.largestTimestampOf(dir, base);
      if (largest === undefined || largest < ts) continue;
      const entry = this.timeFloor(dir, base, ts);
      const file = this.segmentFile(dir, base);
      try {
        for (const h of file.headers(entry === undefined ? 0 : this.indexedPosition(dir, base, entry.offset))) {
          if (h.maxTimestamp < ts) continue;
          const batch = readRecordBatches(Buffer.from(file.readBytes(h.position, h.sizeInBytes))).nextBatch();
          if (batch !== null) for (const r of batch.records()) if (r.timestamp >= ts) return r.offset;
        }
      } finally {
        file.close();
      }
    }
    return undefined;
  }
}

function inspect(batch: AnyRecordBatch, bytes: Buffer, position: number): BatchInspection {
  const v2 = batch.kind === 'v2';
  const table = v2 ? V2_FIELDS : legacyFields(batch.magic);
  const fields: HeaderField[] = table.map(([name, offset, size]) => ({
    name,
    offset,
    size,
    value: readField(bytes, offset, size, name !== 'crc'),
    hex: bytes.subarray(offset, offset + size).toString('hex'),
  }));
  const attr = v2 ? bytes.readInt16BE(21) : bytes.readInt8(17);
  const attributes = [{ bit: 'compression (bits 0-2)', value: CODECS[attr & 7] ?? `unknown ${attr & 7}` }];
  if (v2 || batch.magic === 1) attributes.push({ bit: 'timestampType (bit 3)', value: (attr & 8) !== 0 ? 'LogAppendTime' : 'CreateTime' });
  if (v2) {
    attributes.push({ bit: 'isTransactional (bit 4)', value: String((attr & 16) !== 0) });
    attributes.push({ bit: 'isControl (bit 5)', value: String((attr & 32) !== 0) });
    attributes.push({ bit: 'hasDeleteHorizonMs (bit 6)', value: String((attr & 64) !== 0) });
  }
  const stored = batch.crc >>> 0;
  const computed = batch.computeChecksum() >>> 0;
  return {
    position,
    sizeInBytes: bytes.length,
    magic: batch.magic,
    fields,
    attributes,
    // v2: CRC-32C from the attributes to the end (KIP-98); legacy: CRC-32 from the magic byte
    crc: { stored, computed, valid: stored === computed, algorithm: v2 ? 'CRC-32C' : 'CRC-32', coveredFrom: v2 ? 21 : 16 },
    meta: batchMeta(batch),
    hex: bytes.subarray(0, Math.min(bytes.length, 256)).toString('hex'),
    records: v2 ? batch.recordsCount : null,
  };
}
