/**
 * EndTxn (26): commit or abort; the answer comes once PrepareCommit/PrepareAbort is written, the markers right after it (txn/coordinator.ts).
 * v0-4 follow transaction version 1 (`endTransactionWithTV1`); v5 is TV2 (KIP-890 part 2: the
 * epoch is bumped at every EndTxn and the answer carries the producer id and epoch to use next).
 * PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v2.
 */
import { EndTxn, type EndTxnRequest, type EndTxnResponse } from '../../protocol/schemas/end-txn.js';
import type { ApiHandler } from '../handler.js';
import { fencedForVersion } from './txn-errors.js';
import { AclOperation } from '../auth/acl.js';
import { transactionalIdError } from '../auth/checks.js';

export const endTxnHandler: ApiHandler<EndTxnRequest, EndTxnResponse> = {
  api: EndTxn,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    const denied = transactionalIdError(ctx, AclOperation.WRITE, request.transactionalId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, producerId: -1n, producerEpoch: -1 };
    if (ctx.apiVersion >= 5) {
      const r = ctx.broker.transactions.endTransactionV2(request.transactionalId, request.producerId, request.producerEpoch, request.committed);
      return { throttleTimeMs: 0, errorCode: r.errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
    }
    const code = ctx.broker.transactions.endTransaction(request.transactionalId, request.producerId, request.producerEpoch, request.committed);
    return { throttleTimeMs: 0, errorCode: fencedForVersion(code, ctx.apiVersion, 2) };
  },
};
