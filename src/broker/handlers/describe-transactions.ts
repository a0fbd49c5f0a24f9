/**
 * DescribeTransactions (65): each transactional id's state as the coordinator holds it
 * (`TransactionCoordinator.handleDescribeTransactions`): its state name, timeout, the start of its
 * current or last transaction (-1 when none started), producer id and epoch, and its partitions
 * (those still waiting for a marker while it completes). Unknown ids: TRANSACTIONAL_ID_NOT_FOUND.
 */
import { DescribeTransactions, type DescribeTransactionsRequest, type DescribeTransactionsResponse } from '../../protocol/schemas/describe-transactions.js';
import type { ApiHandler } from '../handler.js';
import { partitionsByTopic } from '../txn/metadata.js';

export const describeTransactionsHandler: ApiHandler<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  api: DescribeTransactions,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const transactionStates = request.transactionalIds.map((transactionalId) => {
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
        topics: t === undefined ? [] : partitionsByTopic(t.partitions).map((p) => ({ topic: p.topic, partitions: p.partitionIds })),
      };
    });
    return { throttleTimeMs: 0, transactionStates };
  },
};
