/**
 * InitProducerId (22), for idempotent (non-transactional) producers: a new producer id at epoch 0,
 * as Kafka's `KafkaApis.handleInitProducerIdRequest` does when transactional_id is null (the v3+
 * "bump my epoch" fields are ignored for those, as in Kafka). Transactional ids need the
 * transaction coordinator, which kafkalite does not run yet: COORDINATOR_NOT_AVAILABLE.
 */
import { InitProducerId, type InitProducerIdRequest, type InitProducerIdResponse } from '../../protocol/schemas/init-producer-id.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export const initProducerIdHandler: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = {
  api: InitProducerId,
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    if (request.transactionalId !== null) {
      ctx.broker.logger.warnThrottled('txn-unsupported', `InitProducerId from ${ctx.remote} for transactional id ${request.transactionalId}: transactions are not supported by this broker`);
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, producerId: -1n, producerEpoch: -1 };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: ctx.broker.producerIds.generate(), producerEpoch: 0 };
  },
};
