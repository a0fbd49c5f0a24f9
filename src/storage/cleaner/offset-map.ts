/**
 * The cleaner's key -> latest offset map (Kafka `SkimpyOffsetMap`).
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
 *
 * Keys can also be handled in groups of up to OFFSET_MAP_GROUP (`hashGroupKey`, `touchGroup`,
 * then `putGroupKey`/`getGroupKey`): a table much larger than the CPU caches costs about one
 * memory wait per lookup, and between two lookups the cleaner parses a whole record, so the CPU
 * never has two of them in flight. Hashing a group first and then reading its slots in one tight
 * loop lets those waits overlap; the puts and gets that follow find their slots in cache. The
 * group only holds hashes and slot positions: the caller applies its puts in order, so a later put
 * of the same key still wins, exactly as one by one.
 */
import { InvalidArgumentError, StorageError } from '../../errors.js';
import { keyHash128 } from './key-hash.js';
import { LatestMarks } from './latest-marks.js';

export const HASH_SIZE = 16;
export const OFFSET_MAP_ENTRY_SIZE = HASH_SIZE + 8;
/** Keys per group: enough memory waits to overlap, few enough that the group stays in L1. */
export const OFFSET_MAP_GROUP = 64;
const WORDS = OFFSET_MAP_ENTRY_SIZE / 4;
const INT32_MAX = 0x7fffffff;
const TWO_32 = 4294967296;
/** `find` result when every slot holds another hash (-1 - w is never this: w >= 0). */
const MISSING = -0x100000000;
/** Group index of the single-key calls (`put`, `get`, `putAt`, `getAt`): they never disturb a group. */
const SCRATCH = OFFSET_MAP_GROUP;

export class OffsetMap {
  readonly slots: number;
  /** Slot i is words [6i, 6i + 6): h1..h4, offset high word, offset low word. */
  private readonly table: Int32Array;
  /** Hashes of the group keys (4 words each) and of the single-key calls (index SCRATCH). */
  private readonly hashes = new Int32Array((OFFSET_MAP_GROUP + 1) * 4);
  /** First word of each group key's first slot (Kafka's first probe). */
  private readonly firstSlots = new Int32Array(OFFSET_MAP_GROUP + 1);
  /** What `touchGroup` read: kept so the reads cannot be optimised away. */
  private touched = 0;
  private entries = 0;
  private latestNumber = -1;
  private latestBig: bigint | undefined = undefined;
  /** Attempts the last `find` made. */
  private lastAttempts = 0;
  /** Offset the last put replaced in its slot (-1: the slot was empty). */
  private replaced = -1;
  /** Which offsets since `beginRound`'s start are still their key's latest (latest-marks.ts). */
  readonly marks = new LatestMarks();
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

  /** Byte `i` of the digest at `hashes[k, k + 4)` (the little-endian bytes of h1..h4). */
  private digestByte(k: number, i: number): number {
    return (this.hashes[k + (i >> 2)]! >>> ((i & 3) * 8)) & 0xff;
  }

  /**
   * First word of the slot for `attempt` of the digest at `hashes[k, k + 4)` (Kafka's probe
   * sequence, see above; attempt 0 is `firstSlots`).
   */
  private slotWord(k: number, attempt: number): number {
    const at = Math.min(attempt, HASH_SIZE - 4);
    const be = (this.digestByte(k, at) << 24) | (this.digestByte(k, at + 1) << 16) | (this.digestByte(k, at + 2) << 8) | this.digestByte(k, at + 3);
    const probe = (be + Math.max(0, attempt - HASH_SIZE + 4)) | 0;
    return this.wordOfProbe(probe);
  }

  private wordOfProbe(probe: number): number {
    const abs = probe === -0x80000000 ? 0 : Math.abs(probe);
    return (abs % this.slots) * WORDS;
  }

  /** Hashes `data[start, start + length)` as group key `i` and notes its first slot (no table access). */
  hashGroupKey(i: number, data: Uint8Array, start: number, length: number): void {
    const h = this.hashes;
    keyHash128(data, start, length, h, i * 4);
    const w = h[i * 4]!; // the first probe is the big-endian int32 of digest bytes 0..3
    this.firstSlots[i] = this.wordOfProbe(((w & 0xff) << 24) | ((w >>> 8) & 0xff) << 16 | ((w >>> 16) & 0xff) << 8 | (w >>> 24));
  }

  /**
   * Reads the first slot of group keys [0, n) in one tight loop, so their cache misses overlap
   * (both ends of the slot: a 24-byte slot may straddle two cache lines); then, in a second loop,
   * the second probe's slot of the keys whose first slot holds another hash (about a quarter of
   * lookups at Kafka's 0.9 load factor, more as the map fills).
   */
  touchGroup(n: number): void {
    const t = this.table;
    const first = this.firstSlots;
    const h = this.hashes;
    let acc = 0;
    for (let i = 0; i < n; i++) {
      const w = first[i]!;
      acc ^= t[w]! ^ t[w + 5]!;
    }
    for (let i = 0; i < n; i++) {
      const w = first[i]!;
      const a = t[w]!;
      if (a !== h[i * 4] && (a | t[w + 1]! | t[w + 2]! | t[w + 3]! | t[w + 4]! | t[w + 5]!) !== 0) {
        const w1 = this.slotWord(i * 4, 1);
        acc ^= t[w1]! ^ t[w1 + 5]!;
      }
    }
    this.touched = acc;
  }

  /**
   * Probes for group key `i` (Kafka's sequence, see above): the first word of its slot, or
   * `-1 - w` for the first empty slot `w` met (where a put places it), or MISSING when all
   * `maxAttempts` attempts found other hashes. One loop over locals: it runs twice per record per round.
   */
  private find(i: number, maxAttempts: number): number {
    const t = this.table;
    const k = i * 4;
    const h = this.hashes;
    const h0 = h[k]!;
    const h1 = h[k + 1]!;
    const h2 = h[k + 2]!;
    const h3 = h[k + 3]!;
    let w = this.firstSlots[i]!;
    for (let attempt = 0; attempt < maxAttempts; ) {
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
      attempt++;
      w = this.slotWord(k, attempt);
    }
    this.lastAttempts = maxAttempts;
    return MISSING;
  }

  /** Finds the slot of group key `i` for a put (its own, or the first empty one). */
  private slotForPut(i: number): number {
    if (this.entries >= this.slots) {
      // Kafka refuses a put on a full map even when the key is already in it
      throw new StorageError('Attempt to add a new entry to a full offset map.');
    }
    this.lookups++;
    // not full, and the probe sequence ends in linear probing over every slot: an empty one is found
    const found = this.find(i, Number.MAX_SAFE_INTEGER);
    if (found >= 0) {
      this.replaced = this.table[found + 4]! * TWO_32 + (this.table[found + 5]! >>> 0);
      return found;
    }
    this.replaced = -1;
    const w = -1 - found;
    this.probes += this.lastAttempts;
    const t = this.table;
    const h = this.hashes;
    const k = i * 4;
    t[w] = h[k]!;
    t[w + 1] = h[k + 1]!;
    t[w + 2] = h[k + 2]!;
    t[w + 3] = h[k + 3]!;
    this.entries++;
    return w;
  }

  /** The slot holding group key `i`, or -1. */
  private slotForGet(i: number): number {
    this.lookups++;
    const found = this.find(i, this.slots);
    this.probes += this.lastAttempts;
    return found >= 0 ? found : -1;
  }

  /** `putAt` for group key `i` (hashed by `hashGroupKey`). */
  putGroupKey(i: number, offset: number): void {
    const w = this.slotForPut(i);
    this.table[w + 4] = Math.floor(offset / TWO_32);
    this.table[w + 5] = offset | 0;
    this.latestNumber = offset;
    this.latestBig = undefined;
    this.marks.put(offset, this.replaced);
  }

  /** `getAt` for group key `i` (hashed by `hashGroupKey`). */
  getGroupKey(i: number): number {
    const w = this.slotForGet(i);
    return w < 0 ? -1 : this.table[w + 4]! * TWO_32 + (this.table[w + 5]! >>> 0);
  }

  /** Records `offset` as the latest for `key`. */
  put(key: Uint8Array, offset: bigint): void {
    this.hashGroupKey(SCRATCH, key, 0, key.length);
    const w = this.slotForPut(SCRATCH);
    this.table[w + 4] = Number(BigInt.asIntN(32, offset >> 32n));
    this.table[w + 5] = Number(BigInt.asIntN(32, offset));
    this.latestBig = offset;
    if (offset <= BigInt(Number.MAX_SAFE_INTEGER)) this.marks.put(Number(offset), this.replaced);
    else this.marks.switchOff();
  }

  /** `put` for the key `data[start, start + length)` and an offset below 2^53. */
  putAt(data: Uint8Array, start: number, length: number, offset: number): void {
    this.hashGroupKey(SCRATCH, data, start, length);
    this.putGroupKey(SCRATCH, offset);
  }

  /** The latest offset put for `key`, or -1. */
  get(key: Uint8Array): bigint {
    this.hashGroupKey(SCRATCH, key, 0, key.length);
    const w = this.slotForGet(SCRATCH);
    if (w < 0) return -1n;
    return (BigInt(this.table[w + 4]!) << 32n) | BigInt(this.table[w + 5]! >>> 0);
  }

  /**
   * `get` for the key `data[start, start + length)` as a number (-1 when absent). A stored offset
   * of 2^53 or more comes back rounded, which still compares correctly with any offset below 2^53.
   */
  getAt(data: Uint8Array, start: number, length: number): number {
    this.hashGroupKey(SCRATCH, data, start, length);
    return this.getGroupKey(SCRATCH);
  }

  /** Moves the round's end forward over offsets without keys (batch ends, segment ends). */
  updateLatestOffset(offset: bigint): void {
    this.latestBig = offset;
  }

  /**
   * Empties the map for a round whose dirty section starts at `start`: the marks track the offsets
   * from there (clear() alone leaves them off).
   */
  beginRound(start: bigint): void {
    this.clear();
    this.marks.begin(start <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(start) : -1);
  }

  clear(): void {
    this.marks.begin(-1);
    this.table.fill(0);
    this.entries = 0;
    this.lookups = 0;
    this.probes = 0;
    this.latestNumber = -1;
    this.latestBig = undefined;
  }
}
