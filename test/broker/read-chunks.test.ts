/**
 * A connection reuses its read chunks (64 KiB, grown up to 256 KiB while reads fill them) once every Produce frame read into them was answered
 * and given back (connection.ts, MAX_RETIRED_BYTES): a pipelined stream of 16 KiB Produce
 * requests allocates a handful of chunks, not one per 64 KiB, and every record lands intact even
 * though later requests are read into the memory of earlier ones (each value is distinct, so a
 * chunk reused while a held append still pointed into it would show as a wrong record). A chunk
 * holding a request no handler gives back (Metadata) is never reused. FrameDecoder.holds tells
 * whether buffered partial frames are in a chunk.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiKey } from '../../src/protocol/api-keys.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { storedRecords, withBroker } from '../helpers/broker.js';
import { encodeRequestFrame, RawClient } from '../helpers/raw-client.js';

/** connection.ts READ_CHUNK_BYTES and READ_CHUNK_MAX_BYTES: the sizes of read chunks. */
const READ_CHUNK_SIZES = new Set([64 * 1024, 128 * 1024, 256 * 1024]);

/** Counts the read chunks connections allocate while `body` runs, and their bytes. */
async function countingChunks<T>(body: () => Promise<T>): Promise<{ result: T; chunks: number; bytes: number }> {
  const original = Buffer.allocUnsafeSlow;
  let chunks = 0;
  let bytes = 0;
  Buffer.allocUnsafeSlow = (size: number) => {
    if (READ_CHUNK_SIZES.has(size)) {
      chunks++;
      bytes += size;
    }
    return original(size);
  };
  try {
    return { result: await body(), chunks, bytes };
  } finally {
    Buffer.allocUnsafeSlow = original;
  }
}

describe('read chunks', () => {
  test('a pipelined 16 KiB Produce stream reuses its read chunks and stores every record intact', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'true' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        await c.request(ApiKey.Metadata, 9, { topics: [{ name: 'chunks' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
        const requests = 240;
        const frames = Array.from({ length: requests }, (_, i) => {
          const records = encodeRecordBatch(Array.from({ length: 16 }, (_, r) => ({ value: Buffer.alloc(1000, (i * 16 + r) % 251) })));
          return encodeRequestFrame(ApiKey.Produce, 7, i, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'chunks', partitionData: [{ index: 0, records }] }] }, 'chunks');
        });
        const { chunks, bytes } = await countingChunks(async () => {
          // five in flight, as librdkafka keeps them
          let next = 0;
          await Promise.all(
            Array.from({ length: 5 }, async () => {
              while (next < requests) {
                const answer = c.nextFrame();
                c.send(frames[next++]!);
                await answer;
              }
            }),
          );
        });
        // without reuse, 240 x 16.5 KB read into chunks takes 3.9 MB of them (60 of 64 KiB, or 16 of
        // 256 KiB); reused, one chunk of each size the connection grew through and a spare or two
        // (640 KiB when measured: 64, 128, then two of 256 KiB taking turns)
        assert.ok(bytes <= 1280 * 1024, `${chunks} read chunks (${bytes} bytes) allocated for ${requests} requests`);
      } finally {
        c.destroy();
      }
      await broker.close();
      const stored = storedRecords(broker.dataDir, 'chunks', 0);
      assert.equal(stored.length, 240 * 16);
      stored.forEach((r, n) => assert.ok(r.value !== null && r.value.length === 1000 && r.value.every((b) => b === n % 251), `record ${n}`));
    });
  });

  test('1 MiB Produce frames after a pipelined 16 KiB stream (grown read chunks) are assembled intact', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'true' } }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      const produce = (i: number, count: number, bytes: number) =>
        encodeRequestFrame(ApiKey.Produce, 7, i, {
          transactionalId: null,
          acks: 1,
          timeoutMs: 5000,
          topicData: [{ name: 'mixed', partitionData: [{ index: 0, records: encodeRecordBatch(Array.from({ length: count }, (_, r) => ({ value: Buffer.alloc(bytes, (i * 7 + r) % 251) }))) }] }],
        }, 'mixed');
      const sizes: [number, number][] = [];
      try {
        await c.request(ApiKey.Metadata, 9, { topics: [{ name: 'mixed' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
        // 16 KiB requests, then 1 MiB ones, then 16 KiB again, each group sent at once (pipelined)
        const groups = [Array(60).fill([16, 1000]), Array(6).fill([16, 65_000]), Array(30).fill([16, 1000])] as [number, number][][];
        let id = 0;
        for (const g of groups) {
          const answers = g.map(() => c.nextFrame());
          for (const [count, bytes] of g) {
            sizes.push([count, bytes]);
            c.send(produce(id++, count, bytes));
          }
          await Promise.all(answers);
        }
      } finally {
        c.destroy();
      }
      await broker.close();
      const stored = storedRecords(broker.dataDir, 'mixed', 0);
      assert.equal(stored.length, sizes.reduce((n, [count]) => n + count, 0));
      let at = 0;
      sizes.forEach(([count, bytes], i) => {
        for (let r = 0; r < count; r++, at++) {
          const v = stored[at]!.value;
          assert.ok(v !== null && v.length === bytes && v.every((b) => b === (i * 7 + r) % 251), `request ${i} record ${r}`);
        }
      });
    });
  });

  test('a chunk with a request that is never given back is not reused', async () => {
    await withBroker({}, async (broker) => {
      const c = await RawClient.connect(broker.port);
      try {
        const { chunks } = await countingChunks(async () => {
          // Metadata requests padded by a long client id: their frames are views no handler gives back
          for (let i = 0; i < 40; i++) {
            const answer = c.nextFrame();
            c.send(encodeRequestFrame(ApiKey.Metadata, 1, i, { topics: [] }, 'x'.repeat(16_000)));
            await answer;
          }
        });
        assert.ok(chunks >= 8, `${chunks} read chunks for 40 x 16 KB Metadata requests: chunks were reused while frames could still be referenced`);
      } finally {
        c.destroy();
      }
    });
  });

  test('FrameDecoder.holds: the partial frame of a chunk is held until a later chunk completes it', () => {
    const d = new FrameDecoder(1 << 20);
    const frame = Buffer.alloc(4 + 100, 7);
    frame.writeInt32BE(100, 0);
    // each in memory of its own, as read chunks are (Buffer.from would share Node's pool slab)
    const own = (b: Buffer) => {
      const out = Buffer.allocUnsafeSlow(b.length);
      b.copy(out);
      return out;
    };
    const first = own(frame.subarray(0, 60));
    const second = own(frame.subarray(60));
    assert.deepEqual(d.push(first), []);
    assert.equal(d.holds(first.buffer), true);
    assert.equal(d.holds(second.buffer), false);
    const out = d.push(second);
    assert.equal(out.length, 1);
    assert.equal(d.holds(first.buffer), false);
  });
});
