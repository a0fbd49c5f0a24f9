/**
 * Wakes long-polling fetches when data arrives (Kafka's `DelayedFetch` purgatory is checked on
 * every append and on every transaction end). A waiter resolves on the next append or after its
 * timeout, whichever comes first; it then re-reads the log.
 */
export class AppendNotifier {
  private readonly waiters = new Set<() => void>();

  /** Called after every append (data, markers, deletes that move offsets). */
  notify(): void {
    if (this.waiters.size === 0) return;
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolves true on the next append, false when `timeoutMs` passes first. */
  waitForAppend(timeoutMs: number): Promise<boolean> {
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  /** Shutdown: answer every waiting fetch now. */
  wakeAll(): void {
    this.notify();
  }
}
