/**
 * The benches' round order (bench/round-order.ts): over a cycle, every peer in every position
 * equally often and directly after every other peer equally often; every round a permutation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { balancedRounds, roundCycle, roundOrder } from '../../bench/round-order.js';

const peersOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `p${i}`);

test('every round runs every peer exactly once', () => {
  for (let n = 1; n <= 9; n++) {
    const peers = peersOf(n);
    for (let round = 0; round < 3 * roundCycle(n); round++) {
      assert.deepEqual([...roundOrder(peers, round)].sort(), [...peers].sort(), `n=${n} round ${round}`);
    }
  }
});

test('over a cycle every peer takes every position equally often, and over the first n rounds once each', () => {
  for (let n = 1; n <= 9; n++) {
    const peers = peersOf(n);
    const positions = (rounds: number): Map<string, number> => {
      const seen = new Map<string, number>();
      for (let round = 0; round < rounds; round++) {
        roundOrder(peers, round).forEach((p, at) => seen.set(`${p}@${at}`, (seen.get(`${p}@${at}`) ?? 0) + 1));
      }
      return seen;
    };
    const firstN = positions(n);
    assert.equal(firstN.size, n * n, `n=${n}`);
    for (const [key, count] of firstN) assert.equal(count, 1, `n=${n} ${key}`);
    const cycle = positions(roundCycle(n));
    for (const [key, count] of cycle) assert.equal(count, roundCycle(n) / n, `n=${n} ${key}`);
  }
});

test('over a cycle every peer runs directly after every other peer equally often', () => {
  for (let n = 2; n <= 9; n++) {
    const peers = peersOf(n);
    const follows = new Map<string, number>();
    for (let round = 0; round < roundCycle(n); round++) {
      const order = roundOrder(peers, round);
      for (let k = 1; k < n; k++) follows.set(`${order[k - 1]}>${order[k]}`, (follows.get(`${order[k - 1]}>${order[k]}`) ?? 0) + 1);
    }
    // n(n-1) ordered pairs share the cycle's roundCycle(n) x (n-1) adjacencies
    assert.equal(follows.size, n * (n - 1), `n=${n}: some ordered pair never adjacent`);
    const expected = roundCycle(n) / n;
    for (const [pair, count] of follows) assert.equal(count, expected, `n=${n} ${pair}`);
  }
});

test('the first round starts with the first peer, and rounds past the cycle repeat it', () => {
  for (let n = 1; n <= 9; n++) assert.equal(roundOrder(peersOf(n), 0)[0], 'p0');
  for (const n of [2, 3, 4, 5]) {
    const peers = peersOf(n);
    for (let round = 0; round < roundCycle(n); round++) assert.deepEqual(roundOrder(peers, round + roundCycle(n)), roundOrder(peers, round));
  }
  assert.deepEqual(roundOrder([], 3), []);
});

test('a plain rotation, the order this replaced, is not balanced for 4 peers', () => {
  // the control: the adjacency count above can tell a rotation from the design
  const n = 4;
  const follows = new Set<string>();
  for (let round = 0; round < n; round++) {
    const order = Array.from({ length: n }, (_, k) => (k + round) % n);
    for (let k = 1; k < n; k++) follows.add(`${order[k - 1]}>${order[k]}`);
  }
  assert.equal(follows.size, n, 'a rotation repeats the same n neighbours');
});

test('balancedRounds is the smallest whole number of cycles at or above its floor', () => {
  for (let n = 1; n <= 9; n++) {
    for (let atLeast = 1; atLeast <= 12; atLeast++) {
      const rounds = balancedRounds(n, atLeast);
      assert.ok(rounds >= atLeast, `n=${n} atLeast=${atLeast}`);
      assert.equal(rounds % roundCycle(n), 0, `n=${n} atLeast=${atLeast}`);
      assert.ok(rounds - roundCycle(n) < atLeast, `n=${n} atLeast=${atLeast}: a cycle fewer would do`);
    }
  }
});
