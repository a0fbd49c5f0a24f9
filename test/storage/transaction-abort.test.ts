/**
 * The storage side of `kafkalite transactions`: the read-only producer-state view finds the same
 * open transactions as the broker's load (snapshots at rolled segments plus the log after them),
 * changes no file, and stops at a damaged batch; `abortTransaction` appends Kafka's ABORT marker
 * (control batch, producer id and epoch, coordinator epoch) and moves the last stable offset.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { parseEndTransactionMarker } from '../../src/record/control.js';
import { logConfigFromProperties } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { readProducerStateView } from '../../src/storage/producer-state-view.js';
import { abortTransaction, openTransactions } from '../../src/storage/transaction-abort.js';
import { tempDir } from '../helpers/storage.js';

const TS = 1700000000000;
const value = (i: number) => `value-${i}-${'x'.repeat(200)}`;

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of readdirSync(dir)) if (statSync(join(dir, n)).isFile()) out.set(n, readFileSync(join(dir, n)).toString('base64'));
  return out;
}

/** Producers 1..5 open, write across rolled segments, and some end their transactions. */
function build(dir: string): void {
  const m = LogManager.open(dir, { defaultConfig: logConfigFromProperties({ 'segment.bytes': '2048' }) });
  const log = m.getOrCreateLog('t', 0);
  const seq = new Map<bigint, number>();
  const write = (pid: bigint, n: number) => {
    const s = seq.get(pid) ?? 0;
    log.append(encodeRecordBatch(Array.from({ length: n }, (_, i) => ({ value: value(s + i), timestamp: TS + s + i })), { isTransactional: true, producerId: pid, producerEpoch: 1, baseSequence: s }));
    seq.set(pid, s + n);
  };
  for (let round = 0; round < 6; round++) {
    for (let pid = 1n; pid <= 5n; pid++) write(pid, 2);
    log.append(encodeRecordBatch([{ value: value(round), timestamp: TS }]));
    if (round === 2) log.appendEndTxnMarker({ type: 'COMMIT', producerId: 2n, producerEpoch: 1, coordinatorEpoch: 4 });
    if (round === 4) log.appendEndTxnMarker({ type: 'ABORT', producerId: 3n, producerEpoch: 1, coordinatorEpoch: 4 });
  }
  log.appendEndTxnMarker({ type: 'COMMIT', producerId: 4n, producerEpoch: 1, coordinatorEpoch: 5 });
  assert.ok(log.segmentCount > 3, 'the log rolled, leaving producer snapshots at segment bases');
  m.close();
}

describe('producer-state view and abortTransaction', () => {
  test('the read-only view finds what the load finds, and changes no file', () => {
    const { dir, cleanup } = tempDir('txn-view');
    try {
      build(dir);
      const pdir = join(dir, 't-0');
      const before = files(pdir);
      const view = readProducerStateView(pdir);
      assert.deepEqual(view.warnings, []);
      assert.notEqual(view.snapshotOffset, undefined, 'a snapshot was used');
      assert.deepEqual(files(pdir), before);
      const m = LogManager.open(dir);
      try {
        const loaded = openTransactions(m.getLog('t', 0)!.producerStateManager);
        assert.deepEqual(openTransactions(view.state), loaded);
        assert.equal(view.logEndOffset, m.getLog('t', 0)!.logEndOffset);
        // producers 1 and 5 still open since round 0, 2 and 3 reopened after their markers, 4 ended at the last marker
        assert.deepEqual(loaded.map((t) => t.producerId), [1n, 5n, 2n, 3n]);
        assert.deepEqual(loaded.map((t) => t.coordinatorEpoch), [-1, -1, 4, 4]);
      } finally {
        m.close();
      }
    } finally {
      cleanup();
    }
  });

  test('a clean shutdown that left no snapshot: no producer state, in the view as in the load', () => {
    const { dir, cleanup } = tempDir('txn-view-clean');
    try {
      build(dir);
      for (const n of readdirSync(join(dir, 't-0'))) if (n.endsWith('.snapshot')) rmSync(join(dir, 't-0', n));
      assert.deepEqual(openTransactions(readProducerStateView(join(dir, 't-0'), { hadCleanShutdown: true }).state), []);
      assert.equal(openTransactions(readProducerStateView(join(dir, 't-0')).state).length, 4, 'without the marker the log is replayed');
      const m = LogManager.open(dir);
      try {
        assert.deepEqual(openTransactions(m.getLog('t', 0)!.producerStateManager), []);
      } finally {
        m.close();
      }
    } finally {
      cleanup();
    }
  });

  test('a batch failing its CRC ends the view there, with a warning', () => {
    const { dir, cleanup } = tempDir('txn-view-crc');
    try {
      const m = LogManager.open(dir);
      const log = m.getOrCreateLog('t', 0);
      log.append(encodeRecordBatch([{ value: 'a', timestamp: TS }], { isTransactional: true, producerId: 1n, producerEpoch: 0, baseSequence: 0 }));
      log.append(encodeRecordBatch([{ value: 'b', timestamp: TS }], { isTransactional: true, producerId: 2n, producerEpoch: 0, baseSequence: 0 }));
      m.close();
      // no snapshot (as after a crash before any was taken): the view replays the log
      for (const n of readdirSync(join(dir, 't-0'))) if (n.endsWith('.snapshot')) rmSync(join(dir, 't-0', n));
      const path = join(dir, 't-0', '00000000000000000000.log');
      const bytes = readFileSync(path);
      bytes[bytes.length - 1]! ^= 0xff; // the second batch's last byte
      writeFileSync(path, bytes);
      const view = readProducerStateView(join(dir, 't-0'));
      assert.deepEqual(openTransactions(view.state).map((t) => t.producerId), [1n]);
      assert.equal(view.warnings.length, 1);
      assert.match(view.warnings[0]!, /fails its CRC check; producer state is read up to offset 1$/);
    } finally {
      cleanup();
    }
  });

  test('abortTransaction appends an ABORT control batch with the producer and coordinator epochs, and the LSO moves', () => {
    const { dir, cleanup } = tempDir('txn-abort');
    try {
      build(dir);
      const m = LogManager.open(dir);
      try {
        const log = m.getLog('t', 0)!;
        const first = openTransactions(log.producerStateManager)[0]!;
        assert.equal(log.lastStableOffset, first.firstOffset);
        const r = abortTransaction(log, { producerId: 1n, coordinatorEpoch: 9 });
        assert.deepEqual([r.producerEpoch, r.coordinatorEpoch, r.lastStableOffsetBefore, r.markerOffset], [1, 9, first.firstOffset, log.logEndOffset - 1n]);
        // the next open transaction (producer 5's, from round 0) now holds the LSO
        assert.equal(r.lastStableOffsetAfter, openTransactions(log.producerStateManager)[0]!.firstOffset);
        assert.ok(r.lastStableOffsetAfter > r.lastStableOffsetBefore);
        const last = log.read(r.markerOffset, { maxBytes: 1 << 20 });
        const [marker] = [...readRecordBatches(last.records)];
        assert.ok(marker !== undefined && marker.kind === 'v2');
        assert.deepEqual([marker.isControl, marker.isTransactional, marker.producerId, marker.producerEpoch, marker.baseOffset], [true, true, 1n, 1, r.markerOffset]);
        const rec = marker.records()[0]!;
        assert.deepEqual(parseEndTransactionMarker(rec.key, rec.value), { type: 'ABORT', coordinatorEpoch: 9, version: 0 });
        // a coordinator epoch below 0 (DescribeProducers' -1 for a producer that never saw a marker) is written as 0
        assert.equal(abortTransaction(log, { producerId: 5n, coordinatorEpoch: -1 }).coordinatorEpoch, 0);
        const committed = log.read(0n, { maxBytes: 1 << 24, isolation: 'read_committed' });
        assert.ok(committed.abortedTransactions!.some((a) => a.producerId === 1n && a.firstOffset === first.firstOffset));
      } finally {
        m.close();
      }
    } finally {
      cleanup();
    }
  });
});
