/**
 * CreatePartitions (37): raises topics' partition counts (Kafka `ControllerApis.createPartitions`
 * and `ReplicationControlManager.createPartitions`). A name given twice is INVALID_REQUEST for
 * each occurrence; a count that is not an increase is INVALID_PARTITIONS; manual assignments must
 * list one replica set per new partition, each the replica count of the existing partitions (1)
 * and naming only registered brokers (this node), else INVALID_REPLICA_ASSIGNMENT. With
 * `validateOnly` nothing changes. New partitions get their logs at once and persist in the
 * topic registry, so Metadata, producers and group assignors see them.
 */
import {
  CreatePartitions,
  type CreatePartitionsRequest,
  type CreatePartitionsResponse,
  type CreatePartitionsTopic,
  type CreatePartitionsTopicResult,
} from '../../protocol/schemas/create-partitions.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic } from '../auth/checks.js';

/** Kafka's checks of manual assignments for `additional` new partitions on a single node. */
function validateAssignments(broker: Broker, t: CreatePartitionsTopic, additional: number): void {
  const assignments = t.assignments;
  if (assignments === null) return;
  if (assignments.length !== additional) {
    throw new ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Attempted to add ${additional} additional partition(s), but only ${assignments.length} assignment(s) were specified.`);
  }
  for (const a of assignments) {
    if (a.brokerIds.length !== 1) {
      throw new ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes a partition with ${a.brokerIds.length} replica(s), but this is not consistent with previous partitions, which have 1 replica(s).`);
    }
    const id = a.brokerIds[0]!;
    if (id !== broker.config.nodeId) {
      throw new ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
  }
}

export const createPartitionsHandler: ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> = {
  api: CreatePartitions,
  minVersion: 0,
  maxVersion: 3,
  handle(request, ctx) {
    // the request's metadata records share one fsync of the metadata log
    return ctx.broker.topics.batch(() => {
      const broker = ctx.broker;
      const counts = new Map<string, number>();
      for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
      const results: CreatePartitionsTopicResult[] = [];
      for (const t of request.topics) {
        const out: CreatePartitionsTopicResult = { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
        results.push(out);
        try {
          if (counts.get(t.name)! > 1) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.');
          requireTopic(ctx, AclOperation.ALTER, t.name);
          const info = broker.topics.validatePartitionIncrease(t.name, t.count);
          validateAssignments(broker, t, t.count - info.partitions);
          if (!request.validateOnly) {
            broker.topics.addPartitions(t.name, t.count, broker.logs);
            broker.logger.info(`topic ${t.name}: partitions raised from ${info.partitions} to ${t.count}`);
          }
        } catch (e) {
          out.errorCode = errorCodeOf(e);
          out.errorMessage = errorMessageOf(e);
        }
      }
      return { throttleTimeMs: 0, results };
    });
  },
};
