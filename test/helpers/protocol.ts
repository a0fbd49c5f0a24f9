/**
 * Just enough of the Kafka wire protocol to pull the record-set bytes out of captured Fetch
 * responses (v0..v11) and Produce requests (v0..v7): the non-flexible versions, whose strings are
 * int16-length-prefixed, arrays int32-count-prefixed and `records` int32-length-prefixed (nullable).
 *
 * Layouts (Kafka's FetchResponse.json / ProduceRequest.json):
 *   FetchResponse v0..v11 (body, no size/correlation id):
 *     [v1+] throttle_time_ms int32
 *     [v7+] error_code int16, session_id int32
 *     responses [ topic string, partitions [
 *         partition_index int32, error_code int16, high_watermark int64,
 *         last_stable_offset int64, [v5+] log_start_offset int64,
 *         aborted_transactions nullable [ producer_id int64, first_offset int64 ],
 *         [v11+] preferred_read_replica int32,
 *         records nullable bytes ] ]
 *   ProduceRequest v0..v7 (body, no request header):
 *     [v3+] transactional_id nullable string, acks int16, timeout_ms int32,
 *     topic_data [ name string, partition_data [ index int32, records nullable bytes ] ]
 *
 * Every length is checked against the buffer, and a parse must consume the whole input, so a wrong
 * version or a misplaced field fails loudly instead of yielding garbage "records".
 */
import { readFileSync } from 'node:fs';
import { ErrorCode } from '../../src/protocol/error-codes.js';

export class WireReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  private need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.buf.length) {
      throw new Error(`wire: ${what} needs ${n} bytes at ${this.pos}, only ${this.buf.length - this.pos} left`);
    }
  }
  int16(): number {
    this.need(2, 'int16');
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4, 'int32');
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): bigint {
    this.need(8, 'int64');
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  nullableString(): string | null {
    const len = this.int16();
    if (len === -1) return null;
    this.need(len, 'string');
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
  string(): string {
    const s = this.nullableString();
    if (s === null) throw new Error(`wire: null string at ${this.pos - 2}`);
    return s;
  }
  /** int32-length-prefixed bytes; a view into the input. */
  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len === -1) return null;
    this.need(len, 'bytes');
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  array<T>(item: (r: WireReader) => T): T[] {
    const n = this.int32();
    if (n === -1) return [];
    if (n < 0 || n > this.buf.length - this.pos) throw new Error(`wire: bad array count ${n} at ${this.pos - 4}`);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item(this));
    return out;
  }
  expectEnd(what: string): void {
    if (this.pos !== this.buf.length) {
      throw new Error(`wire: ${what} parsed to byte ${this.pos} of ${this.buf.length}`);
    }
  }
}

export interface PartitionRecords {
  topic: string;
  partition: number;
  errorCode: number;
  highWatermark?: bigint;
  /** The partition's record-set bytes (a view into the input), null when the field is null. */
  records: Buffer | null;
}

/** Parse a Fetch response body (without the size and correlation id) of version 0..11. */
export function parseFetchResponse(body: Buffer, version: number): PartitionRecords[] {
  if (!Number.isInteger(version) || version < 0 || version > 11) throw new Error(`Fetch v${version} is not handled (only non-flexible v0..v11)`);
  const r = new WireReader(body);
  if (version >= 1) r.int32(); // throttle_time_ms
  if (version >= 7) {
    r.int16(); // error_code
    r.int32(); // session_id
  }
  const out: PartitionRecords[] = [];
  r.array((t) => {
    const topic = t.string();
    t.array((p) => {
      const partition = p.int32();
      const errorCode = p.int16();
      const highWatermark = p.int64();
      if (version >= 4) p.int64(); // last_stable_offset
      if (version >= 5) p.int64(); // log_start_offset
      if (version >= 4) {
        p.array((a) => {
          a.int64(); // producer_id
          a.int64(); // first_offset
        });
      }
      if (version >= 11) p.int32(); // preferred_read_replica
      out.push({ topic, partition, errorCode, highWatermark, records: p.nullableBytes() });
    });
  });
  r.expectEnd(`Fetch v${version} response`);
  return out;
}

/** Parse a Produce request body (without the request header) of version 0..7. */
export function parseProduceRequest(body: Buffer, version: number): PartitionRecords[] {
  if (!Number.isInteger(version) || version < 0 || version > 7) throw new Error(`Produce v${version} is not handled (only v0..v7)`);
  const r = new WireReader(body);
  if (version >= 3) r.nullableString(); // transactional_id
  r.int16(); // acks
  r.int32(); // timeout_ms
  const out: PartitionRecords[] = [];
  r.array((t) => {
    const topic = t.string();
    t.array((p) => {
      const partition = p.int32();
      out.push({ topic, partition, errorCode: ErrorCode.NONE, records: p.nullableBytes() });
    });
  });
  r.expectEnd(`Produce v${version} request`);
  return out;
}

/**
 * A whole response frame as sent on the wire: int32 size, int32 correlation id, body. Checks the
 * size field against the input and returns the correlation id and the body.
 */
export function splitResponseFrame(frame: Buffer): { correlationId: number; body: Buffer } {
  if (frame.length < 8) throw new Error(`frame of ${frame.length} bytes is too short`);
  const size = frame.readInt32BE(0);
  if (size !== frame.length - 4) throw new Error(`frame size field ${size} but ${frame.length - 4} bytes follow it`);
  return { correlationId: frame.readInt32BE(4), body: frame.subarray(8) };
}

/** Load a kafkajs fixture: JSON `{"type":"Buffer","data":[...]}`. */
export function loadBufferJson(path: string): Buffer {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { type?: string; data?: number[] };
  if (parsed.type !== 'Buffer' || !Array.isArray(parsed.data)) throw new Error(`${path} is not a serialized Buffer`);
  return Buffer.from(parsed.data);
}

/** Load a hex dump that is one run of hex digits (whitespace tolerated). */
export function loadHex(path: string): Buffer {
  const text = readFileSync(path, 'utf8').replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new Error(`${path} is not plain hex`);
  return Buffer.from(text, 'hex');
}
