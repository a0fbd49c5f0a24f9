/**
 * Producer-state snapshot files `<offset>.snapshot` (Kafka
 * `ProducerStateManager.readSnapshot/writeSnapshot`, schema `ProducerSnapshot.json`).
 *
 * Layout: int16 version (only 1 is valid), uint32 CRC-32C over bytes [6, end of file), int32 entry
 * count, then `count` entries of 46 bytes each:
 *
 * | offset | size | field |
 * | --- | --- | --- |
 * | 0 | 8 | producerId |
 * | 8 | 2 | producerEpoch |
 * | 10 | 4 | lastSequence |
 * | 14 | 8 | lastOffset |
 * | 22 | 4 | offsetDelta |
 * | 26 | 8 | timestamp (the producer's lastTimestamp) |
 * | 34 | 4 | coordinatorEpoch |
 * | 38 | 8 | currentTxnFirstOffset (-1 = none) |
 *
 * Field values are kept exactly as stored (a negative lastOffset means "no batch metadata", a
 * negative currentTxnFirstOffset "no open transaction", as Kafka reads them), so decode followed by
 * encode gives back the same bytes.
 *
 * Everything wrong with a file is a StorageError (Kafka's CorruptSnapshotException) carrying the
 * byte position of the problem; the loader then discards that snapshot and tries an older one.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../errors.js';
import { crc32c } from '../record/crc.js';
import { offsetFromFileName, SNAPSHOT_SUFFIX } from './file-names.js';
import { entryLastDataOffset, entryLastOffsetDelta, entryLastSeq, type ProducerStateEntry } from './producer-state-entry.js';

/** `ProducerStateManager.PRODUCER_SNAPSHOT_VERSION`: the only version Kafka reads or writes. */
export const PRODUCER_SNAPSHOT_VERSION = 1;
export const PRODUCER_SNAPSHOT_VERSION_OFFSET = 0;
export const PRODUCER_SNAPSHOT_CRC_OFFSET = 2;
/** Start of the CRC-covered region (`PRODUCER_ENTRIES_OFFSET`): the count and the entries. */
export const PRODUCER_SNAPSHOT_ENTRIES_OFFSET = 6;
/** version + crc + count. */
export const PRODUCER_SNAPSHOT_HEADER_SIZE = 10;
export const PRODUCER_SNAPSHOT_ENTRY_SIZE = 46;

/** One persisted producer (`ProducerStateEntry` with at most its newest `BatchMetadata`). */
export interface ProducerSnapshotEntry {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: bigint;
  offsetDelta: number;
  timestamp: bigint;
  coordinatorEpoch: number;
  currentTxnFirstOffset: bigint /* -1 = none */;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const INT32_MAX = 0x7fffffff;

function checkInt(value: number, bits: 16 | 32, field: string, index: number): void {
  const max = bits === 16 ? 0x7fff : INT32_MAX;
  if (!Number.isInteger(value) || value < -max - 1 || value > max) {
    throw new InvalidArgumentError(`producer snapshot entry ${index}: ${field} ${value} is not an int${bits}`);
  }
}

function checkLong(value: bigint, field: string, index: number): void {
  if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
    throw new InvalidArgumentError(`producer snapshot entry ${index}: ${field} ${value} is not an int64`);
  }
}

/** The bytes of a version-1 snapshot holding `entries`, in the order given. */
export function encodeProducerSnapshot(entries: readonly ProducerSnapshotEntry[]): Buffer {
  if (entries.length > Math.floor((INT32_MAX - PRODUCER_SNAPSHOT_HEADER_SIZE) / PRODUCER_SNAPSHOT_ENTRY_SIZE)) {
    throw new InvalidArgumentError(`too many producer snapshot entries: ${entries.length}`);
  }
  const buf = Buffer.alloc(PRODUCER_SNAPSHOT_HEADER_SIZE + entries.length * PRODUCER_SNAPSHOT_ENTRY_SIZE);
  buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, PRODUCER_SNAPSHOT_VERSION_OFFSET);
  buf.writeInt32BE(entries.length, PRODUCER_SNAPSHOT_ENTRIES_OFFSET);
  let at = PRODUCER_SNAPSHOT_HEADER_SIZE;
  entries.forEach((e, i) => {
    checkLong(e.producerId, 'producerId', i);
    checkInt(e.producerEpoch, 16, 'producerEpoch', i);
    checkInt(e.lastSequence, 32, 'lastSequence', i);
    checkLong(e.lastOffset, 'lastOffset', i);
    checkInt(e.offsetDelta, 32, 'offsetDelta', i);
    checkLong(e.timestamp, 'timestamp', i);
    checkInt(e.coordinatorEpoch, 32, 'coordinatorEpoch', i);
    checkLong(e.currentTxnFirstOffset, 'currentTxnFirstOffset', i);
    buf.writeBigInt64BE(e.producerId, at);
    buf.writeInt16BE(e.producerEpoch, at + 8);
    buf.writeInt32BE(e.lastSequence, at + 10);
    buf.writeBigInt64BE(e.lastOffset, at + 14);
    buf.writeInt32BE(e.offsetDelta, at + 22);
    buf.writeBigInt64BE(e.timestamp, at + 26);
    buf.writeInt32BE(e.coordinatorEpoch, at + 34);
    buf.writeBigInt64BE(e.currentTxnFirstOffset, at + 38);
    at += PRODUCER_SNAPSHOT_ENTRY_SIZE;
  });
  const crc = crc32c(buf, PRODUCER_SNAPSHOT_ENTRIES_OFFSET, buf.length);
  buf.writeUInt32BE(crc >>> 0, PRODUCER_SNAPSHOT_CRC_OFFSET);
  return buf;
}

/**
 * Parse snapshot bytes. `location` (usually the file path) prefixes error messages. Checks, in
 * order: a whole header, version 1, a non-negative count, exactly `count` whole entries (no fewer,
 * no trailing bytes), the CRC. The count is never used to size an allocation before it is checked
 * against the bytes actually present.
 */
export function decodeProducerSnapshot(bytes: Buffer, location = ''): ProducerSnapshotEntry[] {
  const fail = (message: string, position: number): StorageError =>
    new StorageError(location ? `${location}: ${message}` : message, { position });

  if (bytes.length < PRODUCER_SNAPSHOT_HEADER_SIZE) {
    throw fail(
      `Snapshot failed schema validation: ${bytes.length} bytes is shorter than the ${PRODUCER_SNAPSHOT_HEADER_SIZE}-byte header`,
      bytes.length,
    );
  }
  const version = bytes.readInt16BE(PRODUCER_SNAPSHOT_VERSION_OFFSET);
  if (version !== PRODUCER_SNAPSHOT_VERSION) {
    throw fail(`Snapshot contained an unknown file version ${version}`, PRODUCER_SNAPSHOT_VERSION_OFFSET);
  }
  const count = bytes.readInt32BE(PRODUCER_SNAPSHOT_ENTRIES_OFFSET);
  if (count < 0) {
    throw fail(`Snapshot failed schema validation: entry count ${count} cannot be negative`, PRODUCER_SNAPSHOT_ENTRIES_OFFSET);
  }
  const body = bytes.length - PRODUCER_SNAPSHOT_HEADER_SIZE;
  const present = Math.floor(body / PRODUCER_SNAPSHOT_ENTRY_SIZE);
  if (count > present) {
    // truncated file, or a count larger than the entries written
    throw fail(
      `Snapshot failed schema validation: entry count ${count} needs ${count * PRODUCER_SNAPSHOT_ENTRY_SIZE} bytes of entries but only ${body} remain`,
      PRODUCER_SNAPSHOT_HEADER_SIZE + present * PRODUCER_SNAPSHOT_ENTRY_SIZE,
    );
  }
  const end = PRODUCER_SNAPSHOT_HEADER_SIZE + count * PRODUCER_SNAPSHOT_ENTRY_SIZE;
  if (end !== bytes.length) {
    throw fail(
      `Snapshot has ${bytes.length - end} trailing bytes after its ${count} entries`,
      end,
    );
  }
  const stored = bytes.readUInt32BE(PRODUCER_SNAPSHOT_CRC_OFFSET);
  const computed = crc32c(bytes, PRODUCER_SNAPSHOT_ENTRIES_OFFSET, bytes.length) >>> 0;
  if (stored !== computed) {
    throw fail(
      `Snapshot is corrupt (CRC is no longer valid). Stored crc: ${stored}. Computed crc: ${computed}`,
      PRODUCER_SNAPSHOT_CRC_OFFSET,
    );
  }
  const entries: ProducerSnapshotEntry[] = [];
  for (let at = PRODUCER_SNAPSHOT_HEADER_SIZE; at < end; at += PRODUCER_SNAPSHOT_ENTRY_SIZE) {
    entries.push({
      producerId: bytes.readBigInt64BE(at),
      producerEpoch: bytes.readInt16BE(at + 8),
      lastSequence: bytes.readInt32BE(at + 10),
      lastOffset: bytes.readBigInt64BE(at + 14),
      offsetDelta: bytes.readInt32BE(at + 22),
      timestamp: bytes.readBigInt64BE(at + 26),
      coordinatorEpoch: bytes.readInt32BE(at + 34),
      currentTxnFirstOffset: bytes.readBigInt64BE(at + 38),
    });
  }
  return entries;
}

/**
 * Write a snapshot file (`ProducerStateManager.writeSnapshot`), optionally fsynced. Kafka opens
 * with CREATE|WRITE and no truncate; this opens with truncate, so rewriting an existing longer file
 * cannot leave stale bytes behind (which would make the snapshot fail its CRC).
 */
export function writeProducerSnapshot(path: string, entries: readonly ProducerSnapshotEntry[], sync = false): void {
  const bytes = encodeProducerSnapshot(entries);
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (e) {
    throw new StorageError(`failed to open producer snapshot ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, done);
    if (sync) fsyncSync(fd);
  } catch (e) {
    throw new StorageError(`failed to write producer snapshot ${path}: ${(e as Error).message}`, { cause: e });
  } finally {
    closeSync(fd);
  }
}

/** Read and decode a snapshot file; I/O failures and corruption are StorageErrors. */
export function readProducerSnapshot(path: string): ProducerSnapshotEntry[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new StorageError(`failed to read producer snapshot ${path}: ${(e as Error).message}`, { cause: e });
  }
  return decodeProducerSnapshot(bytes, path);
}

/** The snapshot files of a directory (`ProducerStateManager.listSnapshotFiles`), ascending by offset. */
export function listSnapshotFiles(dir: string): { offset: bigint; path: string }[] {
  let dirents;
  try {
    dirents = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new StorageError(`failed to list ${dir}: ${(e as Error).message}`, { cause: e });
  }
  const out: { offset: bigint; path: string }[] = [];
  for (const d of dirents) {
    if (!d.isFile() || !d.name.endsWith(SNAPSHOT_SUFFIX)) continue;
    let offset: bigint;
    try {
      offset = offsetFromFileName(d.name);
    } catch {
      continue; // not `<digits>.snapshot`: not ours (Kafka would fail the load on it)
    }
    out.push({ offset, path: join(dir, d.name) });
  }
  return out.sort((a, b) => compareBigint(a.offset, b.offset));
}

/** A snapshot entry as the manager holds it (`readSnapshot`): lastOffset < 0 means no batch metadata. */
export function entryFromSnapshot(s: ProducerSnapshotEntry): ProducerStateEntry {
  return {
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    coordinatorEpoch: s.coordinatorEpoch,
    lastTimestamp: s.timestamp,
    currentTxnFirstOffset: s.currentTxnFirstOffset >= 0n ? s.currentTxnFirstOffset : undefined,
    batchMetadata:
      s.lastOffset >= 0n ? [{ lastSeq: s.lastSequence, lastOffset: s.lastOffset, offsetDelta: s.offsetDelta, timestamp: s.timestamp }] : [],
  };
}

/** A producer as a snapshot keeps it (`ProducerStateManager.writeSnapshot`): its newest batch only. */
export function snapshotEntryOf(producerId: bigint, e: ProducerStateEntry): ProducerSnapshotEntry {
  return {
    producerId,
    producerEpoch: e.producerEpoch,
    lastSequence: entryLastSeq(e),
    lastOffset: entryLastDataOffset(e),
    offsetDelta: entryLastOffsetDelta(e),
    timestamp: e.lastTimestamp,
    coordinatorEpoch: e.coordinatorEpoch,
    currentTxnFirstOffset: e.currentTxnFirstOffset ?? -1n,
  };
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
