/**
 * Which protocol versions the broker serves: `kafkalite.protocol.compat` (and `startBroker`'s
 * `protocolCompat`).
 * - `3.9` (the default): every version Kafka 3.9 serves, from v0 (each handler's own range).
 * - `4.0`: only what Kafka 4.x serves, so a user can check that a client still works on Kafka 4.
 *   KIP-896 raised these floors in 4.0. JoinGroup keeps v0 as 4.0.1 and 4.1 put it back
 *   (KAFKA-19444: librdkafka reads JoinGroup v0 as its broker-balanced-consumer feature). Produce
 *   v0-2 are still advertised and never served (KAFKA-18659: librdkafka compresses only when the
 *   advertised Produce range includes v0).
 */
import { ApiKey } from '../protocol/api-keys.js';

export const PROTOCOL_COMPATS = ['3.9', '4.0'] as const;
export type ProtocolCompat = (typeof PROTOCOL_COMPATS)[number];

/** Kafka 4.x's lowest served version per API key, where KIP-896 raised it. */
const KAFKA_4_FLOORS: ReadonlyMap<number, number> = new Map<number, number>([
  [ApiKey.Produce, 3],
  [ApiKey.Fetch, 4],
  [ApiKey.ListOffsets, 1],
  [ApiKey.OffsetCommit, 2],
  [ApiKey.OffsetFetch, 1],
  [ApiKey.CreateTopics, 2],
  [ApiKey.DeleteTopics, 1],
  [ApiKey.OffsetForLeaderEpoch, 2],
  [ApiKey.WriteTxnMarkers, 1],
  [ApiKey.DescribeConfigs, 1],
  // DescribeAcls, CreateAcls, DeleteAcls
  [29, 1],
  [30, 1],
  [31, 1],
  // AlterReplicaLogDirs, DescribeLogDirs
  [34, 1],
  [35, 1],
  // CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken, DescribeDelegationToken
  [38, 1],
  [39, 1],
  [40, 1],
  [41, 1],
]);

/** APIs Kafka 4.x advertises from a lower version than it serves (see the module comment). */
const KAFKA_4_ADVERTISED_FLOORS: ReadonlyMap<number, number> = new Map<number, number>([[ApiKey.Produce, 0]]);

/** The lowest version served of an API whose handler serves from `handlerMin`. */
export function servedMinVersion(compat: ProtocolCompat, apiKey: number, handlerMin: number): number {
  if (compat === '3.9') return handlerMin;
  return Math.max(handlerMin, KAFKA_4_FLOORS.get(apiKey) ?? handlerMin);
}

/** The lowest version ApiVersions advertises of an API whose handler serves from `handlerMin`. */
export function advertisedMinVersion(compat: ProtocolCompat, apiKey: number, handlerMin: number): number {
  const advertised = compat === '3.9' ? undefined : KAFKA_4_ADVERTISED_FLOORS.get(apiKey);
  return advertised !== undefined ? Math.max(handlerMin, advertised) : servedMinVersion(compat, apiKey, handlerMin);
}
