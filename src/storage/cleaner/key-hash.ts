/**
 * The 128-bit key hash of the cleaner's offset map: MurmurHash3 x86_128 (Austin Appleby's public
 * domain algorithm), seed 0x9747b28c.
 *
 * Kafka's `SkimpyOffsetMap` hashes keys with MD5. The hash never leaves the map (it is not on disk
 * and not on the wire), so what the cleaner keeps depends only on "same key, same hash", and any
 * hash whose accidental collisions are as unlikely as MD5's (128 bits) gives Kafka's results:
 * which slot a key probes is internal. MD5 through node:crypto costs a native call and a fresh
 * Buffer per key (it was the cleaner's largest cost); this runs in JavaScript over the key's bytes
 * where they lie, allocating nothing. Like MD5 here, it is no defence against keys crafted to
 * collide (MD5 collisions are practical too): Kafka accepts that risk (SkimpyOffsetMap's doc).
 * The seed is non-zero so that the empty key does not hash to all zeros (an all-zero slot is empty).
 */
const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;
export const KEY_HASH_SEED = 0x9747b28c;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const word = (b: Uint8Array, p: number) => b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);

/** The first `n` (0..3) bytes at `p` as a little-endian word. */
function tailWord(b: Uint8Array, p: number, n: number): number {
  if (n === 0) return 0;
  if (n === 1) return b[p]!;
  if (n === 2) return b[p]! | (b[p + 1]! << 8);
  return b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
}

/**
 * Hashes `data[start, start + length)` into `out[at, at + 4)` (h1..h4 as int32; their
 * little-endian bytes are the 16-byte digest, as reference implementations print it).
 */
export function keyHash128(data: Uint8Array, start: number, length: number, out: Int32Array, at = 0): void {
  let h1 = KEY_HASH_SEED | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const blocksEnd = start + (length & ~15);
  let p = start;
  for (; p < blocksEnd; p += 16) {
    h1 ^= Math.imul(rotl(Math.imul(word(data, p), C1), 15), C2);
    h1 = (Math.imul((rotl(h1, 19) + h2) | 0, 5) + 0x561ccd1b) | 0;
    h2 ^= Math.imul(rotl(Math.imul(word(data, p + 4), C2), 16), C3);
    h2 = (Math.imul((rotl(h2, 17) + h3) | 0, 5) + 0x0bcaa747) | 0;
    h3 ^= Math.imul(rotl(Math.imul(word(data, p + 8), C3), 17), C4);
    h3 = (Math.imul((rotl(h3, 15) + h4) | 0, 5) + 0x96cd1c35) | 0;
    h4 ^= Math.imul(rotl(Math.imul(word(data, p + 12), C4), 18), C1);
    h4 = (Math.imul((rotl(h4, 13) + h1) | 0, 5) + 0x32ac3b17) | 0;
  }
  // tail: up to 15 bytes, little-endian into k1..k4 (whole words read at once, then the rest)
  const tail = length & 15;
  const k1 = tail >= 4 ? word(data, p) : tailWord(data, p, tail);
  const k2 = tail >= 8 ? word(data, p + 4) : tail > 4 ? tailWord(data, p + 4, tail - 4) : 0;
  const k3 = tail >= 12 ? word(data, p + 8) : tail > 8 ? tailWord(data, p + 8, tail - 8) : 0;
  const k4 = tail > 12 ? tailWord(data, p + 12, tail - 12) : 0;
  if (tail > 12) h4 ^= Math.imul(rotl(Math.imul(k4, C4), 18), C1);
  if (tail > 8) h3 ^= Math.imul(rotl(Math.imul(k3, C3), 17), C4);
  if (tail > 4) h2 ^= Math.imul(rotl(Math.imul(k2, C2), 16), C3);
  if (tail > 0) h1 ^= Math.imul(rotl(Math.imul(k1, C1), 15), C2);
  // finalization
  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[at] = h1;
  out[at + 1] = h2;
  out[at + 2] = h3;
  out[at + 3] = h4;
}
