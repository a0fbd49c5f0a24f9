/**
 * DescribeTransactions (65): each transactional id's state as the coordinator holds it
 * (`TransactionCoordinator.handleDescribeTransactions`): its state name, timeout, the start of its
 * current or last transaction (-1 when none started), producer id and epoch, and its partitions
 * (those still waiting for a marker while it completes). Unknown ids: TRANSACTIONAL_ID_NOT_FOUND.
 */
import { DescribeTransactions, type DescribeTransactionsRequest, type DescribeTransactionsResponse } from '../../protocol/schemas/describe-transactions.js';
import type { ApiHandler } from '../handler.js';
import { partitionsByTopic } from '../txn/metadata.js';
import { AclOperation } from '../auth/acl.js';
import { canDescribeTopic, transactionalIdError } from '../auth/checks.js';

export const describeTransactionsHandler: ApiHandler<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  api: DescribeTransactions,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const transactionStates = request.transactionalIds.map((transactionalId) => {
      // DESCRIBE on the transactional id; its partitions only for topics the principal may describe
      const denied = transactionalIdError(ctx, AclOperation.DESCRIBE, transactionalId);
      if (denied) return { errorCode: denied, transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] };
      const r = ctx.broker.transactions.describe(transactionalId);
      const t = r.txn;
      return {
        errorCode: r.errorCode,
        transactionalId,
        transactionState: t?.state ?? '',
        transactionTimeoutMs: t?.txnTimeoutMs ?? 0,
        transactionStartTimeMs: BigInt(t?.txnStartTimestamp ?? -1),
        producerId: t?.producerId ?? -1n,
        producerEpoch: t?.producerEpoch ?? -1,
        topics: t === undefined ? [] : partitionsByTopic(t.partitions).filter((p) => canDescribeTopic(ctx, p.topic)).map((p) => ({ topic: p.topic, partitions: p.partitionIds })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
};
