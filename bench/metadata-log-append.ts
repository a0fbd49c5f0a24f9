/**
 * The KRaft metadata log's share of topic creation (issue 21), without any partition's files:
 * `node dist/bench/metadata-log-append.js [dir] [topics]` appends the records of `topics` topics of
 * 5 partitions (TopicRecord, 5 PartitionRecords: one batch per topic, 100 topics per fsync, as
 * CreateTopics does) to a fresh `__cluster_metadata-0` under `dir` (default the system's temp dir)
 * and prints the CPU time per partition: encoding, the batch, the append and the image update.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterMetadataLog } from '../src/internal-topics/metadata-log.js';
import { createTopicRecords } from '../src/internal-topics/metadata-image.js';
import { randomUuid } from '../src/storage/uuid.js';

const dir = mkdtempSync(join(process.argv[2] ?? tmpdir(), 'kafkalite-metadata-'));
const topicCount = Number(process.argv[3] ?? 20000);
const directoryId = randomUuid();
try {
  const metadata = ClusterMetadataLog.open({ dataDir: dir, nodeId: 1, directoryId, hadCleanShutdown: true });
  const began = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < topicCount; i += 100) {
    metadata.deferFlush(() => {
      for (let j = i; j < i + 100 && j < topicCount; j++) metadata.append(createTopicRecords(`t${j}`, randomUuid(), 5, {}, 1, directoryId));
    });
  }
  const ms = performance.now() - began;
  const used = process.cpuUsage(cpu);
  const partitions = topicCount * 5;
  const cpuMs = (used.user + used.system) / 1000;
  console.log(
    `${partitions} partitions' records in ${ms.toFixed(0)} ms; CPU ${cpuMs.toFixed(0)} ms = ${((cpuMs / partitions) * 1000).toFixed(1)} us per partition (user ${(used.user / 1000).toFixed(0)}, system ${(used.system / 1000).toFixed(0)})`,
  );
  metadata.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
