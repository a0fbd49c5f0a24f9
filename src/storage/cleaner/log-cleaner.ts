/**
 * The cleaner service (Kafka `LogCleaner` + `LogCleanerManager`, `CleanerConfig`):
 * background "threads" that each pick the filthiest compacted log, clean it, record the new first
 * dirty offset in `cleaner-offset-checkpoint` and then apply retention to compact,delete logs; and
 * an explicit `compact(log)` that cleans one log now, whatever its dirty ratio.
 *
 * Node runs one JavaScript thread: each cleaner "thread" is a timer loop with its own Cleaner (its
 * own share of the dedupe buffer). A background round runs one step per timer tick (the offset
 * map, then one segment group at a time: Cleaner.cleanStepwise), so a broker in the same process
 * serves requests between groups instead of stalling for the whole round; each step runs
 * synchronously between appends, so a swap never races a writer. Logs being cleaned are marked in
 * progress so two loops (or `compact`) never take the same log.
 */
import { KafkaliteError } from '../../errors.js';
import type { LogSink, PartitionLog } from '../partition-log.js';
import { CleanerCheckpoint } from './cleaner-checkpoint.js';
import { filthiestLog, isCompacted, logToClean } from './cleanable-log.js';
import { Cleaner, type CleanProgress, type CleanResult } from './cleaner.js';
import type { LogToClean } from './cleanable-log.js';

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

interface Round {
  toClean: LogToClean;
  steps: Generator<void, CleanResult>;
}
const logKey = (log: PartitionLog) => `${log.topic}\u0000${log.partition}`;

export class LogCleaner {
  readonly config: LogCleanerConfig;
  readonly checkpoint: CleanerCheckpoint;
  private readonly time: () => number;
  private readonly cleaners: Cleaner[] = [];
  private readonly inProgress = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  /** Each background thread's round under way: one step per tick. */
  private readonly rounds: (Round | undefined)[] = [];
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
    for (;;) {
      const state = this.step(thread);
      if (state !== 'working') return state === 'cleaned';
    }
  }

  /**
   * One step of a background thread: picks the filthiest log and builds its offset map, or
   * rewrites the next segment group of the round under way, or ends the round (checkpoint, then
   * retention for compact,delete logs as Kafka does after each attempt).
   */
  step(thread = 0): 'working' | 'cleaned' | 'idle' {
    let round = this.rounds[thread];
    if (round === undefined) {
      const now = this.time();
      const candidates = this.logs().filter((l) => !this.inProgress.has(logKey(l)));
      const toClean = filthiestLog(candidates, (l) => this.lastClean(l), now, (l, offset) => this.checkpoint.update(l.topic, l.partition, offset));
      if (toClean === undefined) {
        this.applyRetention(candidates);
        return 'idle';
      }
      this.inProgress.add(logKey(toClean.log));
      round = { toClean, steps: this.cleaner(thread).cleanStepwise(toClean) };
      this.rounds[thread] = round;
    }
    const log = round.toClean.log;
    let cleaned = false;
    let done = true;
    try {
      // a log dropped from the registry between steps (topic deleted) ends its round unrecorded
      if (!this.logs().includes(log)) {
        round.steps.return({ endOffset: -1n, stats: undefined as never });
      } else {
        const step = round.steps.next();
        done = step.done === true;
        if (step.done && !step.value.stats.abandoned) {
          this.checkpoint.update(log.topic, log.partition, step.value.endOffset);
          cleaned = true;
        }
      }
    } catch (err) {
      if (!(err instanceof KafkaliteError)) {
        this.endRound(thread, round);
        throw err;
      }
      // Kafka marks the partition uncleanable and goes on with the others
      this.options.logger?.('warn', `Unexpected error while cleaning ${log.topic}-${log.partition}: ${err.message}`);
    }
    if (!done) return 'working';
    this.endRound(thread, round);
    this.applyRetention(this.logs().filter((l) => !this.inProgress.has(logKey(l))));
    return cleaned ? 'cleaned' : 'idle';
  }

  private endRound(thread: number, round: Round): void {
    this.inProgress.delete(logKey(round.toClean.log));
    this.rounds[thread] = undefined;
  }

  /** Compacted logs with delete also get retention (Kafka: deletableLogs after each attempt). */
  private applyRetention(logs: readonly PartitionLog[]): void {
    for (const log of logs) if (isCompacted(log) && log.config.cleanupPolicy.includes('delete')) log.deleteOldSegments();
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
      let state: 'working' | 'cleaned' | 'idle' = 'idle';
      try {
        state = this.step(thread);
      } catch (err) {
        this.options.logger?.('warn', `Log cleaner thread ${thread} failed: ${(err as Error).message}`);
      }
      // one step per tick: timers and I/O callbacks (the broker's requests) run between steps
      this.schedule(thread, state === 'idle' ? this.config.backoffMs : 0);
    }, delayMs);
    timer.unref();
    this.timers.push(timer);
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers.splice(0)) clearTimeout(t);
    // a round under way stops between groups: what was swapped in stays, the checkpoint does not move
    this.rounds.forEach((round, thread) => {
      if (round === undefined) return;
      round.steps.return({ endOffset: -1n, stats: undefined as never });
      this.endRound(thread, round);
    });
  }
}
