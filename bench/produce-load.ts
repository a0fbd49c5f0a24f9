/**
 * `node dist/bench/produce-load.js <port> [16KiB|1MiB] [acks] [connections] [seconds]`: a steady
 * Produce load for profiling a running server from outside (`perf record -p`, `perf stat -e
 * syscalls:...`, schedstat), as the broker bench's cases send it: 1 KiB records in batches of 16
 * (16 KiB) or 1,000 (about 1 MiB), Produce v7, 5 requests in flight per connection (librdkafka's
 * default), to partition 0 of topic `produce-load`. Defaults: 16KiB, acks=1, 1 connection, 10 s.
 *
 * The server is a `kafkalite serve` (the topic is auto-created by a Metadata request first) or the
 * broker bench's null server (`node dist/bench/broker.js null-server [dir]`, which answers any frame:
 * set PRODUCE_LOAD_NO_METADATA=1, since it would answer Metadata with an empty frame). Prints
 * `{"requests", "perSec", "MBps"}` over the whole run.
 */
import { encodeRecordBatch } from '../src/record/builder.js';
import { encodeRequestFrame, RawClient, type Msg } from '../test/helpers/raw-client.js';

const IN_FLIGHT = 5;
const PRODUCE_VERSION = 7;
const TOPIC = 'produce-load';

const [port, kind, acks, connections, seconds] = [
  Number(process.argv[2]),
  process.argv[3] ?? '16KiB',
  Number(process.argv[4] ?? 1),
  Number(process.argv[5] ?? 1),
  Number(process.argv[6] ?? 10),
];
if (!Number.isInteger(port) || (kind !== '16KiB' && kind !== '1MiB')) {
  console.error('usage: node dist/bench/produce-load.js <port> [16KiB|1MiB] [acks] [connections] [seconds]');
  process.exit(2);
}

const value = Buffer.alloc(1024, 0x61);
const records = encodeRecordBatch(Array.from({ length: kind === '16KiB' ? 16 : 1000 }, () => ({ value })));
const body: Msg = { transactionalId: null, acks, timeoutMs: 30_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] };

if (process.env.PRODUCE_LOAD_NO_METADATA !== '1') {
  const c = await RawClient.connect(port);
  await c.request(3, 2, { topics: [{ name: TOPIC }] });
  c.destroy();
}

const end = Date.now() + seconds * 1000;
let answered = 0;

/** One connection: IN_FLIGHT slots, each sending its pre-encoded frame again (a new correlation id) once answered. */
async function connection(): Promise<void> {
  const client = await RawClient.connect(port);
  const frames = Array.from({ length: IN_FLIGHT }, (_, s) => encodeRequestFrame(0, PRODUCE_VERSION, s, body, 'produce-load'));
  let correlationId = 0;
  const slot = async (frame: Buffer): Promise<void> => {
    while (Date.now() < end) {
      // the correlation id: after the size (4), api key (2) and api version (2)
      frame.writeInt32BE(correlationId++, 8);
      const answer = client.nextFrame();
      client.send(frame);
      await answer;
      answered++;
    }
  };
  await Promise.all(frames.map(slot));
  client.destroy();
}

const startedAt = Date.now();
await Promise.all(Array.from({ length: connections }, connection));
const elapsed = (Date.now() - startedAt) / 1000;
console.log(JSON.stringify({ requests: answered, perSec: Math.round(answered / elapsed), MBps: Math.round((answered * records.length) / elapsed / 1e6) }));
