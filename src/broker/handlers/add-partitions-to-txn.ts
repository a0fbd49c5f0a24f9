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
import { partitionExists } from '../group/topic-partitions.js';
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

function addOne(broker: Broker, t: TxnAdd, version: number, ctx: RequestContext): AddPartitionsToTxnTopicResult[] {
  const exists = partitionExists(broker.topics);
  const pre = new Map<string, number>();
  // v0-3 (a producer's request, KafkaApis): WRITE on the transactional id, then WRITE on each topic
  const txnDenied = version < 4 ? transactionalIdError(ctx, AclOperation.WRITE, t.transactionalId) : ErrorCode.NONE;
  for (const topic of t.topics) {
    for (const p of topic.partitions) {
      if (txnDenied) pre.set(`${topic.name}:${p}`, txnDenied);
      else if (version < 4 && !authorized(ctx, AclOperation.WRITE, ResourceType.TOPIC, topic.name)) pre.set(`${topic.name}:${p}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (version < 4 && (topic.name === OFFSETS_TOPIC || topic.name === TRANSACTION_STATE_TOPIC)) pre.set(`${topic.name}:${p}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (!exists(topic.name, p)) pre.set(`${topic.name}:${p}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
  }
  const each = (code: (topic: string, partition: number, i: number) => number): AddPartitionsToTxnTopicResult[] => {
    let i = 0;
    return t.topics.map((topic) => ({
      name: topic.name,
      resultsByPartition: topic.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(topic.name, p, i++) })),
    }));
  };
  if (pre.size > 0) return each((topic, p) => pre.get(`${topic}:${p}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  const partitions = t.topics.flatMap((topic) => topic.partitions.map((partition) => ({ topic: topic.name, partition })));
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
