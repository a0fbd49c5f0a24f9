/**
 * The clock and scheduler behind delayed operations (Kafka's `Time` and the `Timer` of its
 * `DelayedOperationPurgatory`): the group coordinator's session, rebalance and initial-join
 * timeouts run on one, so a test can pass a manual clock and step through them instead of
 * sleeping. Production runs on SYSTEM_TIMER (Date.now and Node's unref'd timers).
 */

/** A scheduled task (Kafka `TimerTask`). */
export interface TimerTask {
  /** The task will not run (a no-op once it has run or been cancelled). */
  cancel(): void;
  /** Starts the same delay again from now: Node's `Timeout.refresh()`. */
  refresh(): void;
}

export interface Timer {
  /** Milliseconds since the epoch (Kafka `Time.milliseconds`). */
  now(): number;
  /** Runs `task` once, `delayMs` from now. */
  schedule(delayMs: number, task: () => void): TimerTask;
}

/**
 * The system clock and Node's timers. The timers are unref'd: a pending session or rebalance
 * timeout never keeps the process alive on its own (the broker's listening socket does).
 */
export const SYSTEM_TIMER: Timer = {
  now: () => Date.now(),
  schedule(delayMs, task) {
    const t = setTimeout(task, delayMs);
    t.unref();
    return { cancel: () => clearTimeout(t), refresh: () => void t.refresh() };
  },
};
