/**
 * The order in which the peers of a same-run comparison take their turns, round by round
 * (bench/broker.ts, bench/latency.ts, bench/small-produce.ts).
 *
 * A plain rotation (round r starts at peer r) keeps every peer behind the same neighbour in every
 * round: with the broker bench's 4 peers over 3 rounds, kafkalite ran directly after loopback+disk
 * in two of them, on a device still writing back what that peer had just written. A slow or fast
 * neighbour then lands on one peer's side of a ratio every time.
 *
 * This is a Williams design (E. J. Williams, 1949: a Latin square balanced for first-order
 * carry-over). Over its cycle of rounds, `roundCycle(n)` (n rounds for an even number of peers,
 * 2n for an odd number), every peer takes every position equally often, and directly follows
 * every other peer equally often. Any n consecutive rounds from the cycle's start already give
 * every peer every position once. The first round starts with the first peer.
 */

/** How many rounds balance the order of `n` peers: n when n is even, 2n when it is odd. */
export function roundCycle(n: number): number {
  return n % 2 === 0 ? n : 2 * n;
}

/**
 * The peers in the order they run in `round` (0-based; rounds past the cycle repeat it).
 *
 * Round r of the first n is the sequence 0, 1, n-1, 2, n-2, 3, ... with r added to each term
 * (mod n). For odd n, the cycle's second half runs the first half's rounds in reverse.
 */
export function roundOrder<T>(peers: readonly T[], round: number): T[] {
  const n = peers.length;
  if (n === 0) return [];
  const cycle = roundCycle(n);
  const inCycle = ((round % cycle) + cycle) % cycle;
  const shift = inCycle % n;
  const order: T[] = [];
  for (let k = 0; k < n; k++) {
    const base = k === 0 ? 0 : k % 2 === 1 ? (k + 1) / 2 : n - k / 2;
    order.push(peers[(base + shift) % n]!);
  }
  return inCycle >= n ? order.reverse() : order;
}

/** The fewest rounds, at least `atLeast`, that are whole cycles for `n` peers (a bench's default). */
export function balancedRounds(n: number, atLeast: number): number {
  const cycle = roundCycle(Math.max(1, n));
  return Math.max(1, Math.ceil(atLeast / cycle)) * cycle;
}
