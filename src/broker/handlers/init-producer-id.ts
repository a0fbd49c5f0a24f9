/**
 * InitProducerId (22). Without a transactional id: a new producer id at epoch 0 from any broker,
 * as Kafka's `KafkaApis.handleInitProducerIdRequest` does (the v3+ "bump my epoch" fields are
 * ignored for those, as in Kafka). With one: the transaction coordinator's answer (txn/coordinator.ts),
 * epoch bump, fencing of an open transaction, KIP-360 recovery with ProducerId/ProducerEpoch (v3+).
 * PRODUCER_FENCED is sent as INVALID_PRODUCER_EPOCH below v4.
 */
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/schemas/init-producer-id.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { fencedForVersion } from './txn-errors.js';
import { AclOperation } from '../auth/acl.js';
import { idempotentWriteError, transactionalIdError } from '../auth/checks.js';

export const initProducerIdHandler: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = {
  api: InitProducerId,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    // KafkaApis: WRITE on the transactional id; without one, IDEMPOTENT_WRITE on the cluster or WRITE on some topic (KIP-679)
    const denied = request.transactionalId === null ? idempotentWriteError(ctx) : transactionalIdError(ctx, AclOperation.WRITE, request.transactionalId);
    if (denied) return { throttleTimeMs: 0, errorCode: denied, producerId: -1n, producerEpoch: -1 };
    if (request.transactionalId === null) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: ctx.broker.producerIds.generate(), producerEpoch: 0 };
    }
    const producerId = request.producerId ?? -1n;
    const producerEpoch = request.producerEpoch ?? -1;
    // exactly one of the two set is a malformed request (KafkaApis)
    if ((producerId === -1n) !== (producerEpoch === -1)) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, producerId: -1n, producerEpoch: -1 };
    const r = ctx.broker.transactions.initProducerId(request.transactionalId, request.transactionTimeoutMs, producerId, producerEpoch);
    return { throttleTimeMs: 0, errorCode: fencedForVersion(r.errorCode, ctx.apiVersion, 4), producerId: r.producerId, producerEpoch: r.producerEpoch };
  },
};
