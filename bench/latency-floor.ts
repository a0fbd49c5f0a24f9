/**
 * The latency bench's floor (bench/latency.ts, BENCH_LATENCY_FLOOR=1): what a Node process that
 * persists each Produce and answers it, and does nothing else, costs a round trip.
 *
 * `node dist/bench/latency-floor.js <upstream host:port> <dir>` listens on a port of its own and
 * relays every connection to the kafkalite broker upstream (ApiVersions, Metadata and the rest are
 * the broker's; Metadata answers are rewritten to name this process's port, so the client's
 * connections all come here), until it has seen the broker's answer to a Produce of some version. From then on it
 * answers that version's Produce requests itself: it writes the request to a file in `<dir>`
 * (`writeSync`, as the broker's append) and sends back the broker's earlier answer with the
 * request's correlation id, in the read callback, with no decoding, validation, log or index. The
 * client (librdkafka) does not check the returned offsets, so the copy is accepted.
 * The difference between this peer and kafkalite is what the broker's own work costs a round trip;
 * the difference between this peer and librdkafka's mock is Node, its socket path and the write.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { decodeMessage, encodeMessageToBuffer } from '../src/protocol/codec.js';
import { responseHeaderVersion } from '../src/protocol/header.js';
import { Metadata, type MetadataResponse } from '../src/protocol/schemas/metadata.js';

const [upstreamAddress, dir] = process.argv.slice(2);
if (upstreamAddress === undefined || dir === undefined) throw new Error('usage: latency-floor.js <upstream host:port> <dir>');
const [upstreamHost, upstreamPort] = upstreamAddress.split(':') as [string, string];
const PRODUCE = 0;
const METADATA = 3;
let ownPort = 0;

const fd = openSync(join(dir, 'floor.log'), 'w');
let fileSize = 0;
/** The broker's first answer to a Produce, per request version. */
const produceAnswers = new Map<number, Buffer>();

/** Calls `onFrame` with each complete size-prefixed frame in the stream (a copy only when one spans reads). */
function frames(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let pending: Buffer | undefined;
  socket.on('data', (chunk: Buffer) => {
    const buf = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    pending = undefined;
    let pos = 0;
    while (buf.length - pos >= 4) {
      const size = buf.readInt32BE(pos);
      if (buf.length - pos - 4 < size) break;
      onFrame(buf.subarray(pos, pos + 4 + size));
      pos += 4 + size;
    }
    if (pos < buf.length) pending = Buffer.from(buf.subarray(pos));
  });
}

/** A Metadata answer whose brokers are this process (its header kept as it was). */
function advertisingThisPort(frame: Buffer, version: number): Buffer {
  // size (4), correlation id (4), and in the flexible header an empty tagged-field section (1)
  const bodyAt = 8 + responseHeaderVersion(METADATA, version);
  const { value } = decodeMessage<MetadataResponse>(Metadata.response, version, frame, bodyAt);
  for (const b of value.brokers) b.port = ownPort;
  const body = encodeMessageToBuffer(Metadata.response, version, value);
  const out = Buffer.concat([frame.subarray(0, bodyAt), body]);
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect(Number(upstreamPort), upstreamHost);
  upstream.setNoDelay(true);
  /** Correlation ids of relayed Produce requests, with their versions (their answers become the copies). */
  const relayedProduces = new Map<number, number>();
  /** Correlation ids of relayed Metadata requests, with their versions (their answers are rewritten). */
  const relayedMetadata = new Map<number, number>();
  let relayed = 0;
  frames(client, (frame) => {
    const apiKey = frame.readInt16BE(4);
    const version = frame.readInt16BE(6);
    const answer = apiKey === PRODUCE && relayed === 0 ? produceAnswers.get(version) : undefined;
    if (answer === undefined) {
      // relayed (and while anything relayed is unanswered, so the answers keep the requests' order)
      if (apiKey === PRODUCE) relayedProduces.set(frame.readInt32BE(8), version);
      if (apiKey === METADATA) relayedMetadata.set(frame.readInt32BE(8), version);
      relayed++;
      upstream.write(Buffer.from(frame));
      return;
    }
    let done = 0;
    while (done < frame.length) done += writeSync(fd, frame, done, frame.length - done, fileSize + done);
    fileSize += frame.length;
    const out = Buffer.from(answer);
    out.writeInt32BE(frame.readInt32BE(8), 4);
    client.write(out);
  });
  frames(upstream, (frame) => {
    relayed--;
    const correlationId = frame.readInt32BE(4);
    const version = relayedProduces.get(correlationId);
    if (version !== undefined) {
      relayedProduces.delete(correlationId);
      if (!produceAnswers.has(version)) produceAnswers.set(version, Buffer.from(frame));
    }
    const metadataVersion = relayedMetadata.get(correlationId);
    if (metadataVersion !== undefined) {
      relayedMetadata.delete(correlationId);
      client.write(advertisingThisPort(frame, metadataVersion));
      return;
    }
    client.write(Buffer.from(frame));
  });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', close);
  upstream.on('close', close);
  client.on('error', () => undefined);
  upstream.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  ownPort = typeof a === 'object' && a ? a.port : 0;
  process.stdout.write(`latency floor listening on 127.0.0.1:${ownPort}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('exit', () => closeSync(fd));
