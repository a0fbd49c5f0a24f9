/**
 * DeleteTopics (20), v1-6 (v6 names topics by name or id). The partitions' directories are renamed
 * to `-delete` and removed, as Kafka's LogManager does.
 */
import { ApiErrorCode } from '../api-error.js';
import type { ApiHandler, Message } from '../handler.js';
import { apiSchemas } from './api.js';

const ZERO_ID = Buffer.alloc(16);

export const deleteTopicsHandler: ApiHandler = {
  api: apiSchemas(20),
  minVersion: 1,
  maxVersion: 6,
  handle(request, ctx) {
    const broker = ctx.broker;
    const wanted: { name: string | null; topicId: Buffer }[] =
      ctx.apiVersion >= 6 ? (request.topics as Message[]).map((t) => ({ name: t.name, topicId: t.topicId })) : (request.topicNames as string[]).map((name) => ({ name, topicId: ZERO_ID }));
    const responses: Message[] = [];
    for (const w of wanted) {
      const byId = w.name === null;
      const t = byId ? broker.topics.byId(w.topicId) : broker.topics.get(w.name!);
      const out: Message = { name: t?.name ?? w.name, topicId: t?.topicIdBytes ?? w.topicId, errorCode: ApiErrorCode.NONE, errorMessage: null };
      responses.push(out);
      if (t === undefined) {
        out.errorCode = byId ? ApiErrorCode.UNKNOWN_TOPIC_ID : ApiErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        continue;
      }
      broker.topics.delete(t.name, broker.logs);
      broker.appends.notify();
      broker.logger.info(`deleted topic ${t.name}`);
    }
    return { throttleTimeMs: 0, responses };
  },
};
