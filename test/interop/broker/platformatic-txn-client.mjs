/**
 * The @platformatic/kafka side of test/interop/broker/transactions-platformatic.test.ts: argv[2] is
 * the package (`@platformatic/kafka` for 1.x under the test's Node 20, `platformatic-kafka-2` for
 * 2.x under the Node 22 binary). stdin: { bootstrap, topic, transactionalId, plan: ['commit'|'abort', ...] }:
 * the topic is created, then one producer runs one transaction per plan entry, sending `<entry>-<i>` to partition 0, then
 * commits or aborts. (Fencing is not run with this client: a new instance sends InitProducerId with
 * ProducerId 0 / ProducerEpoch 0 as its KIP-360 expectation, which Kafka answers PRODUCER_FENCED
 * whenever the id's producer id is not 0.)
 * stdout: { results: [...one per plan entry: 'ok' or an error...] }.
 */
const { Admin, Producer } = await import(process.argv[2]);

const describeError = (e) => ({ message: String(e?.message ?? e), codes: (e?.errors ?? [e]).map((x) => x?.apiCode ?? x?.code ?? null) });

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const input = await readStdin();
const options = { clientId: 'kafkalite-platformatic-txn', bootstrapBrokers: [input.bootstrap], idempotent: true, transactionalId: input.transactionalId, retries: 5, retryDelay: 100 };
const admin = new Admin({ clientId: 'kafkalite-platformatic-txn-admin', bootstrapBrokers: [input.bootstrap] });
await admin.createTopics({ topics: [input.topic], partitions: 1 });
await admin.close();
const producer = new Producer(options);
const results = [];
for (const [i, action] of input.plan.entries()) {
  try {
    const t = await producer.beginTransaction();
    await t.send({ messages: [{ topic: input.topic, partition: 0, value: Buffer.from(`${action}-${i}`) }] });
    if (action === 'commit') await t.commit();
    else await t.abort();
    results.push('ok');
  } catch (e) {
    results.push(describeError(e));
  }
}
await producer.close().catch(() => {});
process.stdout.write(JSON.stringify({ results }));
