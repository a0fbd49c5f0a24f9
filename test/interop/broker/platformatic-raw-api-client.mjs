/**
 * @platformatic/kafka's own request modules (1.x run by the test's Node, 2.x under the Node 22
 * binary), for APIs it implements but its Admin class does not wrap: DescribeCluster,
 * DescribeTopicPartitions, List/AlterPartitionReassignments, OffsetForLeaderEpoch. Each step is
 * one request, encoded and parsed by the library, on one connection.
 *
 * stdin: { module, host, port, sasl?: { mechanism, username, password }, steps: [{ api: '<exported api name, e.g. describeClusterV1>', args: [...] }] }
 * (with `sasl`, the connection logs in first, through the library's own SASL code)
 * stdout: { results: [...] }: per step { response } or, when the library raised,
 * { error: [Kafka error ids or the library's code], response } (the parsed answer it carried).
 */
// { "$bigint": "5" } in an argument stands for 5n (int64 fields such as a Fetch offset)
const input = JSON.parse(await new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
}), (_k, v) => (v !== null && typeof v === 'object' && typeof v.$bigint === 'string' ? BigInt(v.$bigint) : v));
const lib = await import(input.module);
const plain = (v) => JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
const errorIds = (e) => (Array.isArray(e.errors) && e.errors.length > 0 ? e.errors.flatMap(errorIds) : [e.apiId ?? e.code ?? String(e)]);

const connection = new lib.Connection('kafkalite-platformatic-raw', input.sasl ? { sasl: input.sasl } : {});
await connection.connect(input.host, input.port);
const results = [];
try {
  for (const step of input.steps) {
    const { api } = lib[step.api];
    try {
      results.push({ response: plain(await api.async(connection, ...step.args)) });
    } catch (e) {
      results.push({ error: [...new Set(errorIds(e))], response: plain(e.response) });
    }
  }
} finally {
  await connection.close();
}
process.stdout.write(JSON.stringify({ results }));
