/**
 * Every API the broker serves: one handler module per API key. Each handler's minVersion and
 * maxVersion are the one statement of the versions it serves (ApiVersions advertises them).
 */
import type { AnyApiHandler } from '../handler.js';
import { apiVersionsHandler } from './api-versions.js';
import { createTopicsHandler } from './create-topics.js';
import { deleteRecordsHandler } from './delete-records.js';
import { deleteTopicsHandler } from './delete-topics.js';
import { describeConfigsHandler } from './describe-configs.js';
import { fetchHandler } from './fetch.js';
import { findCoordinatorHandler } from './find-coordinator.js';
import { initProducerIdHandler } from './init-producer-id.js';
import { listOffsetsHandler } from './list-offsets.js';
import { metadataHandler } from './metadata.js';
import { produceHandler } from './produce.js';
import { joinGroupHandler } from './join-group.js';
import { syncGroupHandler } from './sync-group.js';
import { heartbeatHandler } from './heartbeat.js';
import { leaveGroupHandler } from './leave-group.js';
import { offsetCommitHandler } from './offset-commit.js';
import { offsetFetchHandler } from './offset-fetch.js';
import { listGroupsHandler } from './list-groups.js';
import { describeGroupsHandler } from './describe-groups.js';
import { deleteGroupsHandler } from './delete-groups.js';
import { offsetDeleteHandler } from './offset-delete.js';
import { addPartitionsToTxnHandler } from './add-partitions-to-txn.js';
import { addOffsetsToTxnHandler } from './add-offsets-to-txn.js';
import { endTxnHandler } from './end-txn.js';
import { writeTxnMarkersHandler } from './write-txn-markers.js';
import { txnOffsetCommitHandler } from './txn-offset-commit.js';
import { describeTransactionsHandler } from './describe-transactions.js';
import { listTransactionsHandler } from './list-transactions.js';
import { createPartitionsHandler } from './create-partitions.js';
import { alterConfigsHandler } from './alter-configs.js';
import { incrementalAlterConfigsHandler } from './incremental-alter-configs.js';
import { describeProducersHandler } from './describe-producers.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import { alterClientQuotasHandler, describeClientQuotasHandler } from './client-quotas.js';
import { describeClusterHandler } from './describe-cluster.js';
import { offsetForLeaderEpochHandler } from './offset-for-leader-epoch.js';
import { electLeadersHandler } from './elect-leaders.js';
import { alterPartitionReassignmentsHandler, listPartitionReassignmentsHandler } from './partition-reassignments.js';
import { describeTopicPartitionsHandler } from './describe-topic-partitions.js';
import { createAclsHandler } from './create-acls.js';
import { deleteAclsHandler } from './delete-acls.js';
import { describeAclsHandler } from './describe-acls.js';
import { consumerGroupHeartbeatHandler } from './consumer-group-heartbeat.js';
import { consumerGroupDescribeHandler } from './consumer-group-describe.js';
import { saslHandshakeHandler } from './sasl-handshake.js';
import { saslAuthenticateHandler } from './sasl-authenticate.js';
import { alterUserScramCredentialsHandler, describeUserScramCredentialsHandler } from './scram-credentials.js';

export const ALL_HANDLERS: readonly AnyApiHandler[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  findCoordinatorHandler,
  apiVersionsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  deleteRecordsHandler,
  initProducerIdHandler,
  describeConfigsHandler,
  joinGroupHandler,
  syncGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  listGroupsHandler,
  describeGroupsHandler,
  deleteGroupsHandler,
  offsetDeleteHandler,
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  writeTxnMarkersHandler,
  txnOffsetCommitHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
  createPartitionsHandler,
  alterConfigsHandler,
  incrementalAlterConfigsHandler,
  describeProducersHandler,
  describeLogDirsHandler,
  describeClientQuotasHandler,
  alterClientQuotasHandler,
  describeClusterHandler,
  offsetForLeaderEpochHandler,
  electLeadersHandler,
  listPartitionReassignmentsHandler,
  alterPartitionReassignmentsHandler,
  describeTopicPartitionsHandler,
  describeAclsHandler,
  createAclsHandler,
  deleteAclsHandler,
  consumerGroupHeartbeatHandler,
  consumerGroupDescribeHandler,
  saslHandshakeHandler,
  saslAuthenticateHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
];
