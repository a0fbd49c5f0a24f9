/**
 * `clientThrottles` is Kafka's `AbstractResponse.shouldClientThrottle(version)` per API (KIP-219):
 * from the version each `XResponse` names the client backs off itself (the answer goes out at
 * once); an API without an override (the default, false) and the versions before the threshold get
 * their answer held for the throttle time instead.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientThrottles } from '../../src/broker/quotas/throttled-channel.js';
import { ApiKey, type ApiName } from '../../src/protocol/api-keys.js';

// [API, last version whose client does not throttle itself (-1: none), or 'never'] from each XResponse.shouldClientThrottle
const KAFKA: [ApiName, number | 'never'][] = [
  ['Produce', 5], ['Fetch', 7], ['ListOffsets', 2], ['Metadata', 5], ['OffsetCommit', 3], ['OffsetFetch', 3],
  ['FindCoordinator', 1], ['JoinGroup', 2], ['Heartbeat', 1], ['LeaveGroup', 1], ['SyncGroup', 1],
  ['DescribeGroups', 1], ['ListGroups', 1], ['ApiVersions', 1], ['CreateTopics', 2], ['DeleteTopics', 1],
  ['DeleteRecords', 0], ['InitProducerId', 0], ['AddPartitionsToTxn', 0], ['AddOffsetsToTxn', 0], ['EndTxn', 0],
  ['TxnOffsetCommit', 0], ['DescribeAcls', 0], ['CreateAcls', 0], ['DeleteAcls', 0], ['DescribeConfigs', 1],
  ['AlterConfigs', 0], ['DescribeLogDirs', 0], ['CreatePartitions', 0], ['DeleteGroups', 0],
  ['ElectLeaders', -1], ['IncrementalAlterConfigs', -1], ['AlterPartitionReassignments', -1],
  ['ListPartitionReassignments', -1], ['OffsetDelete', -1], ['DescribeUserScramCredentials', -1],
  ['AlterUserScramCredentials', -1], ['DescribeTopicPartitions', -1],
  // no override in Kafka: AbstractResponse's default
  ['OffsetForLeaderEpoch', 'never'], ['SaslHandshake', 'never'], ['SaslAuthenticate', 'never'], ['WriteTxnMarkers', 'never'],
  ['DescribeClientQuotas', 'never'], ['AlterClientQuotas', 'never'], ['DescribeCluster', 'never'], ['DescribeProducers', 'never'],
  ['DescribeTransactions', 'never'], ['ListTransactions', 'never'], ['ConsumerGroupHeartbeat', 'never'], ['ConsumerGroupDescribe', 'never'],
];

test('clientThrottles follows each Kafka response\'s shouldClientThrottle(version), false where Kafka has no override', () => {
  // every API the broker names is in the table: a new API must be looked up in Kafka, not defaulted
  assert.deepEqual(KAFKA.map(([n]) => n).sort(), (Object.keys(ApiKey) as ApiName[]).sort());
  for (const [name, lastUnthrottled] of KAFKA) {
    const key = ApiKey[name];
    for (let v = 0; v <= 20; v++) {
      const expected = lastUnthrottled !== 'never' && v > lastUnthrottled;
      assert.equal(clientThrottles(key, v), expected, `${name} v${v}`);
    }
  }
  // an API key the broker does not know
  assert.equal(clientThrottles(32000, 5), false);
});
