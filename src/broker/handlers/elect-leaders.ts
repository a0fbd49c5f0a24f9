/**
 * ElectLeaders (43, KIP-183/KIP-460) as a single-node cluster answers it: this node is every
 * partition's only replica, its preferred leader and its leader, so no election is ever needed.
 * Kafka's controller (`ReplicationControlManager.electLeaders`) then answers, per partition:
 * - ELECTION_NOT_NEEDED for a hosted partition, for the preferred (0) and the unclean (1) election
 *   alike (the leader is live and preferred);
 * - UNKNOWN_TOPIC_OR_PARTITION for a topic or partition that does not exist;
 * and for a null partition list (every partition) it lists every topic with only the partitions
 * it elected, leaving out those that needed none: here, every topic with none. Partitions are
 * answered as listed, repeats included. v0 carries no election type (preferred).
 *
 * It needs ALTER on the cluster (`ControllerApis.handleElectLeaders`); denied, the answer is
 * `ElectLeadersRequest.getErrorResponse`'s: CLUSTER_AUTHORIZATION_FAILED at the top and on every
 * listed partition, with the controller's message.
 */
import {
  ElectLeaders,
  type ElectLeadersRequest,
  type ElectLeadersResponse,
  type PartitionResult,
  type ReplicaElectionResult,
} from '../../protocol/schemas/elect-leaders.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized, clusterOperationDeniedMessage } from '../auth/checks.js';

/** `ElectionType`: PREFERRED (0), UNCLEAN (1). */
const ELECTION_TYPES = new Set([0, 1]);

export const electLeadersHandler: ApiHandler<ElectLeadersRequest, ElectLeadersResponse> = {
  api: ElectLeaders,
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const electionType = request.electionType ?? 0;
    const requested = request.topicPartitions ?? [];
    // `ElectLeadersRequest.getErrorResponse`: the error on the request and on every partition
    const refuse = (errorCode: number, message: string): ElectLeadersResponse => ({
      throttleTimeMs: 0,
      errorCode,
      replicaElectionResults: requested.map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((p) => ({ partitionId: p, errorCode, errorMessage: message })),
      })),
    });
    if (!clusterAuthorized(ctx, AclOperation.ALTER)) return refuse(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, clusterOperationDeniedMessage(ctx));
    if (!ELECTION_TYPES.has(electionType)) return refuse(ErrorCode.INVALID_REQUEST, `Unknown election type ${electionType}.`);
    if (request.topicPartitions === null) {
      const results = ctx.broker.topics.all().map((t): ReplicaElectionResult => ({ topic: t.name, partitionResult: [] }));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: results };
    }
    const results: ReplicaElectionResult[] = [];
    for (const t of requested) {
      const topic = ctx.broker.topics.get(t.topic);
      const partitionResult: PartitionResult[] = [];
      for (const p of t.partitions) {
        const hosted = topic !== undefined && p >= 0 && p < topic.partitions;
        partitionResult.push(
          hosted
            ? { partitionId: p, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null }
            : { partitionId: p, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `No such topic-partition: ${t.topic}-${p}` },
        );
      }
      results.push({ topic: t.topic, partitionResult });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: results };
  },
};
