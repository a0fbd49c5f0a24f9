/**
 * Which offsets of a cleaning round's dirty section hold the latest record of their key: one bit
 * per offset from the round's start, kept by the offset map as it is built (a put sets its
 * offset's bit and clears the bit of the offset it replaces in that slot).
 *
 * Once the map is built, "offset < map.get(key)" (Kafka `shouldRetainRecord`'s test) is, for an
 * offset the map saw, exactly "this offset's bit is clear": the slot a key hashes to holds the last
 * offset put there, and that offset alone kept its bit. Two keys sharing a 16-byte hash share a
 * slot and so answer alike either way. The cleaning pass then decides every record of the dirty
 * section with one bit test instead of hashing its key again and probing the map (half of that
 * pass's time). Records below the round's start (already clean segments) still ask the map.
 *
 * Memory: one bit per offset, grown as the map reaches new offsets and reused across rounds; past
 * MAX_MARK_BYTES the marks switch off for the round and every record asks the map, as before.
 */

/** 16 MiB of bits: 134,217,728 offsets in one round's dirty section. */
export const MAX_MARK_BYTES = 16 * 1024 * 1024;

export class LatestMarks {
  private bits = new Uint8Array(0);
  /** First offset with a bit (the round's start); -1 when off. */
  private base = -1;
  /** Bytes of `bits` in use this round (cleared on `begin`). */
  private used = 0;

  /** Starts a round at `start` (offsets past 2^53 keep the marks off: the map alone answers). */
  begin(start: number): void {
    this.bits.fill(0, 0, this.used);
    this.used = 0;
    this.base = Number.isSafeInteger(start) && start >= 0 ? start : -1;
  }

  /** Stops answering for this round (an offset the bits cannot hold was put). */
  switchOff(): void {
    this.base = -1;
  }

  get active(): boolean {
    return this.base >= 0;
  }

  /** `offset` became the latest of its slot, replacing `replaced` (-1 when the slot was empty). */
  put(offset: number, replaced: number): void {
    const base = this.base;
    if (base < 0) return;
    const rel = offset - base;
    if (rel < 0) {
      this.switchOff();
      return;
    }
    const byte = Math.floor(rel / 8);
    if (byte >= this.used && !this.grow(byte + 1)) return;
    // clear before set: the same offset put again for its key (a damaged log repeating an
    // offset) stays the latest, as the map says
    const old = replaced - base;
    if (old >= 0) this.bits[Math.floor(old / 8)]! &= ~(1 << (old & 7));
    this.bits[byte]! |= 1 << (rel & 7);
  }

  /**
   * Whether the marks know `offset` (the map saw every offset from the round's start up to the last
   * one put); callers pass only offsets at or below the map's last offset.
   */
  covers(offset: number): boolean {
    return this.base >= 0 && offset >= this.base;
  }

  /** Whether `offset` (covered) holds the latest record of its key. */
  isLatest(offset: number): boolean {
    const rel = offset - this.base;
    const byte = Math.floor(rel / 8);
    return byte < this.used && (this.bits[byte]! & (1 << (rel & 7))) !== 0;
  }

  private grow(bytes: number): boolean {
    if (bytes > MAX_MARK_BYTES) {
      this.switchOff();
      return false;
    }
    if (bytes > this.bits.length) {
      const next = new Uint8Array(Math.min(MAX_MARK_BYTES, Math.max(bytes, this.bits.length * 2, 4096)));
      next.set(this.bits.subarray(0, this.used));
      this.bits = next;
    }
    this.used = bytes;
    return true;
  }
}
