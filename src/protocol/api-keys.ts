/**
 * Names for the API keys kafkalite serves (Kafka's `ApiKeys` enum), so code tests
 * `apiKey === ApiKey.ApiVersions` instead of a bare 18. Each value is read from the generated schema
 * module of that API (src/protocol/schemas/), so the names cannot drift from the registry.
 */
import * as api from './schemas/index.js';

export const ApiKey = {
  Produce: api.Produce.apiKey,
  Fetch: api.Fetch.apiKey,
  ListOffsets: api.ListOffsets.apiKey,
  Metadata: api.Metadata.apiKey,
  OffsetCommit: api.OffsetCommit.apiKey,
  OffsetFetch: api.OffsetFetch.apiKey,
  FindCoordinator: api.FindCoordinator.apiKey,
  JoinGroup: api.JoinGroup.apiKey,
  Heartbeat: api.Heartbeat.apiKey,
  LeaveGroup: api.LeaveGroup.apiKey,
  SyncGroup: api.SyncGroup.apiKey,
  DescribeGroups: api.DescribeGroups.apiKey,
  ListGroups: api.ListGroups.apiKey,
  SaslHandshake: api.SaslHandshake.apiKey,
  ApiVersions: api.ApiVersions.apiKey,
  CreateTopics: api.CreateTopics.apiKey,
  DeleteTopics: api.DeleteTopics.apiKey,
  DeleteRecords: api.DeleteRecords.apiKey,
  InitProducerId: api.InitProducerId.apiKey,
  OffsetForLeaderEpoch: api.OffsetForLeaderEpoch.apiKey,
  AddPartitionsToTxn: api.AddPartitionsToTxn.apiKey,
  AddOffsetsToTxn: api.AddOffsetsToTxn.apiKey,
  EndTxn: api.EndTxn.apiKey,
  WriteTxnMarkers: api.WriteTxnMarkers.apiKey,
  TxnOffsetCommit: api.TxnOffsetCommit.apiKey,
  DescribeConfigs: api.DescribeConfigs.apiKey,
  AlterConfigs: api.AlterConfigs.apiKey,
  SaslAuthenticate: api.SaslAuthenticate.apiKey,
  CreatePartitions: api.CreatePartitions.apiKey,
  DeleteGroups: api.DeleteGroups.apiKey,
  IncrementalAlterConfigs: api.IncrementalAlterConfigs.apiKey,
  OffsetDelete: api.OffsetDelete.apiKey,
  DescribeCluster: api.DescribeCluster.apiKey,
  DescribeUserScramCredentials: api.DescribeUserScramCredentials.apiKey,
  AlterUserScramCredentials: api.AlterUserScramCredentials.apiKey,
} as const;

/** An API's name as Kafka spells it, e.g. 'ApiVersions'. */
export type ApiName = keyof typeof ApiKey;
