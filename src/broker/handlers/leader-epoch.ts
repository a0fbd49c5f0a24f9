/**
 * The leader epoch of a partition on this node. A single node leads every partition from the
 * start and never loses leadership, so the epoch never bumps: 0, the value Metadata reports
 * (handlers/metadata.ts) and the epoch Produce stamps on the batches it appends.
 */
export const PARTITION_LEADER_EPOCH = 0;

/** -1 in a request's current leader epoch: the client does not know it, so nothing is checked. */
export const NO_EPOCH = -1;

/**
 * Kafka's `Partition.checkCurrentLeaderEpoch`: a client that knows an older epoch than the leader's
 * is FENCED_LEADER_EPOCH (it must refresh metadata), a newer one UNKNOWN_LEADER_EPOCH (this broker
 * has not caught up); undefined when the epoch matches or was not given.
 */
export function currentLeaderEpochError(currentLeaderEpoch: number): 'FENCED_LEADER_EPOCH' | 'UNKNOWN_LEADER_EPOCH' | undefined {
  if (currentLeaderEpoch === NO_EPOCH) return undefined;
  if (currentLeaderEpoch < PARTITION_LEADER_EPOCH) return 'FENCED_LEADER_EPOCH';
  if (currentLeaderEpoch > PARTITION_LEADER_EPOCH) return 'UNKNOWN_LEADER_EPOCH';
  return undefined;
}
