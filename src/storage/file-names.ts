/**
 * Names of the files in a partition directory and in a log directory (Kafka
 * `LogFileUtils.java`, `LogManager`, `LeaderEpochCheckpointFile`, `PartitionMetadataFile`).
 *
 * A segment's files share a prefix: its base offset as 20 zero-padded decimal digits. Temporary
 * states (`.deleted`, `.cleaned`, `.swap`) are appended after the normal extension, so
 * `00000000000000000000.log.swap` still parses back to offset 0.
 */
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../errors.js';

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const TXN_INDEX_SUFFIX = '.txnindex';
export const SNAPSHOT_SUFFIX = '.snapshot';
/** A file scheduled for asynchronous deletion (`LogFileUtils.DELETED_FILE_SUFFIX`). */
export const DELETED_SUFFIX = '.deleted';
/** The cleaner's output before it is swapped in (`LogFileUtils.CLEANED_FILE_SUFFIX`). */
export const CLEANED_SUFFIX = '.cleaned';
/** A replacement segment waiting to be renamed into place (`LogFileUtils.SWAP_FILE_SUFFIX`). */
export const SWAP_SUFFIX = '.swap';
/**
 * `<base>.swapend`: the end offset of the segments a swap replaces, beside its `.swap` files while
 * the swap is under way (segment-swap.ts). Kafka has no such file and ignores it: it ends in none
 * of the suffixes Kafka knows.
 */
export const SWAP_END_SUFFIX = '.swapend';

/** Per-partition files (`LeaderEpochCheckpointFile`, `PartitionMetadataFile`). */
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const PARTITION_METADATA_FILE = 'partition.metadata';

/** Per-log-directory files (`LogManager`, `ReplicaManager`, `LogCleanerManager`). */
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
export const META_PROPERTIES_FILE = 'meta.properties';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
export const LOCK_FILE = '.lock';

const INT64_MAX = (1n << 63n) - 1n;

/**
 * The 20-digit prefix of a segment's files (`LogFileUtils.filenamePrefixFromOffset`: NumberFormat
 * with 20 minimum integer digits, no grouping). Offsets are never negative on disk; refusing them
 * here keeps a `-` out of file names that `offsetFromFileName` must read back.
 */
export function formatOffset(offset: bigint): string {
  if (offset < 0n || offset > INT64_MAX) {
    throw new InvalidArgumentError(`offset ${offset} is outside [0, ${INT64_MAX}] and cannot name a file`);
  }
  return offset.toString().padStart(20, '0');
}

/**
 * The offset a file name starts with: the text before the first `.` read as a Java long
 * (`LogFileUtils.offsetFromFileName`). Kafka throws when there is no `.` or the text is not a
 * number; so do we, as a StorageError, because such a file does not belong in a partition dir.
 */
export function offsetFromFileName(name: string): bigint {
  const dot = name.indexOf('.');
  const digits = dot < 0 ? undefined : parseJavaLongText(name.slice(0, dot));
  if (digits === undefined) {
    throw new StorageError(`file name '${name}' does not start with an offset followed by '.'`);
  }
  return digits;
}

/** `Long.parseLong` rules: an optional sign, ASCII digits, within int64. */
function parseJavaLongText(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < -(1n << 63n) || value > INT64_MAX ? undefined : value;
}

function segmentFilePath(dir: string, baseOffset: bigint, extension: string, suffix: string): string {
  return join(dir, formatOffset(baseOffset) + extension + suffix);
}

/** `LogFileUtils.logFile(dir, offset, suffix)`. */
export function logFilePath(dir: string, baseOffset: bigint, suffix = ''): string {
  return segmentFilePath(dir, baseOffset, LOG_SUFFIX, suffix);
}

/** `LogFileUtils.offsetIndexFile(dir, offset, suffix)`. */
export function offsetIndexPath(dir: string, baseOffset: bigint, suffix = ''): string {
  return segmentFilePath(dir, baseOffset, INDEX_SUFFIX, suffix);
}

/** `LogFileUtils.timeIndexFile(dir, offset, suffix)`. */
export function timeIndexPath(dir: string, baseOffset: bigint, suffix = ''): string {
  return segmentFilePath(dir, baseOffset, TIME_INDEX_SUFFIX, suffix);
}

/** `LogFileUtils.transactionIndexFile(dir, offset, suffix)`. */
export function txnIndexPath(dir: string, baseOffset: bigint, suffix = ''): string {
  return segmentFilePath(dir, baseOffset, TXN_INDEX_SUFFIX, suffix);
}

/** `LogFileUtils.producerSnapshotFile(dir, offset)`: named after the offset the snapshot covers up to. */
export function snapshotPath(dir: string, offset: bigint): string {
  return segmentFilePath(dir, offset, SNAPSHOT_SUFFIX, '');
}

/** The swap end hint of the swap whose cleaned segment starts at `baseOffset`. */
export function swapEndHintPath(dir: string, baseOffset: bigint): string {
  return join(dir, formatOffset(baseOffset) + SWAP_END_SUFFIX);
}

/** KRaft snapshot files in `__cluster_metadata-0` (`raft/.../Snapshots.java`): `<offset>-<epoch>.checkpoint`. */
export const KRAFT_SNAPSHOT_SUFFIX = '.checkpoint';
/** The binary bootstrap snapshot in a log dir (`BootstrapDirectory.BINARY_BOOTSTRAP_FILENAME`). */
export const BOOTSTRAP_SNAPSHOT_FILE = 'bootstrap.checkpoint';

/**
 * `Snapshots.parse`: the snapshot id of `<20-digit end offset>-<10-digit epoch>.checkpoint`, or
 * undefined when the name does not have that shape.
 */
export function parseKraftSnapshotName(name: string): { endOffset: bigint; epoch: number } | undefined {
  const m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(name);
  if (!m) return undefined;
  const endOffset = BigInt(m[1]!);
  const epoch = Number(m[2]!);
  if (endOffset > INT64_MAX || epoch > 0x7fffffff) return undefined;
  return { endOffset, epoch };
}
