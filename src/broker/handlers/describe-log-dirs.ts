/**
 * DescribeLogDirs (35): the one log directory of this node, with each hosted partition's size on
 * disk (its segments' bytes, Kafka `UnifiedLog.size`) and offset lag 0 (a current log, never a
 * `-future` one, on a single node); v4 adds the file system's total and usable bytes of the
 * directory (Kafka `LogManager` via `FileStore`). A null topic list means every partition; named
 * partitions this node does not host are left out, as Kafka does.
 */
import { statfsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DescribeLogDirs,
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
  type DescribeLogDirsTopic,
} from '../../protocol/schemas/describe-log-dirs.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized } from '../auth/checks.js';

interface LogSize {
  partition: number;
  size: number;
}

/** The logs the request names (all when `topics` is null), grouped by topic in request order. */
function requestedLogs(broker: Broker, topics: DescribeLogDirsRequest['topics']): Map<string, LogSize[]> {
  const out = new Map<string, LogSize[]>();
  // sizes without opening logs not used since a clean start (LogManager.logSize)
  const add = (topic: string, partition: number): void => {
    const size = broker.logs.logSize(topic, partition);
    if (size === undefined) return;
    const list = out.get(topic) ?? [];
    list.push({ partition, size });
    out.set(topic, list);
  };
  if (topics === null) {
    for (const t of broker.topics.all()) {
      for (let p = 0; p < t.partitions; p++) add(t.name, p);
    }
    return out;
  }
  for (const t of topics) {
    const info = broker.topics.get(t.topic);
    if (info === undefined) continue;
    for (const p of t.partitions) {
      if (p >= 0 && p < info.partitions) add(t.topic, p);
    }
  }
  return out;
}

export const describeLogDirsHandler: ApiHandler<DescribeLogDirsRequest, DescribeLogDirsResponse> = {
  api: DescribeLogDirs,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const broker = ctx.broker;
    if (!clusterAuthorized(ctx, AclOperation.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const topics: DescribeLogDirsTopic[] = [];
    for (const [name, logs] of requestedLogs(broker, request.topics)) {
      topics.push({ name, partitions: logs.map((log) => ({ partitionIndex: log.partition, partitionSize: BigInt(log.size), offsetLag: 0n, isFutureKey: false })) });
    }
    const fsStats = statfsSync(broker.logs.dir, { bigint: true });
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [{
        errorCode: ErrorCode.NONE,
        logDir: resolve(broker.logs.dir),
        topics,
        totalBytes: fsStats.blocks * fsStats.bsize,
        usableBytes: fsStats.bavail * fsStats.bsize,
      }],
    };
  },
};
