import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RecencyList } from '../../src/storage/recency-list.js';
import { IndexCacheBudget } from '../../src/storage/index-cache-budget.js';

describe('RecencyList', () => {
  test('keeps keys from the least to the most recently used through set, touch and delete', () => {
    const list = new RecencyList<string, number>();
    const keys = () => [...list.entries()].map(([k]) => k);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) list.set(k, i);
    assert.deepEqual(keys(), ['a', 'b', 'c', 'd']);
    assert.equal(list.touch('a'), true);
    assert.equal(list.touch('zz'), false);
    list.set('c', 30);
    assert.deepEqual([...list.entries()], [['b', 1], ['d', 3], ['a', 0], ['c', 30]]);
    assert.equal(list.delete('d'), 3);
    assert.equal(list.delete('d'), undefined);
    assert.equal(list.oldest(), 'b');
    assert.equal(list.delete('b'), 1);
    assert.equal(list.delete('c'), 30, 'the newest');
    assert.deepEqual(keys(), ['a']);
    assert.equal(list.delete('a'), 0);
    assert.equal(list.oldest(), undefined);
    assert.equal(list.size, 0);
    list.set('e', 5);
    assert.deepEqual(keys(), ['e']);
  });
});

describe('IndexCacheBudget eviction order', () => {
  test('admitting past the limit drops the least recently used caches first; a touch keeps one', () => {
    const budget = new IndexCacheBudget(100);
    const dropped: number[] = [];
    const holders = Array.from({ length: 6 }, (_, i) => ({ evictCache: () => dropped.push(i) }));
    for (let i = 0; i < 4; i++) assert.equal(budget.admit(holders[i]!, 25), true);
    budget.touch(holders[0]!);
    assert.equal(budget.admit(holders[4]!, 40), true);
    assert.deepEqual(dropped, [1, 2], 'the two oldest, not the touched one');
    assert.equal(budget.usedBytes, 90);
    budget.release(holders[3]!);
    assert.equal(budget.admit(holders[5]!, 36), true);
    assert.deepEqual(dropped, [1, 2, 0]);
    assert.deepEqual([budget.count, budget.usedBytes], [2, 76]);
    assert.equal(budget.admit(holders[1]!, 101), false, 'larger than the whole budget');
    budget.limitBytes = 40;
    assert.deepEqual(dropped, [1, 2, 0, 4]);
    assert.deepEqual([budget.count, budget.usedBytes], [1, 36]);
  });
});
