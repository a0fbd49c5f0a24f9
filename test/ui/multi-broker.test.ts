/**
 * `kafkalite ui --bootstrap` against a cluster of three brokers: librdkafka's mock cluster
 * (confluent-kafka's `test.mock.num.brokers`), whose brokers answer a partition's Fetch, Produce
 * and ListOffsets only on its leader (NOT_LEADER_OR_FOLLOWER elsewhere). The console is given the
 * broker leading the fewest partitions as its bootstrap, so every partition it leads not must be
 * reached through the leader Metadata names. (The mock of Debian's librdkafka 2.0.2 serves no
 * DescribeGroups, so the group pages, which need a group's state, are not tried against it.)
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { Fetch, type FetchResponse } from '../../src/protocol/schemas/fetch.js';
import { KafkaClient } from '../../src/ui/kafka-client.js';
import { UiServer } from '../../src/ui/server.js';
import { PY_DIR, PYTHON } from '../helpers/python-peer.js';
import { requirePeer } from '../helpers/tier.js';
import { ok, post, text, type Json } from './http.js';

interface Mock {
  brokers: Record<string, string>;
  leaders: Record<string, number>;
}

describe('console --bootstrap against librdkafka\'s three-broker mock cluster', () => {
  let child: ChildProcessWithoutNullStreams;
  let mock: Mock;
  let ui: UiServer;
  let bootstrapId: number;
  before(async () => {
    requirePeer('python3 (ui_mock_cluster.py)');
    child = spawn(PYTHON, [join(PY_DIR, 'ui_mock_cluster.py')], { cwd: PY_DIR, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
    mock = await new Promise<Mock>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as Mock);
      });
      child.once('exit', (code) => reject(new Error(`ui_mock_cluster.py exited ${code}: ${err}`)));
    });
    const led = (id: number): number => Object.values(mock.leaders).filter((l) => l === id).length;
    bootstrapId = Object.keys(mock.brokers).map(Number).sort((a, b) => led(a) - led(b))[0]!;
    // a bootstrap list whose first address answers nothing: the next one is tried, as bootstrap.servers is
    ui = await UiServer.start({ bootstrap: `127.0.0.1:1,${mock.brokers[String(bootstrapId)]!}` });
  });
  after(async () => {
    await ui?.close();
    child?.stdin.end();
    child?.kill();
  });

  const awayFromBootstrap = (): string[] => Object.entries(mock.leaders).filter(([, l]) => l !== bootstrapId).map(([p]) => p);

  test('the mock refuses a partition\'s Fetch on a broker that does not lead it (what routing must avoid)', async () => {
    const p = Number(awayFromBootstrap()[0]);
    const client = await KafkaClient.connect(mock.brokers[String(bootstrapId)]!);
    try {
      const body = { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 65536, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics: [{ topic: 'spread', partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 65536 }] }], forgottenTopicsData: [], rackId: '' };
      const r = (await client.request<FetchResponse>(Fetch, 11, 4, body)).body;
      assert.equal(errorName(r.responses[0]!.partitions[0]!.errorCode), 'NOT_LEADER_OR_FOLLOWER');
    } finally {
      client.close();
    }
  });

  test('offsets, messages and produce reach each partition\'s leader', async () => {
    assert.ok(awayFromBootstrap().length > 0, `the bootstrap ${bootstrapId} leads every partition: ${JSON.stringify(mock.leaders)}`);
    const t = await ok(ui.url, '/api/topics/spread');
    assert.deepEqual(Object.fromEntries(t.partitions.map((p: Json) => [String(p.partition), p.leader])), mock.leaders);
    assert.deepEqual(t.partitions.map((p: Json) => [p.startOffset, p.endOffset]), Object.keys(mock.leaders).map(() => ['0', '1']));
    for (const p of Object.keys(mock.leaders)) {
      const m = await ok(ui.url, `/api/topics/spread/messages?partition=${p}`);
      assert.deepEqual(m.messages.map((x: Json) => [text(x.key), text(x.value)]), [[`k${p}`, `from librdkafka ${p}`]]);
      const r = await ok(ui.url, '/api/topics/spread/messages', post({ partition: Number(p), key: `ui-${p}`, value: `from the console to ${p}` }));
      assert.equal(r.offset, '1');
      const back = await ok(ui.url, `/api/topics/spread/messages?partition=${p}&from=end&direction=backward&limit=1`);
      assert.deepEqual(back.messages.map((x: Json) => text(x.value)), [`from the console to ${p}`]);
    }
    const topics: Json[] = await ok(ui.url, '/api/topics');
    assert.equal(topics.find((x) => x.name === 'spread').endOffsets, String(2 * Object.keys(mock.leaders).length));
  });
});
