/**
 * A broker restarted after a clean shutdown opens a partition's log at its first use (issue 21):
 * ListOffsets, DescribeLogDirs, config changes, DeleteTopics and InitProducerId all work on logs
 * not opened yet, and only a request that reads the log opens it; the rest open in the background.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { PRODUCER_IDS_FILE } from '../../src/broker/producer-ids.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { withBroker } from '../helpers/broker.js';
import { call } from './group/call.js';

const LIST_OFFSETS = 2;
const DESCRIBE_LOG_DIRS = 35;
const INIT_PRODUCER_ID = 22;

const initProducerId = async (broker: Parameters<typeof call>[0]): Promise<bigint> => {
  const r = await call(broker, INIT_PRODUCER_ID, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
  assert.equal(errorName(r.errorCode), 'NONE');
  return r.producerId;
};

describe('logs opened at first use after a clean restart', () => {
  test('ListOffsets opens the log; DescribeLogDirs, config changes and DeleteTopics do not; producer ids go on', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-lazy-'));
    try {
      const firstPid = await withBroker({ dataDir }, async (broker) => {
        broker.topics.create('a', 2, {}, broker.logs);
        broker.topics.create('b', 1, {}, broker.logs);
        broker.logs.getLog('a', 1)!.append(encodeRecordBatch([{ key: 'k', value: 'v'.repeat(300) }, { key: 'k', value: 'w' }]));
        return initProducerId(broker);
      });
      // the block's end, written before its first id was handed out
      assert.equal(readFileSync(join(dataDir, PRODUCER_IDS_FILE), 'utf8').trim(), String(firstPid + 1000n));
      await withBroker({ dataDir }, async (broker) => {
        assert.equal(broker.logs.hadCleanShutdown, true);
        const unopened = broker.logs.unopenedCount;
        assert.ok(unopened >= 3, `${unopened} logs left for first use`);
        for (const [t, p] of [['a', 0], ['a', 1], ['b', 0]] as const) assert.equal(broker.logs.openedLog(t, p), undefined);

        const dirs = await call(broker, DESCRIBE_LOG_DIRS, 4, { topics: [{ topic: 'a', partitions: [0, 1] }] });
        const sizes = dirs.results[0].topics[0].partitions.map((p: { partitionSize: bigint }) => Number(p.partitionSize));
        assert.equal(sizes[0], 0);
        assert.ok(sizes[1] > 300);
        assert.equal(broker.logs.openedLog('a', 1), undefined);

        // a config change while the log is closed applies once it opens
        broker.topics.setOverrides('a', { 'segment.bytes': '2000000' }, broker.logs);
        assert.equal(broker.logs.openedLog('a', 1), undefined);

        const offsets = await call(broker, LIST_OFFSETS, 1, { replicaId: -1, topics: [{ name: 'a', partitions: [{ partitionIndex: 1, timestamp: -1n }] }] });
        const answer = offsets.topics[0].partitions[0];
        assert.deepEqual([errorName(answer.errorCode), answer.offset], ['NONE', 2n]);
        const opened = broker.logs.openedLog('a', 1);
        assert.ok(opened !== undefined);
        assert.equal(opened.config.segmentBytes, 2000000);
        assert.equal(opened.size, sizes[1]);

        assert.equal(broker.topics.delete('b', broker.logs), true);
        assert.equal(existsSync(join(dataDir, 'b-0')), false);
        assert.equal(broker.logs.unopenedCount, unopened - 2);

        // no id handed out before the restart is handed out again
        assert.ok((await initProducerId(broker)) > firstPid);

        // the logs no request used open in the background (retention and the cleaner walk open logs)
        while (broker.logs.unopenedCount > 0) await new Promise((r) => setTimeout(r, 50));
        assert.ok(broker.logs.openedLog('a', 0) !== undefined);
        assert.equal(broker.logs.openedLog('a', 0)!.config.segmentBytes, 2000000);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
