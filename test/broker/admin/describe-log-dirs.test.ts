/**
 * DescribeLogDirs (35) at every version served: all partitions for a null topic list, only the
 * hosted ones among those named, sizes equal to the bytes of the partition's segment files on
 * disk, and (v4) the file system's total and usable bytes.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../../src/record/builder.js';
import { partitionDirName } from '../../../src/storage/topic.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const DESCRIBE_LOG_DIRS = 35;

/** What the .log files of a partition directory hold on disk. */
function logBytes(dataDir: string, topic: string, partition: number): number {
  const dir = join(dataDir, partitionDirName(topic, partition));
  return readdirSync(dir).filter((f) => f.endsWith('.log')).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

describe('DescribeLogDirs', () => {
  for (const version of [0, 1, 2, 3, 4]) {
    test(`v${version}`, async () => {
      await withBroker({}, async (broker) => {
        broker.topics.create('a', 2, {}, broker.logs);
        broker.topics.create('b', 1, {}, broker.logs);
        broker.logs.getLog('a', 1)!.append(encodeRecordBatch([{ key: 'k', value: 'v'.repeat(500) }]));
        const all = await call(broker, DESCRIBE_LOG_DIRS, version, { topics: null });
        assert.equal(all.results.length, 1);
        const dir = all.results[0];
        assert.deepEqual([errorName(dir.errorCode), dir.logDir], ['NONE', resolve(broker.dataDir)]);
        const sizes = (d: { topics: { name: string; partitions: { partitionIndex: number; partitionSize: bigint; offsetLag: bigint }[] }[] }) =>
          d.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, Number(p.partitionSize), p.offsetLag]));
        const listed = sizes(dir).filter(([name]) => name === 'a' || name === 'b');
        assert.deepEqual(listed, [['a', 0, 0, 0n], ['a', 1, logBytes(broker.dataDir, 'a', 1), 0n], ['b', 0, 0, 0n]]);
        assert.ok((listed[1]![2] as number) > 500);
        const some = await call(broker, DESCRIBE_LOG_DIRS, version, { topics: [{ topic: 'a', partitions: [1, 7] }, { topic: 'nope', partitions: [0] }] });
        assert.deepEqual(sizes(some.results[0]), [['a', 1, logBytes(broker.dataDir, 'a', 1), 0n]]);
        if (version >= 4) {
          assert.ok(dir.totalBytes > 0n && dir.usableBytes > 0n && dir.usableBytes <= dir.totalBytes);
        }
      });
    });
  }
});
