/**
 * Topic names and partition directory names (Kafka
 * `clients/.../internals/Topic.java`, `core/src/main/scala/kafka/log/LocalLog.scala`).
 *
 * A topic name becomes a directory name, so it is the one piece of client input that reaches the
 * file system: `validateTopicName` (Kafka's Topic.validate) runs before any name is turned into a
 * path, which keeps `/`, `..` and friends out. Every function here that builds a directory name
 * validates the topic first, so none can produce a path outside the data directory.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, InvalidTopicError, StorageError } from '../errors.js';
import { parseJavaInt } from './checkpoint.js';

/** Topic.MAX_NAME_LENGTH: 255 (common file-name limit) minus room for `-<partition>` and more. */
export const MAX_TOPIC_NAME_LENGTH = 249;
/** LocalLog.logDirNameWithSuffixCappedLength: no partition directory name exceeds this. */
export const MAX_DIR_NAME_LENGTH = 255;

export const DELETE_DIR_SUFFIX = '-delete';
export const FUTURE_DIR_SUFFIX = '-future';
export const STRAY_DIR_SUFFIX = '-stray';

export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';
export const INTERNAL_TOPICS: ReadonlySet<string> = new Set([
  '__consumer_offsets',
  '__transaction_state',
  '__share_group_state',
]);

/** Topic.detectInvalidTopic: the reason `name` is not a legal topic, or undefined. */
export function invalidTopicReason(name: string): string | undefined {
  if (name.length === 0) return 'the empty string is not allowed';
  if (name === '.') return "'.' is not allowed";
  if (name === '..') return "'..' is not allowed";
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  }
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) {
    return `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return undefined;
}

/** Topic.validate: throws InvalidTopicError("Topic name is invalid: <reason>"). */
export function validateTopicName(name: string): void {
  if (typeof name !== 'string') throw new InvalidTopicError('Topic name is invalid: not a string');
  const reason = invalidTopicReason(name);
  if (reason !== undefined) throw new InvalidTopicError(`Topic name is invalid: ${reason}`);
}

export function isValidTopicName(name: string): boolean {
  return typeof name === 'string' && invalidTopicReason(name) === undefined;
}

/**
 * Partitions are non-negative int32s. A negative one would also be unreadable: `foo--1` parses back
 * as topic `foo-`, partition 1.
 */
function checkPartition(partition: number): void {
  if (!Number.isInteger(partition) || partition < 0 || partition > 0x7fffffff) {
    throw new InvalidArgumentError(`partition ${partition} is not a non-negative int32`);
  }
}

/** LocalLog.logDirName: `<topic>-<partition>`. */
export function partitionDirName(topic: string, partition: number): string {
  validateTopicName(topic);
  checkPartition(partition);
  return `${topic}-${partition}`;
}

/** A fresh unique id as LocalLog uses it: a java.util.UUID with the dashes removed (32 hex). */
function dirUniqueId(uniqueId: string | undefined): string {
  if (uniqueId === undefined) return randomUUID().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(uniqueId)) {
    throw new InvalidArgumentError(`unique id '${uniqueId}' is not 32 lowercase hex digits`);
  }
  return uniqueId;
}

/**
 * LocalLog.logDirNameWithSuffixCappedLength: `<topic>-<partition>.<uuid32hex><suffix>` with the
 * topic cut short so the whole name fits in 255 characters (a 249-char topic would not fit
 * otherwise). Parsing such a name gives back the truncated topic; Kafka accepts that because the
 * directory is only ever deleted.
 */
function cappedDirName(topic: string, partition: number, suffix: string, uniqueId: string | undefined): string {
  validateTopicName(topic);
  checkPartition(partition);
  const fullSuffix = `-${partition}.${dirUniqueId(uniqueId)}${suffix}`;
  const prefixLength = Math.min(topic.length, MAX_DIR_NAME_LENGTH - fullSuffix.length);
  return topic.slice(0, prefixLength) + fullSuffix;
}

/** LocalLog.logDeleteDirName: the name a partition dir is renamed to before asynchronous deletion. */
export function deleteDirName(topic: string, partition: number, uniqueId?: string): string {
  return cappedDirName(topic, partition, DELETE_DIR_SUFFIX, uniqueId);
}

/** LocalLog.logStrayDirName: a KRaft replica the controller no longer assigns to this broker. */
export function strayDirName(topic: string, partition: number, uniqueId?: string): string {
  return cappedDirName(topic, partition, STRAY_DIR_SUFFIX, uniqueId);
}

/** LocalLog.logFutureDirName: the target of an alter-log-dirs move. Not capped, as in Kafka. */
export function futureDirName(topic: string, partition: number, uniqueId?: string): string {
  return `${partitionDirName(topic, partition)}.${dirUniqueId(uniqueId)}${FUTURE_DIR_SUFFIX}`;
}

export type PartitionDirKind = 'normal' | 'delete' | 'future' | 'stray';

export interface ParsedPartitionDir {
  topic: string;
  partition: number;
  kind: PartitionDirKind;
}

// LocalLog's DeleteDirPattern & co: `^(\S+)-(\S+)\.(\S+)<suffix>`, matched against the whole name.
// Java's \S is "not [ \t\n\x0B\f\r]", narrower than JavaScript's.
const NS = '[^ \\t\\n\\x0B\\f\\r]+';
const SUFFIX_PATTERNS: readonly [string, PartitionDirKind, RegExp][] = [
  [DELETE_DIR_SUFFIX, 'delete', new RegExp(`^${NS}-${NS}\\.${NS}${DELETE_DIR_SUFFIX}$`)],
  [FUTURE_DIR_SUFFIX, 'future', new RegExp(`^${NS}-${NS}\\.${NS}${FUTURE_DIR_SUFFIX}$`)],
  [STRAY_DIR_SUFFIX, 'stray', new RegExp(`^${NS}-${NS}\\.${NS}${STRAY_DIR_SUFFIX}$`)],
];

/**
 * LocalLog.parseTopicPartitionName. `dirName` is one directory entry's name; `dirPath` (optional)
 * is its full path, shown in the error as Kafka shows the canonical path.
 *
 * Rules: non-empty and contains `-`; a name ending in `-delete`, `-future` or `-stray` must match
 * `<x>-<y>.<z><suffix>` and loses everything from its last `.`; the topic is what precedes the
 * last `-` and must be non-empty; the partition is what follows it, read by Integer.parseInt.
 * Failures are StorageErrors with Kafka's message. The topic is returned as found on disk and is
 * not checked against Topic.validate (Kafka does not either); names holding a path separator or
 * NUL cannot be directory entries and are refused.
 */
export function parseTopicPartitionName(dirName: string, dirPath?: string): ParsedPartitionDir {
  const fail = () =>
    new StorageError(
      `Found directory ${dirPath ?? dirName}, '${dirName}' is not in the form of topic-partition or ` +
        'topic-partition.uniqueId-delete (if marked for deletion).\n' +
        "Kafka's log directories (and children) should only contain Kafka topic data.",
    );
  if (typeof dirName !== 'string' || dirName.length === 0 || !dirName.includes('-')) throw fail();
  if (/[/\\\0]/.test(dirName)) throw fail(); // not a single directory entry
  let kind: PartitionDirKind = 'normal';
  for (const [suffix, suffixKind, pattern] of SUFFIX_PATTERNS) {
    if (!dirName.endsWith(suffix)) continue;
    if (!pattern.test(dirName)) throw fail();
    kind = suffixKind;
    break;
  }
  const name = kind === 'normal' ? dirName : dirName.slice(0, dirName.lastIndexOf('.'));
  const index = name.lastIndexOf('-');
  const topic = name.slice(0, index);
  const partitionText = name.slice(index + 1);
  if (topic.length === 0 || partitionText.length === 0) throw fail();
  const partition = parseJavaInt(partitionText);
  if (partition === undefined) throw fail();
  return { topic, partition, kind };
}
