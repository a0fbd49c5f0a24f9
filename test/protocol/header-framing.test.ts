/**
 * Request/response header rules (RequestHeader.json, ResponseHeader.json, KIP-511) and FrameDecoder
 * (Kafka's `NetworkReceive`). The
 * expected header bytes are written out by hand from those schemas.
 */
import { test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { BufferPool, ByteReservations } from '../../src/bytes/buffer-pool.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { encodeResponse, encodeResponseFrame, readRequestHeader, requestHeaderVersion } from '../../src/protocol/header.js';
import { encodeMessage } from '../../src/protocol/codec.js';
import { API_SCHEMAS } from '../../src/protocol/schemas/index.js';
import { randomMessage } from './value-gen.js';
import { FrameTooLargeError, ProtocolError } from '../../src/protocol/errors.js';
import { Rng } from '../helpers/ref.js';
import { tierCount } from '../helpers/tier.js';

function header(apiKey: number, apiVersion: number, correlationId: number, clientId: string | null, tagBuffer?: number[]): Buffer {
  const b = Buffer.alloc(8);
  b.writeInt16BE(apiKey, 0);
  b.writeInt16BE(apiVersion, 2);
  b.writeInt32BE(correlationId, 4);
  const id = clientId === null ? Buffer.from([0xff, 0xff]) : Buffer.concat([Buffer.from([clientId.length >> 8, clientId.length & 0xff]), Buffer.from(clientId)]);
  return Buffer.concat([b, id, Buffer.from(tagBuffer ?? [])]);
}

test('request header v1 for non-flexible versions: int16 client id, body right after it', () => {
  const frame = Buffer.concat([header(0, 7, 42, 'rdkafka'), Buffer.from([1, 2, 3])]);
  assert.deepStrictEqual(readRequestHeader(frame), { apiKey: 0, apiVersion: 7, correlationId: 42, clientId: 'rdkafka', headerVersion: 1, bodyOffset: 17 });
});

test('request header v2 for flexible versions: client id still int16-prefixed, then a tag buffer (tags skipped)', () => {
  const plain = Buffer.concat([header(18, 3, 7, 'kcat', [0]), Buffer.from([0xaa])]);
  assert.deepStrictEqual(readRequestHeader(plain), { apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'kcat', headerVersion: 2, bodyOffset: 15 });
  // one unknown tag (tag 5, 2 bytes) in the header's tag buffer
  const tagged = Buffer.concat([header(1, 12, 8, 'c', [1, 5, 2, 0xde, 0xad]), Buffer.from([0xbb])]);
  const h = readRequestHeader(tagged);
  assert.equal(h.headerVersion, 2);
  assert.equal(tagged[h.bodyOffset], 0xbb);
});

test('a null client id reads as the empty string', () => {
  assert.equal(readRequestHeader(header(3, 1, 1, null)).clientId, '');
  assert.equal(readRequestHeader(header(3, 9, 1, null, [0])).clientId, '');
});

test('client ids of consecutive requests: each one read as sent, UTF-8 included, whatever came before', () => {
  const utf8 = (id: string) => Buffer.concat([Buffer.from([0, 0, 0, 7, 0, 0, 0, 1]), Buffer.from([Buffer.byteLength(id) >> 8, Buffer.byteLength(id) & 0xff]), Buffer.from(id)]);
  const long = 'x'.repeat(300);
  for (const id of ['rdkafka', 'rdkafka', 'rdkafkb', 'rdkafka', 'prodücer-é', long, 'rdkafka', long, '', 'prodücer-é']) {
    const h = readRequestHeader(utf8(id));
    assert.equal(h.clientId, id);
    assert.equal(h.bodyOffset, 10 + Buffer.byteLength(id));
  }
});

test('header version follows the API: Produce 8 v1 / 9 v2, Fetch 11 v1 / 12 v2, Metadata 9 v2, ApiVersions 2 v1 / 3 v2', () => {
  const cases: [number, number, 1 | 2][] = [[0, 8, 1], [0, 9, 2], [1, 11, 1], [1, 12, 2], [3, 8, 1], [3, 9, 2], [18, 2, 1], [18, 3, 2], [22, 1, 1], [22, 2, 2], [17, 1, 1]];
  for (const [k, v, hv] of cases) assert.equal(requestHeaderVersion(k, v), hv, `api ${k} v${v}`);
});

test('unknown API keys and versions outside the range still give apiKey, apiVersion and correlation id (parsed as v1)', () => {
  const unknown = readRequestHeader(header(999, 3, 77, 'x'));
  assert.deepStrictEqual([unknown.apiKey, unknown.apiVersion, unknown.correlationId, unknown.headerVersion], [999, 3, 77, 1]);
  const tooNew = readRequestHeader(header(0, 99, 78, 'x'));
  assert.deepStrictEqual([tooNew.apiKey, tooNew.apiVersion, tooNew.correlationId, tooNew.headerVersion], [0, 99, 78, 1]);
  // ApiVersions above its max: flexible rule "3+" (ApiVersionsRequest.json, KIP-511)
  const av = readRequestHeader(header(18, 42, 79, 'x', [0]));
  assert.deepStrictEqual([av.apiVersion, av.correlationId, av.headerVersion, av.bodyOffset], [42, 79, 2, 12]);
});

test('truncated or malformed headers throw ProtocolError with a position', () => {
  for (const bad of [Buffer.alloc(0), Buffer.alloc(7), header(0, 7, 1, 'abc').subarray(0, 12), Buffer.concat([header(0, 7, 1, null).subarray(0, 8), Buffer.from([0xff, 0xfe])])]) {
    assert.throws(() => readRequestHeader(bad), (e: unknown) => e instanceof ProtocolError && errorName(e.kafkaErrorCode) === 'INVALID_REQUEST' && typeof e.position === 'number');
  }
  // v2 header whose tag buffer is missing
  assert.throws(() => readRequestHeader(header(18, 3, 1, 'a')), ProtocolError);
});

test('response frame: size + correlation id (v0); flexible responses add an empty tag buffer (v1); ApiVersions always v0', () => {
  const body = [Buffer.from([1, 2]), Buffer.from([3])];
  const v0 = Buffer.concat(encodeResponseFrame(3, 8, 0x01020304, body));
  assert.deepStrictEqual([...v0], [0, 0, 0, 7, 1, 2, 3, 4, 1, 2, 3]);
  const v1 = Buffer.concat(encodeResponseFrame(3, 9, 5, body));
  assert.deepStrictEqual([...v1], [0, 0, 0, 8, 0, 0, 0, 5, 0, 1, 2, 3]);
  for (const v of [0, 3, 4]) {
    const av = Buffer.concat(encodeResponseFrame(18, v, 6, body));
    assert.deepStrictEqual([...av], [0, 0, 0, 7, 0, 0, 0, 6, 1, 2, 3], `ApiVersions v${v}`);
  }
  const chunks = encodeResponseFrame(1, 12, 1, body);
  assert.equal(chunks[1], body[0], 'body chunks are passed through, not copied');
});

test('encodeResponse writes the frame encodeResponseFrame makes of encodeMessage, header in the first chunk, zero-copy chunks passed through', () => {
  const rng = new Rng(0x24a11c);
  let zeroCopy = 0;
  for (const [apiKey, api] of API_SCHEMAS) {
    for (let v = api.response.validVersions[0]; v <= api.response.validVersions[1]; v++) {
      for (let i = 0; i < 3; i++) {
        const value = randomMessage(api.response, v, rng, { largeBytes: 0.3 });
        const correlationId = rng.int(0x7fffffff);
        const expected = Buffer.concat(encodeResponseFrame(apiKey, v, correlationId, encodeMessage(api.response, v, value)));
        const chunks = encodeResponse(api.response, apiKey, v, correlationId, value);
        assert.ok(Buffer.concat(chunks).equals(expected), `${api.name} v${v} case ${i}`);
        assert.ok(chunks[0]!.length >= 8, `${api.name} v${v}: the header is in the first chunk`);
        if (chunks.length > 1) zeroCopy++;
      }
    }
  }
  assert.ok(zeroCopy > 0, 'some cases had zero-copy chunks');
  // the header bytes themselves (Produce v9 is flexible: header v1; ApiVersions always v0)
  const produce = API_SCHEMAS.get(0)!;
  const p = Buffer.concat(encodeResponse(produce.response, 0, 9, 0x01020304, { responses: [], throttleTimeMs: 0 }));
  assert.deepStrictEqual([...p.subarray(0, 9)], [0, 0, 0, p.length - 4, 1, 2, 3, 4, 0]);
  const versions = API_SCHEMAS.get(18)!;
  const av = Buffer.concat(encodeResponse(versions.response, 18, 3, 6, { errorCode: 0, apiKeys: [], throttleTimeMs: 0 }));
  assert.deepStrictEqual([...av.subarray(0, 8)], [0, 0, 0, av.length - 4, 0, 0, 0, 6]);
});

function frame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

test('FrameDecoder returns the same frames for every way of splitting the stream', () => {
  const rng = new Rng(0x5eed);
  const payloads = [Buffer.alloc(0), Buffer.from('a'), rng.bytes(3), rng.bytes(100), rng.bytes(5000), Buffer.from('last')];
  const stream = Buffer.concat(payloads.map(frame));
  // every single split point, then random multi-way splits
  const splits: number[][] = [];
  for (let p = 0; p <= stream.length; p++) splits.push([p]);
  for (let i = 0; i < 300; i++) {
    const cuts = new Set<number>();
    const k = 1 + rng.int(40);
    for (let j = 0; j < k; j++) cuts.add(rng.int(stream.length + 1));
    splits.push([...cuts].sort((a, b) => a - b));
  }
  for (const cuts of splits) {
    const d = new FrameDecoder(1 << 20);
    const got: Buffer[] = [];
    let from = 0;
    for (const c of [...cuts, stream.length]) {
      got.push(...d.push(stream.subarray(from, c)));
      from = c;
    }
    assert.deepStrictEqual(got, payloads, `cuts ${cuts.join(',')}`);
    assert.equal(d.bufferedBytes, 0);
  }
});

test('FrameDecoder.pushInto with a length takes only that many bytes of the chunk: the frames of push() for every split, the rest of the chunk ignored', () => {
  const rng = new Rng(0x24f7);
  const payloads = [Buffer.from('a'), rng.bytes(3), Buffer.alloc(0), rng.bytes(100), rng.bytes(5000), Buffer.from('last')];
  const stream = Buffer.concat(payloads.map(frame));
  for (let i = 0; i < 400; i++) {
    const cuts = new Set<number>();
    const k = rng.int(12);
    for (let j = 0; j < k; j++) cuts.add(rng.int(stream.length + 1));
    const d = new FrameDecoder(1 << 20);
    const got: Buffer[] = [];
    let from = 0;
    for (const c of [...[...cuts].sort((a, b) => a - b), stream.length]) {
      // the read lands at the start of a larger chunk whose tail holds bytes of no frame (a size prefix of 0x7f7f7f7f)
      const chunk = Buffer.concat([stream.subarray(from, c), Buffer.alloc(1 + rng.int(64), 0x7f)]);
      d.pushInto(chunk, got, c - from);
      from = c;
    }
    assert.deepStrictEqual(got, payloads, `cuts ${[...cuts].join(',')}`);
    assert.equal(d.bufferedBytes, 0);
  }
  // a size prefix above the bound after whole frames: those frames first, then the failure
  const d = new FrameDecoder(100);
  const bad = Buffer.alloc(4);
  bad.writeInt32BE(101);
  const got: Buffer[] = [];
  d.pushInto(Buffer.concat([frame(Buffer.from('ok')), bad, Buffer.alloc(8)]), got, 10);
  assert.deepStrictEqual(got, [Buffer.from('ok')]);
  assert.ok(d.failed instanceof FrameTooLargeError);
});

test('FrameDecoder hands out a frame inside one chunk as a zero-copy view', () => {
  const stream = Buffer.concat([frame(Buffer.from('hello')), frame(Buffer.from('world'))]);
  const [a, b] = new FrameDecoder(100).push(stream);
  assert.equal(a!.buffer, stream.buffer);
  assert.equal(b!.toString(), 'world');
});

test('FrameDecoder refuses sizes above the cap or negative, before any bytes of the frame arrive', () => {
  const d = new FrameDecoder(1000);
  assert.deepStrictEqual(d.push(Buffer.from([0, 0])), []);
  assert.throws(() => d.push(Buffer.from([0x03, 0xe9])), FrameTooLargeError); // 1001
  assert.throws(() => new FrameDecoder(1000).push(Buffer.from([0xff, 0xff, 0xff, 0xff])), FrameTooLargeError);
  assert.throws(() => new FrameDecoder(104857600).push(Buffer.from([0x7f, 0xff, 0xff, 0xff])), (e: unknown) => e instanceof FrameTooLargeError && errorName(e.kafkaErrorCode) === 'INVALID_REQUEST');
  // exactly the cap is fine and waits for the bytes
  const ok = new FrameDecoder(1000);
  assert.deepStrictEqual(ok.push(Buffer.from([0, 0, 0x03, 0xe8, 1])), []);
  assert.equal(ok.bufferedBytes, 1);
});

test('FrameDecoder returns the whole frames before a bad size prefix, then refuses the stream', () => {
  const bad = Buffer.alloc(4);
  bad.writeInt32BE(-5, 0);
  const d = new FrameDecoder(100);
  const frames = d.push(Buffer.concat([frame(Buffer.from('one')), frame(Buffer.from('two')), bad, Buffer.from('junk')]));
  assert.deepStrictEqual(frames.map((f) => f.toString()), ['one', 'two']);
  assert.ok(d.failed instanceof FrameTooLargeError);
  assert.throws(() => d.push(frame(Buffer.from('three'))), FrameTooLargeError);
});

test('FrameDecoder.pushInto appends to the caller\'s list (one list reused for every read), and refuses a bad prefix only when it added nothing', () => {
  const d = new FrameDecoder(100);
  const out: Buffer[] = [Buffer.from('earlier')];
  const stream = Buffer.concat([frame(Buffer.from('one')), frame(Buffer.from('two'))]);
  d.pushInto(stream.subarray(0, 9), out);
  assert.deepStrictEqual(out.map((f) => f.toString()), ['earlier', 'one']);
  out.length = 0;
  d.pushInto(stream.subarray(9), out);
  assert.deepStrictEqual(out.map((f) => f.toString()), ['two']);
  const bad = Buffer.alloc(4);
  bad.writeInt32BE(101, 0);
  // a list that already held frames does not count: nothing before the bad prefix in this push
  assert.throws(() => d.pushInto(bad, out), FrameTooLargeError);
  assert.deepStrictEqual(out.map((f) => f.toString()), ['two']);
});

test('FrameDecoder reuses the memory of a recycled copied frame, never of a chunk view', () => {
  const big = frame(Buffer.alloc(3000, 7));
  const d = new FrameDecoder(10_000);
  d.push(big.subarray(0, 1000));
  const [first] = d.push(big.subarray(1000)); // spans two chunks: copied
  assert.equal(first!.length, 3000);
  d.recycle(first!);
  const next = frame(Buffer.alloc(2500, 9));
  d.push(next.subarray(0, 10));
  const [second] = d.push(next.subarray(10));
  assert.ok(second!.buffer === first!.buffer, 'the recycled memory took the next copied frame');
  assert.ok(second!.every((b) => b === 9));
  // a frame inside one chunk is a view of that chunk: recycling it must not hand the chunk out
  const chunk = frame(Buffer.alloc(100, 1));
  const [view] = new FrameDecoder(10_000).push(chunk);
  const d2 = new FrameDecoder(10_000);
  d2.recycle(view!);
  const other = frame(Buffer.alloc(50, 2));
  d2.push(other.subarray(0, 3));
  const [copied] = d2.push(other.subarray(3));
  assert.ok(copied!.every((b) => b === 2));
  assert.ok(view!.every((b) => b === 1), 'the recycled view was not written over');
});

test('a BufferPool shared by decoders: what one recycles serves the other, and it keeps no more than its byte budget', () => {
  const pool = new BufferPool(5000);
  const a = new FrameDecoder(10_000, pool);
  const b = new FrameDecoder(10_000, pool);
  const spanning = (d: FrameDecoder, n: number, fill: number): Buffer => {
    const f = frame(Buffer.alloc(n, fill));
    d.push(f.subarray(0, 7));
    return d.push(f.subarray(7))[0]!;
  };
  const x = spanning(a, 3000, 1);
  const y = spanning(a, 3000, 2);
  a.recycle(x);
  assert.equal(pool.pooledBytes, 3000);
  a.recycle(y); // 6000 bytes would exceed the budget: left to the GC
  assert.equal(pool.pooledBytes, 3000);
  a.recycle(x); // the same memory twice is kept once
  assert.equal(pool.pooledBytes, 3000);
  const z = spanning(b, 2000, 3);
  assert.ok(z.buffer === x.buffer, "the other decoder's frame took the recycled memory");
  assert.ok(z.every((v) => v === 3));
  assert.equal(pool.pooledBytes, 0);
  // a frame from a decoder with its own pool is not this pool's to hand out
  b.recycle(spanning(new FrameDecoder(10_000), 100, 4));
  assert.equal(pool.pooledBytes, 0);
});

/**
 * A reader like the broker's connection (socket-reads.ts): each read of at most `readMax` bytes goes
 * to `directTarget()` when there is one, else to a chunk pushed as usual. Returns the frames in order.
 */
function readLikeConnection(d: FrameDecoder, stream: Buffer, readSizes: () => number): { frames: Buffer[]; directBytes: number } {
  const frames: Buffer[] = [];
  let pos = 0;
  let directBytes = 0;
  while (pos < stream.length) {
    const target = d.directTarget();
    const n = Math.min(readSizes(), stream.length - pos, target?.length ?? Infinity);
    if (target !== undefined) {
      stream.copy(target, 0, pos, pos + n); // what the kernel does for a read into `target`
      frames.push(...d.directFilled(n));
      directBytes += n;
    } else {
      frames.push(...d.push(Buffer.from(stream.subarray(pos, pos + n))));
    }
    pos += n;
  }
  return { frames, directBytes };
}

/** Random streams read the way a connection reads them; the unit tier (test/tiers.ts) runs 15. */
const IN_PLACE_RUNS = tierCount(40, 15);

test(`FrameDecoder assembling in place: frames of every size come out whole, and a large frame arrives by direct reads (${IN_PLACE_RUNS} runs)`, () => {
  const rng = new Rng(0xd1ec7);
  for (let run = 0; run < IN_PLACE_RUNS; run++) {
    const payloads = Array.from({ length: 1 + rng.int(8) }, () => rng.bytes(rng.pick([0, 1, 100, 70_000, 200_000, 1_048_000 + rng.int(1000)])));
    const stream = Buffer.concat(payloads.map(frame));
    const readMax = rng.pick([7, 4096, 65_536, 300_000]);
    const d = new FrameDecoder(2 << 20, new BufferPool(8 << 20), new ByteReservations(64 << 20));
    const { frames, directBytes } = readLikeConnection(d, stream, () => 1 + rng.int(readMax));
    assert.deepStrictEqual(frames, payloads, `run ${run}`);
    assert.equal(d.bufferedBytes, 0);
    assert.equal(d.directTarget(), undefined);
    // a frame still missing 64 KiB once its size is known takes the rest by direct reads: certain
    // when it is 64 KiB longer than any read
    const large = payloads.filter((p) => p.length >= readMax + 65_536).length;
    if (large > 0) assert.ok(directBytes > 0, `run ${run}: ${large} large frame(s), no direct read`);
  }
});

test('FrameDecoder assembling in place: bytes pushed as a chunk complete the frame too, and the rest is framed as usual', () => {
  const big = rng1MiB();
  const d = new FrameDecoder(2 << 20, new BufferPool(4 << 20), new ByteReservations(64 << 20));
  const stream = Buffer.concat([frame(big), frame(Buffer.from('after'))]);
  assert.deepStrictEqual(d.push(stream.subarray(0, 1000)), []);
  const target = d.directTarget()!;
  assert.equal(target.length, big.length - 996, 'the rest of the frame');
  stream.copy(target, 0, 1000, 5000);
  assert.deepStrictEqual(d.directFilled(4000), []);
  assert.equal(d.bufferedBytes, 4996);
  // a reader that pushes a chunk instead: the frame's part is copied in, the next frame follows
  const frames = d.push(stream.subarray(5000));
  assert.equal(frames.length, 2);
  assert.ok(frames[0]!.equals(big));
  assert.equal(frames[1]!.toString(), 'after');
  assert.equal(d.bufferedBytes, 0);
});

test('FrameDecoder refuses a direct fill it did not ask for, and a decoder without in-place reservations never asks', () => {
  const d = new FrameDecoder(2 << 20, new BufferPool(4 << 20), new ByteReservations(64 << 20));
  assert.throws(() => d.directFilled(1), RangeError);
  d.push(frame(rng1MiB()).subarray(0, 100));
  const target = d.directTarget()!;
  assert.throws(() => d.directFilled(target.length + 1), RangeError);
  assert.throws(() => d.directFilled(-1), RangeError);
  const plain = new FrameDecoder(2 << 20);
  plain.push(frame(rng1MiB()).subarray(0, 100));
  assert.equal(plain.directTarget(), undefined);
});

function rng1MiB(): Buffer {
  return new Rng(1).bytes(1 << 20);
}

test('FrameDecoder in place: what frames reserve ahead of their bytes is bounded across decoders, released when they complete or their stream ends', () => {
  const reservations = new ByteReservations(1536 * 1024);
  const pool = new BufferPool(8 << 20);
  const payload = rng1MiB();
  const stream = frame(payload);
  const a = new FrameDecoder(200 << 20, pool, reservations);
  const b = new FrameDecoder(200 << 20, pool, reservations);
  a.push(stream.subarray(0, 1000));
  assert.ok(a.directTarget() !== undefined);
  assert.equal(reservations.reservedBytes, payload.length - 996);
  // the second frame's missing bytes do not fit: it is assembled from what arrives, and still comes out whole
  b.push(stream.subarray(0, 1000));
  assert.equal(b.directTarget(), undefined);
  const viaChunks = b.push(stream.subarray(1000));
  assert.equal(viaChunks.length, 1);
  assert.ok(viaChunks[0]!.equals(payload));
  // a's frame completes: its reservation goes back
  const target = a.directTarget()!;
  stream.copy(target, 0, 1000);
  assert.ok(a.directFilled(target.length)[0]!.equals(payload));
  assert.equal(reservations.reservedBytes, 0);
  // a hostile size prefix (100 MiB, within socket.request.max.bytes) with a few bytes behind it
  const hostile = Buffer.alloc(8);
  hostile.writeInt32BE(100 * 1024 * 1024, 0);
  const h = new FrameDecoder(200 << 20, pool, reservations);
  h.push(hostile);
  assert.equal(h.directTarget(), undefined, 'nothing allocated by the announced size');
  assert.equal(reservations.reservedBytes, 0);
  // a stream that ends mid-frame gives its reservation back
  const c = new FrameDecoder(200 << 20, pool, reservations);
  c.push(stream.subarray(0, 5000));
  assert.ok(reservations.reservedBytes > 0);
  c.dispose();
  assert.equal(reservations.reservedBytes, 0);
  assert.equal(c.directTarget(), undefined);
});
