/**
 * InitProducerId (22), v0-4, for idempotent (non-transactional) producers: a new producer id at
 * epoch 0, as Kafka's `KafkaApis.handleInitProducerIdRequest` does when transactional_id is null
 * (the v3+ "bump my epoch" fields are ignored for those, as in Kafka). Transactional ids need the
 * transaction coordinator, which kafkalite does not run yet: COORDINATOR_NOT_AVAILABLE.
 */
import { ApiErrorCode } from '../api-error.js';
import type { ApiHandler } from '../handler.js';
import { apiSchemas } from './api.js';

export const initProducerIdHandler: ApiHandler = {
  api: apiSchemas(22),
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    if (request.transactionalId !== null) {
      ctx.broker.logger.warnThrottled('txn-unsupported', `InitProducerId from ${ctx.remote} for transactional id ${request.transactionalId}: transactions are not supported by this broker`);
      return { throttleTimeMs: 0, errorCode: ApiErrorCode.COORDINATOR_NOT_AVAILABLE, producerId: -1n, producerEpoch: -1 };
    }
    return { throttleTimeMs: 0, errorCode: ApiErrorCode.NONE, producerId: ctx.broker.producerIds.generate(), producerEpoch: 0 };
  },
};
