/**
 * ListPartitionReassignments (46) and AlterPartitionReassignments (45), KIP-455, as a single-node
 * KRaft cluster answers them (`ReplicationControlManager.listPartitionReassignments` /
 * `alterPartitionReassignment`). A reassignment can only move a partition to registered brokers,
 * and this node is the only one, so none is ever in progress:
 * - List: no reassignments; topics or partitions that do not exist are left out, not errors.
 * - Alter, per partition: UNKNOWN_TOPIC_OR_PARTITION for one that does not exist; a null replica
 *   list (cancel) NO_REASSIGNMENT_IN_PROGRESS; an empty list, a broker named twice, or a broker
 *   that is not registered (any id but this node's) INVALID_REPLICA_ASSIGNMENT; the current
 *   assignment [this node] completes at once with no error.
 *
 * List needs DESCRIBE and Alter ALTER on the cluster (`ControllerApis`); denied, the answers are the
 * requests' `getErrorResponse`: CLUSTER_AUTHORIZATION_FAILED with the controller's message at the
 * top, List echoing the named partitions, Alter the error on each.
 */
import {
  AlterPartitionReassignments,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
  type ReassignablePartitionResponse,
  type ReassignableTopicResponse,
} from '../../protocol/schemas/alter-partition-reassignments.js';
import {
  ListPartitionReassignments,
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponse,
} from '../../protocol/schemas/list-partition-reassignments.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized, clusterOperationDeniedMessage } from '../auth/checks.js';

export const listPartitionReassignmentsHandler: ApiHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> = {
  api: ListPartitionReassignments,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    if (!clusterAuthorized(ctx, AclOperation.DESCRIBE)) {
      const topics = (request.topics ?? []).map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, replicas: [], addingReplicas: [], removingReplicas: [] })) }));
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: clusterOperationDeniedMessage(ctx), topics };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] };
  },
};

/** The outcome of reassigning one partition to `replicas` (null: cancel). */
function reassign(broker: Broker, topic: string, partition: number, replicas: number[] | null): ReassignablePartitionResponse {
  const answer = (errorCode: number, errorMessage: string | null): ReassignablePartitionResponse => ({ partitionIndex: partition, errorCode, errorMessage });
  const t = broker.topics.get(topic);
  if (t === undefined || partition < 0 || partition >= t.partitions) {
    return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such topic-partition: ${topic}-${partition}`);
  }
  if (replicas === null) return answer(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, `No reassignment of ${topic}-${partition} is in progress.`);
  // `ReplicationControlManager.validateManualPartitionAssignment`: the ids in ascending order, so
  // the broker named in the error is the one Kafka names
  if (replicas.length === 0) return answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The replica list is empty.');
  let previous: number | undefined;
  for (const id of [...replicas].sort((a, b) => a - b)) {
    if (id !== broker.config.nodeId) return answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The replica list names broker ${id}, which is not registered.`);
    if (id === previous) return answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The replica list names broker ${id} more than once.`);
    previous = id;
  }
  return answer(ErrorCode.NONE, null);
}

export const alterPartitionReassignmentsHandler: ApiHandler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> = {
  api: AlterPartitionReassignments,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    if (!clusterAuthorized(ctx, AclOperation.ALTER)) {
      const errorMessage = clusterOperationDeniedMessage(ctx);
      const errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
      const responses = request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage })) }));
      return { throttleTimeMs: 0, errorCode, errorMessage, responses };
    }
    const responses: ReassignableTopicResponse[] = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => reassign(ctx.broker, t.name, p.partitionIndex, p.replicas)),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
