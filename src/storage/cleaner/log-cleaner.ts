/**
 * The cleaner service (Kafka `LogCleaner` + `LogCleanerManager`, storage spec §11, §12, §16):
 * background "threads" that each pick the filthiest compacted log, clean it, record the new first
 * dirty offset in `cleaner-offset-checkpoint` and then apply retention to compact,delete logs; and
 * an explicit `compact(log)` that cleans one log now, whatever its dirty ratio.
 *
 * Node runs one JavaScript thread: each cleaner "thread" is a timer loop with its own Cleaner (its
 * own share of the dedupe buffer); a round runs synchronously between appends, so the swap never
 * races a writer. Logs being cleaned are marked in progress so two loops never take the same log.
 */
import { KafkaliteError } from '../../errors.js';
import type { LogSink, PartitionLog } from '../partition-log.js';
import { CleanerCheckpoint } from './cleaner-checkpoint.js';
import { filthiestLog, isCompacted, logToClean } from './cleanable-log.js';
import { Cleaner, type CleanProgress, type CleanResult } from './cleaner.js';

export interface LogCleanerConfig {
  /** log.cleaner.enable */
  enable: boolean;
  /** log.cleaner.threads */
  threads: number;
  /** log.cleaner.dedupe.buffer.size (shared by the threads) */
  dedupeBufferSize: number;
  /** log.cleaner.io.buffer.size (shared by the threads, half for reads) */
  ioBufferSize: number;
  /** log.cleaner.io.buffer.load.factor */
  ioBufferLoadFactor: number;
  /** log.cleaner.backoff.ms: sleep when no log needs cleaning */
  backoffMs: number;
}

export const DEFAULT_CLEANER_CONFIG: Readonly<LogCleanerConfig> = Object.freeze({
  enable: true,
  threads: 1,
  dedupeBufferSize: 134217728,
  ioBufferSize: 524288,
  ioBufferLoadFactor: 0.9,
  backoffMs: 15000,
});

export interface LogCleanerOptions {
  config?: Partial<LogCleanerConfig>;
  time?: () => number;
  logger?: LogSink;
}

const INT32_MAX = 0x7fffffff;
const logKey = (log: PartitionLog) => `${log.topic}\u0000${log.partition}`;

export class LogCleaner {
  readonly config: LogCleanerConfig;
  readonly checkpoint: CleanerCheckpoint;
  private readonly time: () => number;
  private readonly cleaners: Cleaner[] = [];
  private readonly inProgress = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private running = false;

  constructor(
    dataDir: string,
    private readonly logs: () => PartitionLog[],
    private readonly options: LogCleanerOptions = {},
  ) {
    this.config = { ...DEFAULT_CLEANER_CONFIG, ...options.config };
    this.time = options.time ?? Date.now;
    this.checkpoint = new CleanerCheckpoint(dataDir);
  }

  /** The cleaner for loop `i` (created on first use: the dedupe buffer is only allocated when needed). */
  private cleaner(i: number): Cleaner {
    const threads = Math.max(1, this.config.threads);
    this.cleaners[i] ??= new Cleaner({
      dedupeBufferSize: Math.min(Math.floor(this.config.dedupeBufferSize / threads), INT32_MAX),
      ioBufferSize: Math.max(1024, Math.floor(this.config.ioBufferSize / threads / 2)),
      loadFactor: this.config.ioBufferLoadFactor,
      time: this.time,
    });
    return this.cleaners[i]!;
  }

  private lastClean(log: PartitionLog): bigint | undefined {
    return this.checkpoint.get(log.topic, log.partition);
  }

  /**
   * Cleans `log` now, round after round until its dirty section is done (a round whose offset map
   * fills up leaves the rest to the next). Returns the last round's result, or undefined when
   * nothing was cleanable.
   */
  compact(log: PartitionLog, onProgress?: CleanProgress): CleanResult | undefined {
    const key = logKey(log);
    if (this.inProgress.has(key)) return undefined;
    this.inProgress.add(key);
    try {
      let last: CleanResult | undefined;
      for (;;) {
        const toClean = logToClean(log, this.lastClean(log), this.time());
        if (toClean.forceUpdateCheckpoint) this.checkpoint.update(log.topic, log.partition, toClean.firstDirtyOffset);
        if (toClean.firstDirtyOffset >= toClean.firstUncleanableOffset) break;
        const result = this.cleaner(0).clean(toClean, onProgress);
        this.checkpoint.update(log.topic, log.partition, result.endOffset);
        last = result;
        if (!result.stats.mapFull || result.endOffset <= toClean.firstDirtyOffset) break;
      }
      if (log.config.cleanupPolicy.includes('delete')) log.deleteOldSegments();
      return last;
    } finally {
      this.inProgress.delete(key);
    }
  }

  /** One pass of a cleaner thread (Kafka `cleanFilthiestLog`): true when a log was cleaned. */
  cleanFilthiestLog(thread = 0): boolean {
    const now = this.time();
    const candidates = this.logs().filter((l) => !this.inProgress.has(logKey(l)));
    const toClean = filthiestLog(candidates, (l) => this.lastClean(l), now, (l, offset) => this.checkpoint.update(l.topic, l.partition, offset));
    let cleaned = false;
    if (toClean !== undefined) {
      const key = logKey(toClean.log);
      this.inProgress.add(key);
      try {
        const result = this.cleaner(thread).clean(toClean);
        this.checkpoint.update(toClean.log.topic, toClean.log.partition, result.endOffset);
        cleaned = true;
      } catch (err) {
        if (!(err instanceof KafkaliteError)) throw err;
        // Kafka marks the partition uncleanable and goes on with the others
        this.options.logger?.('warn', `Unexpected error while cleaning ${toClean.log.topic}-${toClean.log.partition}: ${err.message}`);
      } finally {
        this.inProgress.delete(key);
      }
    }
    // compacted logs with delete also get retention here (Kafka: deletableLogs after each attempt)
    for (const log of candidates) if (isCompacted(log) && log.config.cleanupPolicy.includes('delete')) log.deleteOldSegments();
    return cleaned;
  }

  /** Starts the background loops (nothing when log.cleaner.enable is false). */
  startup(): void {
    if (!this.config.enable || this.running) return;
    this.running = true;
    for (let i = 0; i < Math.max(1, this.config.threads); i++) this.schedule(i, 0);
  }

  private schedule(thread: number, delayMs: number): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      if (!this.running) return;
      let cleaned = false;
      try {
        cleaned = this.cleanFilthiestLog(thread);
      } catch (err) {
        this.options.logger?.('warn', `Log cleaner thread ${thread} failed: ${(err as Error).message}`);
      }
      this.schedule(thread, cleaned ? 0 : this.config.backoffMs);
    }, delayMs);
    timer.unref();
    this.timers.push(timer);
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers.splice(0)) clearTimeout(t);
  }
}
