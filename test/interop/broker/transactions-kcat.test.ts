/**
 * kcat (librdkafka) producing with `-X transactional.id`: kcat runs init_transactions,
 * begin_transaction, produces its input and commits at the end. The records are stored in
 * transactional batches of the producer id the coordinator handed out, followed by a COMMIT marker;
 * a read_committed kcat consumer reads them back; a second run with the same id gets the next epoch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseControlRecordKey } from '../../../src/record/control.js';
import { runCommand } from '../../helpers/python-peer.js';
import { storedBatches, withBroker } from '../../helpers/broker.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';

async function kcat(args: string[], input?: string): Promise<{ stdout: string; stderr: string }> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kcat ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

describe('kcat with -X transactional.id against the broker', () => {
  test('two transactional runs: committed records, COMMIT markers, read_committed read back, epoch bumped', async () => {
    await withBroker({ config: { 'auto.create.topics.enable': 'true' } }, async (broker) => {
      const topic = 'kcat-txn';
      for (const run of [1, 2]) {
        const lines = Array.from({ length: 20 }, (_, i) => `run${run}-${i}`);
        const r = await kcat(['-P', '-b', broker.bootstrap, '-t', topic, '-X', 'transactional.id=kcat-tid'], lines.join('\n') + '\n');
        assert.match(r.stderr, /Transaction successfully committed/);
        assert.equal(broker.transactions.describe('kcat-tid').txn?.producerEpoch, run - 1);
      }
      const consumed = await kcat(['-C', '-b', broker.bootstrap, '-t', topic, '-e', '-X', 'isolation.level=read_committed', '-f', '%s\n']);
      assert.deepEqual(
        consumed.stdout.split('\n').filter((l) => l !== ''),
        [1, 2].flatMap((run) => Array.from({ length: 20 }, (_, i) => `run${run}-${i}`)),
      );
      const batches = storedBatches(broker.dataDir, topic, 0);
      const txn = broker.transactions.describe('kcat-tid').txn!;
      const markers = batches.filter((b) => b.isControl);
      assert.equal(markers.length, 2, 'one marker per transaction');
      for (const m of markers) {
        assert.equal(m.producerId, txn.producerId);
        assert.equal(parseControlRecordKey(m.records[0]!.key).type, 'COMMIT');
      }
      for (const b of batches.filter((x) => !x.isControl)) assert.equal(b.producerId, txn.producerId);
      const log = broker.logs.getLog(topic, 0)!;
      assert.equal(log.lastStableOffset, log.logEndOffset);
    });
  });
});
