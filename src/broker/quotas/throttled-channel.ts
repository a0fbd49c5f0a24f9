/**
 * What a throttled answer does to its connection (Kafka `ClientQuotaManager.throttle`,
 * `ThrottledChannel` and the `Processor`'s THROTTLE_STARTED / THROTTLE_ENDED channel mutes):
 * an answer carrying throttle_time_ms > 0 mutes the connection for that long (no request read or
 * handled) so a client that ignores the throttle time cannot go on past its quota. Where the
 * answer's `AbstractResponse.shouldClientThrottle(version)` is true (KIP-219) the answer goes out
 * at once and the client backs off too; elsewhere the client does not back off, so the answer
 * itself is held for the throttle time, as before KIP-219 (`RequestHandlerHelper.sendResponseMaybeThrottle`).
 */
import { ApiKey } from '../../protocol/api-keys.js';

/** The answer's throttle_time_ms, 0 when it has none. */
export function throttleTimeOf(response: unknown): number {
  if (typeof response !== 'object' || response === null || !('throttleTimeMs' in response)) return 0;
  const t = response.throttleTimeMs;
  return typeof t === 'number' && t > 0 ? t : 0;
}

/**
 * The first response version whose client throttles itself, per API: each `XResponse`'s
 * `shouldClientThrottle(version)` override (the schemas' "Starting in version N, on quota
 * violation, brokers send out responses before throttling"). An API not listed keeps
 * `AbstractResponse`'s default, false: OffsetForLeaderEpoch, SaslHandshake, SaslAuthenticate,
 * WriteTxnMarkers, DescribeClientQuotas, AlterClientQuotas, DescribeCluster, DescribeProducers,
 * DescribeTransactions, ListTransactions, ConsumerGroupHeartbeat and ConsumerGroupDescribe.
 */
const CLIENT_THROTTLES_FROM: ReadonlyMap<number, number> = new Map([
  [ApiKey.Produce, 6],
  [ApiKey.Fetch, 8],
  [ApiKey.ListOffsets, 3],
  [ApiKey.Metadata, 6],
  [ApiKey.OffsetCommit, 4],
  [ApiKey.OffsetFetch, 4],
  [ApiKey.FindCoordinator, 2],
  [ApiKey.JoinGroup, 3],
  [ApiKey.Heartbeat, 2],
  [ApiKey.LeaveGroup, 2],
  [ApiKey.SyncGroup, 2],
  [ApiKey.DescribeGroups, 2],
  [ApiKey.ListGroups, 2],
  [ApiKey.ApiVersions, 2],
  [ApiKey.CreateTopics, 3],
  [ApiKey.DeleteTopics, 2],
  [ApiKey.DeleteRecords, 1],
  [ApiKey.InitProducerId, 1],
  [ApiKey.AddPartitionsToTxn, 1],
  [ApiKey.AddOffsetsToTxn, 1],
  [ApiKey.EndTxn, 1],
  [ApiKey.TxnOffsetCommit, 1],
  [ApiKey.DescribeAcls, 1],
  [ApiKey.CreateAcls, 1],
  [ApiKey.DeleteAcls, 1],
  [ApiKey.DescribeConfigs, 2],
  [ApiKey.AlterConfigs, 1],
  [ApiKey.DescribeLogDirs, 1],
  [ApiKey.CreatePartitions, 1],
  [ApiKey.DeleteGroups, 1],
  [ApiKey.ElectLeaders, 0],
  [ApiKey.IncrementalAlterConfigs, 0],
  [ApiKey.AlterPartitionReassignments, 0],
  [ApiKey.ListPartitionReassignments, 0],
  [ApiKey.OffsetDelete, 0],
  [ApiKey.DescribeUserScramCredentials, 0],
  [ApiKey.AlterUserScramCredentials, 0],
  [ApiKey.DescribeTopicPartitions, 0],
]);

/** `AbstractResponse.shouldClientThrottle`: whether the client of this answer version backs off on its own (KIP-219). */
export function clientThrottles(apiKey: number, version: number): boolean {
  const from = CLIENT_THROTTLES_FROM.get(apiKey);
  return from !== undefined && version >= from;
}
