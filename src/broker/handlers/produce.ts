/**
 * Produce (0), advertised from v0 (Kafka 4 advertises from 0 too, because librdkafka 2.0.2 enables
 * gzip/snappy/lz4 only when Produce v0 is advertised: `rd_kafka_feature_map`, KAFKA-18659).
 *
 * Unlike Kafka 4, which rejects v0-2, kafkalite serves them: their magic 0/1 message sets go through
 * the same validator as any append and are up-converted to the topic's format (Kafka 3.x
 * behaviour), so old clients keep working. v3+ must carry exactly one magic-2 batch per partition
 * (`ProduceRequest.validateRecords`: INVALID_RECORD otherwise). v10 adds the new leader to a
 * NOT_LEADER_OR_FOLLOWER answer (KIP-951), which a single node never gives; v11 answers a
 * transactional batch for a partition outside its transaction TRANSACTION_ABORTABLE instead of
 * INVALID_TXN_STATE (KIP-890, txn/verification.ts).
 *
 * acks: 0 (no response; on any error the connection is closed so the client notices, as
 * `KafkaApis.handleProduceRequest` does), 1 and -1 (the single node is the whole ISR, so both
 * answer after the append). Appends are written to the OS before the answer, so a killed broker
 * process loses nothing acknowledged.
 */
import { readInt16BE, readInt32BE } from '../../bytes/big-endian.js';
import {
  Produce,
  type PartitionProduceResponse,
  type ProduceRequest,
  type ProduceResponse,
  type TopicProduceResponse,
} from '../../protocol/schemas/produce.js';
import { errorCodeOf, errorMessageOf } from '../api-error.js';
import { NO_RESPONSE, type ApiHandler, type RequestContext } from '../handler.js';
import { partitionLog } from './partitions.js';
import { hasTransactionalRecords, refuseTransactionalWithoutId } from './transactional-records.js';
import { producedBytes } from '../quotas/quota-manager.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { INTERNAL_TOPICS } from '../../storage/topic.js';
import { NO_TIMESTAMP } from '../../record/constants.js';
import { verifyTransactionalProduce } from '../txn/verification.js';
import { AclOperation } from '../auth/acl.js';
import { requireTopic, transactionalIdError } from '../auth/checks.js';
import type { HeldAppends } from '../../storage/held-appends.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { recordErrorsOf } from '../../storage/log-validator.js';

/** Bytes before a v2 batch's magic: baseOffset(8) batchLength(4) partitionLeaderEpoch(4). */
const MAGIC_OFFSET = 16;
/** A v2 batch's attributes: after magic(1) and crc(4); the codec is its low 3 bits (4 = zstd). */
const ATTRIBUTES_OFFSET = 21;
const ZSTD_CODEC = 4;
const LOG_OVERHEAD = 12;
/** AdminUtils.ADMIN_CLIENT_ID: the one client id Kafka lets append to internal topics (`KafkaApis.handleProduceRequest`). */
const ADMIN_CLIENT_ID = '__admin_client';

/**
 * `ProduceRequest.validateRecords` for v3+, in Kafka's order: a batch, of magic 2, not zstd below
 * v7 (zstd needs Produce v7, KIP-110), and only one.
 */
function checkV3Records(version: number, records: Buffer | null): { errorCode: number; message: string } | undefined {
  const invalid = (message: string) => ({ errorCode: ErrorCode.INVALID_RECORD, message });
  if (records === null || records.length < LOG_OVERHEAD + 5) return invalid('Produce requests with version 3 or above must have exactly one record batch');
  if (records[MAGIC_OFFSET] !== 2) return invalid('Produce requests with version 3 or above must use record batches of magic 2');
  if (version < 7 && records.length >= ATTRIBUTES_OFFSET + 2 && (readInt16BE(records, ATTRIBUTES_OFFSET) & 0x07) === ZSTD_CODEC) {
    return { errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, message: `Produce requests with version ${version} are not allowed to use ZStandard compression` };
  }
  if (LOG_OVERHEAD + readInt32BE(records, 8) !== records.length) {
    return invalid('Produce requests with version 3 or above must have exactly one record batch per partition');
  }
  return undefined;
}

/**
 * refuseTransactionalWithoutId with its authorization callback, made here: a closure over `ctx` in
 * `handle` made V8 allocate a context for `ctx` at every call, used or not.
 */
function refuseWithoutId(request: ProduceRequest, ctx: RequestContext): TopicProduceResponse[] | undefined {
  return refuseTransactionalWithoutId(request, (id) => transactionalIdError(ctx, AclOperation.WRITE, id) === ErrorCode.NONE);
}

/**
 * The recordErrors of every partition answered without any: one shared array, frozen (the codec
 * only reads it; a push would throw instead of reaching other answers), not an array per answer.
 */
const NO_RECORD_ERRORS: never[] = [];
Object.freeze(NO_RECORD_ERRORS);
/**
 * The append errors Kafka answers without the log start offset (ReplicaManager.appendToLocalLog's
 * first catch: unknown partition, not leader, record or batch too large, corrupt, storage).
 */
const NO_LOG_APPEND_INFO_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.KAFKA_STORAGE_ERROR,
]);

/** A partition answer's -1 offsets before its append (Kafka's INVALID_OFFSET): a constant, since `-1n` is a BigInt negation at every run. */
const INVALID_OFFSET = -1n;

/**
 * The append options of a broker's Produce appends: the same object each time (an object per append
 * was garbage), one per broker in a WeakMap (a module-level one held the last broker's HeldAppends,
 * and through it the whole broker, after its close(): test/broker/close-releases.test.ts).
 */
type AppendOptions = { readonly mutateInput: true; readonly heldAppends: HeldAppends };
const appendOptionsByHeldAppends = new WeakMap<HeldAppends, AppendOptions>();
function appendOptionsOf(heldAppends: HeldAppends): AppendOptions {
  let options = appendOptionsByHeldAppends.get(heldAppends);
  if (options === undefined) appendOptionsByHeldAppends.set(heldAppends, (options = { mutateInput: true, heldAppends }));
  return options;
}

export const produceHandler: ApiHandler<ProduceRequest, ProduceResponse> = {
  api: Produce,
  minVersion: 0,
  maxVersion: 11,
  handle(request, ctx) {
    const broker = ctx.broker;
    // once written to the log the request's bytes are referenced by nothing: its frame's memory can
    // take a later large frame (other APIs may keep views of their request, e.g. JoinGroup's metadata)
    ctx.afterAnswer(ctx.recycleRequestFrame);
    const acks = request.acks;
    // before any append, as Kafka does: transactional records need a transactional id (issue 17)
    // (the authorization closure only for a request the check refuses: most have no transactional
    // records, and a transactional producer's own Produce, allowed to write its id, makes none)
    const txnId = request.transactionalId;
    const refused =
      hasTransactionalRecords(request) && !(txnId !== null && txnId !== undefined && transactionalIdError(ctx, AclOperation.WRITE, txnId) === ErrorCode.NONE)
        ? refuseWithoutId(request, ctx)
        : undefined;
    if (refused !== undefined) {
      if (acks !== 0) return { responses: refused, throttleTimeMs: 0 };
      ctx.connection.closeAfterResponse = true;
      return NO_RESPONSE;
    }
    let anyError = false;
    let appended = false;
    // arrays of their final length: a `[]` grown by push reserves 17 slots, for one partition most often
    const responses: TopicProduceResponse[] = new Array<TopicProduceResponse>(request.topicData.length);
    for (let t = 0; t < request.topicData.length; t++) {
      const topic = request.topicData[t]!;
      const partitionResponses: PartitionProduceResponse[] = new Array<PartitionProduceResponse>(topic.partitionData.length);
      for (let i = 0; i < topic.partitionData.length; i++) {
        const p = topic.partitionData[i]!;
        const out: PartitionProduceResponse = { index: p.index, errorCode: ErrorCode.NONE, baseOffset: INVALID_OFFSET, logAppendTimeMs: NO_TIMESTAMP, logStartOffset: INVALID_OFFSET, recordErrors: NO_RECORD_ERRORS, errorMessage: null };
        partitionResponses[i] = out;
        let appending: PartitionLog | undefined;
        try {
          // authorization before existence: a denied principal learns nothing of the topic (KAFKA-5547)
          requireTopic(ctx, AclOperation.WRITE, topic.name);
          const log = partitionLog(broker, topic.name, p.index);
          if (ctx.apiVersion >= 3) {
            const invalid = checkV3Records(ctx.apiVersion, p.records);
            if (invalid !== undefined) {
              out.errorCode = invalid.errorCode;
              out.errorMessage = invalid.message;
              continue;
            }
          }
          // ReplicaManager.appendRecords checks the acks after KafkaApis' authorization, existence
          // and record checks
          if (acks !== 0 && acks !== 1 && acks !== -1) {
            out.errorCode = ErrorCode.INVALID_REQUIRED_ACKS;
            continue;
          }
          // ReplicaManager.appendToLocalLog: clients never append to the coordinators' topics (their
          // records are the coordinators' state); Kafka's response carries no message for it
          if (INTERNAL_TOPICS.has(topic.name) && ctx.clientId !== ADMIN_CLIENT_ID) {
            out.errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
            continue;
          }
          const unverified = verifyTransactionalProduce(broker.transactions, request.transactionalId ?? null, topic.name, p.index, p.records, log, ctx.apiVersion > 10);
          if (unverified !== ErrorCode.NONE) {
            out.errorCode = unverified;
            out.errorMessage = `Transactional records for ${topic.name}-${p.index} are not part of an ongoing transaction of ${request.transactionalId}`;
            continue;
          }
          // the request frame is the broker's own: validation may rewrite offsets and epoch in place, as
          // Kafka does, and the write may wait for the answer (the connection keeps the frame until then)
          appending = log;
          const r = log.append(p.records ?? Buffer.alloc(0), appendOptionsOf(broker.heldAppends));
          appended = true;
          out.baseOffset = r.firstOffset;
          out.logAppendTimeMs = r.logAppendTime;
          out.logStartOffset = r.logStartOffset;
        } catch (e) {
          out.errorCode = errorCodeOf(e);
          out.errorMessage = errorMessageOf(e);
          // KIP-467: the records validation rejected, each with its own message
          const recordErrors = recordErrorsOf(e);
          if (recordErrors !== undefined) out.recordErrors = recordErrors.map((r) => ({ batchIndex: r.batchIndex, batchIndexErrorMessage: r.message }));
          // ReplicaManager.appendToLocalLog (processFailedRecord): an append the log refused answers
          // with the log start offset, except for the errors it answers as UNKNOWN_LOG_APPEND_INFO
          if (appending !== undefined && !NO_LOG_APPEND_INFO_ERRORS.has(out.errorCode)) out.logStartOffset = appending.logStartOffset;
          broker.logger.warnThrottled(`produce:${out.errorCode}`, `Produce to ${topic.name}-${p.index} from ${ctx.remote} failed (error ${out.errorCode}): ${out.errorMessage}`);
        } finally {
          if (out.errorCode !== ErrorCode.NONE) anyError = true;
        }
      }
      responses[t] = { name: topic.name, partitionResponses };
    }
    if (appended) broker.appends.notify();
    const throttleTimeMs = broker.quotas.produce.recordAndGetThrottleTimeMs(ctx.clientId, producedBytes(request));
    if (acks === 0) {
      if (anyError) ctx.connection.closeAfterResponse = true;
      return NO_RESPONSE;
    }
    return { responses, throttleTimeMs };
  },
};
