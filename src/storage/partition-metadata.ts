/**
 * A partition directory's `partition.metadata` (Kafka `PartitionMetadataFile`,
 * `PartitionMetadata`, `PartitionMetadataReadBuffer`): the topic id that owns the directory, so a
 * recreated topic of the same name cannot adopt an old replica's data.
 *
 * Exact bytes, UTF-8 with no trailing newline:
 *
 *     version: 0\ntopic_id: <22-char Uuid>
 *
 * Reading is PartitionMetadataReadBuffer's: each of the first two lines is split on `:\s+` and
 * must give exactly two fields (the key text itself is not checked); the version must parse as an
 * int and be >= 0 (newer versions are accepted, for downgrades); the id must be a valid Uuid other
 * than the zero Uuid. Any failure is a StorageError carrying the line's byte position.
 */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, KafkaliteError, StorageError } from '../errors.js';
import { javaSplit, parseJavaInt, readFileIfExists, readTextLines, type TextLine } from './checkpoint.js';
import { atomicWriteFileSync } from './fs-util.js';
import { isZeroUuid, parseUuid, uuidToString } from './uuid.js';

/** PartitionMetadataFile.CURRENT_VERSION. */
export const PARTITION_METADATA_VERSION = 0;

export interface PartitionMetadata {
  version: number;
  /** Kafka Uuid string (22 characters, as written; re-encoded canonically if it was padded). */
  topicId: string;
}

const SEPARATOR = /:[ \t\n\x0B\f\r]+/;

/** PartitionMetadata.encode. */
export function encodePartitionMetadata(topicId: string): string {
  const id = checkedTopicId(topicId);
  return `version: ${PARTITION_METADATA_VERSION}\ntopic_id: ${id}`;
}

/**
 * Write the file via `.tmp` + fsync + atomic rename (PartitionMetadataFile.maybeFlush); without the
 * fsyncs when `durable` is false (see atomicWriteFileSync).
 */
export function writePartitionMetadata(path: string, topicId: string, durable = true): void {
  atomicWriteFileSync(path, encodePartitionMetadata(topicId), durable);
}

/**
 * Write the file of a partition directory just made, where none can exist: one exclusive create
 * and write, no `.tmp`, rename or fsync. Only for an owner that restores a missing or torn file
 * from another durable record (the KRaft metadata log, `LogManager.repairPartitionMetadata`).
 */
export function writeNewPartitionMetadata(path: string, topicId: string): void {
  const data = encodePartitionMetadata(topicId);
  try {
    writeFileSync(path, data, { flag: 'wx' });
  } catch (e) {
    throw new StorageError(`failed to write ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** Read and validate `path`; a missing file is a StorageError too (callers check existence first). */
export function readPartitionMetadata(path: string): PartitionMetadata {
  const bytes = readFileIfExists(path);
  if (bytes === undefined) throw new StorageError(`partition metadata file ${path} does not exist`);
  return parsePartitionMetadata(bytes, path);
}

/** Parse the file's bytes; `location` names the file in error messages. */
export function parsePartitionMetadata(bytes: Buffer, location: string): PartitionMetadata {
  const lines = readTextLines(bytes, location);
  const versionLine = lines[0];
  // Kafka splits a null line here and dies with a NullPointerException; an empty file is simply
  // unreadable, so report it like any other malformed line.
  if (versionLine === undefined) throw malformedLine(location, { text: '', line: 1, position: 0 });
  const versionFields = javaSplit(versionLine.text, SEPARATOR);
  const version = versionFields.length === 2 ? parseJavaInt(versionFields[1]!) : undefined;
  if (version === undefined) throw malformedLine(location, versionLine);
  if (version < PARTITION_METADATA_VERSION) {
    throw new StorageError(`Unrecognized version of partition metadata file (${location}): ${version}`, {
      position: versionLine.position,
    });
  }
  const idLine = lines[1] ?? { text: '', line: 2, position: bytes.length };
  const idFields = javaSplit(idLine.text, SEPARATOR);
  if (idFields.length !== 2) throw malformedLine(location, idLine);
  let idBytes: Buffer;
  try {
    idBytes = parseUuid(idFields[1]!);
  } catch (e) {
    if (!(e instanceof KafkaliteError)) throw e;
    throw new StorageError(`Invalid topic ID in partition metadata file (${location}): ${e.detail}`, {
      position: idLine.position,
      cause: e,
    });
  }
  if (isZeroUuid(idBytes)) {
    throw new StorageError(`Invalid topic ID in partition metadata file (${location})`, { position: idLine.position });
  }
  return { version, topicId: uuidToString(idBytes) };
}

function malformedLine(location: string, line: TextLine): StorageError {
  return new StorageError(`Malformed line in checkpoint file [${location}]: ${line.text} (line ${line.line})`, {
    position: line.position,
  });
}

/**
 * A writable topic id: a valid, non-zero Uuid (InvalidArgumentError otherwise, since a file holding
 * the zero id would be refused on the next read), in canonical 22-character form.
 */
function checkedTopicId(topicId: string): string {
  const bytes = parseUuid(topicId);
  if (isZeroUuid(bytes)) throw new InvalidArgumentError('the zero Uuid is not a valid topic id for partition.metadata');
  return uuidToString(bytes);
}
