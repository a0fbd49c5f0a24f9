/**
 * The console's JSON API over HTTP: serve mode (startBroker({ ui: true }) on a broker kafkajs
 * filled), bootstrap mode against a second broker, offline mode on the data directory, binding
 * rules and basic auth, and bad parameters answered 400 with a message.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Broker } from '../../src/broker/broker.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { logFilePath } from '../../src/storage/file-names.js';
import { frameLog, segmentBytes } from '../helpers/storage.js';
import { join } from 'node:path';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { encodeLegacyMessageSet } from '../../src/record/legacy-builder.js';
import { UiServer } from '../../src/ui/server.js';
import { parseUiArgs } from '../../src/cli/ui.js';
import { parseServeArgs } from '../../src/cli/serve.js';
import { filledBroker, HTML_HEADER, LATER_TS } from './fixture.js';
import { call, ok, text, type Json } from './http.js';
import { spawn } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { REPO_ROOT } from '../helpers/paths.js';

/** Runs `kafkalite <args>` until it prints the console's URL; returns it and a stop that SIGTERMs and gives the exit code. */
async function consoleProcess(args: string[]): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'kafkalite.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /kafkalite console on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`kafkalite ${args.join(' ')} exited ${code} before its URL: ${out}`)));
  });
  return { url, stop: () => (child.kill('SIGTERM'), exited) };
}

describe('console API, serve mode', () => {
  let broker: Broker;
  let url: string;
  before(async () => {
    broker = await filledBroker();
    url = broker.uiUrl!;
  });
  after(async () => {
    await broker.close();
    rmSync(broker.dataDir, { recursive: true, force: true });
  });

  test('startBroker({ ui: true }) gives a loopback URL serving the page and its module', async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await call(url, '/');
    assert.equal(page.status, 200);
    assert.match(page.body, /<script type="module" src="\/assets\/app.js">/);
    const js = await fetch(new URL('/assets/app.js', url));
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    // the bundle esbuild built from src/ui/web (minified: names are gone, the API paths stay)
    assert.match(await js.text(), /"\/api\/"/);
    const css = await fetch(new URL('/assets/style.css', url));
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.match(await css.text(), /\.spark/);
    const info = await ok(url, '/api/info');
    assert.deepEqual(info, { bootstrap: broker.bootstrap, dataDir: broker.dataDir, mode: 'serve', readOnly: false, streams: 0, samplers: 0 });
  });

  test('topics and a topic: partitions with start, end and last stable offsets; configs from DescribeConfigs', async () => {
    const topics: Json[] = await ok(url, '/api/topics');
    const orders = topics.find((t) => t.name === 'orders');
    assert.equal(orders.partitions, 1);
    assert.equal(orders.messages, '5');
    assert.ok(orders.bytes > 0);
    const t = await ok(url, '/api/topics/orders');
    assert.deepEqual(t.partitions, [{ partition: 0, leader: 1, startOffset: '0', endOffset: '5', lastStableOffset: '5', messages: '5' }]);
    const configs: Json[] = await ok(url, '/api/topics/orders/configs');
    assert.deepEqual(configs.find((c) => c.name === 'cleanup.policy'), { name: 'cleanup.policy', value: 'delete', source: 'DEFAULT_CONFIG', readOnly: false, sensitive: false });
    assert.equal((await call(url, '/api/topics/nosuch')).status, 404);
  });

  test('messages from the beginning, an offset, a timestamp and the end, with headers and batch metadata', async () => {
    const all = await ok(url, '/api/topics/orders/messages?partition=0&from=beginning');
    assert.deepEqual(all.messages.map((m: Json) => text(m.key)), ['o-1', 'o-2', 'o-3', 'o-4', 'o-5']);
    const first = all.messages[0];
    assert.deepEqual(JSON.parse(text(first.value)!), { id: 1, item: 'book' });
    assert.deepEqual(first.headers.map((h: Json) => [h.key, text(h.value)]), [['trace', 'abc'], [HTML_HEADER, '<b>bold</b>']]);
    assert.equal(first.batch.codec, 'gzip');
    assert.equal(first.batch.magic, 2);
    assert.equal(all.messages[3].batch.codec, 'none');
    const fromOffset = await ok(url, '/api/topics/orders/messages?from=offset:2&limit=2');
    assert.deepEqual(fromOffset.messages.map((m: Json) => m.offset), ['2', '3']);
    const fromTime = await ok(url, `/api/topics/orders/messages?from=timestamp:${LATER_TS + 1n}`);
    assert.deepEqual(fromTime.messages.map((m: Json) => [m.offset, m.timestamp]), [['4', String(LATER_TS + 1000n)]]);
    const fromEnd = await ok(url, '/api/topics/orders/messages?from=end&limit=1');
    assert.deepEqual(fromEnd.messages.map((m: Json) => text(m.value)), ['later-5']);
  });

  test('produce through the API, then read it back', async () => {
    const r = await ok(url, '/api/topics/orders/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ partition: 0, key: 'k-ui', value: '{"from":"ui"}', headers: [{ key: 'h1', value: 'v1' }] }),
    });
    assert.equal(r.offset, '5');
    const back = await ok(url, '/api/topics/orders/messages?from=offset:5');
    assert.deepEqual(back.messages.map((m: Json) => [text(m.key), text(m.value), m.headers.map((h: Json) => [h.key, text(h.value)])]), [['k-ui', '{"from":"ui"}', [['h1', 'v1']]]]);
  });

  test('consumer groups: state and lag from ListGroups, DescribeGroups, OffsetFetch and ListOffsets', async () => {
    const groups: Json[] = await ok(url, '/api/groups');
    assert.deepEqual(groups.find((g) => g.groupId === 'billing'), { groupId: 'billing', protocolType: 'consumer', state: 'Empty' });
    const g = await ok(url, '/api/groups/billing');
    assert.equal(g.state, 'Empty');
    const end = BigInt((await ok(url, '/api/topics/orders')).partitions[0].endOffset);
    assert.deepEqual(g.offsets.map((o: Json) => [o.topic, o.partition, o.committedOffset, o.lag]), [['orders', 0, '1', String(end - 1n)]]);
    assert.equal((await call(url, '/api/groups/nobody')).status, 404);
  });

  test('the log on disk: segments, indexes and a batch header whose fields match the codec', async () => {
    const segs: Json[] = await ok(url, '/api/disk/orders/0/segments');
    assert.equal(segs.length, 1);
    assert.equal(segs[0].baseOffset, '0');
    assert.equal(segs[0].active, true);
    const seg = await ok(url, '/api/disk/orders/0/segments/0');
    assert.ok(seg.batches.length >= 2);
    // the batches framed from the raw file, without the live segment's zero tail (mapped-tail.ts)
    const expected = frameLog(segmentBytes(logFilePath(join(broker.dataDir, 'orders-0'), 0n)));
    assert.deepEqual(seg.batches.map((b: Json) => b.position), expected.map((h) => h.position));
    const b = await ok(url, '/api/disk/orders/0/segments/0/batches/0');
    const file2 = FileRecords.open(logFilePath(join(broker.dataDir, 'orders-0'), 0n));
    const raw = Buffer.from(file2.readBytes(0, expected[0]!.size));
    file2.close();
    const batch = readRecordBatches(raw).nextBatch()!;
    assert.equal(batch.kind, 'v2');
    const field = (name: string): string => b.fields.find((f: Json) => f.name === name).value;
    assert.equal(field('baseOffset'), String(batch.baseOffset));
    assert.equal(field('batchLength'), String(raw.readInt32BE(8)));
    assert.equal(field('magic'), '2');
    assert.equal(field('crc'), String(batch.crc >>> 0));
    assert.equal(field('lastOffsetDelta'), String(batch.lastOffsetDelta));
    assert.equal(field('maxTimestamp'), String(batch.maxTimestamp));
    assert.equal(field('producerId'), String(batch.producerId));
    assert.equal(field('recordsCount'), '3');
    assert.equal(b.fields.find((f: Json) => f.name === 'crc').hex, raw.subarray(17, 21).toString('hex'));
    assert.deepEqual(b.attributes[0], { bit: 'compression (bits 0-2)', value: 'gzip' });
    assert.equal(b.crc.valid, true);
    assert.equal(b.crc.algorithm, 'CRC-32C');
    // the position of the second batch is a batch too; one inside the first is not
    assert.equal((await ok(url, `/api/disk/orders/0/segments/0/batches/${expected[1]!.position}`)).meta.codec, 'none');
  });

  test('bad parameters get a 400 with a message; unknown paths 404; a POST must be JSON', async () => {
    for (const path of [
      '/api/topics/orders/messages?from=yesterday',
      '/api/topics/orders/messages?partition=-1',
      '/api/topics/orders/messages?limit=0',
      '/api/topics/orders/messages?limit=100000',
      '/api/topics/orders/messages?from=offset:99999999999999999999',
      '/api/disk/orders/x/segments',
      '/api/disk/orders/0/segments/abc',
      '/api/disk/..%2F..%2Fetc/0/segments',
      '/api/disk/orders/0/segments/0/batches/999999',
    ]) {
      const r = await call(url, path);
      assert.equal(r.status, 400, path);
      assert.equal(typeof r.body.error, 'string', path);
      assert.ok(r.body.error.length > 0, path);
    }
    assert.equal((await call(url, '/api/nothing')).status, 404);
    assert.equal((await call(url, '/api/disk/orders/7/segments')).status, 404);
    const post = (body: string, type = 'application/json') => call(url, '/api/topics/orders/messages', { method: 'POST', headers: { 'content-type': type }, body });
    assert.equal((await post('{"value":1}')).status, 400);
    assert.equal((await post('not json')).status, 400);
    assert.equal((await post('{"partition":"0"}')).status, 400);
    assert.equal((await post('{"headers":[{"key":1}]}')).status, 400);
    assert.equal((await post('{}', 'text/plain')).status, 415);
    const unknown = await post('{"partition":9,"value":"x"}');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /UNKNOWN_TOPIC_OR_PARTITION/);
  });

  test('--bootstrap mode against a second broker: the cluster only, no log on disk', async () => {
    const second = await Broker.start({});
    const ui = await UiServer.start({ bootstrap: second.bootstrap });
    try {
      const info = await ok(ui.url, '/api/info');
      assert.equal(info.mode, 'bootstrap');
      second.topics.create('fresh', 1, {}, second.logs);
      const r = await ok(ui.url, '/api/topics/fresh/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: 'hi' }) });
      assert.equal(r.offset, '0');
      const m = await ok(ui.url, '/api/topics/fresh/messages');
      assert.deepEqual(m.messages.map((x: Json) => text(x.value)), ['hi']);
      assert.equal((await call(ui.url, '/api/disk')).status, 404);
    } finally {
      await ui.close();
      await second.close();
    }
  });
});

describe('console API, offline and access', () => {
  test('--data-dir mode reads a closed broker\'s directory without its lock and refuses writes', async () => {
    const broker = await filledBroker();
    const dataDir = broker.dataDir;
    await broker.close();
    const ui = await UiServer.start({ dataDir });
    try {
      assert.equal((await ok(ui.url, '/api/info')).mode, 'offline');
      const topics: Json[] = await ok(ui.url, '/api/topics');
      assert.equal(topics.find((t) => t.name === 'orders').messages, '5');
      const m = await ok(ui.url, '/api/topics/orders/messages?from=offset:3');
      assert.deepEqual(m.messages.map((x: Json) => text(x.key)), ['o-4', 'o-5']);
      const t = await ok(ui.url, `/api/topics/orders/messages?from=timestamp:${LATER_TS + 1n}`);
      assert.deepEqual(t.messages.map((x: Json) => x.offset), ['4']);
      assert.equal((await call(ui.url, '/api/topics/orders/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 405);
      assert.equal((await call(ui.url, '/api/groups')).status, 404);
      // the console held no lock: a broker opens the directory while it is up
      const again = await Broker.start({ dataDir });
      await again.close();
    } finally {
      await ui.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the batch inspector on legacy messages: the magic 1 and magic 0 layouts, CRC-32 recomputed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-ui-legacy-'));
    mkdirSync(join(dataDir, 'legacy-0'));
    const m1 = encodeLegacyMessageSet([{ key: 'k0', value: 'v0', timestamp: 1_700_000_000_000 }, { key: 'k1', value: 'v1', timestamp: 1_700_000_000_001 }], { magic: 1, baseOffset: 0 });
    const m0 = encodeLegacyMessageSet([{ key: 'k2', value: 'v2' }, { key: 'k3', value: 'v3' }], { magic: 0, baseOffset: 2, compression: 'gzip' });
    writeFileSync(join(dataDir, 'legacy-0', '00000000000000000000.log'), Buffer.concat([m1, m0]));
    const entries = [...readRecordBatches(Buffer.concat([m1, m0]))];
    const ui = await UiServer.start({ dataDir });
    try {
      const seg = await ok(ui.url, '/api/disk/legacy/0/segments/0');
      assert.deepEqual(seg.batches.map((b: Json) => [b.position, b.magic, b.lastOffset]), entries.map((e) => [e.position, e.magic, String(e.lastOffset)]));
      const first = await ok(ui.url, '/api/disk/legacy/0/segments/0/batches/0');
      const f = (b: Json, name: string): string => b.fields.find((x: Json) => x.name === name).value;
      assert.deepEqual(first.fields.map((x: Json) => x.name), ['offset', 'messageSize', 'crc', 'magic', 'attributes', 'timestamp', 'keyLength']);
      assert.equal(f(first, 'offset'), '0');
      assert.equal(f(first, 'messageSize'), String(entries[0]!.sizeInBytes - 12));
      assert.equal(f(first, 'crc'), String(entries[0]!.crc >>> 0));
      assert.equal(f(first, 'timestamp'), '1700000000000');
      assert.equal(f(first, 'keyLength'), '2');
      assert.deepEqual(first.crc, { stored: entries[0]!.crc >>> 0, computed: entries[0]!.crc >>> 0, valid: true, algorithm: 'CRC-32', coveredFrom: 16 });
      const wrapper = await ok(ui.url, `/api/disk/legacy/0/segments/0/batches/${entries[2]!.position}`);
      assert.deepEqual(wrapper.fields.map((x: Json) => x.name), ['offset', 'messageSize', 'crc', 'magic', 'attributes', 'keyLength']);
      assert.equal(f(wrapper, 'magic'), '0');
      assert.equal(f(wrapper, 'offset'), '3');
      assert.deepEqual(wrapper.attributes, [{ bit: 'compression (bits 0-2)', value: 'gzip' }]);
      assert.equal(wrapper.crc.valid, true);
      // a flipped byte in the key: the recomputed CRC shows the mismatch
      const damaged = Buffer.concat([m1, m0]);
      damaged[entries[0]!.position + 30]! ^= 0xff;
      writeFileSync(join(dataDir, 'legacy-0', '00000000000000000000.log'), damaged);
      const bad = await ok(ui.url, '/api/disk/legacy/0/segments/0/batches/0');
      assert.equal(bad.crc.valid, false);
      assert.notEqual(bad.crc.computed, bad.crc.stored);
      writeFileSync(join(dataDir, 'legacy-0', '00000000000000000000.log'), Buffer.concat([m1, m0]));
      const msgs = await ok(ui.url, '/api/topics/legacy/messages');
      assert.deepEqual(msgs.messages.map((m: Json) => [m.offset, text(m.key), m.batch.magic]), [['0', 'k0', 1], ['1', 'k1', 1], ['2', 'k2', 0], ['3', 'k3', 0]]);
    } finally {
      await ui.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('offset lookup, step by step: floor segment, binary search of the offset index, scan to the batch', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-ui-lookup-'));
    const broker = await Broker.start({ dataDir, ui: true, config: { 'log.index.interval.bytes': '64', 'log.segment.bytes': '2000' } });
    try {
      broker.topics.create('many', 1, {}, broker.logs);
      for (let i = 0; i < 40; i++) {
        await ok(broker.uiUrl!, '/api/topics/many/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: `k${i}`, value: 'x'.repeat(20) }) });
      }
    } finally {
      await broker.close();
    }
    const ui = await UiServer.start({ dataDir });
    try {
      const segs: Json[] = await ok(ui.url, '/api/disk/many/0/segments');
      assert.ok(segs.length >= 2, `${segs.length} segments`);
      for (const target of [0n, 17n, 25n, 39n]) {
        const r = await ok(ui.url, `/api/disk/many/0/lookup?offset=${target}`);
        const floor = segs.filter((x) => BigInt(x.baseOffset) <= target).pop();
        assert.equal(r.segment, floor.baseOffset, `offset ${target}`);
        const seg = await ok(ui.url, `/api/disk/many/0/segments/${floor.baseOffset}`);
        const expectedEntry = seg.offsetIndex.filter((e: Json) => BigInt(e.offset) <= target).pop();
        if (expectedEntry === undefined) assert.equal(r.indexEntry, null);
        else assert.deepEqual([r.indexEntry.offset, r.indexEntry.position], [expectedEntry.offset, expectedEntry.position]);
        if (seg.offsetIndex.length > 1 && expectedEntry !== undefined) assert.ok(r.probes.length > 0);
        const expectedBatch = seg.batches.find((b: Json) => BigInt(b.lastOffset) >= target);
        assert.deepEqual([r.batch.position, r.batch.lastOffset], [expectedBatch.position, expectedBatch.lastOffset]);
        assert.deepEqual(r.scanned.at(-1).position, expectedBatch.position);
        assert.equal(r.scanned[0].position, expectedEntry?.position ?? 0);
      }
      assert.ok(segs.some((x) => x.offsetIndexEntries > 1), 'some segment has a sparse index of several entries');
      const past = await ok(ui.url, '/api/disk/many/0/lookup?offset=1000');
      assert.equal(past.batch, null);
      assert.equal((await call(ui.url, '/api/disk/many/0/lookup?offset=-1')).status, 400);
      assert.equal((await call(ui.url, '/api/disk/many/0/lookup')).status, 400);
    } finally {
      await ui.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('on loopback without a password, only a loopback Host is answered (no DNS rebinding)', async () => {
    const ui = await UiServer.start({ dataDir: '.' });
    try {
      const as = (host: string): Promise<number> =>
        new Promise((resolve, reject) => {
          const r = httpGet({ host: '127.0.0.1', port: ui.port, path: '/api/info', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          r.on('error', reject);
        });
      assert.equal(await as(`127.0.0.1:${ui.port}`), 200);
      assert.equal(await as(`localhost:${ui.port}`), 200);
      assert.equal(await as(`[::1]:${ui.port}`), 200);
      assert.equal(await as(`evil.example:${ui.port}`), 403);
      assert.equal(await as('127.0.0.1.evil.example'), 403);
    } finally {
      await ui.close();
    }
  });

  test('binding off loopback needs a password; with one, basic auth is required', async () => {
    await assert.rejects(UiServer.start({ dataDir: '.', host: '0.0.0.0' }), /needs a password/);
    const ui = await UiServer.start({ dataDir: '.', host: '0.0.0.0', password: 's3cret' });
    try {
      const base = `http://127.0.0.1:${ui.port}/`;
      assert.equal((await call(base, '/api/info')).status, 401);
      const auth = (p: string) => ({ headers: { authorization: 'Basic ' + Buffer.from(`admin:${p}`).toString('base64') } });
      assert.equal((await call(base, '/api/info', auth('wrong'))).status, 401);
      assert.equal((await call(base, '/api/info', auth('s3cret'))).status, 200);
    } finally {
      await ui.close();
    }
  });

  test('the commands: kafkalite ui --data-dir and kafkalite serve --ui-port print the URL and stop on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-ui-cli-'));
    try {
      const served = await consoleProcess(['serve', '--port', '0', '--data-dir', dataDir, '--ui-port', '0', '--log-level', 'warn']);
      const info = await ok(served.url, '/api/info');
      assert.equal(info.mode, 'serve');
      assert.equal(info.dataDir, dataDir);
      assert.equal(await served.stop(), 0);
      const offline = await consoleProcess(['ui', '--data-dir', dataDir, '--port', '0']);
      assert.equal((await ok(offline.url, '/api/info')).mode, 'offline');
      assert.equal(await offline.stop(), 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('kafkalite ui and serve --ui-port parse their options', () => {
    assert.deepEqual(parseUiArgs(['--bootstrap', 'h:9092']), { port: 8080, host: '127.0.0.1', bootstrap: 'h:9092' });
    assert.deepEqual(parseUiArgs(['--data-dir', 'd', '--port', '0']), { port: 0, host: '127.0.0.1', dataDir: 'd' });
    assert.ok('error' in parseUiArgs([]));
    assert.ok('error' in parseUiArgs(['--bootstrap', 'nohost']));
    assert.ok('error' in parseUiArgs(['--data-dir', 'd', '--port', '70000']));
    const s = parseServeArgs(['--ui-port', '8081']);
    assert.ok(!('error' in s) && !('help' in s));
    assert.deepEqual(s.ui, { host: '127.0.0.1', port: 8081 });
    assert.ok('error' in parseServeArgs(['--ui-port', 'x']));
    // a password from a file's first line, off the command line; an unreadable or empty file is refused
    const secrets = mkdtempSync(join(tmpdir(), 'kafkalite-ui-secret-'));
    try {
      writeFileSync(join(secrets, 'pw'), 'hunter2\nignored\n');
      writeFileSync(join(secrets, 'empty'), '\n');
      assert.deepEqual(parseUiArgs(['--bootstrap', 'h:1', '--password-file', join(secrets, 'pw')]), { port: 8080, host: '127.0.0.1', bootstrap: 'h:1', password: 'hunter2' });
      const served = parseServeArgs(['--ui-port', '1', '--ui-password-file', join(secrets, 'pw')]);
      assert.ok(!('error' in served) && !('help' in served));
      assert.equal(served.ui?.password, 'hunter2');
      assert.ok('error' in parseUiArgs(['--bootstrap', 'h:1', '--password-file', join(secrets, 'empty')]));
      assert.ok('error' in parseUiArgs(['--bootstrap', 'h:1', '--password-file', join(secrets, 'missing')]));
      assert.ok('error' in parseServeArgs(['--ui-password-file']));
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });
});
