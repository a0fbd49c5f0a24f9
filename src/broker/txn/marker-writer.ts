/**
 * Writing a transaction's COMMIT or ABORT markers (Kafka `TransactionMarkerChannelManager` and
 * `TransactionMarkerRequestCompletionHandler`). Kafka sends WriteTxnMarkers to each partition's
 * leader; on one node every leader is this broker, so the marker is appended to the partition's log
 * directly, and `__consumer_offsets` partitions go to the group coordinator, which settles the
 * transaction's pending offsets (KafkaApis `handleWriteTxnMarkersRequest` does the same split).
 * Per partition, Kafka's outcomes: done, dropped (the partition is gone, or the log refuses a
 * stale epoch: someone newer owns it), or retry later.
 */
import { OFFSETS_TOPIC } from '../../internal-topics/offsets.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import type { GroupCoordinator } from '../group/coordinator.js';
import { completeTxnOffsets } from '../group/txn-offsets.js';
import type { Logger } from '../logger.js';
import type { HeldAppends } from '../../storage/held-appends.js';
import type { LogManager } from '../../storage/log-manager.js';
import type { TopicRegistry } from '../topic-registry.js';
import { splitTpKey } from './metadata.js';

export interface TxnMarker {
  producerId: bigint;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
}

export interface MarkerHost {
  readonly topics: TopicRegistry;
  readonly logs: LogManager;
  readonly logger: Logger;
  readonly groups: GroupCoordinator;
  readonly appends: { notify(): void };
  /** The broker's held appends (held-appends.ts), which `writeMarkers` holds its writes in. */
  readonly heldAppends?: HeldAppends;
}

/**
 * Appends one marker to a partition hosted here; throws the log's (or group coordinator's) typed
 * errors. `held`: the file write waits for the caller's `held.writeAll()` (held-appends.ts).
 */
export function writeMarker(host: MarkerHost, topic: string, partition: number, m: TxnMarker, held?: HeldAppends): void {
  const t = host.topics.get(topic);
  const log = t !== undefined && partition >= 0 && partition < t.partitions ? host.logs.getLog(topic, partition) : undefined;
  // no __consumer_offsets yet: no TxnOffsetCommit was written, so nothing waits for this marker
  if (topic === OFFSETS_TOPIC && t === undefined) return;
  if (topic === OFFSETS_TOPIC && log !== undefined) {
    completeTxnOffsets(host.groups, partition, m);
    return;
  }
  if (log === undefined) throw new ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `This server does not host this topic-partition: ${topic}-${partition}`);
  log.appendEndTxnMarker(
    { type: m.commit ? 'COMMIT' : 'ABORT', producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch },
    { heldAppends: held },
  );
  host.appends.notify();
}

/** Errors after which the partition is retried (TMRH); the others end the partition's part of the work. */
const RETRIABLE = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_SERVER_ERROR,
]);

/**
 * Writes the marker to every partition of `partitions` and returns those to retry. The writes are
 * held (`host.heldAppends`): the caller writes them before its turn ends (the coordinator's
 * `writeHeld`), so that the markers and Complete states of every transaction completed in one turn
 * go out as one write per file. A partition not
 * hosted here is dropped (Kafka assumes it was deleted); INVALID_PRODUCER_EPOCH and
 * TRANSACTION_COORDINATOR_FENCED end the partition's part too (a newer producer or coordinator owns it).
 */
export function writeMarkers(host: MarkerHost, transactionalId: string, partitions: Iterable<string>, m: TxnMarker): string[] {
  const retry: string[] = [];
  for (const key of partitions) {
    const { topic, partition } = splitTpKey(key);
    try {
      writeMarker(host, topic, partition, m, host.heldAppends);
    } catch (e) {
      const code = errorCodeOf(e);
      if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
        host.logger.warn(`transaction ${transactionalId}: ${topic}-${partition} no longer exists; its marker is skipped`);
        continue;
      }
      const msg = `transaction ${transactionalId}: ${m.commit ? 'COMMIT' : 'ABORT'} marker on ${topic}-${partition} failed (error ${code}): ${errorMessageOf(e)}`;
      if (RETRIABLE.has(code)) {
        host.logger.warnThrottled(`txn-marker:${code}`, `${msg}; retrying`);
        retry.push(key);
      } else {
        host.logger.warn(`${msg}; not retried`);
      }
    }
  }
  return retry;
}
