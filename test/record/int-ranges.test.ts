/**
 * Integer-range edge cases found while writing the kafkajs interop and corpora tests.
 * The tests marked "BUG" fail against src/ as of commit 7b3facb; see the report that came with them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from '../../src/errors.js';
import { encodeRecordBatch, readRecordBatches, RecordBatch } from '../../src/record/index.js';
import { v2 } from '../helpers/v2.js';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const asLong = (x: bigint) => BigInt.asIntN(64, x);

function onlyBatch(buf: Buffer): RecordBatch {
  const batches = [...readRecordBatches(buf)];
  assert.equal(batches.length, 1);
  return v2(batches[0]!);
}

describe('int64 arithmetic on decoded offsets', () => {
  /**
   * BUG: Kafka computes `baseOffset + offsetDelta`, `baseOffset + lastOffsetDelta` and
   * `lastOffset + 1` in Java longs (DefaultRecord.readFrom, DefaultRecordBatch.lastOffset/nextOffset),
   * which wrap. kafkalite's Record.offset, RecordBatch.lastOffset and nextOffset return plain bigint
   * sums, i.e. values outside int64 that no int64 field can hold (Buffer.writeBigInt64BE throws a
   * RangeError on them). Record.timestamp already wraps with BigInt.asIntN(64, ...).
   */
  it('BUG: Record.offset, lastOffset and nextOffset stay int64 (wrap as Java longs do)', () => {
    const base = INT64_MAX - 1n;
    const batch = onlyBatch(
      encodeRecordBatch(
        [
          { value: 'a', timestamp: 1, offsetDelta: 0 },
          { value: 'b', timestamp: 1, offsetDelta: 5 },
        ],
        { baseOffset: base },
      ),
    );
    const offsets = batch.records().map((r) => r.offset);
    for (const o of [...offsets, batch.lastOffset, batch.nextOffset]) {
      assert.ok(o >= INT64_MIN && o <= INT64_MAX, `${o} is not an int64`);
    }
    assert.deepEqual(offsets, [base, asLong(base + 5n)]);
    assert.equal(batch.lastOffset, asLong(base + 5n));
    assert.equal(batch.nextOffset, asLong(base + 6n));
  });
});

describe('encoder argument ranges', () => {
  /**
   * BUG: int64 options take "a bigint or a safe-integer number" (builder.ts), but an unsafe number is
   * not refused: writeInt64BE truncates its high word with `| 0`, so 1e19 is silently written as
   * -8446744073709551616. For a timestamp this also slips past the "Invalid negative timestamp"
   * check (1e19 >= 0 passes, a negative baseTimestamp is written).
   */
  it('BUG: a number outside the safe-integer range is refused, not silently written as another value', () => {
    const typed = (err: unknown) => err instanceof InvalidArgumentError && err.code === 'INVALID_ARGUMENT';
    assert.throws(() => encodeRecordBatch([{ value: 'x', timestamp: 1 }], { baseOffset: 1e19 }), typed);
    assert.throws(() => encodeRecordBatch([{ value: 'x', timestamp: 1e19 }]), typed);
  });

  /**
   * BUG: errors.ts says INVALID_ARGUMENT is for "an argument a caller passed to an encoder [that] is
   * out of Kafka's rules", but out-of-range producerEpoch (int16), partitionLeaderEpoch and
   * baseSequence (int32) and bigint int64 fields reach Buffer.write* and surface as Node's untyped
   * RangeError (ERR_OUT_OF_RANGE).
   */
  it('BUG: out-of-range int16/int32/int64 options raise InvalidArgumentError, not RangeError', () => {
    const rec = [{ value: 'x', timestamp: 1 }];
    const cases = [
      { producerId: 1n, producerEpoch: 40000, baseSequence: 0 },
      { partitionLeaderEpoch: 2 ** 31 },
      { producerId: 1n, producerEpoch: 0, baseSequence: 2 ** 31 },
      { baseOffset: 1n << 63n },
    ];
    for (const options of cases) {
      assert.throws(
        () => encodeRecordBatch(rec, options),
        (err: unknown) => err instanceof InvalidArgumentError,
        JSON.stringify(options, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
      );
    }
  });
});
