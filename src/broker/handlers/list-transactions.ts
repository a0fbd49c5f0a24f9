/**
 * ListTransactions (66): this coordinator's transactional ids, filtered by state names, producer
 * ids and (v1, KIP-994) how long their transaction has been open
 * (`TransactionStateManager.listTransactionStates`); unknown state names are reported back.
 */
import { ListTransactions, type ListTransactionsRequest, type ListTransactionsResponse } from '../../protocol/schemas/list-transactions.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { transactionalIdError } from '../auth/checks.js';

export const listTransactionsHandler: ApiHandler<ListTransactionsRequest, ListTransactionsResponse> = {
  api: ListTransactions,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const r = ctx.broker.transactions.list({
      states: request.stateFilters,
      producerIds: request.producerIdFilters,
      durationMs: request.durationFilter ?? -1n,
    });
    return {
      throttleTimeMs: 0,
      errorCode: r.errorCode,
      unknownStateFilters: r.unknownStates,
      // only the transactional ids the principal may DESCRIBE (KafkaApis.handleListTransactionsRequest)
      transactionStates: r.transactions.filter((t) => !transactionalIdError(ctx, AclOperation.DESCRIBE, t.transactionalId)).map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state })),
    };
  },
};
