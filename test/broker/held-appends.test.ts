/**
 * The broker holds Produce appends until it answers (src/storage/held-appends.ts, connection.ts):
 * what several connections pipeline (acks=1 and acks=0) comes back whole, in each connection's
 * order, including batches past the hold bound (written at once, from frames that are then reused);
 * no request frame goes back to the pool while a held append is still its bytes; and once a held
 * write fails, the answers it held say KAFKA_STORAGE_ERROR and the broker halts without the
 * clean-shutdown marker.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { once } from 'node:events';
import { Broker } from '../../src/broker/broker.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { MAX_HELD_BYTES, type HeldAppends } from '../../src/storage/held-appends.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { CLEAN_SHUTDOWN_FILE } from '../../src/storage/file-names.js';
import { withBroker } from '../helpers/broker.js';
import { encodeRequestFrame, RawClient } from '../helpers/raw-client.js';

const produce = (topic: string, records: Buffer, acks = 1) => ({ transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });

/** Whether two views share bytes of one memory. */
const overlap = (a: Uint8Array, b: Uint8Array) =>
  a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;

describe('held Produce appends', () => {
  test('several connections pipelining small and large batches get every record back, in each connection\'s order', async () => {
    // a Produce frame may go back to the pool (and take a later frame's bytes) only once none of its
    // bytes is a held append: the appends each file holds are tracked beside it
    const { append, writeHeld } = FileRecords.prototype;
    const recycle = FrameDecoder.prototype.recycle;
    const heldBytes = new Map<FileRecords, Uint8Array[]>();
    let recycled = 0;
    let recycledWhileHeld = 0;
    FileRecords.prototype.append = function (this: FileRecords, bytes: Uint8Array, heldAppends?: HeldAppends) {
      if (heldAppends !== undefined) heldBytes.set(this, [...(heldBytes.get(this) ?? []), bytes]);
      return append.call(this, bytes, heldAppends);
    };
    FileRecords.prototype.writeHeld = function (this: FileRecords) {
      writeHeld.call(this);
      heldBytes.delete(this);
    };
    FrameDecoder.prototype.recycle = function (this: FrameDecoder, frame: Buffer) {
      recycled++;
      if ([...heldBytes.values()].some((list) => list.some((b) => overlap(b, frame)))) recycledWhileHeld++;
      return recycle.call(this, frame);
    };
    try {
      await pipelineAndFetch();
    } finally {
      Object.assign(FileRecords.prototype, { append, writeHeld });
      FrameDecoder.prototype.recycle = recycle;
    }
    assert.ok(recycled > 0, 'Produce frames were recycled');
    assert.equal(recycledWhileHeld, 0, 'no frame was recycled while one of its bytes was a held append');
  });

  async function pipelineAndFetch(): Promise<void> {
    await withBroker({}, async (broker) => {
      const connections = 4;
      const perConnection = 24;
      const clients = await Promise.all(Array.from({ length: connections }, () => RawClient.connect(broker.port)));
      assert.equal(errorName((await clients[0]!.request(3, 1, { topics: [{ name: 'held' }] })).topics[0].errorCode), 'NONE');
      // every 6th batch is past the hold bound; the values say who sent which record, and when
      const value = (c: number, i: number, k: number) => Buffer.from(`${c}:${i}:${k}:`.padEnd(i % 6 === 5 ? 2048 : 512, 'x'));
      const batchOf = (c: number, i: number) => encodeRecordBatch(Array.from({ length: i % 6 === 5 ? Math.ceil(MAX_HELD_BYTES / 2048) + 8 : 24 }, (_, k) => ({ value: value(c, i, k) })));
      const sent = Array.from({ length: connections }, (_, c) => Array.from({ length: perConnection }, (_, i) => batchOf(c, i)));
      // every 4th request is acks=0: no answer, so its frame is given back without one (sent in order)
      const answers = await Promise.all(
        clients.map((client, c) =>
          Promise.all(
            sent[c]!.map((records, i) =>
              i % 4 === 2 ? (client.send(encodeRequestFrame(0, 7, client.correlationId(), produce('held', records, 0))), null) : client.request(0, 7, produce('held', records)),
            ),
          ),
        ),
      );
      const baseOffsets: bigint[] = [];
      for (const perClient of answers) {
        for (const a of perClient) {
          if (a === null) continue;
          const p = a.responses[0].partitionResponses[0];
          assert.equal(errorName(p.errorCode), 'NONE');
          baseOffsets.push(p.baseOffset as bigint);
        }
      }
      // fetch everything back
      const got: string[] = [];
      let offset = 0n;
      for (;;) {
        const f = await clients[0]!.request(1, 11, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 4 << 20, isolationLevel: 0,
          topics: [{ topic: 'held', partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 4 << 20 }] }],
        });
        const records = f.responses[0].partitions[0].records as Buffer | null;
        if (records === null || records.length === 0) break;
        for (const batch of readRecordBatches(records, { verifyCrc: true })) {
          assert.equal(batch.kind, 'v2');
          for (const r of batch.records()) {
            assert.equal(r.offset, offset, 'offsets are dense');
            got.push(r.value!.toString().split('x')[0]!);
            offset++;
          }
        }
      }
      const expected = sent.flatMap((batches, c) => batches.flatMap((_, i) => Array.from({ length: i % 6 === 5 ? Math.ceil(MAX_HELD_BYTES / 2048) + 8 : 24 }, (_, k) => `${c}:${i}:${k}:`)));
      assert.equal(got.length, expected.length);
      assert.deepEqual([...got].sort(), [...expected].sort(), 'every record is stored once');
      for (let c = 0; c < connections; c++) {
        const mine = got.filter((v) => v.startsWith(`${c}:`));
        assert.deepEqual(mine, expected.filter((v) => v.startsWith(`${c}:`)), `connection ${c}'s records are in its order`);
      }
      assert.equal(new Set(baseOffsets).size, baseOffsets.length);
      for (const client of clients) client.destroy();
    });
  }

  test('after a held write fails the answers it held say KAFKA_STORAGE_ERROR, and the broker halts without the clean-shutdown marker', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-held-fail-'));
    try {
      const broker = await Broker.start({ dataDir, logLevel: 'silent' });
      const halted = once(broker, 'error');
      try {
        const c = await RawClient.connect(broker.port);
        assert.equal(errorName((await c.request(3, 1, { topics: [{ name: 'doomed' }] })).topics[0].errorCode), 'NONE');
        assert.equal(errorName((await c.request(0, 7, produce('doomed', encodeRecordBatch([{ value: Buffer.from('acknowledged') }])))).responses[0].partitionResponses[0].errorCode), 'NONE');
        // a file whose held write fails (as a full or failing disk would) joins the next answer's writes
        broker.heldAppends.hold({ path: 'failing.log', writeHeld: () => { throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }); } }, 1);
        const answer = await c.request(0, 7, produce('doomed', encodeRecordBatch([{ value: Buffer.from('never acknowledged') }])));
        assert.equal(errorName(answer.responses[0].partitionResponses[0].errorCode), 'KAFKA_STORAGE_ERROR');
        const [error] = (await halted) as [Error & { code?: string }];
        assert.equal(error.code, 'STORAGE_ERROR');
        assert.equal(broker.heldAppends.failed?.code, 'STORAGE_ERROR');
        assert.equal(broker.logDirFailure?.path, 'failing.log');
        assert.equal(broker.isClosing, true);
      } finally {
        await broker.close();
      }
      assert.equal(existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE)), false, 'no clean-shutdown marker');
      // the next start recovers the log, and what was acknowledged is there
      const again = await Broker.start({ dataDir, logLevel: 'silent' });
      try {
        const c = await RawClient.connect(again.port);
        const f = await c.request(1, 11, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
          topics: [{ topic: 'doomed', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
        });
        const batch = readRecordBatches(f.responses[0].partitions[0].records as Buffer, { verifyCrc: true }).nextBatch();
        assert.ok(batch !== null);
        assert.equal([...batch.records()][0]!.value!.toString(), 'acknowledged');
        c.destroy();
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
