/**
 * The cleaner's key -> latest offset map (storage spec §12.2, Kafka `SkimpyOffsetMap`).
 *
 * A fixed-size open-addressing table: each 24-byte slot holds a 16-byte hash of a key and the
 * int64 offset last put for it (as two int32 words). Keys themselves are never stored, so the
 * memory is exactly the configured budget whatever the key sizes; two keys with the same hash
 * would share a slot (Kafka accepts that risk too). A slot whose 24 bytes are all zero is empty.
 *
 * The hash is MurmurHash3 x86_128 (key-hash.ts explains why not Kafka's MD5: the map is internal,
 * so the cleaner's output is the same). Probing follows Kafka's rule over the 16 digest bytes:
 * attempt `a` reads the big-endian int32 at byte `min(a, 12)` and adds `max(0, a - 12)`;
 * slot = `abs(probe) % slots` with `abs(Int.MIN) = 0` (`Utils.abs`).
 *
 * Hot paths (`putAt`, `getAt`) take the key where it lies (no copy) and offsets as numbers: the
 * cleaner uses them only for batches whose offsets are below 2^53, and the bigint `put`/`get`
 * otherwise, so every offset is exact.
 */
import { InvalidArgumentError, StorageError } from '../../errors.js';
import { keyHash128 } from './key-hash.js';

export const HASH_SIZE = 16;
export const OFFSET_MAP_ENTRY_SIZE = HASH_SIZE + 8;
const WORDS = OFFSET_MAP_ENTRY_SIZE / 4;
const INT32_MAX = 0x7fffffff;
const TWO_32 = 4294967296;
/** `find` result when every slot holds another hash (-1 - w is never this: w >= 0). */
const MISSING = -0x100000000;

export class OffsetMap {
  readonly slots: number;
  /** Slot i is words [6i, 6i + 6): h1..h4, offset high word, offset low word. */
  private readonly table: Int32Array;
  /** The hash of the key being put or looked up. */
  private readonly h = new Int32Array(4);
  private entries = 0;
  private latestNumber = -1;
  private latestBig: bigint | undefined = undefined;
  /** Attempts the last `find` made. */
  private lastAttempts = 0;
  /** Statistics Kafka keeps for the cleaner log line. */
  lookups = 0;
  probes = 0;

  /** @param memory bytes for the table (Kafka: dedupe buffer / threads, capped at Int.MAX) */
  constructor(memory: number) {
    if (!Number.isInteger(memory) || memory < OFFSET_MAP_ENTRY_SIZE) {
      throw new InvalidArgumentError(`Offset map memory ${memory} is below one ${OFFSET_MAP_ENTRY_SIZE}-byte entry`);
    }
    this.slots = Math.floor(Math.min(memory, INT32_MAX) / OFFSET_MAP_ENTRY_SIZE);
    this.table = new Int32Array(this.slots * WORDS);
  }

  /** Number of distinct key hashes held. */
  get size(): number {
    return this.entries;
  }

  /** Offset of the last key put, or as advanced by `updateLatestOffset`; -1 when empty. */
  get latestOffset(): bigint {
    return this.latestBig ?? BigInt(this.latestNumber);
  }

  /** Fraction of slots in use (`SkimpyOffsetMap.utilization`). */
  get utilization(): number {
    return this.entries / this.slots;
  }

  /** Memory held by the table. */
  get memory(): number {
    return this.table.byteLength;
  }

  /** Byte `i` of the current digest (the little-endian bytes of h1..h4). */
  private digestByte(i: number): number {
    return (this.h[i >> 2]! >>> ((i & 3) * 8)) & 0xff;
  }

  /** First word of the slot for `attempt` (Kafka's probe sequence, see above). */
  private slotWord(attempt: number): number {
    let probe: number;
    if (attempt === 0) {
      const w = this.h[0]!; // big-endian int32 of digest bytes 0..3
      probe = ((w & 0xff) << 24) | ((w >>> 8) & 0xff) << 16 | ((w >>> 16) & 0xff) << 8 | (w >>> 24);
    } else {
      const at = Math.min(attempt, HASH_SIZE - 4);
      const be = (this.digestByte(at) << 24) | (this.digestByte(at + 1) << 16) | (this.digestByte(at + 2) << 8) | this.digestByte(at + 3);
      probe = (be + Math.max(0, attempt - HASH_SIZE + 4)) | 0;
    }
    const abs = probe === -0x80000000 ? 0 : Math.abs(probe);
    return (abs % this.slots) * WORDS;
  }

  /**
   * Probes for the current hash (Kafka's sequence, see above): the first word of its slot, or
   * `-1 - w` for the first empty slot `w` met (where a put places it), or MISSING when all `slots`
   * `maxAttempts` attempts found other hashes. One loop over locals: it runs twice per record per round.
   */
  private find(maxAttempts: number): number {
    const t = this.table;
    const h = this.h;
    const h0 = h[0]!;
    const h1 = h[1]!;
    const h2 = h[2]!;
    const h3 = h[3]!;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const w = this.slotWord(attempt);
      const a = t[w]!;
      const b = t[w + 1]!;
      const c = t[w + 2]!;
      const d = t[w + 3]!;
      // the all-zero hash is possible in theory: an all-zero slot is still empty
      const empty = (a | b | c | d | t[w + 4]! | t[w + 5]!) === 0;
      if (empty) {
        this.lastAttempts = attempt + 1;
        return -1 - w;
      }
      if (a === h0 && b === h1 && c === h2 && d === h3) {
        this.lastAttempts = attempt + 1;
        return w;
      }
    }
    this.lastAttempts = maxAttempts;
    return MISSING;
  }

  /** Finds the slot of the current hash for a put (its own, or the first empty one). */
  private slotForPut(): number {
    if (this.entries >= this.slots) {
      // Kafka refuses a put on a full map even when the key is already in it
      throw new StorageError('Attempt to add a new entry to a full offset map.');
    }
    this.lookups++;
    // not full, and the probe sequence ends in linear probing over every slot: an empty one is found
    const found = this.find(Number.MAX_SAFE_INTEGER);
    if (found >= 0) return found;
    const w = -1 - found;
    this.probes += this.lastAttempts;
    const t = this.table;
    t[w] = this.h[0]!;
    t[w + 1] = this.h[1]!;
    t[w + 2] = this.h[2]!;
    t[w + 3] = this.h[3]!;
    this.entries++;
    return w;
  }

  /** The slot holding the current hash, or -1. */
  private slotForGet(): number {
    this.lookups++;
    const found = this.find(this.slots);
    this.probes += this.lastAttempts;
    return found >= 0 ? found : -1;
  }

  /** Records `offset` as the latest for `key`. */
  put(key: Uint8Array, offset: bigint): void {
    keyHash128(key, 0, key.length, this.h);
    const w = this.slotForPut();
    this.table[w + 4] = Number(BigInt.asIntN(32, offset >> 32n));
    this.table[w + 5] = Number(BigInt.asIntN(32, offset));
    this.latestBig = offset;
  }

  /** `put` for the key `data[start, start + length)` and an offset below 2^53. */
  putAt(data: Uint8Array, start: number, length: number, offset: number): void {
    keyHash128(data, start, length, this.h);
    const w = this.slotForPut();
    this.table[w + 4] = Math.floor(offset / TWO_32);
    this.table[w + 5] = offset | 0;
    this.latestNumber = offset;
    this.latestBig = undefined;
  }

  /** The latest offset put for `key`, or -1. */
  get(key: Uint8Array): bigint {
    keyHash128(key, 0, key.length, this.h);
    const w = this.slotForGet();
    if (w < 0) return -1n;
    return (BigInt(this.table[w + 4]!) << 32n) | BigInt(this.table[w + 5]! >>> 0);
  }

  /**
   * `get` for the key `data[start, start + length)` as a number (-1 when absent). A stored offset
   * of 2^53 or more comes back rounded, which still compares correctly with any offset below 2^53.
   */
  getAt(data: Uint8Array, start: number, length: number): number {
    keyHash128(data, start, length, this.h);
    const w = this.slotForGet();
    return w < 0 ? -1 : this.table[w + 4]! * TWO_32 + (this.table[w + 5]! >>> 0);
  }

  /** Moves the round's end forward over offsets without keys (batch ends, segment ends). */
  updateLatestOffset(offset: bigint): void {
    this.latestBig = offset;
  }

  clear(): void {
    this.table.fill(0);
    this.entries = 0;
    this.lookups = 0;
    this.probes = 0;
    this.latestNumber = -1;
    this.latestBig = undefined;
  }
}
