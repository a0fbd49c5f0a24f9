/**
 * The cleaner's key -> latest offset map (storage spec §12.2, Kafka `SkimpyOffsetMap`).
 *
 * A fixed-size open-addressing table in one Buffer: each 24-byte slot holds the MD5 of a key (16
 * bytes) and the int64 offset last put for it. Keys themselves are never stored, so the memory is
 * exactly the configured budget whatever the key sizes; two keys with the same MD5 would share a
 * slot (Kafka accepts that risk too). A slot whose 24 bytes are all zero is empty.
 *
 * Probing follows Kafka so the same keys land in the same slots: attempt `a` reads the int32 at
 * byte `min(a, 12)` of the hash and adds `max(0, a - 12)`; slot = `abs(probe) % slots` with
 * `abs(Int.MIN) = 0` (`Utils.abs`).
 */
import { hash } from 'node:crypto';
import { InvalidArgumentError, StorageError } from '../../errors.js';

export const HASH_SIZE = 16;
export const OFFSET_MAP_ENTRY_SIZE = HASH_SIZE + 8;
const INT32_MAX = 0x7fffffff;

export class OffsetMap {
  readonly slots: number;
  private readonly bytes: Buffer;
  private entries = 0;
  private latest = -1n;
  /** Statistics Kafka keeps for the cleaner log line. */
  lookups = 0;
  probes = 0;

  /**
   * @param memory bytes for the table (Kafka: dedupe buffer / threads, capped at Int.MAX); the
   *   buffer can be handed in to reuse one across rounds (fresh large Buffers cost page faults)
   */
  constructor(memory: number, buffer?: Buffer) {
    if (!Number.isInteger(memory) || memory < OFFSET_MAP_ENTRY_SIZE) {
      throw new InvalidArgumentError(`Offset map memory ${memory} is below one ${OFFSET_MAP_ENTRY_SIZE}-byte entry`);
    }
    const size = Math.min(memory, INT32_MAX);
    this.slots = Math.floor(size / OFFSET_MAP_ENTRY_SIZE);
    const needed = this.slots * OFFSET_MAP_ENTRY_SIZE;
    this.bytes = buffer !== undefined && buffer.length >= needed ? buffer.subarray(0, needed) : Buffer.alloc(needed);
    if (buffer !== undefined) this.bytes.fill(0);
  }

  /** Number of distinct key hashes held. */
  get size(): number {
    return this.entries;
  }

  /** Offset of the last key put, or as advanced by `updateLatestOffset`; -1 when empty. */
  get latestOffset(): bigint {
    return this.latest;
  }

  /** Fraction of slots in use (`SkimpyOffsetMap.utilization`). */
  get utilization(): number {
    return this.entries / this.slots;
  }

  /** Memory held by the table. */
  get memory(): number {
    return this.bytes.length;
  }

  private slotPosition(h: Buffer, attempt: number): number {
    const probe = (h.readInt32BE(Math.min(attempt, HASH_SIZE - 4)) + Math.max(0, attempt - HASH_SIZE + 4)) | 0;
    const abs = probe === -0x80000000 ? 0 : Math.abs(probe);
    return (abs % this.slots) * OFFSET_MAP_ENTRY_SIZE;
  }

  private isEmpty(pos: number): boolean {
    const b = this.bytes;
    for (let i = pos; i < pos + OFFSET_MAP_ENTRY_SIZE; i += 4) if (b.readInt32LE(i) !== 0) return false;
    return true;
  }

  private sameHash(pos: number, h: Buffer): boolean {
    return this.bytes.compare(h, 0, HASH_SIZE, pos, pos + HASH_SIZE) === 0;
  }

  /** Records `offset` as the latest for `key`. */
  put(key: Uint8Array, offset: bigint): void {
    if (this.entries >= this.slots) throw new StorageError('Attempt to add a new entry to a full offset map.');
    const h = keyHash(key);
    this.lookups++;
    let attempt = 0;
    let pos = this.slotPosition(h, attempt);
    while (!this.isEmpty(pos)) {
      if (this.sameHash(pos, h)) {
        this.bytes.writeBigInt64BE(offset, pos + HASH_SIZE);
        this.latest = offset;
        return;
      }
      attempt++;
      pos = this.slotPosition(h, attempt);
    }
    this.probes += attempt + 1;
    h.copy(this.bytes, pos);
    this.bytes.writeBigInt64BE(offset, pos + HASH_SIZE);
    this.entries++;
    this.latest = offset;
  }

  /** The latest offset put for `key`, or -1. */
  get(key: Uint8Array): bigint {
    const h = keyHash(key);
    this.lookups++;
    for (let attempt = 0; attempt < this.slots; attempt++) {
      const pos = this.slotPosition(h, attempt);
      this.probes++;
      if (this.isEmpty(pos)) return -1n;
      if (this.sameHash(pos, h)) return this.bytes.readBigInt64BE(pos + HASH_SIZE);
    }
    return -1n;
  }

  /** Moves the round's end forward over offsets without keys (batch ends, segment ends). */
  updateLatestOffset(offset: bigint): void {
    this.latest = offset;
  }

  clear(): void {
    this.bytes.fill(0);
    this.entries = 0;
    this.lookups = 0;
    this.probes = 0;
    this.latest = -1n;
  }
}

/** MD5 of the key bytes, as `SkimpyOffsetMap.hashInto`. */
function keyHash(key: Uint8Array): Buffer {
  return hash('md5', key, 'buffer') as unknown as Buffer;
}
