/**
 * AddOffsetsToTxn (25): the group's `__consumer_offsets` partition joins the transaction, so its
 * TxnOffsetCommit offsets get the transaction's marker (KafkaApis `handleAddOffsetsToTxnRequest`;
 * the group itself is not contacted). PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v2.
 */
import { AddOffsetsToTxn, type AddOffsetsToTxnRequest, type AddOffsetsToTxnResponse } from '../../protocol/schemas/add-offsets-to-txn.js';
import type { ApiHandler } from '../handler.js';
import { fencedForVersion } from './txn-errors.js';
import { AclOperation } from '../auth/acl.js';
import { groupError, transactionalIdError } from '../auth/checks.js';

export const addOffsetsToTxnHandler: ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = {
  api: AddOffsetsToTxn,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const broker = ctx.broker;
    // KafkaApis.handleAddOffsetsToTxnRequest: WRITE on the transactional id, then READ on the group
    const denied = transactionalIdError(ctx, AclOperation.WRITE, request.transactionalId) || groupError(ctx, AclOperation.READ, request.groupId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied };
    const code = broker.transactions.addOffsets(request.transactionalId, request.producerId, request.producerEpoch, broker.groups.store.partitionFor(request.groupId));
    return { throttleTimeMs: 0, errorCode: fencedForVersion(code, ctx.apiVersion, 2) };
  },
};
