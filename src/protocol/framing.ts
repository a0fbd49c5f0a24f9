/**
 * Splits a byte stream into Kafka frames: int32 size (not counting itself), then that many bytes
 * (protocol notes §1.1). A size above the cap (Kafka: socket.request.max.bytes, default
 * 104857600) or below zero is Kafka's InvalidReceiveException: the connection is closed.
 *
 * Nothing is allocated by the announced size: chunks are kept as they arrive until the whole
 * frame is there; a frame inside one chunk (the common case) is a zero-copy subarray, one that
 * spans chunks is copied once. Large frames (produce requests of up to a MiB and more) span
 * chunks; a fresh buffer for each costs page faults that dwarf the copy (a fresh MiB ~2 ms against
 * ~50 us reused, here), so the owner hands frames it no longer references back with `recycle`
 * and the next copy reuses their memory, from a {@link BufferPool} that decoders may share.
 */
import { BufferPool } from '../buffer-pool.js';
import { FrameTooLargeError } from './errors.js';

/** Per-decoder pool when none is shared: room for two 1 MiB Produce frames. */
const DEFAULT_POOL_BYTES = 2 * 1024 * 1024 + 64 * 1024;

export class FrameDecoder {
  private chunks: Buffer[] = [];
  /** Read offset in chunks[0]. */
  private head = 0;
  /** Unconsumed bytes over all chunks. */
  private buffered = 0;
  /** Size of the frame being assembled, or -1 before its prefix is complete. */
  private pending = -1;
  /** Set once a size prefix was out of range: the stream cannot be framed past it. */
  private failure: FrameTooLargeError | undefined;
  constructor(
    readonly maxFrameBytes: number,
    /** Where frames that span chunks are copied to, and recycled frames go back. */
    private readonly pool: BufferPool = new BufferPool(DEFAULT_POOL_BYTES),
  ) {}

  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** The error that ended the stream, once a size prefix was out of range. */
  get failed(): FrameTooLargeError | undefined {
    return this.failure;
  }

  /**
   * Gives back a frame this decoder returned, once nothing references its bytes any more; frames
   * that are views of received chunks are ignored, and so is what the pool has no room for.
   */
  recycle(frame: Buffer): void {
    this.pool.give(frame);
  }

  /**
   * Adds received bytes; returns every frame they complete (without the size prefix). A size
   * prefix out of range throws FrameTooLargeError, unless whole frames came before it in the same
   * push: those are returned first (Kafka answers the requests it read before the bad one) and
   * `failed` is set; every later push throws.
   */
  push(chunk: Buffer): Buffer[] {
    if (this.failure !== undefined) throw this.failure;
    const frames: Buffer[] = [];
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    for (;;) {
      if (this.pending < 0) {
        if (this.buffered < 4) break;
        const size = this.readSize();
        if (size < 0 || size > this.maxFrameBytes) {
          this.failure = new FrameTooLargeError(`frame size ${size} is outside [0, ${this.maxFrameBytes}]`);
          if (frames.length === 0) throw this.failure;
          this.chunks = [];
          this.buffered = 0;
          break;
        }
        this.pending = size;
      }
      if (this.buffered < this.pending) break;
      frames.push(this.take(this.pending));
      this.pending = -1;
    }
    return frames;
  }

  private readSize(): number {
    const first = this.chunks[0]!;
    if (first.length - this.head < 4) return this.take(4).readInt32BE(0);
    const size = first.readInt32BE(this.head);
    this.skip(4);
    return size;
  }

  private skip(n: number): void {
    this.head += n;
    this.buffered -= n;
    if (this.head === this.chunks[0]!.length) {
      this.chunks.shift();
      this.head = 0;
    }
  }

  /** The next n buffered bytes: a subarray when one chunk holds them, else one copy. */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    if (n === 0) return Buffer.alloc(0);
    if (first && first.length - this.head >= n) {
      const out = first.subarray(this.head, this.head + n);
      this.skip(n);
      return out;
    }
    const out = this.pool.take(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0]!;
      const k = Math.min(n - filled, c.length - this.head);
      c.copy(out, filled, this.head, this.head + k);
      filled += k;
      this.skip(k);
    }
    return out;
  }
}
