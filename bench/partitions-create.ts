/**
 * Topic creation without the network (issue 21): `node dist/bench/partitions-create.js [dir] [topics]`
 * creates `topics` topics of 5 partitions through `TopicRegistry.create`, 100 topics per
 * `batch` (one fsync of the KRaft metadata log, as the CreateTopics handler does), in a fresh
 * directory under `dir` (default the system's temp dir), and prints the rate and the CPU time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TopicRegistry } from '../src/broker/topic-registry.js';
import type { ClusterMetadataLog } from '../src/internal-topics/metadata-log.js';
import { DEFAULT_LOG_CONFIG } from '../src/storage/log-config.js';
import { LogManager } from '../src/storage/log-manager.js';

const dir = mkdtempSync(join(process.argv[2] ?? tmpdir(), 'kafkalite-create-'));
const topicCount = Number(process.argv[3] ?? 2000);
try {
  let metadata: ClusterMetadataLog | undefined;
  const logs = LogManager.open(dir, { topicConfigs: (m) => TopicRegistry.storedConfigs((metadata = TopicRegistry.openMetadataLog(m)), DEFAULT_LOG_CONFIG) });
  const topics = new TopicRegistry(metadata!, () => DEFAULT_LOG_CONFIG);
  topics.load(logs);
  const began = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < topicCount; i += 100) {
    topics.batch(() => {
      for (let j = i; j < i + 100 && j < topicCount; j++) topics.create(`t${j}`, 5, {}, logs);
    });
  }
  const ms = performance.now() - began;
  const used = process.cpuUsage(cpu);
  const partitions = topicCount * 5;
  console.log(
    `${partitions} partitions in ${ms.toFixed(0)} ms = ${Math.round((partitions / ms) * 1000)}/s; CPU user ${(used.user / 1000).toFixed(0)} ms, system ${(used.system / 1000).toFixed(0)} ms`,
  );
  logs.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
