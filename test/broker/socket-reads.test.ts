/**
 * Socket reads into the broker's own buffers (src/broker/socket-reads.ts): an accepted socket's
 * handle re-wrapped with Node's `onread`. The bytes must arrive whole and in order in the buffers the
 * reader gives, writing and closing must keep working, and the broker must serve large Produce
 * frames through in-place assembly — and, with the broker property kafkalite.socket.reads=stream,
 * through 'data' events.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { adoptSocketReads, startReads } from '../../src/broker/socket-reads.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { withBroker } from '../helpers/broker.js';
import { RawClient } from '../helpers/raw-client.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** Sends `data`, then half-closes; resolves with everything the server sent back. */
function sendAndCollect(port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(data));
    const got: Buffer[] = [];
    s.on('data', (c: Buffer) => got.push(c));
    s.on('end', () => resolve(Buffer.concat(got)));
    s.on('error', reject);
  });
}

describe('socket reads into chosen buffers', () => {
  test('every byte lands in the buffer the reader gave for that read, in order; the socket still writes and closes', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const problems: string[] = [];
    const server = createServer({ pauseOnConnect: true }, (accepted) => {
      const hash = createHash('sha256');
      let received = 0;
      let last: Buffer | undefined;
      let reads = 0;
      // buffers of varying sizes, some of them views into a larger one, as the connection hands out
      const arena = Buffer.alloc(1 << 20);
      const adopted: Socket | undefined = adoptSocketReads(accepted, {
        target: () => {
          reads++;
          const size = 1 + ((reads * 7919) % 200_000);
          last = reads % 2 === 0 ? arena.subarray(reads % 1000, (reads % 1000) + size) : Buffer.allocUnsafe(size);
          return last;
        },
        filled: (n, buf) => {
          if (buf !== last) problems.push(`read ${reads} filled a buffer it was not given`);
          if (n > buf.length) problems.push(`read ${reads}: ${n} bytes into ${buf.length}`);
          hash.update(buf.subarray(0, n));
          received += n;
        },
      });
      if (adopted === undefined) {
        problems.push('the accepted socket could not be adopted');
        accepted.destroy();
        return;
      }
      adopted.on('end', () => adopted.end(`${received} ${hash.digest('hex')}`));
    });
    const port = await listen(server);
    try {
      const answer = (await sendAndCollect(port, data)).toString();
      assert.deepEqual(problems, []);
      assert.equal(answer, `${data.length} ${createHash('sha256').update(data).digest('hex')}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("in stream mode startReads leaves the socket to its data events and hands their chunks to the reader", async () => {
    const problems: string[] = [];
    const server = createServer({ pauseOnConnect: true }, (accepted) => {
      const got: Buffer[] = [];
      const reader = {
        target: () => (problems.push('target() was asked for in stream mode'), Buffer.alloc(16)),
        filled: () => void problems.push('filled() was called in stream mode'),
        chunk: (c: Buffer) => void got.push(c),
      };
      const socket = startReads(accepted, reader, 'stream');
      if (socket !== accepted) problems.push('the accepted socket was replaced');
      socket.on('end', () => socket.end(Buffer.concat(got)));
    });
    const port = await listen(server);
    try {
      assert.equal((await sendAndCollect(port, Buffer.from('plain stream'))).toString(), 'plain stream');
      assert.deepEqual(problems, []);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** Produces three ~1 MiB batches pipelined on one connection and fetches them back byte for byte. */
  async function largeProduceRoundTrip(config: Record<string, string> = {}): Promise<void> {
    await withBroker({ config }, async (broker) => {
      const c = await RawClient.connect(broker.port);
      const meta = await c.request(3, 1, { topics: [{ name: 'large' }] });
      assert.equal(errorName(meta.topics[0].errorCode), 'NONE');
      const batches = [1, 2, 3].map((i) => encodeRecordBatch(Array.from({ length: 1000 }, (_, k) => ({ key: `k${k}`, value: Buffer.alloc(1000, (i * 31 + k) % 256) }))));
      const answers = await Promise.all(
        batches.map((records) => c.request(0, 7, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'large', partitionData: [{ index: 0, records }] }] })),
      );
      assert.deepEqual(answers.map((a) => a.responses[0].partitionResponses[0].baseOffset), [0n, 1000n, 2000n]);
      for (let i = 0; i < batches.length; i++) {
        const f = await c.request(1, 11, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 4 << 20, isolationLevel: 0,
          topics: [{ topic: 'large', partitions: [{ partition: 0, fetchOffset: BigInt(i * 1000), partitionMaxBytes: 1 }] }],
        });
        const records = f.responses[0].partitions[0].records as Buffer;
        const batch = readRecordBatches(records, { verifyCrc: true }).nextBatch();
        assert.ok(batch !== null && batch.kind === 'v2');
        assert.equal(batch.baseOffset, BigInt(i * 1000));
        // the produced batch, with baseOffset and partitionLeaderEpoch (bytes 0-15) assigned by the log
        const sent = batches[i]!;
        assert.equal(records.length, sent.length);
        assert.ok(records.subarray(16).equals(sent.subarray(16)), `batch ${i} came back byte for byte`);
      }
      c.destroy();
    });
  }

  test('the broker assembles large Produce frames in place and stores them byte for byte', async () => {
    const original = FrameDecoder.prototype.directFilledInto;
    let directBytes = 0;
    FrameDecoder.prototype.directFilledInto = function (this: FrameDecoder, n: number, frames: Buffer[]) {
      directBytes += n;
      original.call(this, n, frames);
    };
    try {
      await largeProduceRoundTrip();
    } finally {
      FrameDecoder.prototype.directFilledInto = original;
    }
    assert.ok(directBytes > 1 << 20, `only ${directBytes} bytes were read in place`);
  });

  test('hostile size prefixes on many connections: what the broker allocates ahead of the bytes stays within its reservations, and comes back when the clients leave', async () => {
    await withBroker({}, async (broker) => {
      const limit = broker.inPlaceFrames.maxBytes;
      // 12 connections each announcing a 10 MiB request (within socket.request.max.bytes) and
      // sending 1 KiB of it: 120 MiB announced against the 64 MiB bound
      const announced = 10 * 1024 * 1024;
      const head = Buffer.alloc(4 + 1024);
      head.writeInt32BE(announced, 0);
      const sockets = await Promise.all(
        Array.from({ length: 12 }, () => new Promise<Socket>((resolve, reject) => {
          const s = connect(broker.port, '127.0.0.1', () => s.write(head, () => resolve(s)));
          s.on('error', reject);
        })),
      );
      const guard = Date.now() + 10_000; // a hang guard, not a timing claim
      while (broker.inPlaceFrames.reservedBytes < limit - announced && Date.now() < guard) await new Promise((r) => setTimeout(r, 10));
      const reserved = broker.inPlaceFrames.reservedBytes;
      assert.ok(reserved > 0, 'large frames were assembled in place');
      assert.ok(reserved <= limit, `${reserved} bytes reserved, bound ${limit}`);
      // the broker still answers a well-behaved client meanwhile
      const c = await RawClient.connect(broker.port);
      assert.equal((await c.request(3, 1, { topics: [] })).brokers.length, 1);
      c.destroy();
      for (const s of sockets) s.destroy();
      while (broker.inPlaceFrames.reservedBytes > 0 && Date.now() < guard + 10_000) await new Promise((r) => setTimeout(r, 10));
      assert.equal(broker.inPlaceFrames.reservedBytes, 0, 'the connections that left gave their reservations back');
    });
  });

  test('with kafkalite.socket.reads=stream the broker serves the same requests from data events', async () => {
    const original = FrameDecoder.prototype.directFilledInto;
    let directBytes = 0;
    FrameDecoder.prototype.directFilledInto = function (this: FrameDecoder, n: number, frames: Buffer[]) {
      directBytes += n;
      original.call(this, n, frames);
    };
    try {
      await largeProduceRoundTrip({ 'kafkalite.socket.reads': 'stream' });
    } finally {
      FrameDecoder.prototype.directFilledInto = original;
    }
    assert.equal(directBytes, 0, 'nothing was read in place');
  });
});
