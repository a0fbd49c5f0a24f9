/**
 * DeleteTopics (20); v6 names topics by name or id. The partitions' directories are renamed to
 * `-delete` and removed, as Kafka's LogManager does.
 */
import { DeleteTopics, type DeletableTopicResult, type DeleteTopicsRequest, type DeleteTopicsResponse } from '../../protocol/schemas/delete-topics.js';
import type { ApiHandler } from '../handler.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { deleteTopicError } from '../auth/checks.js';

const ZERO_ID = Buffer.alloc(16);

export const deleteTopicsHandler: ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> = {
  api: DeleteTopics,
  minVersion: 0,
  maxVersion: 6,
  handle(request, ctx) {
    // the request's metadata records share one fsync of the metadata log
    return ctx.broker.topics.batch(() => {
      const broker = ctx.broker;
      const wanted: { name: string | null; topicId: Buffer }[] =
        ctx.apiVersion >= 6
          ? (request.topics ?? []).map((t) => ({ name: t.name, topicId: t.topicId }))
          : (request.topicNames ?? []).map((name) => ({ name, topicId: ZERO_ID }));
      const responses: DeletableTopicResult[] = [];
      for (const w of wanted) {
        const byId = w.name === null;
        const t = w.name === null ? broker.topics.byId(w.topicId) : broker.topics.get(w.name);
        const out: DeletableTopicResult = { name: t?.name ?? w.name, topicId: t?.topicIdBytes ?? w.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
        responses.push(out);
        out.errorCode = deleteTopicError(ctx, t?.name ?? w.name, t !== undefined);
        if (out.errorCode !== ErrorCode.NONE) {
          if (byId) out.name = null; // topic ids are not secret, names are
          continue;
        }
        if (t === undefined) {
          out.errorCode = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          continue;
        }
        try {
          broker.topics.delete(t.name, broker.logs);
        } catch (e) {
          // an offline log directory (KAFKA_STORAGE_ERROR): the answer says so
          out.errorCode = errorCodeOf(e);
          out.errorMessage = errorMessageOf(e);
          continue;
        }
        broker.appends.notify();
        broker.logger.info(`deleted topic ${t.name}`);
      }
      return { throttleTimeMs: 0, responses };
    });
  },
};
