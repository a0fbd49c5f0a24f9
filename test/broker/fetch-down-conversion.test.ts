/**
 * downConvertFetched (Kafka 3.x `RecordsUtil.downConvert` for Fetch v0-3): control batches skipped,
 * a compressed batch kept whole as a wrapper, an uncompressed one cut at the fetch offset, a
 * partial trailing batch dropped, batches already at the client's magic passed through, zstd refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { downConvertFetched, fetchMagic } from '../../src/broker/fetch-down-conversion.js';
import { encodeEndTransactionMarker, encodeRecordBatch } from '../../src/record/builder.js';
import { encodeLegacyMessageSet } from '../../src/record/legacy-builder.js';
import { readRecordBatches } from '../../src/record/index.js';
import { UnsupportedCompressionError } from '../../src/errors.js';

function rows(buf: Buffer): [number, bigint, string | undefined][] {
  return [...readRecordBatches(buf)].flatMap((b) => b.records().map((r): [number, bigint, string | undefined] => [b.magic, r.offset, r.value?.toString()]));
}

describe('Fetch down-conversion', () => {
  test('fetchMagic: v0-1 magic 0, v2-3 magic 1, v4+ magic 2', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 17].map(fetchMagic), [0, 0, 1, 1, 2, 2]);
  });

  test('control batches are skipped; gzip stays whole from its base offset, uncompressed starts at the fetch offset', () => {
    const gz = encodeRecordBatch([{ value: 'a' }, { value: 'b' }], { baseOffset: 0, compression: 'gzip', isTransactional: true, producerId: 7n, producerEpoch: 0, baseSequence: 0 });
    const marker = encodeEndTransactionMarker({ type: 'COMMIT', producerId: 7n, producerEpoch: 0, coordinatorEpoch: 0, baseOffset: 2 });
    const plain = encodeRecordBatch([{ value: 'c' }, { value: 'd' }, { value: 'e' }], { baseOffset: 3 });
    const all = Buffer.concat([gz, marker, plain]);
    for (const magic of [0, 1] as const) {
      assert.deepEqual(rows(downConvertFetched(all, magic, 1n)), [[magic, 0n, 'a'], [magic, 1n, 'b'], [magic, 3n, 'c'], [magic, 4n, 'd'], [magic, 5n, 'e']]);
      assert.deepEqual(rows(downConvertFetched(all, magic, 4n)), [[magic, 0n, 'a'], [magic, 1n, 'b'], [magic, 4n, 'd'], [magic, 5n, 'e']]);
    }
    const [first] = [...readRecordBatches(downConvertFetched(gz, 1, 0n))];
    assert.equal(first!.kind === 'legacy' && first!.isCompressed, true);
  });

  test('a partial trailing batch is dropped; a magic-0 entry passes through to a magic-1 reader unchanged', () => {
    const old = encodeLegacyMessageSet([{ value: 'x' }], { magic: 0, baseOffset: 0n });
    const next = encodeRecordBatch([{ value: 'y' }], { baseOffset: 1 });
    const out = downConvertFetched(Buffer.concat([old, next.subarray(0, next.length - 5)]), 1, 0n);
    assert.ok(out.equals(old));
  });

  test('zstd has no magic 0/1 form: UNSUPPORTED_COMPRESSION', () => {
    const z = encodeRecordBatch([{ value: 'z' }], { compression: 'zstd' });
    assert.throws(() => downConvertFetched(z, 1, 0n), UnsupportedCompressionError);
  });
});
