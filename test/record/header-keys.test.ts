/** Record.headerKeys(): the keys alone, equal to the full header decode (null, empty, non-ASCII, long values). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeRecordBatch, RecordBatch } from '../../src/record/index.js';

describe('Record.headerKeys', () => {
  it('matches headers.map(key) for every shape of header', () => {
    const headers = [
      [],
      [{ key: 'a', value: null }],
      [{ key: '', value: '' }, { key: 'trace-id', value: 'x'.repeat(300) }],
      [{ key: 'clé-ü-日本', value: Buffer.from([0, 1, 2]) }, { key: 'k'.repeat(40), value: null }, { key: 'z', value: 'v' }],
    ];
    const batch = new RecordBatch(encodeRecordBatch(headers.map((h, i) => ({ value: `v${i}`, headers: h, timestamp: i }))));
    const records = batch.records();
    for (const [i, r] of records.entries()) {
      const keys = r.headerKeys();
      assert.deepEqual(keys, headers[i]!.map((h) => h.key));
      assert.deepEqual(keys, r.headers.map((h) => h.key), 'after the full decode too');
    }
  });
});
