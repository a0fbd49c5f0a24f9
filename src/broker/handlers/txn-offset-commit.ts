/**
 * TxnOffsetCommit (28), to the group coordinator: offsets committed inside a transaction, pending
 * until its marker (group/txn-offsets.ts). With `transaction.partition.verification.enable` the
 * group's offsets partition must be in the transaction (AddOffsetsToTxn), as Kafka verifies it
 * through the transaction coordinator (KIP-890): INVALID_TXN_STATE up to v3, TRANSACTION_ABORTABLE
 * from v4, PRODUCER_FENCED as INVALID_PRODUCER_EPOCH. Below v2, COORDINATOR_LOAD_IN_PROGRESS is
 * sent as COORDINATOR_NOT_AVAILABLE (KAFKA-7296).
 */
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/schemas/txn-offset-commit.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { OFFSETS_TOPIC } from '../../internal-topics/offsets.js';
import { commitTxnOffsets } from '../group/txn-offsets.js';
import { partitionExists } from '../group/topic-partitions.js';
import { AclOperation } from '../auth/acl.js';
import { groupError, splitByTopicAccess, transactionalIdError } from '../auth/checks.js';

/** The verification answer as TxnOffsetCommit reports it (AddPartitionsToTxnManager's error mapping). */
function verificationError(code: number, version: number): number {
  if (code === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (code === ErrorCode.TRANSACTION_ABORTABLE && version <= 3) return ErrorCode.INVALID_TXN_STATE;
  return code;
}

export const txnOffsetCommitHandler: ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = {
  api: TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const broker = ctx.broker;
    const v = ctx.apiVersion;
    const all = (errorCode: number): TxnOffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    // KafkaApis.handleTxnOffsetCommitRequest: WRITE on the transactional id, then READ on the group
    const denied = transactionalIdError(ctx, AclOperation.WRITE, request.transactionalId) || groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return all(denied);
    if (broker.transactions.config.partitionVerification && request.groupId !== '') {
      const offsetsPartition = broker.groups.store.partitionFor(request.groupId);
      let code = verificationError(broker.transactions.verifyPartition(request.transactionalId, request.producerId, request.producerEpoch, OFFSETS_TOPIC, offsetsPartition), v);
      if (v < 2 && code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
      if (code !== ErrorCode.NONE) return all(code);
    }
    const { allowed, denied: deniedTopics } = splitByTopicAccess(ctx, AclOperation.READ, request.topics);
    const topics = commitTxnOffsets(
      broker.groups,
      {
        transactionalId: request.transactionalId,
        groupId: request.groupId,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
        generationId: request.generationId ?? -1,
        memberId: request.memberId ?? '',
        groupInstanceId: request.groupInstanceId ?? null,
        topics: allowed.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            committedOffset: p.committedOffset,
            committedLeaderEpoch: p.committedLeaderEpoch ?? -1,
            committedMetadata: p.committedMetadata,
          })),
        })),
      },
      partitionExists(broker.topics),
    );
    const unauthorized = deniedTopics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) }));
    return { throttleTimeMs: 0, topics: [...topics, ...unauthorized] };
  },
};
