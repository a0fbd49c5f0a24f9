import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeptList } from '../../src/v8/kept-list.js';
import { objectArray } from '../../src/v8/elements-kind.js';

function items<T>(l: KeptList<T>): T[] {
  return Array.from({ length: l.length }, (_, i) => l.get(i));
}

test('KeptList: push, get, shift in FIFO order; empty answers `empty`', () => {
  const l = new KeptList<string | undefined>(objectArray(), undefined);
  assert.equal(l.shift(), undefined);
  l.push('a');
  l.push('b');
  l.push('c');
  assert.deepEqual(items(l), ['a', 'b', 'c']);
  assert.equal(l.shift(), 'a');
  assert.deepEqual(items(l), ['b', 'c']);
  assert.equal(l.get(2), undefined);
  assert.equal(l.get(-1), undefined);
  l.push('d');
  assert.deepEqual(items(l), ['b', 'c', 'd']);
  l.dropFirst(2);
  assert.deepEqual(items(l), ['d']);
  l.clear();
  assert.equal(l.length, 0);
  l.push('e');
  assert.deepEqual(items(l), ['e']);
});

test('KeptList: a FIFO that never empties keeps its order and a bounded store', () => {
  const store: (number | undefined)[] = objectArray();
  const l = new KeptList<number | undefined>(store, undefined);
  let next = 0;
  let expected = 0;
  for (let round = 0; round < 10_000; round++) {
    l.push(next++);
    l.push(next++);
    assert.equal(l.shift(), expected++);
    if (l.length > 5) for (let k = 0; k < 3; k++) assert.equal(l.shift(), expected++);
  }
  assert.deepEqual(items(l), Array.from({ length: l.length }, (_, i) => expected + i));
  assert.ok(store.length <= 128, `store of ${store.length} slots`);
  // emptied slots hold `empty`, not the items taken out (nothing kept alive)
  assert.equal(store.filter((v) => v !== undefined).length, l.length);
});

test('KeptList: dropLast takes the newest item back (after shifts too) and empties the slot', () => {
  const store = objectArray<string | undefined>();
  const l = new KeptList<string | undefined>(store, undefined);
  l.dropLast();
  assert.equal(l.length, 0);
  l.push('a');
  l.push('b');
  l.push('c');
  l.shift();
  l.dropLast();
  assert.deepEqual(items(l), ['b']);
  assert.ok(!store.includes('c'), 'the dropped item is not kept alive');
  l.dropLast();
  assert.equal(l.length, 0);
  l.push('d');
  assert.deepEqual(items(l), ['d']);
});
