/**
 * Producer state rebuilt from the log (Kafka `UnifiedLog.rebuildProducerState`,
 * `LogSegment.updateProducerState`): the newest snapshot at or below a point, then the batches
 * after it replayed. Loading (log-loader.ts) and truncation (partition-log.ts) both do this.
 */
import type { AnyRecordBatch } from '../record/batches.js';
import { floorSegmentIndex } from './local-log.js';
import { messageFormatMagic, type LogConfig } from './log-config.js';
import type { LogSegment } from './log-segment.js';
import type { CompletedTxn } from './producer-append-info.js';
import { ProducerStateManager, type ProducerStateManagerOptions } from './producer-state.js';

/**
 * Feeds one batch from the log to a producer state (Kafka `LogSegment.updateProducerState`): a
 * marker that completes a transaction writes the aborted ones to `segment`'s txn index when given.
 */
export function replayBatch(state: ProducerStateManager, batch: AnyRecordBatch, segment?: LogSegment): void {
  if (batch.kind !== 'v2') {
    state.updateMapEndOffset(batch.lastOffset + 1n);
    return;
  }
  const completed = state.replayBatch(batch);
  if (completed) completeTxn(state, completed, segment);
}

/** Completes a transaction; an aborted one goes to `segment`'s txn index first, with its LSO. */
export function completeTxn(state: ProducerStateManager, completed: CompletedTxn, segment?: LogSegment): void {
  if (completed.isAborted && segment) {
    segment.txnIndex.append({
      producerId: completed.producerId,
      firstOffset: completed.firstOffset,
      lastOffset: completed.lastOffset,
      lastStableOffset: state.lastStableOffset(completed),
    });
  }
  state.completeTxn(completed);
}

/** Replays the batches in [from, to) of `segments` into `state`, snapshotting at the listed segment bases. */
export function replayRange(
  segments: readonly LogSegment[],
  state: ProducerStateManager,
  from: bigint,
  to: bigint,
  snapshotAt: readonly bigint[] = [],
): void {
  for (let i = Math.max(0, floorSegmentIndex(segments, from)); i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.baseOffset >= to) break;
    if (snapshotAt.includes(segment.baseOffset) && segment.baseOffset > state.mapEndOffset) {
      state.updateMapEndOffset(segment.baseOffset);
      state.takeSnapshot(false);
    }
    const start = segment.offsetIndex.lookup(from).position;
    for (const { batch } of segment.log.batches(start)) {
      if (batch.lastOffset < from) continue;
      if (batch.kind === 'v2' ? batch.baseOffset >= to : batch.lastOffset >= to) break;
      replayBatch(state, batch);
    }
  }
}

/**
 * Brings `state` to `logEndOffset`: from the newest snapshot in (logStartOffset, logEndOffset],
 * then the log after it (Kafka `UnifiedLog.truncateTo`'s reload).
 */
export function reloadProducerState(
  segments: readonly LogSegment[],
  state: ProducerStateManager,
  logStartOffset: bigint,
  logEndOffset: bigint,
  now: number,
): void {
  state.truncateAndReload(logStartOffset, logEndOffset, now);
  const from = state.mapEndOffset > logStartOffset ? state.mapEndOffset : logStartOffset;
  replayRange(segments, state, from, logEndOffset);
  state.updateMapEndOffset(logEndOffset);
}

/** A producer state as of `offset`: the newest snapshot at or below it plus the log after it. */
export function producerStateUpTo(
  dir: string,
  segments: readonly LogSegment[],
  offset: bigint,
  logStartOffset: bigint,
  options: ProducerStateManagerOptions & { time: () => number },
): ProducerStateManager {
  const state = new ProducerStateManager(dir, options);
  reloadProducerState(segments, state, logStartOffset, offset, options.time());
  return state;
}

/**
 * Kafka `UnifiedLog.rebuildProducerState` at the end of loading: snapshots at the last two segment
 * bases and at the log end, the state from the newest snapshot plus the log after it. Without
 * producer state to find (an old message format, or a clean shutdown that kept no snapshot) the
 * snapshots are written empty and the log is not read.
 */
export function rebuildProducerState(
  dir: string,
  segments: readonly LogSegment[],
  logStartOffset: bigint,
  logEndOffset: bigint,
  config: LogConfig,
  hadCleanShutdown: boolean,
  options: ProducerStateManagerOptions & { time: () => number },
): ProducerStateManager {
  const state = new ProducerStateManager(dir, options);
  state.removeStraySnapshots(
    segments.map((s) => s.baseOffset),
    true,
  );
  const n = segments.length;
  const snapshotAt = [segments[n - 2]?.baseOffset, segments[n - 1]!.baseOffset, logEndOffset].filter((o): o is bigint => o !== undefined);
  if (messageFormatMagic(config) < 2 || (state.latestSnapshotOffset() === undefined && hadCleanShutdown)) {
    // no producer state can exist (old format), or none was ever kept: empty snapshots, no scan
    state.truncateFullyAndStartAt(logStartOffset);
    for (const o of snapshotAt) {
      state.updateMapEndOffset(o);
      state.takeSnapshot(false);
    }
  } else {
    state.truncateAndReload(logStartOffset, logEndOffset, options.time());
    const from = state.mapEndOffset > logStartOffset ? state.mapEndOffset : logStartOffset;
    replayRange(segments, state, from, logEndOffset, snapshotAt);
  }
  state.updateMapEndOffset(logEndOffset);
  state.takeSnapshot(false);
  // single node: the high watermark is the log end offset
  state.onHighWatermarkUpdated(logEndOffset);
  return state;
}
