/**
 * What a CLI path names (a data directory, a partition directory or one file) and the layout of
 * each (Kafka `LogManager`, `LocalLog.parseTopicPartitionName`, `LogFileUtils`), shared by `verify`, `stats` and `recover`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_SUFFIX, META_PROPERTIES_FILE, offsetFromFileName } from '../storage/file-names.js';
import { parseTopicPartitionName } from '../storage/topic.js';

export type Target = { kind: 'data-dir'; path: string } | { kind: 'partition-dir'; path: string } | { kind: 'file'; path: string };

export class UsageError extends Error {}

function isPartitionDirName(name: string): boolean {
  try {
    parseTopicPartitionName(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A directory is a data dir when it holds `meta.properties` or `<topic>-<partition>` directories,
 * otherwise a partition dir (its own name need not parse: tests and copies use any name).
 */
export function classifyTarget(path: string): Target {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UsageError(`${path} does not exist`);
  }
  if (!st.isDirectory()) return { kind: 'file', path };
  if (existsSync(join(path, META_PROPERTIES_FILE))) return { kind: 'data-dir', path };
  const hasPartitions = readdirSync(path, { withFileTypes: true }).some((d) => d.isDirectory() && isPartitionDirName(d.name));
  return { kind: hasPartitions ? 'data-dir' : 'partition-dir', path };
}

/** The partition directories of a data dir, by name (including `__cluster_metadata-0` and `-delete` ones). */
export function partitionDirs(dataDir: string): string[] {
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && isPartitionDirName(d.name))
    .map((d) => d.name)
    .sort();
}

/** Base offsets of the `.log` segments in a partition dir, ascending (not by name: offsets may exceed 20 digits' sort). */
export function segmentBaseOffsets(dir: string): bigint[] {
  const out: bigint[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(LOG_SUFFIX)) continue;
    try {
      out.push(offsetFromFileName(name));
    } catch {
      // a `.log` whose name is not an offset is not a segment (verify reports it)
    }
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Total bytes of the files under `path` matching `keep` (progress totals). */
export function totalBytes(path: string, keep: (name: string) => boolean): number {
  const st = statSync(path);
  if (!st.isDirectory()) return keep(path) ? st.size : 0;
  let sum = 0;
  for (const d of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, d.name);
    if (d.isDirectory()) sum += totalBytes(p, keep);
    else if (d.isFile() && keep(d.name)) sum += statSync(p).size;
  }
  return sum;
}
