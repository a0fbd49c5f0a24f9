/**
 * `kafkalite ui --data-dir` on a directory a real Kafka 4.0 broker wrote (the kafka-tester corpus,
 * KRaft combined mode): topics, the message a Kafka producer wrote, the segments and a batch
 * header, all read without writing a byte (no lock file, no recovery: the listing is unchanged).
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UiServer } from '../../src/ui/server.js';
import { CORPORA } from '../helpers/paths.js';

const DIR = join(CORPORA, 'kafka-tester/@HEAD-018f9bc/internal/test_helpers/pass_all/kraft-combined-logs');

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((d) => {
    const p = join(d.parentPath, d.name);
    const st = statSync(p);
    return `${p} ${st.size} ${st.mtimeMs}`;
  }).sort();
}

test('offline console on a Kafka 4.0 data directory', async () => {
  const before = listing(DIR);
  const ui = await UiServer.start({ dataDir: DIR });
  try {
    const get = async (p: string) => {
      const r = await fetch(ui.url + p);
      assert.equal(r.status, 200, p);
      return r.json();
    };
    const topics = await get('api/topics');
    assert.deepEqual(topics.map((t: { name: string }) => t.name), ['__cluster_metadata', 'foo']);
    const m = await get('api/topics/foo/messages');
    assert.deepEqual(m.messages.map((x: { offset: string; value: string }) => [x.offset, Buffer.from(x.value, 'base64').toString()]), [['0', 'Hello World!']]);
    assert.equal(m.messages[0].batch.producerId, '0');
    const segs = await get('api/disk/foo/0/segments');
    assert.equal(segs.length, 1);
    assert.equal(segs[0].sizeInBytes, statSync(join(DIR, 'foo-0', '00000000000000000000.log')).size);
    const b = await get('api/disk/foo/0/segments/0/batches/0');
    assert.equal(b.crc.valid, true);
    assert.equal(b.fields.find((f: { name: string }) => f.name === 'recordsCount').value, '1');
  } finally {
    await ui.close();
  }
  assert.deepEqual(listing(DIR), before);
});
