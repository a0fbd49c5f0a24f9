/**
 * What a client really sent, against what the broker stored: the bytes a client writes on its
 * sockets are split into request frames, the Produce requests among them decoded (the project's
 * protocol codec), and each batch they carry compared with the batch in the partition's segment
 * files.
 *
 * A Kafka leader assigns offsets to a v2 batch in place (Kafka
 * `LogValidator.assignOffsetsNonCompressed` / in-place path of
 * `validateMessagesAndAssignOffsetsCompressed`): it rewrites baseOffset and partitionLeaderEpoch,
 * the two fields in front of the CRC, and nothing the CRC covers. So with CreateTime timestamps
 * a stored batch equals the sent one byte for byte, except bytes 0..7 (baseOffset) and 12..15
 * (partitionLeaderEpoch).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { decodeMessage } from '../../../src/protocol/codec.js';
import { FrameDecoder } from '../../../src/protocol/framing.js';
import { readRequestHeader } from '../../../src/protocol/header.js';
import { Produce } from '../../../src/protocol/schemas/produce.js';
import { readRecordBatches } from '../../../src/record/batches.js';
import { partitionDirName } from '../../../src/storage/topic.js';
import { segmentBytes } from '../../helpers/storage.js';

const PRODUCE_KEY = 0;
const MAX_FRAME = 100 * 1024 * 1024;

/** Collects the request frames one connection writes (a FrameDecoder per connection). */
export class RequestTap {
  readonly frames: Buffer[] = [];
  private readonly decoder = new FrameDecoder(MAX_FRAME);

  push(chunk: Buffer | Uint8Array | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // copies: the client may reuse its write buffers after the write completes
    for (const f of this.decoder.push(Buffer.from(buf))) this.frames.push(f);
  }

  /** Wraps `socket.write` so every byte written also lands here. */
  attach(socket: Socket): Socket {
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((chunk: Buffer | string, ...rest: unknown[]) => {
      this.push(chunk);
      return write(chunk, ...rest);
    }) as Socket['write'];
    return socket;
  }
}

export interface SentBatch {
  topic: string;
  partition: number;
  apiVersion: number;
  acks: number;
  bytes: Buffer;
}

/** Every record batch carried by the Produce requests among `frames`, in the order they were written. */
export function sentBatches(frames: readonly Buffer[]): SentBatch[] {
  const out: SentBatch[] = [];
  for (const frame of frames) {
    const header = readRequestHeader(frame);
    if (header.apiKey !== PRODUCE_KEY) continue;
    const { value } = decodeMessage<{
      acks: number;
      topicData: { name: string; partitionData: { index: number; records: Buffer | null }[] }[];
    }>(Produce.request, header.apiVersion, frame, header.bodyOffset);
    for (const t of value.topicData) {
      for (const p of t.partitionData) {
        if (p.records === null) continue;
        const reader = readRecordBatches(Buffer.from(p.records), { verifyCrc: true });
        for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
          if (b.kind !== 'v2') throw new Error(`client sent a legacy batch to ${t.name}-${p.index}`);
          out.push({ topic: t.name, partition: p.index, apiVersion: header.apiVersion, acks: value.acks, bytes: Buffer.from(b.bytes) });
        }
      }
    }
  }
  return out;
}

/** The raw v2 batches of a partition's segment files, in offset order, CRCs verified. */
export function storedBatchBytes(dataDir: string, topic: string, partition: number): Buffer[] {
  const dir = join(dataDir, partitionDirName(topic, partition));
  const out: Buffer[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const reader = readRecordBatches(segmentBytes(join(dir, f)), { verifyCrc: true });
    for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) out.push(Buffer.from(b.bytes));
  }
  return out;
}

/** The batch with baseOffset and partitionLeaderEpoch zeroed: the part a leader does not rewrite. */
function withoutLeaderFields(batch: Buffer): Buffer {
  const b = Buffer.from(batch);
  b.fill(0, 0, 8);
  b.fill(0, 12, 16);
  return b;
}

/**
 * Asserts that a partition's log holds exactly `sent` (in order), each batch byte for byte apart
 * from the leader-assigned fields, with dense offsets from `firstOffset` on.
 */
export function assertStoredAsSent(dataDir: string, topic: string, partition: number, sent: readonly SentBatch[], firstOffset = 0n): void {
  const mine = sent.filter((s) => s.topic === topic && s.partition === partition);
  const stored = storedBatchBytes(dataDir, topic, partition);
  assert.equal(stored.length, mine.length, `${topic}-${partition}: ${stored.length} batches stored, ${mine.length} sent`);
  let next = firstOffset;
  for (let i = 0; i < stored.length; i++) {
    const s = stored[i]!;
    const baseOffset = s.readBigInt64BE(0);
    assert.equal(baseOffset, next, `${topic}-${partition}: batch ${i} at offset ${baseOffset}, expected ${next} (offsets dense)`);
    assert.ok(withoutLeaderFields(s).equals(withoutLeaderFields(mine[i]!.bytes)), `${topic}-${partition}: batch ${i} (offset ${baseOffset}) differs from the bytes the client sent`);
    next = baseOffset + BigInt(s.readInt32BE(23)) + 1n; // lastOffsetDelta at byte 23
  }
}
