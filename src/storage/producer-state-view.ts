/**
 * A partition's producer state read from its directory without changing anything in it, for the
 * offline tools (what DescribeProducers would answer once a broker had loaded the log). It follows
 * the load (producer-state-rebuild.ts, Kafka `UnifiedLog.rebuildProducerState`): the newest
 * producer snapshot above the first segment's base and not past the log end, then every batch
 * after it replayed (none after a clean shutdown that left no snapshot). Unlike the load it writes
 * no snapshot, rebuilds no index, and does not cut a damaged tail: the replay stops at the first
 * batch that fails its CRC or framing, and says so.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaliteError } from '../errors.js';
import { FileRecords } from './file-records.js';
import { LOG_SUFFIX, offsetFromFileName } from './file-names.js';
import { entryFromSnapshot, listSnapshotFiles, readProducerSnapshot } from './producer-snapshot.js';
import { ProducerStateManager } from './producer-state.js';
import { replayBatch } from './producer-state-rebuild.js';

export interface ProducerStateView {
  state: ProducerStateManager;
  /** The offset after the last whole batch read (the first segment's base when there is none). */
  logEndOffset: bigint;
  /** The snapshot the replay started from, if one was used. */
  snapshotOffset: bigint | undefined;
  /** What kept the view from covering the whole log (a damaged batch, an unreadable snapshot). */
  warnings: string[];
}

function segmentFiles(dir: string): { baseOffset: bigint; path: string }[] {
  const out: { baseOffset: bigint; path: string }[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(LOG_SUFFIX)) continue;
    try {
      out.push({ baseOffset: offsetFromFileName(name), path: join(dir, name) });
    } catch {
      // not `<offset>.log`: not a segment
    }
  }
  return out.sort((a, b) => (a.baseOffset < b.baseOffset ? -1 : a.baseOffset > b.baseOffset ? 1 : 0));
}

/** The offset after the last batch of the newest segment holding one (batch headers only). */
function logEndOffsetOf(segments: { baseOffset: bigint; path: string }[], warnings: string[]): bigint {
  for (let i = segments.length - 1; i >= 0; i--) {
    const file = FileRecords.open(segments[i]!.path);
    let end: bigint | undefined;
    try {
      for (const h of file.headers()) end = h.lastOffset + 1n;
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      warnings.push(`${segments[i]!.path}: ${e.message}`);
    } finally {
      file.close();
    }
    if (end !== undefined) return end;
  }
  return segments[segments.length - 1]?.baseOffset ?? 0n;
}

/** The producer state of the partition in `dir` as the log's snapshots and batches give it; `dir` is only read. */
export interface ProducerStateViewOptions {
  /** Clock for the producer state (default Date.now). */
  time?: () => number;
  /** The data directory holds Kafka's clean-shutdown marker. */
  hadCleanShutdown?: boolean;
}

export function readProducerStateView(dir: string, options: ProducerStateViewOptions = {}): ProducerStateView {
  const time = options.time ?? Date.now;
  const warnings: string[] = [];
  const segments = segmentFiles(dir);
  // the manager only lists the snapshot files here; loading is done below, without its deletions
  const state = new ProducerStateManager(dir, { time });
  const logEndOffset = logEndOffsetOf(segments, warnings);
  const firstBase = segments[0]?.baseOffset ?? 0n;
  let from = firstBase;
  let snapshotOffset: bigint | undefined;
  // newest first, as `ProducerStateManager.loadFromSnapshot`; snapshots at or below the log start are not used
  const snapshots = listSnapshotFiles(dir);
  for (const s of [...snapshots].reverse()) {
    if (s.offset > logEndOffset || s.offset <= firstBase) continue;
    try {
      for (const entry of readProducerSnapshot(s.path)) state.loadProducerEntry(entryFromSnapshot(entry));
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      warnings.push(`${s.path}: ${e.message}; an older snapshot or the log is used instead`);
      continue;
    }
    from = snapshotOffset = s.offset;
    break;
  }
  state.updateMapEndOffset(from);
  // Kafka's load reads no log when it finds no snapshot after a clean shutdown: none was kept, so
  // there was no producer state (`UnifiedLog.rebuildProducerState`); the view agrees with it
  const skipLog = from >= logEndOffset || (snapshotOffset === undefined && options.hadCleanShutdown === true && snapshots.length === 0);
  replay: for (const [i, segment] of segments.entries()) {
    if (skipLog) break;
    const next = segments[i + 1];
    if (next !== undefined && next.baseOffset <= from) continue;
    const file = FileRecords.open(segment.path);
    try {
      // the batches below `from` are skipped by their headers, not read whole
      let start = 0;
      if (segment.baseOffset < from) {
        for (const h of file.headers()) {
          if (h.lastOffset >= from) break;
          start = h.position + h.sizeInBytes;
        }
      }
      for (const { batch, position } of file.batches(start)) {
        if (batch.lastOffset < from) continue;
        if (batch.kind === 'v2' && !batch.isValid()) {
          warnings.push(`${segment.path}: the batch at position ${position} fails its CRC check; producer state is read up to offset ${state.mapEndOffset}`);
          break replay;
        }
        replayBatch(state, batch);
      }
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      warnings.push(`${segment.path}: ${e.message}; producer state is read up to offset ${state.mapEndOffset}`);
      break;
    } finally {
      file.close();
    }
  }
  // single node: everything appended is replicated, so completed transactions are stable
  state.onHighWatermarkUpdated(logEndOffset);
  return { state, logEndOffset, snapshotOffset, warnings };
}
