/**
 * Reusable memory for large, short-lived buffers, bounded by bytes. On a VM a fresh MiB costs page
 * faults many times the cost of reusing one (bench/README.md), so the broker keeps what it handed
 * out once it is no longer referenced: request frames that span socket reads (framing.ts; shared by
 * all connections, so five 1 MiB Produce requests in flight from one client find memory another
 * connection gave back) and the buffers Fetch reads records into (given back once the answer has
 * been written to the socket).
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private freeBytes = 0;
  /** Memory this pool handed out: only that may come back. */
  private readonly owned = new WeakSet<ArrayBufferLike>();

  /** @param maxBytes the most recycled memory kept for reuse; what would exceed it is left to the GC. */
  constructor(readonly maxBytes: number) {}

  /** Recycled bytes kept for reuse. */
  get pooledBytes(): number {
    return this.freeBytes;
  }

  /** A buffer of n bytes: the smallest pooled one large enough, else a fresh one. */
  take(n: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const len = this.free[i]!.length;
      if (len >= n && (best < 0 || len < this.free[best]!.length)) best = i;
    }
    if (best >= 0) {
      const b = this.free[best]!;
      this.free[best] = this.free[this.free.length - 1]!;
      this.free.pop();
      this.freeBytes -= b.length;
      return b.subarray(0, n);
    }
    const fresh = Buffer.allocUnsafeSlow(n);
    this.owned.add(fresh.buffer);
    return fresh;
  }

  /** Takes back memory `take` handed out (any view of it); anything else is ignored. */
  give(frame: Buffer): void {
    const ab = frame.buffer;
    if (!this.owned.has(ab) || this.freeBytes + ab.byteLength > this.maxBytes) return;
    if (this.free.some((b) => b.buffer === ab)) return;
    this.free.push(Buffer.from(ab, 0, ab.byteLength));
    this.freeBytes += ab.byteLength;
  }
}

/**
 * A bound on memory promised to bytes that have not arrived yet. A frame assembled in place
 * (framing.ts) gets a buffer of its announced size before its bytes arrive, so the size prefix,
 * an untrusted length, would decide an allocation. Each such frame first reserves its missing bytes
 * here. When the bound is reached, further frames are assembled from the chunks actually received,
 * as before in-place assembly existed. What a client can make the broker allocate ahead of its
 * bytes is therefore this bound in total, however many connections it opens.
 */
export class ByteReservations {
  private reserved = 0;

  constructor(readonly maxBytes: number) {}

  get reservedBytes(): number {
    return this.reserved;
  }

  /** Reserves n bytes when they fit under the bound; false (and nothing reserved) otherwise. */
  tryReserve(n: number): boolean {
    if (n < 0 || this.reserved + n > this.maxBytes) return false;
    this.reserved += n;
    return true;
  }

  release(n: number): void {
    this.reserved = Math.max(0, this.reserved - n);
  }
}
