/**
 * Property: for random keyed workloads (values, tombstones, committed and aborted transactions,
 * rolls, clock moves) and any number of cleaning rounds, a read_committed consumer reading from the
 * log start sees for each key the latest value it would see on the uncompacted log (a deleted key
 * may be absent or a tombstone), offsets strictly increase, and every batch keeps the baseOffset,
 * lastOffset, baseSequence and producer of a batch that was appended.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { join } from 'node:path';
import { tempDir } from '../../helpers/storage.js';
import { appendRecords, compactConfig, openHarness, readDisk, type DiskBatch } from './harness.js';

type Op =
  | { kind: 'put'; key: number; value: number }
  | { kind: 'delete'; key: number }
  | { kind: 'txn'; keys: number[]; abort: boolean }
  | { kind: 'roll' }
  | { kind: 'clean'; advanceMs: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), key: fc.nat(15), value: fc.nat(1000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(15) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('txn' as const), keys: fc.array(fc.nat(15), { minLength: 1, maxLength: 4 }), abort: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clean' as const), advanceMs: fc.constantFrom(0, 10, 600, 2000) }) },
);

/** What a read_committed consumer keeps: data batches outside aborted transactions. */
function committedLatest(batches: DiskBatch[], aborted: { producerId: bigint; firstOffset: bigint; lastOffset: bigint }[]): Map<string, string | null> {
  const m = new Map<string, string | null>();
  for (const b of batches) {
    if (b.isControl) continue;
    if (b.isTransactional && aborted.some((t) => t.producerId === b.producerId && b.baseOffset >= t.firstOffset && b.lastOffset <= t.lastOffset)) continue;
    for (const r of b.records) if (r.key !== null) m.set(r.key, r.value);
  }
  return m;
}

describe('cleaner property', () => {
  it('compaction preserves each key\'s latest committed value, increasing offsets and batch identities', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 5, maxLength: 60 }), (ops) => {
        const tmp = tempDir('cleaner-prop');
        const h = openHarness(tmp.dir, compactConfig({ deleteRetentionMs: 1000, segmentBytes: 800 }), { dedupeBufferSize: 24 * 12 });
        try {
          const reference = new Map<string, string | null>();
          const appended = new Map<bigint, { lastOffset: bigint; baseSequence: number; producerId: bigint }>();
          let nextPid = 100n;
          let seq = 0;
          const remember = () => {
            for (const b of readDisk(join(tmp.dir, 't-0'))) {
              if (b.count > 0 && !b.hasDeleteHorizon && !appended.has(b.baseOffset)) {
                appended.set(b.baseOffset, { lastOffset: b.lastOffset, baseSequence: b.baseSequence, producerId: b.producerId });
              }
            }
          };
          for (const op of ops) {
            if (op.kind === 'put') {
              appendRecords(h.log, [{ key: `k${op.key}`, value: `v${op.value}`, timestamp: h.clock.now }]);
              reference.set(`k${op.key}`, `v${op.value}`);
            } else if (op.kind === 'delete') {
              appendRecords(h.log, [{ key: `k${op.key}`, value: null, timestamp: h.clock.now }]);
              reference.set(`k${op.key}`, null);
            } else if (op.kind === 'txn') {
              const pid = nextPid++;
              op.keys.forEach((k, i) =>
                appendRecords(h.log, [{ key: `k${k}`, value: `t${pid}-${i}`, timestamp: h.clock.now }], { producerId: pid, isTransactional: true, baseSequence: i }),
              );
              h.log.appendEndTxnMarker({ type: op.abort ? 'ABORT' : 'COMMIT', producerId: pid, producerEpoch: 0, coordinatorEpoch: 0 });
              if (!op.abort) op.keys.forEach((k, i) => reference.set(`k${k}`, `t${pid}-${i}`));
            } else if (op.kind === 'roll') {
              if (h.log.activeSegment.size > 0) h.log.roll();
            } else {
              remember();
              h.clock.now += op.advanceMs;
              h.cleaner.compact(h.log);
            }
            seq++;
          }
          remember();
          h.log.roll();
          h.cleaner.compact(h.log);
          const batches = readDisk(join(tmp.dir, 't-0'));
          // offsets strictly increase, batch by batch and record by record
          let last = -1n;
          for (const b of batches) {
            assert.ok(b.baseOffset > last, `batch ${b.baseOffset} after ${last}`);
            for (const r of b.records) {
              assert.ok(r.offset >= b.baseOffset && r.offset <= b.lastOffset);
              assert.ok(r.offset > last);
              last = r.offset;
            }
            last = b.lastOffset;
            const original = appended.get(b.baseOffset);
            assert.ok(original, `batch at ${b.baseOffset} was appended`);
            assert.equal(b.lastOffset, original.lastOffset);
            assert.equal(b.baseSequence, original.baseSequence);
            assert.equal(b.producerId, original.producerId);
          }
          const seen = committedLatest(batches, h.log.collectAbortedTxns(0n, h.log.logEndOffset));
          for (const [key, value] of reference) {
            if (value === null) assert.ok(!seen.has(key) || seen.get(key) === null, `${key} deleted`);
            else assert.equal(seen.get(key), value, `latest value of ${key}`);
          }
          for (const key of seen.keys()) assert.ok(reference.has(key), `${key} was written`);
          void seq;
        } finally {
          h.log.close();
          tmp.cleanup();
        }
      }),
      { numRuns: Number(process.env.KAFKALITE_PROPERTY_RUNS ?? 40) },
    );
  });
});
