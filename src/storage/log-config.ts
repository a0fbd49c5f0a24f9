/**
 * Topic (log) configuration: Kafka's topic config names as camelCase fields, Kafka's defaults
 * (`LogConfig.java`, `TopicConfig.java`, `ServerLogConfigs.java`), and parsing of
 * Kafka's dotted property names with Kafka's validators.
 *
 * Number or bigint: config values that are Java longs and are used in offset or time arithmetic
 * that must be exact (flush.messages, flush.ms, the timestamp window) are bigints. The others are
 * numbers; a long beyond 2^53 (Long.MAX_VALUE, Kafka's "never" for max.compaction.lag.ms) reads as
 * the nearest double, which still compares as "never".
 *
 * Release baseline: Kafka 4.0.0. Where the 4.0 release changed a default late in its cycle
 * (apache/kafka#18106, #18267), kafkalite takes the release value:
 * - `message.timestamp.after.max.ms` defaults to 3600000 (one hour, KIP-1030), not Long.MAX_VALUE;
 *   producers stamping records more than an hour in the future get INVALID_TIMESTAMP.
 * - `message.format.version` is kept (the 4.0 release removed it, KIP-724) because a topic pinned
 *   below 0.11 is how kafkalite writes magic 0/1 logs for old consumers; Kafka 3.x ignored it when
 *   inter.broker.protocol.version >= 3.0, kafkalite has no IBP and honours it.
 * - the deprecated `message.timestamp.difference.max.ms` is accepted and, as in 3.x, stands in for
 *   before/after when those are not given.
 */
import { InvalidConfigError } from '../errors.js';

export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';
export type TopicCompressionType = 'producer' | 'uncompressed' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type MessageTimestampType = 'CreateTime' | 'LogAppendTime';

export interface LogConfig {
  /** segment.bytes: roll a segment past this size (int, >= 14). */
  segmentBytes: number;
  /** segment.ms: roll a segment this old (>= 1). */
  segmentMs: number;
  /** segment.jitter.ms: random roll jitter bound (>= 0). */
  segmentJitterMs: number;
  /** segment.index.bytes: offset/time index file size (int, >= 4). */
  segmentIndexBytes: number;
  /** index.interval.bytes: bytes between offset-index entries (int, >= 0). */
  indexIntervalBytes: number;
  /** flush.messages: fsync after this many messages (>= 1; Long.MAX = never). */
  flushMessages: bigint;
  /** flush.ms: fsync after this long (>= 0; Long.MAX = never). */
  flushMs: bigint;
  /** retention.ms: delete segments older than this (>= -1; -1 = unlimited). */
  retentionMs: number;
  /** retention.bytes: delete segments while the log is larger (-1 = unlimited). */
  retentionBytes: number;
  cleanupPolicy: CleanupPolicy;
  /** delete.retention.ms: how long tombstones survive compaction (>= 0). */
  deleteRetentionMs: number;
  /** min.compaction.lag.ms (>= 0). */
  minCompactionLagMs: number;
  /** max.compaction.lag.ms (>= 1; Long.MAX by default). */
  maxCompactionLagMs: number;
  /** min.cleanable.dirty.ratio in [0, 1]. */
  minCleanableDirtyRatio: number;
  /** file.delete.delay.ms: delay before a deleted segment's files are removed (>= 0). */
  fileDeleteDelayMs: number;
  /** max.message.bytes: largest batch accepted (int, >= 0). */
  maxMessageBytes: number;
  compressionType: TopicCompressionType;
  /** compression.gzip.level: 1..9 or -1 (zlib's default, 6). */
  compressionGzipLevel: number;
  /** compression.lz4.level: 1..17. */
  compressionLz4Level: number;
  /** compression.zstd.level: -131072..22. */
  compressionZstdLevel: number;
  messageTimestampType: MessageTimestampType;
  /** message.timestamp.before.max.ms: how far in the past a CreateTime timestamp may be (>= 0). */
  messageTimestampBeforeMaxMs: bigint;
  /** message.timestamp.after.max.ms: how far in the future a CreateTime timestamp may be (>= 0). */
  messageTimestampAfterMaxMs: bigint;
  /** message.format.version: a Kafka version string; below 0.11.0 selects magic 0 or 1. */
  messageFormatVersion: string;
  /** preallocate: create segment files at full size. */
  preallocate: boolean;
}

const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;
const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  segmentJitterMs: 0,
  segmentIndexBytes: 10485760,
  indexIntervalBytes: 4096,
  flushMessages: LONG_MAX,
  flushMs: LONG_MAX,
  retentionMs: 604800000,
  retentionBytes: -1,
  cleanupPolicy: 'delete',
  deleteRetentionMs: 86400000,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Number(LONG_MAX),
  minCleanableDirtyRatio: 0.5,
  fileDeleteDelayMs: 60000,
  maxMessageBytes: 1048588,
  compressionType: 'producer',
  compressionGzipLevel: -1,
  compressionLz4Level: 9,
  compressionZstdLevel: 3,
  messageTimestampType: 'CreateTime',
  messageTimestampBeforeMaxMs: LONG_MAX,
  messageTimestampAfterMaxMs: 3600000n,
  messageFormatVersion: '3.0-IV1',
  preallocate: false,
} satisfies LogConfig);

/** Every topic config name Kafka knows (`LogConfig.configNames()`); the ones not modelled are validated by name only. */
const KNOWN_TOPIC_CONFIGS = new Set([
  'cleanup.policy',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.type',
  'compression.zstd.level',
  'delete.retention.ms',
  'file.delete.delay.ms',
  'flush.messages',
  'flush.ms',
  'index.interval.bytes',
  'local.retention.bytes',
  'local.retention.ms',
  'max.compaction.lag.ms',
  'max.message.bytes',
  'message.downconversion.enable',
  'message.format.version',
  'message.timestamp.after.max.ms',
  'message.timestamp.before.max.ms',
  'message.timestamp.difference.max.ms',
  'message.timestamp.type',
  'min.cleanable.dirty.ratio',
  'min.compaction.lag.ms',
  'min.insync.replicas',
  'preallocate',
  'remote.log.copy.disable',
  'remote.log.delete.on.disable',
  'remote.storage.enable',
  'retention.bytes',
  'retention.ms',
  'segment.bytes',
  'segment.index.bytes',
  'segment.jitter.ms',
  'segment.ms',
  'unclean.leader.election.enable',
  'leader.replication.throttled.replicas',
  'follower.replication.throttled.replicas',
]);

/** Kafka's ConfigException text: "Invalid value V for configuration NAME: reason". */
function invalid(name: string, value: string, reason: string): InvalidConfigError {
  return new InvalidConfigError(`Invalid value ${value} for configuration ${name}: ${reason}`);
}

function parseLong(name: string, raw: string, min?: bigint, max?: bigint): bigint {
  const s = raw.trim();
  if (!/^[+-]?\d+$/.test(s)) throw invalid(name, raw, 'Not a number of type LONG');
  const v = BigInt(s);
  if (v < LONG_MIN || v > LONG_MAX) throw invalid(name, raw, 'Not a number of type LONG');
  checkRange(name, raw, v, min, max);
  return v;
}

function parseInt32(name: string, raw: string, min?: number, max?: number): number {
  const s = raw.trim();
  if (!/^[+-]?\d+$/.test(s)) throw invalid(name, raw, 'Not a number of type INT');
  const v = Number(s);
  if (v < INT_MIN || v > INT_MAX) throw invalid(name, raw, 'Not a number of type INT');
  checkRange(name, raw, v, min, max);
  return v;
}

function checkRange<T extends number | bigint>(name: string, raw: string, v: T, min?: T, max?: T): void {
  // ConfigDef.Range messages
  if (min !== undefined && max !== undefined) {
    if (v < min || v > max) throw invalid(name, raw, `Value must be no less than ${min} and no more than ${max}`);
  } else if (min !== undefined && v < min) {
    throw invalid(name, raw, `Value must be at least ${min}`);
  } else if (max !== undefined && v > max) {
    throw invalid(name, raw, `Value must be no more than ${max}`);
  }
}

function parseDouble(name: string, raw: string, min: number, max: number): number {
  const s = raw.trim();
  const v = s === '' ? NaN : Number(s);
  if (!Number.isFinite(v)) throw invalid(name, raw, 'Not a number of type DOUBLE');
  checkRange(name, raw, v, min, max);
  return v;
}

function parseBoolean(name: string, raw: string): boolean {
  const s = raw.trim().toLowerCase();
  if (s === 'true') return true;
  if (s === 'false') return false;
  throw invalid(name, raw, 'Expected value to be either true or false');
}

function parseOneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const s = raw.trim();
  if (!(allowed as readonly string[]).includes(s)) throw invalid(name, raw, `String must be one of: ${allowed.join(', ')}`);
  return s as T;
}

function parseCleanupPolicy(raw: string): CleanupPolicy {
  const name = 'cleanup.policy';
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  let compact = false;
  let del = false;
  for (const item of items) {
    if (item === 'compact') compact = true;
    else if (item === 'delete') del = true;
    else throw invalid(name, raw, 'String must be one of: compact, delete');
  }
  if (compact && del) return 'compact,delete';
  if (compact) return 'compact';
  if (del) return 'delete';
  throw invalid(name, raw, 'String must be one of: compact, delete');
}

// ---- message.format.version (MetadataVersion.fromVersionString) ---------------------------------

/**
 * Kafka's MetadataVersion list up to 4.0 as (release, sub-version), oldest first. A release name
 * alone ("0.10.0", "2.1") means its newest sub-version.
 */
const METADATA_VERSIONS: readonly (readonly [string, string])[] = [
  ['0.8.0', ''], ['0.8.1', ''], ['0.8.2', ''], ['0.9.0', ''],
  ['0.10.0', 'IV0'], ['0.10.0', 'IV1'], ['0.10.1', 'IV0'], ['0.10.1', 'IV1'], ['0.10.1', 'IV2'], ['0.10.2', 'IV0'],
  ['0.11.0', 'IV0'], ['0.11.0', 'IV1'], ['0.11.0', 'IV2'],
  ['1.0', 'IV0'], ['1.1', 'IV0'], ['2.0', 'IV0'], ['2.0', 'IV1'], ['2.1', 'IV0'], ['2.1', 'IV1'], ['2.1', 'IV2'],
  ['2.2', 'IV0'], ['2.2', 'IV1'], ['2.3', 'IV0'], ['2.3', 'IV1'], ['2.4', 'IV0'], ['2.4', 'IV1'], ['2.5', 'IV0'],
  ['2.6', 'IV0'], ['2.7', 'IV0'], ['2.7', 'IV1'], ['2.7', 'IV2'], ['2.8', 'IV0'], ['2.8', 'IV1'],
  ['3.0', 'IV0'], ['3.0', 'IV1'], ['3.1', 'IV0'], ['3.2', 'IV0'], ['3.3', 'IV0'], ['3.3', 'IV1'], ['3.3', 'IV2'],
  ['3.3', 'IV3'], ['3.4', 'IV0'], ['3.5', 'IV0'], ['3.5', 'IV1'], ['3.5', 'IV2'], ['3.6', 'IV0'], ['3.6', 'IV1'],
  ['3.6', 'IV2'], ['3.7', 'IV0'], ['3.7', 'IV1'], ['3.7', 'IV2'], ['3.7', 'IV3'], ['3.7', 'IV4'], ['3.8', 'IV0'],
  ['3.9', 'IV0'], ['4.0', 'IV0'],
];

/** version string -> index in METADATA_VERSIONS */
const VERSION_INDEX: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>();
  METADATA_VERSIONS.forEach(([release, iv], i) => {
    m.set(iv === '' ? release : `${release}-${iv}`, i);
    m.set(release, i); // later sub-versions overwrite: the release name means its newest
  });
  return m;
})();
const FIRST_V1 = VERSION_INDEX.get('0.10.0-IV0')!;
const FIRST_V2 = VERSION_INDEX.get('0.11.0-IV0')!;

/**
 * Index of a version string as Kafka's `MetadataVersion.fromVersionString` resolves it: "0.x"
 * versions are cut to three dot-separated parts, later ones to two ("0.10.2.1" -> "0.10.2",
 * "2.8.1" -> "2.8"); undefined if Kafka would refuse it.
 */
function metadataVersionIndex(version: string): number | undefined {
  const parts = version.split('.');
  const n = version.startsWith('0.') ? 3 : 2;
  const key = n >= parts.length ? version : parts.slice(0, n).join('.');
  return VERSION_INDEX.get(key);
}

/** Resolved magics by version string: every append asks, and the string parsing showed in profiles. */
const magicByVersion = new Map<string, 0 | 1 | 2>();

/** The record format (magic) a topic writes: `MetadataVersion.highestSupportedRecordVersion()`. */
export function messageFormatMagic(config: Pick<LogConfig, 'messageFormatVersion'>): 0 | 1 | 2 {
  const known = magicByVersion.get(config.messageFormatVersion);
  if (known !== undefined) return known;
  const magic = resolveMessageFormatMagic(config.messageFormatVersion);
  magicByVersion.set(config.messageFormatVersion, magic);
  return magic;
}

function resolveMessageFormatMagic(version: string): 0 | 1 | 2 {
  const i = metadataVersionIndex(version);
  if (i === undefined) throw invalid('message.format.version', version, `Version ${version} is not a valid version`);
  if (i < FIRST_V1) return 0;
  if (i < FIRST_V2) return 1;
  return 2;
}

// ---- properties ---------------------------------------------------------------------------------

/**
 * A copy of `b` built by one object literal. `{ ...base }` gave copies two hidden classes: V8 clones
 * an object one way before its clone site's inline cache has warmed up and another way after, so
 * the topics created after the first few had configs of a new class, and the append path optimized
 * on the older ones dropped its code at the first append to such a topic ('wrong map' in
 * appendToLog, maybeRoll and the validator; bench/README.md, sixth pass). Every LogConfig the
 * broker makes for a topic comes from here, in this field order.
 */
export function copyLogConfig(b: Readonly<LogConfig>): LogConfig {
  return {
    segmentBytes: b.segmentBytes,
    segmentMs: b.segmentMs,
    segmentJitterMs: b.segmentJitterMs,
    segmentIndexBytes: b.segmentIndexBytes,
    indexIntervalBytes: b.indexIntervalBytes,
    flushMessages: b.flushMessages,
    flushMs: b.flushMs,
    retentionMs: b.retentionMs,
    retentionBytes: b.retentionBytes,
    cleanupPolicy: b.cleanupPolicy,
    deleteRetentionMs: b.deleteRetentionMs,
    minCompactionLagMs: b.minCompactionLagMs,
    maxCompactionLagMs: b.maxCompactionLagMs,
    minCleanableDirtyRatio: b.minCleanableDirtyRatio,
    fileDeleteDelayMs: b.fileDeleteDelayMs,
    maxMessageBytes: b.maxMessageBytes,
    compressionType: b.compressionType,
    compressionGzipLevel: b.compressionGzipLevel,
    compressionLz4Level: b.compressionLz4Level,
    compressionZstdLevel: b.compressionZstdLevel,
    messageTimestampType: b.messageTimestampType,
    messageTimestampBeforeMaxMs: b.messageTimestampBeforeMaxMs,
    messageTimestampAfterMaxMs: b.messageTimestampAfterMaxMs,
    messageFormatVersion: b.messageFormatVersion,
    preallocate: b.preallocate,
  };
}

/**
 * A LogConfig from Kafka's topic properties (`segment.bytes`, `retention.ms`, ...) over the
 * defaults (or `base`). Unknown names and values Kafka's validators refuse raise InvalidConfigError
 * naming the property. Kafka topic configs kafkalite does not model (min.insync.replicas, remote
 * storage, throttled replicas, ...) are accepted by name and ignored.
 */
export function logConfigFromProperties(props: Readonly<Record<string, string>>, base: Readonly<LogConfig> = DEFAULT_LOG_CONFIG): LogConfig {
  const c: LogConfig = copyLogConfig(base);
  for (const name of Object.keys(props)) {
    if (!KNOWN_TOPIC_CONFIGS.has(name)) throw new InvalidConfigError(`Unknown topic config name: ${name}`);
  }
  const get = (name: string): string | undefined => {
    const v = props[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw invalid(name, String(v), 'Expected a string value');
    return v;
  };
  const num = (name: string, f: (raw: string) => number, set: (v: number) => void): void => {
    const raw = get(name);
    if (raw !== undefined) set(f(raw));
  };
  const big = (name: string, f: (raw: string) => bigint, set: (v: bigint) => void): void => {
    const raw = get(name);
    if (raw !== undefined) set(f(raw));
  };

  num('segment.bytes', (r) => parseInt32('segment.bytes', r, 14), (v) => (c.segmentBytes = v));
  big('segment.ms', (r) => parseLong('segment.ms', r, 1n), (v) => (c.segmentMs = Number(v)));
  big('segment.jitter.ms', (r) => parseLong('segment.jitter.ms', r, 0n), (v) => (c.segmentJitterMs = Number(v)));
  num('segment.index.bytes', (r) => parseInt32('segment.index.bytes', r, 4), (v) => (c.segmentIndexBytes = v));
  num('index.interval.bytes', (r) => parseInt32('index.interval.bytes', r, 0), (v) => (c.indexIntervalBytes = v));
  big('flush.messages', (r) => parseLong('flush.messages', r, 1n), (v) => (c.flushMessages = v));
  big('flush.ms', (r) => parseLong('flush.ms', r, 0n), (v) => (c.flushMs = v));
  big('retention.ms', (r) => parseLong('retention.ms', r, -1n), (v) => (c.retentionMs = Number(v)));
  big('retention.bytes', (r) => parseLong('retention.bytes', r), (v) => (c.retentionBytes = Number(v)));
  const cleanup = get('cleanup.policy');
  if (cleanup !== undefined) c.cleanupPolicy = parseCleanupPolicy(cleanup);
  big('delete.retention.ms', (r) => parseLong('delete.retention.ms', r, 0n), (v) => (c.deleteRetentionMs = Number(v)));
  big('min.compaction.lag.ms', (r) => parseLong('min.compaction.lag.ms', r, 0n), (v) => (c.minCompactionLagMs = Number(v)));
  big('max.compaction.lag.ms', (r) => parseLong('max.compaction.lag.ms', r, 1n), (v) => (c.maxCompactionLagMs = Number(v)));
  num('min.cleanable.dirty.ratio', (r) => parseDouble('min.cleanable.dirty.ratio', r, 0, 1), (v) => (c.minCleanableDirtyRatio = v));
  big('file.delete.delay.ms', (r) => parseLong('file.delete.delay.ms', r, 0n), (v) => (c.fileDeleteDelayMs = Number(v)));
  num('max.message.bytes', (r) => parseInt32('max.message.bytes', r, 0), (v) => (c.maxMessageBytes = v));
  const compression = get('compression.type');
  if (compression !== undefined) {
    c.compressionType = parseOneOf('compression.type', compression, ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer']);
  }
  const gzipLevel = get('compression.gzip.level');
  if (gzipLevel !== undefined) {
    const v = parseInt32('compression.gzip.level', gzipLevel);
    if (v > 9 || (v < 1 && v !== -1)) throw invalid('compression.gzip.level', gzipLevel, 'Value must be between 1 and 9 or equal to -1');
    c.compressionGzipLevel = v;
  }
  num('compression.lz4.level', (r) => parseInt32('compression.lz4.level', r, 1, 17), (v) => (c.compressionLz4Level = v));
  num('compression.zstd.level', (r) => parseInt32('compression.zstd.level', r, -131072, 22), (v) => (c.compressionZstdLevel = v));
  const tsType = get('message.timestamp.type');
  if (tsType !== undefined) c.messageTimestampType = parseOneOf('message.timestamp.type', tsType, ['CreateTime', 'LogAppendTime']);

  // The deprecated difference.max.ms stands in for before/after when they are not set (LogConfig.getMessageTimestamp*MaxMs).
  let difference: bigint | undefined;
  big('message.timestamp.difference.max.ms', (r) => parseLong('message.timestamp.difference.max.ms', r, 0n), (v) => (difference = v));
  const before = get('message.timestamp.before.max.ms');
  const after = get('message.timestamp.after.max.ms');
  if (before !== undefined) c.messageTimestampBeforeMaxMs = parseLong('message.timestamp.before.max.ms', before, 0n);
  else if (difference !== undefined) c.messageTimestampBeforeMaxMs = difference;
  if (after !== undefined) c.messageTimestampAfterMaxMs = parseLong('message.timestamp.after.max.ms', after, 0n);
  else if (difference !== undefined) c.messageTimestampAfterMaxMs = difference;

  const format = get('message.format.version');
  if (format !== undefined) {
    const v = format.trim();
    if (metadataVersionIndex(v) === undefined) throw invalid('message.format.version', format, `Version ${v} is not a valid version`);
    c.messageFormatVersion = v;
  }
  const preallocate = get('preallocate');
  if (preallocate !== undefined) c.preallocate = parseBoolean('preallocate', preallocate);

  // Kafka validates the types of the configs it does not use here as well.
  for (const name of ['local.retention.ms', 'local.retention.bytes'] as const) {
    const raw = get(name);
    if (raw !== undefined) parseLong(name, raw, -2n);
  }
  const isr = get('min.insync.replicas');
  if (isr !== undefined) parseInt32('min.insync.replicas', isr, 1);
  for (const name of ['unclean.leader.election.enable', 'message.downconversion.enable', 'remote.storage.enable', 'remote.log.copy.disable', 'remote.log.delete.on.disable'] as const) {
    const raw = get(name);
    if (raw !== undefined) parseBoolean(name, raw);
  }

  // LogConfig.validateValues
  if (c.minCompactionLagMs > c.maxCompactionLagMs) {
    throw new InvalidConfigError(
      `conflict topic config setting min.compaction.lag.ms (${c.minCompactionLagMs}) > max.compaction.lag.ms (${c.maxCompactionLagMs})`,
    );
  }
  return c;
}
