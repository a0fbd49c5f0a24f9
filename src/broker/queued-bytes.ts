/**
 * Broker-wide accounting of bytes connections hold for clients: request frames received and not
 * yet handled (Kafka's `queued.max.request.bytes`, the MemoryPool its SocketServer reads requests
 * into), and answers handed to a socket that the kernel has not taken yet (kafkalite's
 * `kafkalite.queued.max.response.bytes`; Kafka mutes a channel until its response is sent, so it
 * never holds more than one response per connection).
 *
 * A connection adds and subtracts its own bytes here; when the total is at or above the limit it
 * stops reading (requests) or stops taking new requests while its own answers wait (answers), and
 * registers to be woken once the total is below the limit again. The high-water mark is kept for
 * tests and operators: it says what the bounds allowed at worst.
 */
export class QueuedBytes {
  private current = 0;
  private high = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    /** The bound; Infinity for none. */
    readonly limit: number,
  ) {}

  get bytes(): number {
    return this.current;
  }

  /** The most this account ever held at once. */
  get highWater(): number {
    return this.high;
  }

  /** What is left below the limit (Infinity without one). */
  get available(): number {
    return Math.max(0, this.limit - this.current);
  }

  get full(): boolean {
    return this.current >= this.limit;
  }

  private holderHigh = 0;

  /** The most one holder (connection) held at once, as it reported with `add`. */
  get holderHighWater(): number {
    return this.holderHigh;
  }

  /** `n` more bytes held; `holderTotal` is what the holder adding them now holds in all. */
  add(n: number, holderTotal = 0): void {
    this.current += n;
    if (this.current > this.high) this.high = this.current;
    if (holderTotal > this.holderHigh) this.holderHigh = holderTotal;
  }

  sub(n: number): void {
    this.current -= n;
    if (this.waiters.size > 0 && this.current < this.limit) {
      const woken = [...this.waiters];
      this.waiters.clear();
      for (const w of woken) w();
    }
  }

  /** Calls `wake` once (the next time) the total drops below the limit. */
  whenBelow(wake: () => void): void {
    this.waiters.add(wake);
  }

  forget(wake: () => void): void {
    this.waiters.delete(wake);
  }
}

/** What the broker's connections hold, for tests and the soak (Broker.queuedBytes). */
export interface QueuedBytesStats {
  requestBytes: number;
  requestBytesHighWater: number;
  responseBytes: number;
  responseBytesHighWater: number;
  /** The largest answer pending on one connection ever seen (the per-connection bound plus at most one answer). */
  responseBytesPerConnectionHighWater: number;
}
