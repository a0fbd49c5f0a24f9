/**
 * FindCoordinator (10); v4 batches keys, v5 may answer TRANSACTION_ABORTABLE (KIP-890), v6 knows
 * share-group keys (KIP-932). On one node the broker coordinates every group (key type
 * 0) and every transactional id (key type 1, txn/coordinator.ts); other key types (share groups)
 * get INVALID_REQUEST, as Kafka answers a key type it does not know. Advertising v0 matters beyond groups: librdkafka 2.0.2 enables LZ4
 * only when FindCoordinator v0 is advertised (librdkafka 2.0.2 `rd_kafka_feature_map`).
 */
import { FindCoordinator, type Coordinator, type FindCoordinatorRequest, type FindCoordinatorResponse } from '../../protocol/schemas/find-coordinator.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { groupError, transactionalIdError } from '../auth/checks.js';

const GROUP = 0;
const TRANSACTION = 1;

export const findCoordinatorHandler: ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> = {
  api: FindCoordinator,
  minVersion: 0,
  maxVersion: 6,
  handle(request, ctx) {
    const broker = ctx.broker;
    // v0 has no key type: it asks for a group's coordinator (the field's default, 0)
    const keyType = request.keyType ?? GROUP;
    // DESCRIBE on the group or transactional id (KafkaApis.getCoordinator)
    const denied = (key: string): number => (keyType === GROUP ? groupError(ctx, AclOperation.DESCRIBE, key) : keyType === TRANSACTION ? transactionalIdError(ctx, AclOperation.DESCRIBE, key) : ErrorCode.NONE);
    const answer = (key: string): Coordinator =>
      denied(key) ? { key, nodeId: -1, host: '', port: -1, errorCode: denied(key), errorMessage: null }
      : keyType === GROUP || keyType === TRANSACTION
        ? { key, nodeId: broker.config.nodeId, ...broker.endpointFor(ctx.connection), errorCode: ErrorCode.NONE, errorMessage: null }
        : { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown coordinator type: ${keyType}` };
    if (ctx.apiVersion >= 4) return { throttleTimeMs: 0, coordinators: (request.coordinatorKeys ?? []).map(answer) };
    const a = answer(request.key ?? '');
    return { throttleTimeMs: 0, errorCode: a.errorCode, errorMessage: a.errorMessage, nodeId: a.nodeId, host: a.host, port: a.port };
  },
};
