/**
 * A manual clock and scheduler (the role of Kafka's `MockTime` / `MockTimer` in its own tests):
 * time moves only when a test calls `advance`, which runs every task that falls due on the way, in
 * due order (ties in scheduling order), with `now()` reading each task's due time while it runs.
 * Session and rebalance timeouts are then stepped through instead of slept through.
 */
import type { Timer, TimerTask } from '../../src/broker/timer.js';

interface Entry {
  due: number;
  seq: number;
  readonly delayMs: number;
  readonly task: () => void;
}

export class ManualTimer implements Timer {
  private time: number;
  private seq = 0;
  private readonly entries = new Set<Entry>();

  /** Starts at `start` (default: the wall clock now, so stored state timestamps look real). */
  constructor(start = Date.now()) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  schedule(delayMs: number, task: () => void): TimerTask {
    const e: Entry = { due: this.time + delayMs, seq: this.seq++, delayMs, task };
    this.entries.add(e);
    return {
      cancel: () => {
        this.entries.delete(e);
      },
      // like Node's Timeout.refresh(): the same delay again from now, re-armed even after it ran
      refresh: () => {
        e.due = this.time + e.delayMs;
        e.seq = this.seq++;
        this.entries.add(e);
      },
    };
  }

  /** Tasks waiting to run. */
  get pending(): number {
    return this.entries.size;
  }

  /** Moves the clock `ms` forward, running the tasks due by then (including ones they schedule). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot move the clock by ${ms} ms`);
    const target = this.time + ms;
    for (;;) {
      let next: Entry | undefined;
      for (const e of this.entries) if (e.due <= target && (next === undefined || e.due < next.due || (e.due === next.due && e.seq < next.seq))) next = e;
      if (next === undefined) break;
      this.entries.delete(next);
      this.time = next.due;
      next.task();
    }
    this.time = target;
  }
}
