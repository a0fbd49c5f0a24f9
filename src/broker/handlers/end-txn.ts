/**
 * EndTxn (26): commit or abort, with transaction version 1 rules (`endTransactionWithTV1`); the
 * answer comes once the markers are written (txn/coordinator.ts). v5 (TV2: an epoch bump at every
 * EndTxn) is not served. PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v2.
 */
import { EndTxn, type EndTxnRequest, type EndTxnResponse } from '../../protocol/schemas/end-txn.js';
import type { ApiHandler } from '../handler.js';
import { fencedForVersion } from './txn-errors.js';

export const endTxnHandler: ApiHandler<EndTxnRequest, EndTxnResponse> = {
  api: EndTxn,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const code = ctx.broker.transactions.endTransaction(request.transactionalId, request.producerId, request.producerEpoch, request.committed);
    return { throttleTimeMs: 0, errorCode: fencedForVersion(code, ctx.apiVersion, 2) };
  },
};
