/**
 * FindCoordinator (10), v0-4 (v4 batches keys). On one node the broker coordinates every group.
 * Transactional ids (key type 1) need the transaction coordinator, which kafkalite does not run:
 * COORDINATOR_NOT_AVAILABLE. Advertising v0 matters beyond groups: librdkafka 2.0.2 enables LZ4
 * only when FindCoordinator v0 is advertised (`rd_kafka_feature_map`, protocol notes §2.1).
 */
import { ApiErrorCode } from '../api-error.js';
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';

const GROUP = 0;

export const findCoordinatorHandler: ApiHandler = {
  api: apiSchemas(10),
  minVersion: 0,
  maxVersion: 4,
  handle(request, ctx) {
    const broker = ctx.broker;
    const keyType = request.keyType as number;
    const answer = (key: string): Message =>
      keyType === GROUP
        ? { key, nodeId: broker.config.nodeId, host: broker.config.advertisedHost, port: broker.port, errorCode: ApiErrorCode.NONE, errorMessage: null }
        : { key, nodeId: -1, host: '', port: -1, errorCode: ApiErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'kafkalite has no transaction coordinator' };
    if (ctx.apiVersion >= 4) return { throttleTimeMs: 0, coordinators: (request.coordinatorKeys as string[]).map(answer) };
    const a = answer(request.key as string);
    return { throttleTimeMs: 0, errorCode: a.errorCode, errorMessage: a.errorMessage, nodeId: a.nodeId, host: a.host, port: a.port };
  },
};
