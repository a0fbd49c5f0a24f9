/**
 * Opening a partition log from its directory (Kafka `LogLoader`): temporary files removed and
 * interrupted swaps finished, the segments opened, the segments past the recovery point (or all of
 * them after an unclean shutdown) checked batch by batch and cut at the first bad one, then the log
 * start offset, log end offset and recovery point settled and the producer state rebuilt.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CorruptIndexError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { CLEANED_SUFFIX, DELETED_SUFFIX, INDEX_SUFFIX, LOG_SUFFIX, offsetFromFileName, offsetIndexPath, SWAP_END_SUFFIX, SWAP_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, txnIndexPath } from './file-names.js';
import type { LeaderEpochFileCache } from './leader-epoch-cache.js';
import { openSegment, segmentConfigOf, type LogSink } from './local-log.js';
import type { LogConfig } from './log-config.js';
import { createLogResources, type LogResources } from './log-resources.js';
import type { LogSegment } from './log-segment.js';
import type { ProducerStateManager, ProducerStateManagerOptions } from './producer-state.js';
import { producerStateUpTo, rebuildProducerState, replayBatch } from './producer-state-rebuild.js';
import { completeInterruptedSwaps } from './segment-swap.js';

/** What recovery cut from a segment (reported through the API and the logs). */
export interface RecoveryReport {
  segment: string;
  /** First byte removed. */
  position: number;
  bytesTruncated: number;
}

export interface LogLoaderOptions {
  /** From recovery-point-offset-checkpoint; 0 when absent. */
  recoveryPoint?: bigint;
  /** From log-start-offset-checkpoint. */
  logStartOffset?: bigint;
  /** The data directory had a `.kafka_cleanshutdown` marker: skip recovery. */
  hadCleanShutdown?: boolean;
  /** Where recovery says what it did (Kafka logs these at WARN). */
  logger?: LogSink;
  /** producer.id.expiration.ms (default 86400000). */
  producerIdExpirationMs?: number;
  /** Its data directory's budgets and flush mode (log-resources.ts, from the LogManager); its own when not given. */
  resources?: LogResources;
  /**
   * The log's directory was just made and holds no segment (Kafka `LogManager.getOrCreateLog` with
   * `isNew`): nothing is listed or read, and the first segment's files are created without looking
   * for existing ones (issue 21: CreateTopics' cost per partition).
   */
  isNew?: boolean;
}

/** The loaded log (Kafka `LoadedLogOffsets` and the segments): what the log starts from. */
export interface LoadedLog {
  /** In offset order, never empty. */
  segments: LogSegment[];
  logStartOffset: bigint;
  logEndOffset: bigint;
  recoveryPoint: bigint;
  recoveryReports: RecoveryReport[];
  producerStateManager: ProducerStateManager;
}

export class LogLoader {
  private readonly segments: LogSegment[] = [];
  private readonly recoveryReports: RecoveryReport[] = [];

  constructor(
    private readonly dir: string,
    private readonly config: LogConfig,
    private readonly time: () => number,
    /** The log's leader-epoch cache: recovery assigns the epochs it finds, loading truncates it to the log. */
    private readonly leaderEpochCache: LeaderEpochFileCache,
    private readonly options: LogLoaderOptions,
  ) {
    this.resources = options.resources ?? createLogResources();
  }

  private readonly resources: LogResources;

  load(): LoadedLog {
    const { options } = this;
    // one listing of the directory for what loading needs (issue 21: a start lists every partition
    // directory, and it listed each several times); only a directory holding leftovers of a
    // deletion or of the cleaner's swap pays for the passes that finish them, and is listed again
    let names = options.isNew === true ? [] : readdirSync(this.dir);
    if (names.some((n) => n.endsWith(DELETED_SUFFIX))) this.removeTempFiles(names);
    if (names.some((n) => n.endsWith(CLEANED_SUFFIX) || n.endsWith(SWAP_SUFFIX) || n.endsWith(SWAP_END_SUFFIX))) {
      completeInterruptedSwaps(this.dir, segmentConfigOf(this.config), this.resources);
      names = readdirSync(this.dir);
    } else if (names.some((n) => n.endsWith(DELETED_SUFFIX))) {
      names = readdirSync(this.dir);
    }
    const needsRecovery = this.openSegments(names);

    const recoveryPoint = options.recoveryPoint ?? 0n;
    const clean = options.hadCleanShutdown ?? false;
    const psmOptions = this.producerStateOptions();
    // producer state while recovering: loaded up to the first recovered segment, then replayed
    // batch by batch, so each segment's .txnindex is rebuilt as Kafka's LogSegment.recover does.
    // A segment skipped (flushed, its indexes whole) ends that run: the next recovered segment
    // loads the state up to its own base again, over the skipped batches (Kafka builds a fresh
    // ProducerStateManager for each segment it recovers, LogLoader.recoverSegment)
    let recoveryState: ProducerStateManager | undefined;
    let anyRecovered = false;
    for (let i = 0; i < this.segments.length; i++) {
      const segment = this.segments[i]!;
      const nextBase = this.segments[i + 1]?.baseOffset;
      const unflushed = !clean && (nextBase === undefined || nextBase > recoveryPoint);
      if (!unflushed && !needsRecovery.has(segment.baseOffset)) {
        recoveryState = undefined;
        continue;
      }
      anyRecovered = true;
      recoveryState ??= producerStateUpTo(this.dir, this.segments, segment.baseOffset, options.logStartOffset ?? 0n, psmOptions);
      const state = recoveryState;
      const before = segment.size;
      const truncated = segment.recover((batch) => {
        this.recoverLeaderEpoch(batch);
        replayBatch(state, batch, segment);
      });
      state.updateMapEndOffset(segment.readNextOffset());
      state.takeSnapshot(false);
      if (truncated > 0) {
        this.recoveryReports.push({ segment: segment.log.path, position: before - truncated, bytesTruncated: truncated });
        options.logger?.(
          'warn',
          `Found invalid messages in log segment ${segment.log.path} at byte offset ${before - truncated}: truncated ${truncated} bytes`,
        );
        // a flushed segment rebuilt for its missing index keeps the segments after it (Kafka's
        // LogLoader.loadSegmentFiles recovers it alone); after damage in the unflushed part of the
        // log, everything after it is unreliable and goes (LogLoader.recoverLog)
        if (!unflushed) continue;
        for (const later of this.segments.splice(i + 1)) {
          this.recoveryReports.push({ segment: later.log.path, position: 0, bytesTruncated: later.size });
          options.logger?.('warn', `Deleting segment ${later.log.path} after the corruption found in ${segment.log.path}`);
          later.deleteFiles();
        }
        break;
      }
    }

    if (this.segments.length === 0) this.segments.push(this.newSegment(options.logStartOffset ?? 0n));
    let logEndOffset = this.segments[this.segments.length - 1]!.readNextOffset();
    const checkpointedStart = options.logStartOffset ?? 0n;
    if (logEndOffset < checkpointedStart) {
      for (const s of this.segments.splice(0)) s.deleteFiles();
      this.segments.push(this.newSegment(checkpointedStart));
      logEndOffset = checkpointedStart;
    }
    const logStartOffset = checkpointedStart > this.segments[0]!.baseOffset ? checkpointedStart : this.segments[0]!.baseOffset;
    const active = this.segments[this.segments.length - 1]!;
    active.offsetIndex.growOnFirstAppend(this.config.segmentIndexBytes);
    active.timeIndex.growOnFirstAppend(this.config.segmentIndexBytes);
    this.leaderEpochCache.truncateFromEnd(logEndOffset);
    this.leaderEpochCache.truncateFromStart(logStartOffset);
    // nothing recovered: the listing above still holds the directory's snapshots
    const listed = anyRecovered ? psmOptions : { ...psmOptions, listing: names };
    const producerStateManager = rebuildProducerState(this.dir, this.segments, logStartOffset, logEndOffset, this.config, clean, listed);
    return {
      segments: this.segments,
      logStartOffset,
      logEndOffset,
      recoveryPoint: clean ? logEndOffset : recoveryPoint < logEndOffset ? recoveryPoint : logEndOffset,
      recoveryReports: this.recoveryReports,
      producerStateManager,
    };
  }

  private newSegment(baseOffset: bigint): LogSegment {
    return openSegment(this.dir, this.config, this.time, this.resources, baseOffset, true, this.options.isNew === true && this.segments.length === 0);
  }

  private producerStateOptions(): ProducerStateManagerOptions & { time: () => number } {
    return {
      time: this.time,
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.producerIdExpirationMs !== undefined ? { producerIdExpirationMs: this.options.producerIdExpirationMs } : {}),
    };
  }

  /** `.deleted` files (not checkpoint files being replaced) go: a deletion the last run left undone. */
  private removeTempFiles(names: string[]): void {
    for (const name of names) {
      if (!name.endsWith(DELETED_SUFFIX) || name.endsWith('.checkpoint' + DELETED_SUFFIX)) continue;
      const path = join(this.dir, name);
      if (statSync(path).isFile()) rmSync(path, { force: true });
    }
  }

  /**
   * Opens the `.log` files in offset order, after removing indexes whose log is gone; returns the
   * bases of the segments without an offset index, which recovery rebuilds.
   */
  private openSegments(listed: string[]): Set<bigint> {
    const needsRecovery = new Set<bigint>();
    const names = new Set(listed);
    for (const name of [...names].sort()) {
      const isIndex = name.endsWith(INDEX_SUFFIX) || name.endsWith(TIME_INDEX_SUFFIX) || name.endsWith(TXN_INDEX_SUFFIX);
      if (isIndex && !names.has(name.slice(0, name.indexOf('.')) + LOG_SUFFIX)) {
        rmSync(join(this.dir, name), { force: true }); // an index without its log is stale
        names.delete(name);
      }
    }
    for (const name of [...names].sort()) {
      if (!name.endsWith(LOG_SUFFIX)) continue;
      const baseOffset = offsetFromFileName(name);
      const segment = openSegment(this.dir, this.config, this.time, this.resources, baseOffset, false);
      this.segments.push(segment);
      if (!names.has(basename(offsetIndexPath(this.dir, baseOffset)))) {
        needsRecovery.add(baseOffset);
      } else if (names.has(basename(txnIndexPath(this.dir, baseOffset)))) {
        // LogSegment.sanityCheck at load checks the transaction index alone (the offset and time
        // indexes of unflushed segments are rebuilt anyway): an aborted transaction ending below
        // the segment's base is CorruptIndexException, and the segment is recovered
        // (LogLoader.loadSegmentFiles), where a read_committed fetch would list that bogus entry
        try {
          segment.txnIndex.sanityCheck();
        } catch (e) {
          if (!(e instanceof CorruptIndexError)) throw e;
          this.options.logger?.('warn', `Found a corrupted index file ${segment.txnIndex.path}: ${e.detail}; rebuilding the segment's indexes`);
          needsRecovery.add(baseOffset);
        }
      }
    }
    return needsRecovery;
  }

  /** Recovery keeps the leader-epoch cache: an epoch above the latest starts at its batch. */
  private recoverLeaderEpoch(batch: AnyRecordBatch): void {
    if (batch.kind === 'v2' && batch.partitionLeaderEpoch >= 0) {
      const latest = this.leaderEpochCache.latestEpoch();
      if (latest === undefined || batch.partitionLeaderEpoch > latest) {
        this.leaderEpochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
      }
    }
  }
}
