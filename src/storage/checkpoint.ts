/**
 * Kafka's text checkpoint files (`server-common/.../CheckpointFile.java`,
 * `OffsetCheckpointFile.java`, `LeaderEpochCheckpointFile.java`):
 *
 *     <version>\n
 *     <entry count>\n
 *     <entry>\n          (x count)
 *
 * Offset checkpoints (recovery-point-offset-checkpoint, log-start-offset-checkpoint,
 * replication-offset-checkpoint, cleaner-offset-checkpoint) hold `<topic> <partition> <offset>`
 * lines; leader-epoch-checkpoint holds `<epoch> <startOffset>` lines in ascending epoch order. Both
 * are version 0.
 *
 * Reading follows CheckpointReadBuffer exactly, because a file Kafka accepts must load here and a
 * file Kafka refuses must not: an empty file, or one with only the version line, is an empty list;
 * every line after the count is an entry (no blank lines allowed); a bad version, a malformed line
 * or a count that disagrees with the entries is a StorageError carrying the byte position and line
 * number. This module also holds the Java parsing rules (`BufferedReader.readLine`,
 * `String.split`, `Integer.parseInt`, `Long.parseLong`) that Kafka's other small text files share.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, StorageError } from '../errors.js';
import { atomicWriteFileSync, stageFile, type StagedFile } from './fs-util.js';

/** CheckpointFile version of every checkpoint kafkalite reads or writes. */
export const CHECKPOINT_VERSION = 0;

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: bigint;
}

/** Kafka's `EpochEntry`: the first offset written in a leader epoch. */
export interface EpochEntry {
  epoch: number;
  startOffset: bigint;
}

// ---------------------------------------------------------------------------------------------
// Java text rules shared by Kafka's text files
// ---------------------------------------------------------------------------------------------

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * `Integer.parseInt`: optional sign, decimal digits (leading zeros allowed), within int32;
 * otherwise undefined (Java's NumberFormatException). Java also accepts non-ASCII Unicode digits;
 * Kafka never writes them, and refusing them only turns an exotic file into a typed error.
 */
export function parseJavaInt(text: string): number | undefined {
  const value = parseJavaInteger(text, 10);
  return value === undefined || value < BigInt(INT32_MIN) || value > BigInt(INT32_MAX) ? undefined : Number(value);
}

/** `Long.parseLong`, same rules within int64. */
export function parseJavaLong(text: string): bigint | undefined {
  const value = parseJavaInteger(text, 19);
  return value === undefined || value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** Sign + digits; more than `maxDigits` significant digits is out of range whatever the type. */
function parseJavaInteger(text: string, maxDigits: number): bigint | undefined {
  const m = /^([+-]?)0*([0-9]*)$/.exec(text);
  if (m === null || text.length === m[1]!.length) return undefined;
  if (m[2]!.length > maxDigits) return undefined;
  const magnitude = m[2] === '' ? 0n : BigInt(m[2]!);
  return m[1] === '-' ? -magnitude : magnitude;
}

/**
 * `String.split(regex)` with limit 0: a leading empty field is kept (" a b" gives 3 fields),
 * trailing empty fields are dropped, and a string with no match is returned whole ("" gives [""]).
 * Entry lines rely on this: a leading space makes an offset-checkpoint line 4 fields long, so
 * Kafka calls it malformed. `separator` must not be a global regex.
 */
export function javaSplit(text: string, separator: RegExp): string[] {
  if (!separator.test(text)) return [text];
  const parts = text.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Java's `\s` (not JavaScript's, which also matches Unicode spaces). */
export const JAVA_WHITESPACE = /[ \t\n\x0B\f\r]+/;

export interface TextLine {
  text: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  position: number;
}

/**
 * Lines as `BufferedReader.readLine` returns them: terminated by `\n`, `\r` or `\r\n`; a last line
 * without a terminator still counts, an empty remainder after the last terminator does not. Each
 * line is decoded as strict UTF-8 with any BOM kept, as `Files.newBufferedReader` does (invalid
 * bytes are an error there, and a BOM then fails the version check).
 */
export function readTextLines(bytes: Buffer, location: string): TextLine[] {
  // ASCII, as Kafka writes checkpoints: decoded once and sliced, rather than decoded line by line,
  // which was most of reading a 100,000-partition checkpoint at start (issue 21); the lines are the same
  const ascii = isAscii(bytes) ? bytes.toString('latin1') : undefined;
  const decoder = ascii === undefined ? new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }) : undefined;
  const lines: TextLine[] = [];
  const push = (start: number, end: number): void => {
    const line = lines.length + 1;
    lines.push(ascii !== undefined ? { text: ascii.slice(start, end), line, position: start } : decodeLine(decoder!, bytes, start, end, line, location));
  };
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === 0x0a || b === 0x0d) {
      push(start, i);
      i += b === 0x0d && bytes[i + 1] === 0x0a ? 2 : 1;
      start = i;
    } else {
      i++;
    }
  }
  if (start < bytes.length) push(start, bytes.length);
  return lines;
}

function isAscii(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

function decodeLine(
  decoder: TextDecoder,
  bytes: Buffer,
  start: number,
  end: number,
  line: number,
  location: string,
): TextLine {
  try {
    return { text: decoder.decode(bytes.subarray(start, end)), line, position: start };
  } catch (e) {
    throw new StorageError(`Malformed input (not UTF-8) on line ${line} of [${location}]`, {
      position: start,
      cause: e,
    });
  }
}

/** The file's bytes, or undefined when it does not exist. Other I/O failures are StorageErrors. */
export function readFileIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError(`failed to read ${path}: ${(e as Error).message}`, { cause: e });
  }
}

// ---------------------------------------------------------------------------------------------
// CheckpointFile
// ---------------------------------------------------------------------------------------------

function malformedLine(path: string, line: TextLine, cause?: unknown): StorageError {
  return new StorageError(`Malformed line in checkpoint file [${path}]: ${line.text} (line ${line.line})`, {
    position: line.position,
    cause,
  });
}

/**
 * CheckpointReadBuffer.read. `parseEntry` gets the whitespace-split fields and returns undefined
 * for a malformed line (Kafka's formatters: wrong field count → Optional.empty; bad numbers →
 * NumberFormatException; both end as an unreadable checkpoint).
 */
function readCheckpoint<T>(path: string, version: number, parseEntry: (fields: string[]) => T | undefined): T[] {
  const bytes = readFileIfExists(path);
  if (bytes === undefined) return [];
  const lines = readTextLines(bytes, path);
  const versionLine = lines[0];
  if (versionLine === undefined) return [];
  const readVersion = parseJavaInt(versionLine.text);
  if (readVersion === undefined) throw malformedLine(path, versionLine);
  if (readVersion !== version) {
    throw new StorageError(
      `Unrecognised version:${readVersion}, expected version: ${version} in checkpoint file at: ${path}`,
      { position: versionLine.position },
    );
  }
  const countLine = lines[1];
  if (countLine === undefined) return [];
  const expectedSize = parseJavaInt(countLine.text);
  // A negative count makes Kafka's `new ArrayList<>(expectedSize)` throw before any entry is read.
  if (expectedSize === undefined || expectedSize < 0) throw malformedLine(path, countLine);
  const entries: T[] = [];
  for (const line of lines.slice(2)) {
    const entry = parseEntry(javaSplit(line.text, JAVA_WHITESPACE));
    if (entry === undefined) throw malformedLine(path, line);
    entries.push(entry);
  }
  if (entries.length !== expectedSize) {
    throw new StorageError(
      `Expected [${expectedSize}] entries in checkpoint file [${path}], but found only [${entries.length}]` +
        ' (count on line 2)',
      { position: countLine.position },
    );
  }
  return entries;
}

/** CheckpointWriteBuffer.write + CheckpointFile.write: version, count, entries, `\n` after each. */
function writeCheckpoint(path: string, version: number, lines: string[]): void {
  atomicWriteFileSync(path, checkpointText(version, lines));
}

function checkpointText(version: number, lines: string[]): string {
  let text = `${version}\n${lines.length}\n`;
  for (const line of lines) text += line + '\n';
  return text;
}

// ---------------------------------------------------------------------------------------------
// OffsetCheckpointFile
// ---------------------------------------------------------------------------------------------

function parseOffsetEntry(fields: string[]): TopicPartitionOffset | undefined {
  if (fields.length !== 3) return undefined;
  const partition = parseJavaInt(fields[1]!);
  const offset = parseJavaLong(fields[2]!);
  if (partition === undefined || offset === undefined) return undefined;
  return { topic: fields[0]!, partition, offset };
}

/**
 * Read an offset checkpoint (recovery point, log start, high watermark, cleaner). Order is the
 * file's; Kafka writes map iteration order, so callers must not rely on it. Missing file → [].
 */
export function readOffsetCheckpoint(path: string): TopicPartitionOffset[] {
  return readCheckpoint(path, CHECKPOINT_VERSION, parseOffsetEntry);
}

/** Write an offset checkpoint atomically (`OffsetCheckpointFile.Formatter`: `topic partition offset`). */
export function writeOffsetCheckpoint(path: string, entries: readonly TopicPartitionOffset[]): void {
  atomicWriteFileSync(path, offsetCheckpointText(entries));
}

/** writeOffsetCheckpoint's file written and fsynced off the event loop, to be committed (the entries are read now; see stageFile). */
export function stageOffsetCheckpoint(path: string, entries: readonly TopicPartitionOffset[]): Promise<StagedFile> {
  return stageFile(path, offsetCheckpointText(entries));
}

function offsetCheckpointText(entries: readonly TopicPartitionOffset[]): string {
  const lines = entries.map(({ topic, partition, offset }) => {
    // A topic with whitespace (or an empty one) would split into the wrong number of fields and
    // make the whole file unreadable, for Kafka as for us.
    if (topic.length === 0 || /[ \t\n\x0B\f\r]/.test(topic)) {
      throw new InvalidArgumentError(`topic ${JSON.stringify(topic)} cannot be written to a checkpoint line`);
    }
    checkInt32(partition, 'partition');
    checkInt64(offset, 'offset');
    return `${topic} ${partition} ${offset}`;
  });
  return checkpointText(CHECKPOINT_VERSION, lines);
}

// ---------------------------------------------------------------------------------------------
// LeaderEpochCheckpointFile
// ---------------------------------------------------------------------------------------------

function parseEpochEntry(fields: string[]): EpochEntry | undefined {
  if (fields.length !== 2) return undefined;
  const epoch = parseJavaInt(fields[0]!);
  const startOffset = parseJavaLong(fields[1]!);
  if (epoch === undefined || startOffset === undefined) return undefined;
  return { epoch, startOffset };
}

/** Read a partition's leader-epoch-checkpoint. Missing or empty file → []. */
export function readLeaderEpochCheckpoint(path: string): EpochEntry[] {
  return readCheckpoint(path, CHECKPOINT_VERSION, parseEpochEntry);
}

/** Write a leader-epoch-checkpoint atomically (`epoch startOffset` lines, in the order given). */
export function writeLeaderEpochCheckpoint(path: string, entries: readonly EpochEntry[]): void {
  const lines = entries.map(({ epoch, startOffset }) => {
    checkInt32(epoch, 'epoch');
    checkInt64(startOffset, 'startOffset');
    return `${epoch} ${startOffset}`;
  });
  writeCheckpoint(path, CHECKPOINT_VERSION, lines);
}

function checkInt32(value: number, name: string): void {
  if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new InvalidArgumentError(`${name} ${value} is not an int32`);
  }
}

function checkInt64(value: bigint, name: string): void {
  if (typeof value !== 'bigint' || value < INT64_MIN || value > INT64_MAX) {
    throw new InvalidArgumentError(`${name} ${String(value)} is not an int64`);
  }
}
