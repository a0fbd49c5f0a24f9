/**
 * src/broker/txn/metadata.ts: the grouping of a transaction's partitions by topic that
 * TransactionLogValue and DescribeTransactions carry (topics in first-seen order, partitions sorted).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { partitionsByTopic, tpKey } from '../../src/broker/txn/metadata.js';

describe('partitionsByTopic', () => {
  test('groups by topic, first-seen order, partitions sorted, adjacent or not', () => {
    const keys = [tpKey('a', 3), tpKey('a', 1), tpKey('b', 0), tpKey('a', 2), tpKey('c', 5), tpKey('b', 1), tpKey('c', 4)];
    assert.deepEqual(partitionsByTopic(keys), [
      { topic: 'a', partitionIds: [1, 2, 3] },
      { topic: 'b', partitionIds: [0, 1] },
      { topic: 'c', partitionIds: [4, 5] },
    ]);
    assert.deepEqual(partitionsByTopic([]), []);
    assert.deepEqual(partitionsByTopic(new Set([tpKey('t', 10), tpKey('t', 2)])), [{ topic: 't', partitionIds: [2, 10] }]);
  });

  test('many topics: every partition in its group once', () => {
    const keys: string[] = [];
    for (let p = 0; p < 5; p++) for (let t = 0; t < 500; t++) keys.push(tpKey(`topic-${t}`, p));
    const groups = partitionsByTopic(keys);
    assert.equal(groups.length, 500);
    assert.deepEqual(groups[0], { topic: 'topic-0', partitionIds: [0, 1, 2, 3, 4] });
    assert.ok(groups.every((g) => g.partitionIds.length === 5));
  });
});
