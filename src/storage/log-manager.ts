/**
 * A data directory (Kafka `LogManager`, one log dir, single node): the lock, `meta.properties`,
 * the clean-shutdown marker, the offset checkpoints, and one `PartitionLog` per `<topic>-<partition>`
 * directory (Kafka `LogManager.loadLogs`, `LogLoader`).
 *
 * Opening consumes `.kafka_cleanshutdown` (its presence skips recovery, as in Kafka); closing
 * flushes every log, writes the checkpoints and then the marker.
 *
 * The page-cache and index-cache budgets, the batch read buffer and the flush mode belong to the
 * manager (`resources`, log-resources.ts), shared by its logs only: two managers in one process,
 * e.g. two brokers, keep separate budgets.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { readOffsetCheckpoint, stageOffsetCheckpoint, writeOffsetCheckpoint, type TopicPartitionOffset } from './checkpoint.js';
import { consumeCleanShutdownFile, writeCleanShutdownFile } from './clean-shutdown.js';
import {
  LOG_START_OFFSET_CHECKPOINT_FILE,
  LOG_SUFFIX,
  META_PROPERTIES_FILE,
  PARTITION_METADATA_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
} from './file-names.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from './log-config.js';
import { fsyncDirSync, makeDirectory } from './fs-util.js';
import { readMetaProperties, writeMetaProperties } from './meta-properties.js';
import { readPartitionMetadata, writeNewPartitionMetadata, writePartitionMetadata } from './partition-metadata.js';
import { checkBudgetWithinLimit, outOfDescriptors, processOpenFileLimit } from './descriptor-budget.js';
import { createLogResources, type LogResourceOptions, type LogResources } from './log-resources.js';
import { lockDataDir, type DirLock, type DirLockAddon } from './dir-lock.js';
import { PartitionLog, type LogSink } from './partition-log.js';
import { removePath } from './background-delete.js';
import { CLUSTER_METADATA_TOPIC, deleteDirName, partitionDirName, parseTopicPartitionName, validateTopicName } from './topic.js';
import { randomUuid } from './uuid.js';

const META_PROPERTIES = META_PROPERTIES_FILE;
const RECOVERY_POINT_CHECKPOINT = RECOVERY_POINT_CHECKPOINT_FILE;
const LOG_START_OFFSET_CHECKPOINT = LOG_START_OFFSET_CHECKPOINT_FILE;
const REPLICATION_OFFSET_CHECKPOINT = REPLICATION_OFFSET_CHECKPOINT_FILE;
const PARTITION_METADATA = PARTITION_METADATA_FILE;

/** `pageCacheBudgetBytes`, `indexCacheBudgetBytes` and `backgroundFlush` are checked before the directory is touched. */
export interface LogManagerOptions extends LogResourceOptions {
  /** Config for logs without their own (Kafka's broker-level defaults). */
  defaultConfig?: LogConfig;
  /**
   * Per-topic overrides; or a function giving them once the directory is locked and before any log
   * loads (the broker reads them from the KRaft metadata log, which it opens there).
   */
  topicConfigs?: Map<string, LogConfig> | ((manager: LogManager) => Map<string, LogConfig>);
  nodeId?: number;
  time?: () => number;
  logger?: LogSink;
  /** Tests: the lock's implementation (`undefined`: the pid fallback). Defaults to the native addon. */
  lockAddon?: DirLockAddon;
  /**
   * After a clean shutdown, a log is opened at its first use (`getLog`) instead of at start: a
   * start then reads the checkpoints and the directory listing only (issue 21). After an unclean
   * one every log is opened, and recovered past its recovery point, before the manager is
   * returned, as Kafka's LogManager.loadLogs does. The broker sets it; offline tools load all.
   */
  openLogsAtFirstUse?: boolean;
}

/**
 * A partition directory found at a clean start and not opened yet: what the checkpoints said of it,
 * which is what a checkpoint writes for it until it is opened (its files are unchanged since the
 * clean shutdown, so its high watermark is its recovery point, the log end then).
 */
interface UnopenedLog {
  readonly topic: string;
  readonly partition: number;
  readonly dir: string;
  readonly recoveryPoint: bigint | undefined;
  readonly logStartOffset: bigint | undefined;
  /** The `.log` files' bytes, listed once: nothing writes to a log until it opens. */
  size?: number;
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class LogManager {
  /** The logs opened (`allLogs`). */
  private readonly logs = new Map<string, PartitionLog>();
  /** The logs found at a clean start and not used since (`openLogsAtFirstUse`), in directory order. */
  private readonly unopened = new Map<string, UnopenedLog>();
  /**
   * The last getLog answer: request after request, a Produce or Fetch stream names the same
   * partition, and building its key string and hashing it cost more than the lookup itself.
   */
  private lastTopic: string | undefined;
  private lastPartition = -1;
  private lastLog: PartitionLog | undefined;
  private removedLogs = 0;
  /**
   * Each topic's partitions on disk, opened or not, so that a topic's id is found without a walk
   * over every log: per partition created, that walk made creating N partitions cost N² (issue 21).
   */
  private readonly topicLogs = new Map<string, Set<number>>();
  /**
   * The topic's current config (the broker's topic registry): what a log opened at first use gets,
   * since dynamic configs may have changed it after the start.
   */
  configSource: ((topic: string) => LogConfig | undefined) | undefined;
  /** Topic ids read from or written to a `partition.metadata` of the topic's live logs. */
  private readonly topicIds = new Map<string, string>();
  private readonly dirLock: DirLock;
  readonly hadCleanShutdown: boolean;
  readonly clusterId: string;
  /** meta.properties' directory.id (KIP-858); undefined in a directory written before it. */
  readonly directoryId: string | undefined;
  readonly nodeId: number;
  /** Files kept beside the logs (the KRaft metadata log): closed with them, before the clean-shutdown marker. */
  private readonly attached: { close(): void; closeUnclean(): void }[] = [];
  private topicConfigs: Map<string, LogConfig> | undefined;
  /** What this manager's logs share: budgets, scratch, flush mode (log-resources.ts). */
  readonly resources: LogResources;

  private constructor(
    readonly dir: string,
    private readonly options: LogManagerOptions,
  ) {
    if (options.openFileBudget !== undefined) checkBudgetWithinLimit(options.openFileBudget, processOpenFileLimit());
    this.resources = createLogResources({ ...options, backgroundDelete: options.backgroundDelete ?? true, mappedTail: options.mappedTail ?? true, logDir: dir });
    mkdirSync(dir, { recursive: true });
    const warn = (message: string) => options.logger?.('warn', message);
    this.dirLock = lockDataDir(dir, 'lockAddon' in options ? { addon: options.lockAddon, warn } : { warn });
    const metaPath = join(dir, META_PROPERTIES);
    this.nodeId = options.nodeId ?? 1;
    if (existsSync(metaPath)) {
      const meta = readMetaProperties(metaPath);
      this.clusterId = meta.clusterId ?? '';
      this.directoryId = meta.directoryId;
    } else {
      this.clusterId = randomUuid();
      this.directoryId = randomUuid();
      writeMetaProperties(metaPath, { clusterId: this.clusterId, nodeId: this.nodeId, directoryId: this.directoryId });
    }
    this.hadCleanShutdown = consumeCleanShutdownFile(dir);
  }

  /** Opens (creating if needed) a data directory and loads every partition log in it. */
  static open(dir: string, options: LogManagerOptions = {}): LogManager {
    const manager = new LogManager(dir, options);
    try {
      manager.loadLogs();
    } catch (e) {
      // never a half-loaded directory: what was opened is closed and the lock released, and
      // running out of descriptors midway is one error naming the limit (issue 21)
      manager.closeUnclean();
      throw outOfDescriptors(e);
    }
    return manager;
  }

  /** Set by the owner of a KRaft metadata log, which restores lost `partition.metadata` files at load. */
  partitionMetadataRepaired = false;

  /**
   * After an unclean shutdown: rewrites a partition's `partition.metadata` that is missing or
   * unreadable (written without fsync at its creation) with the id the metadata log recorded.
   */
  repairPartitionMetadata(topic: string, partition: number, topicId: string): void {
    if (!this.hasLog(topic, partition)) return;
    const path = join(this.partitionDir(topic, partition), PARTITION_METADATA);
    try {
      const found = readPartitionMetadata(path).topicId;
      // another id is a conflict for the operator (Kafka: InconsistentTopicIdException), not repaired
      if (found !== topicId) this.options.logger?.('warn', `${path} holds topic id ${found}, the metadata log ${topicId}`);
      return;
    } catch {
      // missing or torn: rewritten below
    }
    this.options.logger?.('warn', `Rewriting ${path} with the topic id of the metadata log (${topicId})`);
    writePartitionMetadata(path, topicId);
  }

  /** Closes `resource` with the logs (close, or closeUnclean). */
  attach(resource: { close(): void; closeUnclean(): void }): void {
    this.attached.push(resource);
  }

  private configFor(topic: string): LogConfig {
    return this.configSource?.(topic) ?? this.topicConfigs?.get(topic) ?? this.options.defaultConfig ?? DEFAULT_LOG_CONFIG;
  }

  private checkpointMap(name: string): Map<string, bigint> {
    const map = new Map<string, bigint>();
    try {
      for (const e of readOffsetCheckpoint(join(this.dir, name))) map.set(key(e.topic, e.partition), e.offset);
    } catch {
      // Kafka treats an unreadable recovery-point / log-start checkpoint as empty (warn and reset)
    }
    return map;
  }

  private loadLogs(): void {
    const configs = this.options.topicConfigs;
    this.topicConfigs = typeof configs === 'function' ? configs(this) : configs;
    const recoveryPoints = this.checkpointMap(RECOVERY_POINT_CHECKPOINT);
    const logStarts = this.checkpointMap(LOG_START_OFFSET_CHECKPOINT);
    const lazy = this.options.openLogsAtFirstUse === true && this.hadCleanShutdown;
    // the entries' types come with the listing (no stat per partition) where the file system gives them
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      const name = entry.name;
      const path = join(this.dir, name);
      // Kafka's LogManager skips the tiered-storage cache and the KRaft metadata log (LogManager.loadLogs)
      if (!isDirectory(entry, path) || name === 'remote-log-index-cache' || name === `${CLUSTER_METADATA_TOPIC}-0`) continue;
      let tp;
      try {
        tp = parseTopicPartitionName(name);
      } catch {
        continue; // not a partition directory
      }
      if (tp.kind === 'delete') {
        // a deletion a crash cut short (renamed, not yet removed): finished now, as Kafka's
        // LogManager.loadLogs hands such directories to its deleter
        removePath(this.resources.removals, path, true);
        continue;
      }
      if (tp.kind !== 'normal') continue; // -future / -stray are not loaded as live logs
      const k = key(tp.topic, tp.partition);
      const rp = recoveryPoints.get(k);
      const ls = logStarts.get(k);
      if (lazy) {
        this.unopened.set(k, { topic: tp.topic, partition: tp.partition, dir: path, recoveryPoint: rp, logStartOffset: ls });
        this.addPartition(tp.topic, tp.partition);
        continue;
      }
      this.addLog(
        k,
        PartitionLog.open(path, tp.topic, tp.partition, {
          config: this.configFor(tp.topic),
          hadCleanShutdown: this.hadCleanShutdown,
          ...(rp !== undefined ? { recoveryPoint: rp } : {}),
          ...(ls !== undefined ? { logStartOffset: ls } : {}),
          ...(this.options.time ? { time: this.options.time } : {}),
          ...(this.options.logger ? { logger: this.options.logger } : {}),
          resources: this.resources,
        }),
      );
    }
  }

  /** The partition's log, opened now if it was not yet (`openLogsAtFirstUse`). */
  getLog(topic: string, partition: number): PartitionLog | undefined {
    if (partition === this.lastPartition && topic === this.lastTopic) return this.lastLog;
    const k = key(topic, partition);
    const log = this.logs.get(k) ?? this.openAtFirstUse(k);
    if (log !== undefined) {
      this.lastTopic = topic;
      this.lastPartition = partition;
      this.lastLog = log;
    }
    return log;
  }

  /** The partition's log if it is open; never opens one (config changes, which the open takes from `configSource`). */
  openedLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(key(topic, partition));
  }

  /** Whether the partition has a log here, opened or not. */
  hasLog(topic: string, partition: number): boolean {
    const k = key(topic, partition);
    return this.logs.has(k) || this.unopened.has(k);
  }

  /** Every partition with a log here, opened or not. */
  logPartitions(): { topic: string; partition: number }[] {
    const out: { topic: string; partition: number }[] = [];
    for (const [topic, partitions] of this.topicLogs) for (const partition of partitions) out.push({ topic, partition });
    return out;
  }

  /** Logs found at start and not opened yet. */
  get unopenedCount(): number {
    return this.unopened.size;
  }

  /**
   * The partition's size in bytes (DescribeLogDirs) without opening it: an unopened log's `.log`
   * files as the clean shutdown left them (trimmed to their records).
   */
  logSize(topic: string, partition: number): number | undefined {
    const k = key(topic, partition);
    const log = this.logs.get(k);
    if (log !== undefined) return log.size;
    const u = this.unopened.get(k);
    if (u === undefined) return undefined;
    if (u.size === undefined) {
      // once per log: DescribeLogDirs over 100k unopened logs would otherwise list them all per request
      let size = 0;
      for (const name of readdirSync(u.dir)) if (name.endsWith(LOG_SUFFIX)) size += statSync(join(u.dir, name)).size;
      u.size = size;
    }
    return u.size;
  }

  /**
   * Opens logs not used since the start for at most `budgetMs` (the broker's background warm-up, so
   * that retention, the cleaner and producer expiry, which walk the open logs, reach every log
   * within minutes of a start); returns how many are left.
   */
  openNext(budgetMs: number): number {
    const until = performance.now() + budgetMs;
    for (const k of this.unopened.keys()) {
      this.openAtFirstUse(k);
      if (performance.now() >= until) break;
    }
    return this.unopened.size;
  }

  /** Opens every log not opened yet and returns all logs. */
  openAll(): PartitionLog[] {
    for (const k of [...this.unopened.keys()]) this.openAtFirstUse(k);
    return this.allLogs();
  }

  private openAtFirstUse(k: string): PartitionLog | undefined {
    const u = this.unopened.get(k);
    if (u === undefined) return undefined;
    // a log that cannot be opened takes the directory offline, as a failed load would (log-dir-failure.ts)
    const log = this.resources.logDirFailure.guard(u.dir, () =>
      PartitionLog.open(u.dir, u.topic, u.partition, {
        config: this.configFor(u.topic),
        // only a clean start leaves logs unopened, and their files are as that shutdown left them
        hadCleanShutdown: true,
        ...(u.recoveryPoint !== undefined ? { recoveryPoint: u.recoveryPoint } : {}),
        ...(u.logStartOffset !== undefined ? { logStartOffset: u.logStartOffset } : {}),
        ...(this.options.time ? { time: this.options.time } : {}),
        ...(this.options.logger ? { logger: this.options.logger } : {}),
        resources: this.resources,
      }),
    );
    this.unopened.delete(k);
    this.logs.set(k, log);
    return log;
  }

  /** Returns the partition's log, creating its directory if needed (topic names validated first). */
  getOrCreateLog(topic: string, partition: number, config?: LogConfig): PartitionLog {
    validateTopicName(topic);
    if (!Number.isInteger(partition) || partition < 0) throw new StorageError(`Invalid partition ${partition}`);
    const existing = this.getLog(topic, partition);
    if (existing) return existing;
    return this.resources.logDirFailure.guard(join(this.dir, partitionDirName(topic, partition)), () => this.createLog(topic, partition, config));
  }

  private createLog(topic: string, partition: number, config?: LogConfig): PartitionLog {
    const path = join(this.dir, partitionDirName(topic, partition));
    // a directory made here is new (Kafka `getOrCreateLog(isNew)`): nothing in it is looked for;
    // one found (left by a crash, or by hand) is loaded as it is
    const isNew = makeDirectory(path);
    // every partition of a topic shares the topic id (Kafka writes partition.metadata before data)
    const metadataPath = join(path, PARTITION_METADATA);
    if (isNew || !existsSync(metadataPath)) {
      const topicId = this.topicId(topic);
      if (isNew && this.partitionMetadataRepaired) {
        // written in place, without fsyncs or the atomic rename: the KRaft metadata log holds the
        // id and a load after a crash rewrites a missing or torn file (`repairPartitionMetadata`);
        // the fsyncs were most of a creation's time, the rename a syscall more (issue 21)
        writeNewPartitionMetadata(metadataPath, topicId);
      } else {
        writePartitionMetadata(metadataPath, topicId, !this.partitionMetadataRepaired);
      }
      this.topicIds.set(topic, topicId);
    }
    const log = PartitionLog.open(path, topic, partition, {
      config: config ?? this.configFor(topic),
      hadCleanShutdown: true,
      isNew,
      ...(this.options.time ? { time: this.options.time } : {}),
      resources: this.resources,
    });
    this.addLog(key(topic, partition), log);
    return log;
  }

  /** Creates the partition's log unless it has one (opened or not); opens nothing. */
  ensureLog(topic: string, partition: number, config?: LogConfig): void {
    if (!this.hasLog(topic, partition)) this.getOrCreateLog(topic, partition, config);
  }

  private addLog(k: string, log: PartitionLog): void {
    this.forgetLastLookup();
    this.logs.set(k, log);
    this.addPartition(log.topic, log.partition);
  }

  private addPartition(topic: string, partition: number): void {
    let partitions = this.topicLogs.get(topic);
    if (partitions === undefined) this.topicLogs.set(topic, (partitions = new Set()));
    partitions.add(partition);
  }

  /**
   * How many logs were removed so far: a log a caller kept from `getLog` is still this manager's
   * while the count is unchanged (logs are only ever added otherwise), so a hot caller can keep it
   * instead of looking it up by name every time (the transaction coordinator's state topic).
   */
  get removedLogCount(): number {
    return this.removedLogs;
  }

  /** The last getLog answer changes with the map. */
  private forgetLastLookup(): void {
    this.lastTopic = undefined;
    this.lastPartition = -1;
    this.lastLog = undefined;
  }

  private removeLog(k: string, topic: string, partition: number): void {
    this.forgetLastLookup();
    this.removedLogs++;
    this.logs.delete(k);
    this.unopened.delete(k);
    const partitions = this.topicLogs.get(topic);
    partitions?.delete(partition);
    if (partitions === undefined || partitions.size === 0) {
      this.topicLogs.delete(topic);
      this.topicIds.delete(topic); // a topic created again under this name gets a new id
    }
  }

  /**
   * Fixes the id a topic's logs are created with when none of them is loaded (the KRaft metadata
   * log knows the topic, its directories are missing): they must carry the id it recorded.
   */
  assignTopicId(topic: string, topicId: string): void {
    if (!this.topicIds.has(topic) && (this.topicLogs.get(topic)?.size ?? 0) === 0) this.topicIds.set(topic, topicId);
  }

  /** The topic's id: the one its existing partitions recorded, or a new random one. */
  topicId(topic: string): string {
    const known = this.topicIds.get(topic);
    if (known !== undefined) return known;
    for (const partition of this.topicLogs.get(topic) ?? []) {
      const path = join(this.partitionDir(topic, partition), PARTITION_METADATA);
      if (!existsSync(path)) continue;
      const topicId = readPartitionMetadata(path).topicId;
      this.topicIds.set(topic, topicId);
      return topicId;
    }
    return randomUuid();
  }

  /**
   * Deletes a partition as Kafka's `LogManager.asyncDelete` does: close it, rename its directory to
   * `<topic>-<partition>.<id>-delete` (so a restart never loads it again), then remove the files.
   */
  deleteLog(topic: string, partition: number): boolean {
    if (!this.hasLog(topic, partition)) return false;
    this.resources.logDirFailure.checkBeforeChange();
    const dir = this.partitionDir(topic, partition);
    return this.resources.logDirFailure.guard(dir, () => this.deleteLogFiles(dir, topic, partition));
  }

  /**
   * The directory a partition's log was loaded from, opened or not: Kafka's name parsing reads
   * `t-01` as partition 1, so the name is not always `partitionDirName`'s.
   */
  private partitionDir(topic: string, partition: number): string {
    const k = key(topic, partition);
    return this.logs.get(k)?.dir ?? this.unopened.get(k)?.dir ?? join(this.dir, partitionDirName(topic, partition));
  }

  private deleteLogFiles(dir: string, topic: string, partition: number): boolean {
    const k = key(topic, partition);
    const log = this.logs.get(k);
    this.removeLog(k, topic, partition);
    log?.close(); // a log never opened has nothing to close
    const target = join(this.dir, deleteDirName(topic, partition));
    renameSync(dir, target);
    fsyncDirSync(this.dir);
    removePath(this.resources.removals, target, true);
    return true;
  }

  /** The open logs: those found at a clean start and not used since are not among them (`logPartitions`). */
  allLogs(): PartitionLog[] {
    return [...this.logs.values()];
  }

  /**
   * Resolves once the removals of deleted files started so far (background-delete.ts) are done:
   * the broker's close waits for them, so that nothing of its directory changes after it.
   */
  async removalsDone(): Promise<void> {
    await this.resources.removals?.settled();
  }

  /** Writes the recovery-point, log-start-offset and high-watermark checkpoints. */
  checkpoint(): void {
    // a background checkpoint in progress holds older offsets: it must not rename them over these
    this.checkpointsWritten++;
    this.resources.logDirFailure.guard(this.dir, () => this.writeCheckpoints());
  }

  /** Refuses (KAFKA_STORAGE_ERROR) once the directory is offline: for changes to it made outside its logs. */
  checkOnline(): void {
    this.resources.logDirFailure.checkBeforeChange();
  }

  /**
   * The periodic checkpoint, written on libuv's thread pool: Kafka's scheduler thread writes it
   * off the request threads, and here the three files' six fsyncs stopped the event loop for
   * 24-44 ms every minute (bench/README.md). The offsets are taken now. Kafka serialises its
   * checkpoint writers (CheckpointFile's lock); here a synchronous `checkpoint()` may run while
   * this one is on the thread pool, so the two never share a temporary file (stageFile's
   * `.background.tmp`), and this one renames each file on the event loop only if no synchronous
   * checkpoint was written since it took its offsets: the newer files are never replaced by older
   * ones, whichever write finishes first.
   */
  checkpointInBackground(): Promise<void> {
    if (this.checkpointWriting !== undefined) return this.checkpointWriting;
    const failure = this.resources.logDirFailure;
    failure.check();
    const files = this.checkpointContents();
    const takenAt = this.checkpointsWritten;
    const writing = (async () => {
      try {
        for (const [path, entries] of files) {
          const staged = await stageOffsetCheckpoint(path, entries);
          if (this.checkpointsWritten !== takenAt) await staged.discard();
          else await staged.commit();
        }
      } catch (e) {
        throw failure.caught(this.dir, e);
      } finally {
        this.checkpointWriting = undefined;
      }
    })();
    this.checkpointWriting = writing;
    return writing;
  }

  /** Settles once a background checkpoint in progress (if any) is written or failed. */
  async checkpointWritten(): Promise<void> {
    await this.checkpointWriting?.catch(() => undefined);
  }

  private checkpointWriting: Promise<void> | undefined;
  /** Synchronous checkpoints written so far: a background one taken before the last of them is stale. */
  private checkpointsWritten = 0;

  private writeCheckpoints(): void {
    for (const [path, entries] of this.checkpointContents()) writeOffsetCheckpoint(path, entries);
  }

  private checkpointContents(): [string, TopicPartitionOffset[]][] {
    const logs = this.allLogs();
    const recoveryPoints = logs.map((l) => ({ topic: l.topic, partition: l.partition, offset: l.recoveryPoint }));
    // only logs whose start moved past their first segment are listed (Kafka checkpointLogStartOffsetsInDir)
    const logStarts = logs.filter((l) => l.logStartOffset > l.segmentBaseOffsets()[0]!).map((l) => ({ topic: l.topic, partition: l.partition, offset: l.logStartOffset }));
    const highWatermarks = logs.map((l) => ({ topic: l.topic, partition: l.partition, offset: l.highWatermark }));
    // logs not opened since the clean start keep what the checkpoints said of them
    for (const u of this.unopened.values()) {
      if (u.recoveryPoint !== undefined) {
        recoveryPoints.push({ topic: u.topic, partition: u.partition, offset: u.recoveryPoint });
        highWatermarks.push({ topic: u.topic, partition: u.partition, offset: u.recoveryPoint });
      }
      if (u.logStartOffset !== undefined) logStarts.push({ topic: u.topic, partition: u.partition, offset: u.logStartOffset });
    }
    return [
      [join(this.dir, RECOVERY_POINT_CHECKPOINT), recoveryPoints],
      [join(this.dir, LOG_START_OFFSET_CHECKPOINT), logStarts],
      [join(this.dir, REPLICATION_OFFSET_CHECKPOINT), highWatermarks],
    ];
  }

  /** Clean shutdown: flush and close every log, write the checkpoints, then the marker. */
  close(brokerEpoch = 0n): void {
    for (const a of this.attached) a.close();
    for (const log of this.allLogs()) {
      log.flush();
      log.close();
    }
    this.checkpoint();
    // a late getLog (a timer, the console) must not open a log once the marker is written and the lock released
    this.unopened.clear();
    writeCleanShutdownFile(this.dir, brokerEpoch);
    this.unlock();
  }

  /** Closes files without the clean-shutdown marker, as a crash would leave things (tests; a broker whose held write failed). */
  closeUnclean(): void {
    for (const a of this.attached) {
      try {
        a.closeUnclean();
      } catch (e) {
        this.options.logger?.('warn', `Closing after the log directory failed: ${(e as Error).message}`);
      }
    }
    for (const log of this.allLogs()) {
      try {
        log.close();
      } catch (e) {
        // a failed directory (log-dir-failure.ts) may refuse the close's writes: the files are left
        // as they are, which the next start's recovery handles
        this.options.logger?.('warn', `Closing ${log.dir} after the log directory failed: ${(e as Error).message}`);
      }
    }
    this.unopened.clear();
    this.unlock();
  }

  private unlock(): void {
    this.resources.removals?.close();
    this.dirLock.release();
  }
}

/** Whether a listing's entry is a directory, with a stat only where the file system did not say. */
function isDirectory(entry: Dirent, path: string): boolean {
  if (entry.isDirectory()) return true;
  if (entry.isFile()) return false;
  return statSync(path).isDirectory(); // a symbolic link, or a type the listing left unknown
}
