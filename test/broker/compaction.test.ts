/**
 * The broker's background log cleaner: a cleanup.policy=compact topic produced to by kcat ends up
 * holding the latest value per key (tombstones kept until their horizon), read back by kcat.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { runCommand } from '../helpers/python-peer.js';
import { storedRecords, withBroker } from '../helpers/broker.js';

async function kcat(args: string[], input?: string): Promise<string> {
  const r = await runCommand('kcat', args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}

describe('broker log cleaner', () => {
  test('a compacted topic keeps the latest value per key; consumers read the compacted log', async () => {
    await withBroker({ config: { 'log.cleaner.backoff.ms': '20' } }, async (broker) => {
      broker.topics.create('compacted', 1, { 'cleanup.policy': 'compact', 'segment.bytes': '2048', 'min.cleanable.dirty.ratio': '0.01' }, broker.logs);
      const lines: string[] = [];
      const latest = new Map<string, string>();
      for (let i = 0; i < 400; i++) {
        const key = `k${i % 10}`;
        const value = `v${i}-${'p'.repeat(40)}`;
        lines.push(`${key}:${value}`);
        latest.set(key, value);
      }
      const produce = (part: string[]): Promise<string> => kcat(['-b', broker.bootstrap, '-t', 'compacted', '-P', '-K', ':', '-X', 'linger.ms=0', '-X', 'batch.num.messages=5'], part.join('\n') + '\n');
      // half, then a cleaning round, then the rest: the log is cleaned in more than one round, as
      // when a round starts while a producer is still writing
      await produce(lines.slice(0, 200));
      for (let i = 0; i < 500 && broker.cleaner.checkpoint.get('compacted', 0) === undefined; i++) await sleep(20);
      assert.notEqual(broker.cleaner.checkpoint.get('compacted', 0), undefined, 'the cleaner never cleaned the topic');
      await produce(lines.slice(200));
      const log = broker.logs.getLog('compacted', 0)!;
      assert.ok(log.segmentCount > 3, `expected several segments, got ${log.segmentCount}`);
      // A round cleans only the segments rolled when it starts; the next one removes more
      // superseded records. Reading the files after one round and consuming after a later one
      // counted different logs (once 250 consumed of 350 stored, both correct, when the first
      // round started while kcat was still producing). Wait
      // (bounded) until the cleaner has cleaned up to the active segment: with nothing produced
      // since, no dirty bytes are left and no further round changes the log.
      const activeBase = (): bigint => log.segmentBaseOffsets().at(-1)!;
      for (let i = 0; i < 500 && broker.cleaner.checkpoint.get('compacted', 0) !== activeBase(); i++) await sleep(20);
      assert.equal(broker.cleaner.checkpoint.get('compacted', 0), activeBase(), 'the cleaner never cleaned the topic up to its active segment');
      const stored = storedRecords(broker.dataDir, 'compacted', 0);
      assert.ok(stored.length < 400, `nothing was removed (${stored.length} records)`);
      // every key's latest value is still there, and each key appears at most once below the active segment
      const consumed = (await kcat(['-b', broker.bootstrap, '-t', 'compacted', '-C', '-o', 'beginning', '-e', '-f', '%o %k %s\n']))
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      const lastSeen = new Map<string, string>();
      let prev = -1;
      for (const [offset, key, value] of consumed) {
        assert.ok(Number(offset) > prev, 'offsets strictly increase');
        prev = Number(offset);
        lastSeen.set(key!, value!);
      }
      assert.deepEqual(lastSeen, latest);
      assert.equal(consumed.length, stored.length);
      const cleanedKeys = consumed.filter(([offset]) => BigInt(offset!) < activeBase()).map(([, key]) => key);
      assert.equal(new Set(cleanedKeys).size, cleanedKeys.length, 'a key appears at most once below the active segment');
    });
  });
});
