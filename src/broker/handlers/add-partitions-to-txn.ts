/**
 * AddPartitionsToTxn (24). v0-3: one transaction from its producer (the `V3AndBelow` fields); v4+:
 * the batched form brokers send, with VerifyOnly for KIP-890 verification (KafkaApis
 * `handleAddPartitionsToTxnRequest`). Per transaction: a partition that does not exist gets
 * UNKNOWN_TOPIC_OR_PARTITION (an internal topic, which clients may not write, TOPIC_AUTHORIZATION_FAILED)
 * and the others OPERATION_NOT_ATTEMPTED, with nothing written; otherwise the coordinator's one
 * answer goes to every partition, or per partition for VerifyOnly.
 */
import {
  AddPartitionsToTxn,
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnResponse,
  type AddPartitionsToTxnTopic,
  type AddPartitionsToTxnTopicResult,
} from '../../protocol/schemas/add-partitions-to-txn.js';
import type { ApiHandler } from '../handler.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { OFFSETS_TOPIC } from '../../internal-topics/offsets.js';
import { TRANSACTION_STATE_TOPIC } from '../../internal-topics/transaction-log.js';
import { fencedForVersion } from './txn-errors.js';
import { AclOperation, ResourceType } from '../auth/acl.js';
import { authorized, transactionalIdError } from '../auth/checks.js';
import type { RequestContext } from '../handler.js';

interface TxnAdd {
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  verifyOnly: boolean;
  topics: AddPartitionsToTxnTopic[];
}

/**
 * The checks before the coordinator, per partition in Kafka's order: the transactional id's ACL,
 * the topic's ACL, an internal topic, the partition's existence. The first three are the topic's,
 * so they are made once per topic; the answers are built once, as each transaction adds its
 * partitions once (librdkafka, the Java producer).
 */
function addOne(broker: Broker, t: TxnAdd, version: number, ctx: RequestContext): AddPartitionsToTxnTopicResult[] {
  // v0-3 (a producer's request, KafkaApis): WRITE on the transactional id, then WRITE on each topic
  const txnDenied = version < 4 ? transactionalIdError(ctx, AclOperation.WRITE, t.transactionalId) : ErrorCode.NONE;
  let pre: Map<string, number> | undefined;
  const partitions: { topic: string; partition: number }[] = [];
  for (const topic of t.topics) {
    const name = topic.name;
    let topicError: number = txnDenied;
    if (topicError === ErrorCode.NONE && version < 4) {
      if (!authorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, name)) topicError = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      else if (name === OFFSETS_TOPIC || name === TRANSACTION_STATE_TOPIC) topicError = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    }
    const info = topicError === ErrorCode.NONE ? broker.topics.get(name) : undefined;
    for (const p of topic.partitions) {
      const code = topicError !== ErrorCode.NONE ? topicError : info === undefined || p < 0 || p >= info.partitions ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE;
      if (code !== ErrorCode.NONE) (pre ??= new Map()).set(`${name}:${p}`, code);
      partitions.push({ topic: name, partition: p });
    }
  }
  const each = (code: (topic: string, partition: number, i: number) => number): AddPartitionsToTxnTopicResult[] => {
    let i = 0;
    return t.topics.map((topic) => ({
      name: topic.name,
      resultsByPartition: topic.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(topic.name, p, i++) })),
    }));
  };
  if (pre !== undefined) {
    const errors = pre;
    return each((topic, p) => errors.get(`${topic}:${p}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  }
  const coordinator = broker.transactions;
  if (t.verifyOnly) {
    const r = coordinator.verifyPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions);
    return each((_t, _p, i) => r.partitions?.[i] ?? r.errorCode);
  }
  const code = fencedForVersion(coordinator.addPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions), version, 2);
  return each(() => code);
}

export const addPartitionsToTxnHandler: ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = {
  api: AddPartitionsToTxn,
  minVersion: 0,
  maxVersion: 5,
  handle(request, ctx) {
    if (ctx.apiVersion < 4) {
      const results = addOne(
        ctx.broker,
        {
          transactionalId: request.v3AndBelowTransactionalId ?? '',
          producerId: request.v3AndBelowProducerId ?? -1n,
          producerEpoch: request.v3AndBelowProducerEpoch ?? -1,
          verifyOnly: false,
          topics: request.v3AndBelowTopics ?? [],
        },
        ctx.apiVersion,
        ctx,
      );
      return { throttleTimeMs: 0, resultsByTopicV3AndBelow: results };
    }
    const resultsByTransaction = (request.transactions ?? []).map((t) => ({ transactionalId: t.transactionalId, topicResults: addOne(ctx.broker, t, ctx.apiVersion, ctx) }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction };
  },
};
