/**
 * Splits a byte stream into Kafka frames: int32 size (not counting itself), then that many bytes
 * (Kafka's `NetworkReceive`). A size above the cap (Kafka: socket.request.max.bytes, default
 * 104857600) or below zero is Kafka's InvalidReceiveException: the connection is closed.
 *
 * Nothing is allocated by the announced size: chunks are kept as they arrive until the whole
 * frame is there; a frame inside one chunk (the common case) is a zero-copy subarray, one that
 * spans chunks is copied once. Large frames (produce requests of up to a MiB and more) span
 * chunks; a fresh buffer for each costs page faults that dwarf the copy (bench/README.md), so the
 * owner hands frames it no longer references back with `recycle`
 * and the next copy reuses their memory, from a {@link BufferPool} that decoders may share.
 *
 * A reader that can choose where the socket's next bytes land (Node's `onread` with a buffer
 * function) asks {@link FrameDecoder.directTarget}: while a large frame is being assembled it is
 * the rest of that frame's pooled buffer, so the kernel copies the bytes straight into the frame
 * (one copy instead of two, and no 64 KiB read chunk allocated per read: on a 1 MiB Produce stream
 * those copies and the garbage collection the chunks caused were a fifth of the broker's time,
 * bench/README.md).
 */
import { readInt32BE } from '../bytes/big-endian.js';
import { BufferPool, type ByteReservations } from '../bytes/buffer-pool.js';
import { objectArray } from '../v8/elements-kind.js';
import { KeptList } from '../v8/kept-list.js';
import { FrameTooLargeError } from './errors.js';

/** What emptied slots of the chunk list hold. */
const NO_BYTES = Buffer.alloc(0);
/** Per-decoder pool when none is shared: room for two 1 MiB Produce frames. */
const DEFAULT_POOL_BYTES = 2 * 1024 * 1024 + 64 * 1024;
/**
 * A frame still missing at least this many bytes once its size is known is assembled in place
 * (its pooled buffer becomes the next read target); smaller ones arrive in a read or two anyway.
 */
const DIRECT_MIN_BYTES = 64 * 1024;

/** Where `pushInto` and `directFilledInto` append frames: an array, or a list a connection reuses. */
export interface FrameSink {
  readonly length: number;
  push(frame: Buffer): unknown;
}

export class FrameDecoder {
  /**
   * Created in the elements kind it keeps (objects) and emptied without giving back its memory
   * (v8/kept-list.ts): a fresh `[]` is V8's small-integer kind, and optimized code that saw only
   * object chunks deoptimized ('not a Smi') at every new connection's first push; an array emptied
   * by `shift` got a new element store at the next push, once per request.
   */
  private readonly chunks = new KeptList<Buffer>(objectArray(), NO_BYTES);
  /** Read offset in chunks[0]. */
  private head = 0;
  /** Unconsumed bytes over all chunks. */
  private buffered = 0;
  /** Size of the frame being assembled, or -1 before its prefix is complete. */
  private pending = -1;
  /** Set once a size prefix was out of range: the stream cannot be framed past it. */
  private failure: FrameTooLargeError | undefined;
  /** The frame being assembled in place (its bytes go straight into it), and how much of it is filled. */
  private assembling: Buffer | undefined;
  private assembled = 0;
  /** Bytes reserved in `inPlace` for the frame being assembled (its part not received when it began). */
  private reserved = 0;
  constructor(
    /** Frames above it fail the decoder; a SASL connection lowers it until authenticated (sasl.server.max.receive.size). */
    public maxFrameBytes: number,
    /** Where frames that span chunks are copied to, and recycled frames go back. */
    private readonly pool: BufferPool = new BufferPool(DEFAULT_POOL_BYTES),
    /**
     * Given: large frames are assembled in place for a reader that reads into `directTarget()`,
     * each reserving its not yet received bytes here first (see ByteReservations).
     */
    private readonly inPlace?: ByteReservations,
  ) {}

  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered + this.assembled;
  }

  /** The error that ended the stream, once a size prefix was out of range. */
  get failed(): FrameTooLargeError | undefined {
    return this.failure;
  }

  /** Whether bytes received but not yet returned as frames are in `memory` (a reader reusing its read chunks asks). */
  holds(memory: ArrayBufferLike): boolean {
    for (let i = 0; i < this.chunks.length; i++) if (this.chunks.get(i).buffer === memory) return true;
    return false;
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
    const frames: Buffer[] = [];
    this.pushInto(chunk, frames);
    return frames;
  }

  /**
   * `push` that appends the frames to `frames` instead of a new array (a connection reuses one
   * list for every read: a new one per read was 250 B per request). Same throws as `push`.
   */
  pushInto(chunk: Buffer, frames: FrameSink, length = chunk.length): void {
    if (this.failure !== undefined) throw this.failure;
    const before = frames.length;
    if (this.assembling === undefined && this.buffered === 0 && this.pending < 0) {
      // nothing buffered: the whole frames at the chunk's start are views of it, and only what
      // follows them (a partial frame, a bad size) becomes a view to keep; a reader that reads
      // into a large chunk passes `length` instead of a view of what it read (one per read)
      let at = 0;
      while (length - at >= 4) {
        const size = readInt32BE(chunk, at);
        if (size <= 0 || size > this.maxFrameBytes || size > length - at - 4) break;
        frames.push(chunk.subarray(at + 4, at + 4 + size));
        at += 4 + size;
      }
      if (at === length) return;
      if (at > 0 || length !== chunk.length) chunk = chunk.subarray(at, length);
    } else if (length !== chunk.length) {
      chunk = chunk.subarray(0, length);
    }
    if (this.assembling !== undefined) {
      // bytes read elsewhere while a frame is assembled in place: its part is copied in
      const k = Math.min(chunk.length, this.pending - this.assembled);
      chunk.copy(this.assembling, this.assembled, 0, k);
      this.completeDirect(k, frames);
      if (this.assembling !== undefined) return;
      chunk = chunk.subarray(k);
    }
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
          if (frames.length === before) throw this.failure;
          this.chunks.clear();
          this.buffered = 0;
          break;
        }
        this.pending = size;
      }
      if (this.buffered < this.pending) {
        if (this.inPlace !== undefined && this.pending - this.buffered >= DIRECT_MIN_BYTES) this.assembleInPlace(this.inPlace);
        break;
      }
      frames.push(this.take(this.pending));
      this.pending = -1;
    }
  }

  /**
   * Where the next read should put its bytes: the rest of the frame being assembled in place, or
   * undefined when the bytes may belong to any frame (the reader's own chunk, given to `push`).
   * Only a decoder given `inPlace` reservations assembles in place.
   */
  directTarget(): Buffer | undefined {
    return this.assembling?.subarray(this.assembled, this.pending);
  }

  /** `n` bytes were read into the last `directTarget()`; returns the frame they complete, if any. */
  directFilled(n: number): Buffer[] {
    const frames: Buffer[] = [];
    this.directFilledInto(n, frames);
    return frames;
  }

  /** `directFilled` that appends the frame it completes, if any, to `frames`. */
  directFilledInto(n: number, frames: FrameSink): void {
    if (this.assembling === undefined || n < 0 || n > this.pending - this.assembled) {
      throw new RangeError(`${n} bytes cannot have been read into the frame being assembled`);
    }
    this.completeDirect(n, frames);
  }

  private completeDirect(n: number, frames: FrameSink): void {
    this.assembled += n;
    if (this.assembled < this.pending) return;
    frames.push(this.assembling!);
    this.inPlace!.release(this.reserved);
    this.reserved = 0;
    this.assembling = undefined;
    this.assembled = 0;
    this.pending = -1;
  }

  /** The stream ends (its connection closed): gives back the reservation of an unfinished frame. */
  dispose(): void {
    this.inPlace?.release(this.reserved);
    this.reserved = 0;
    this.assembling = undefined;
    this.assembled = 0;
    this.chunks.clear();
    this.head = 0;
    this.buffered = 0;
    this.pending = -1;
  }

  /**
   * Moves the pending frame's buffered bytes (all it has so far) into its own pooled buffer, once
   * its missing bytes are reserved; without the reservation it stays in chunks.
   */
  private assembleInPlace(inPlace: ByteReservations): void {
    const missing = this.pending - this.buffered;
    if (!inPlace.tryReserve(missing)) return;
    this.reserved = missing;
    const frame = this.pool.take(this.pending);
    let filled = 0;
    for (let i = 0; i < this.chunks.length; i++) {
      const c = this.chunks.get(i);
      const start = i === 0 ? this.head : 0;
      c.copy(frame, filled, start);
      filled += c.length - start;
    }
    this.chunks.clear();
    this.head = 0;
    this.buffered = 0;
    this.assembling = frame;
    this.assembled = filled;
  }

  private readSize(): number {
    const first = this.chunks.get(0);
    if (first.length - this.head < 4) return this.take(4).readInt32BE(0);
    const size = readInt32BE(first, this.head);
    this.skip(4);
    return size;
  }

  private skip(n: number): void {
    this.head += n;
    this.buffered -= n;
    if (this.head === this.chunks.get(0).length) {
      this.chunks.shift();
      this.head = 0;
    }
  }

  /** The next n buffered bytes: a subarray when one chunk holds them, else one copy. */
  private take(n: number): Buffer {
    const first = this.chunks.get(0);
    if (n === 0) return Buffer.alloc(0);
    if (first.length - this.head >= n) {
      const out = first.subarray(this.head, this.head + n);
      this.skip(n);
      return out;
    }
    const out = this.pool.take(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks.get(0);
      const k = Math.min(n - filled, c.length - this.head);
      c.copy(out, filled, this.head, this.head + k);
      filled += k;
      this.skip(k);
    }
    return out;
  }
}
