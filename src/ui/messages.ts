/**
 * Messages as the console shows them: from record batches (a Fetch answer's records or a segment's
 * bytes) to JSON-safe views. Keys, values and header values travel as base64 (the page renders
 * them as text, JSON or hex); int64s as decimal strings; each message carries its batch's metadata
 * (codec, magic, producer id/epoch, base sequence, transactional/control flags).
 */
import { readRecordBatches, type AnyRecordBatch } from '../record/batches.js';

export type StartPosition = { kind: 'beginning' } | { kind: 'end' } | { kind: 'offset'; offset: bigint } | { kind: 'timestamp'; timestamp: bigint };

interface BatchMeta {
  baseOffset: string;
  lastOffset: string;
  magic: number;
  codec: string;
  timestampType: string;
  producerId: string;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
  sizeInBytes: number;
}

export interface MessageView {
  partition: number;
  offset: string;
  timestamp: string;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  batch: BatchMeta;
}

function b64(b: Buffer | null): string | null {
  return b === null ? null : b.toString('base64');
}

export function batchMeta(batch: AnyRecordBatch): BatchMeta {
  return {
    baseOffset: String(batch.baseOffset),
    lastOffset: String(batch.lastOffset),
    magic: batch.magic,
    codec: batch.compression,
    timestampType: batch.timestampType,
    producerId: String(batch.producerId),
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    transactional: batch.isTransactional,
    sizeInBytes: batch.sizeInBytes,
  };
}

/**
 * Up to `limit` messages at or after `fromOffset` (a Fetch answers whole batches, so the first
 * batch may start before it); control batches (transaction markers) are skipped as consumers skip
 * them. `nextOffset` is where the next page starts.
 */
export function messagesOfBatches(records: Buffer, partition: number, fromOffset: bigint, limit: number): { messages: MessageView[]; nextOffset: bigint } {
  const out: MessageView[] = [];
  let next = fromOffset;
  for (const batch of readRecordBatches(records)) {
    if (out.length >= limit) break;
    if (batch.nextOffset <= fromOffset) continue;
    if (batch.isControl) {
      next = batch.nextOffset;
      continue;
    }
    const meta = batchMeta(batch);
    for (const r of batch.records()) {
      if (r.offset < fromOffset) continue;
      if (out.length >= limit) break;
      const headers = 'headers' in r ? r.headers.map((h) => ({ key: h.key, value: b64(h.value) })) : [];
      out.push({ partition, offset: String(r.offset), timestamp: String(r.timestamp), key: b64(r.key), value: b64(r.value), headers, batch: meta });
      next = r.offset + 1n;
    }
    if (out.length < limit) next = batch.nextOffset;
  }
  return { messages: out, nextOffset: next };
}
