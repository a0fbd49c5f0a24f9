/**
 * Fetch (1); v13+ addresses topics by id (an id not known answers UNKNOWN_TOPIC_ID in each of its
 * partitions, as Kafka's `FetchRequest.fetchData` resolves them), up to Kafka 4.0's v17. v0-3 read magic 0/1 and get
 * the records down-converted (fetch-down-conversion.ts), as Kafka 3.x did; v0-2 have no max_bytes,
 * and their read is bounded by the partition limit alone (`hardMaxBytesLimit`: no KIP-74 first
 * message beyond it, `KafkaApis.handleFetchRequest`).
 *
 * Kafka's read rules (`ReplicaManager.readFromLog`, `LogSegment.read`, KIP-74):
 * - the batch holding fetch_offset is returned whole, even when fetch_offset is mid-batch;
 * - the first batch of the first non-empty partition is returned whole even when it exceeds
 *   max_bytes / partition_max_bytes (KIP-74); after that the response budget applies, and a
 *   partition's records may end with a partial batch that clients drop, but v3+ never answers a
 *   partition with a partial batch alone (it answers none);
 * - read_committed stops at the last stable offset and lists the aborted transactions in range;
 * - records are never null (an empty partition carries zero bytes: librdkafka rejects -1).
 * Long poll: until min_bytes are available or max_wait_ms passes, woken by appends (DelayedFetch);
 * an error reading a partition (offset out of range, a fenced or unknown current leader epoch,
 * v9+) answers at once, as does a request with no partition to read; an unknown or unauthorized
 * partition does not (`ReplicaManager.fetchMessages`). Fetch sessions (KIP-227) are answered
 * sessionless (id 0).
 * Records of 16 KiB and more are read into memory from the broker's fetch read pool, given back
 * once the answer has been written to the socket (buffer-pool.ts: fresh memory costs page faults).
 */
import { OffsetOutOfRangeError } from '../../errors.js';
import {
  Fetch,
  type FetchableTopicResponse,
  type FetchRequest,
  type FetchResponse,
  type FetchTopic,
  type PartitionData,
} from '../../protocol/schemas/fetch.js';
import { ApiError, errorCodeOf } from '../api-error.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { currentLeaderEpochError, NO_EPOCH } from './leader-epoch.js';
import type { Broker } from '../broker.js';
import type { ApiHandler } from '../handler.js';
import { partitionLog } from './partitions.js';
import { downConvertFetched, fetchMagic } from '../fetch-down-conversion.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized, requireTopic } from '../auth/checks.js';
import type { RequestContext } from '../handler.js';

const EMPTY = Buffer.alloc(0);
const ZERO_ID = Buffer.alloc(16);
const INT32_MAX = 2147483647;
/** Reads smaller than this take Node's own allocation (its 8 KiB slab below 4 KiB). */
const POOLED_READ_MIN = 16 * 1024;

interface FetchPlan {
  /** The request's version: below 10 a zstd topic is not served (see readAll). */
  version: number;
  isolation: 'read_uncommitted' | 'read_committed';
  maxBytes: number;
  topics: FetchTopic[];
  /** The request's context, for the READ check on each topic. */
  ctx: RequestContext;
  /**
   * A replica's fetch (replica id >= 0): whether the principal has CLUSTER_ACTION on the cluster,
   * which stands in for READ on every topic (`KafkaApis.handleFetchRequest`: without it every
   * partition answers TOPIC_AUTHORIZATION_FAILED, unknown topic ids included). Undefined for a
   * consumer, which needs READ on each topic.
   */
  replicaAuthorized: boolean | undefined;
}

/**
 * Every partition of the plan read; buffers taken from the fetch read pool are added to `taken`.
 * `anyError`: a read failed (Kafka's errorReadingData); `interesting`: the partitions read at all.
 */
function readAll(broker: Broker, plan: FetchPlan, taken: Buffer[]): { responses: FetchableTopicResponse[]; bytes: number; anyError: boolean; interesting: number } {
  const pool = broker.fetchReadPool;
  const into = (n: number): Buffer => {
    if (n < POOLED_READ_MIN) return Buffer.allocUnsafe(n);
    const b = pool.take(n);
    taken.push(b);
    return b;
  };
  let remaining = plan.maxBytes;
  // KIP-74 (v3+): the first batch may exceed the limits; v0-2 keep the hard limit
  let minOneMessage = plan.version >= 3;
  const magic = fetchMagic(plan.version);
  let bytes = 0;
  let anyError = false;
  let interesting = 0;
  const responses: FetchableTopicResponse[] = [];
  for (const topic of plan.topics) {
    // v12 and below name topics, v13+ give their ids
    const byId = plan.version >= 13;
    const name = byId ? (topic.topicId !== undefined ? broker.topics.byId(topic.topicId)?.name : undefined) : (topic.topic ?? '');
    const partitions: PartitionData[] = [];
    for (const p of topic.partitions) {
      const out: PartitionData = {
        partitionIndex: p.partition,
        errorCode: ErrorCode.NONE,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: EMPTY,
      };
      partitions.push(out);
      // KafkaApis.handleFetchRequest: an unauthorized, unknown or unknown-id partition is answered
      // with its error but is not read ("erroneous"), and does not end a long poll
      if (plan.replicaAuthorized === false || name === undefined) {
        out.errorCode = plan.replicaAuthorized === false ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.UNKNOWN_TOPIC_ID;
        continue;
      }
      let log: PartitionLog;
      try {
        if (plan.replicaAuthorized === undefined) requireTopic(plan.ctx, AclOperation.READ, name);
        log = partitionLog(broker, name, p.partition);
      } catch (e) {
        out.errorCode = errorCodeOf(e);
        continue;
      }
      interesting++;
      try {
        // v9+: Partition.localLogWithEpochOrThrow; an error from the read answers at once
        const epochError = currentLeaderEpochError(p.currentLeaderEpoch ?? NO_EPOCH);
        if (epochError !== undefined) throw new ApiError(epochError);
        out.highWatermark = log.highWatermark;
        out.lastStableOffset = log.lastStableOffset;
        out.logStartOffset = log.logStartOffset;
        const limit = Math.min(p.partitionMaxBytes, remaining);
        if (limit <= 0 && !minOneMessage) continue;
        const r = log.read(p.fetchOffset, { maxBytes: Math.max(0, limit), minOneMessage, isolation: plan.isolation, into });
        out.highWatermark = r.highWatermark;
        out.lastStableOffset = r.lastStableOffset;
        out.logStartOffset = r.logStartOffset;
        // v3+ (not `hardMaxBytesLimit`): a read holding only part of its first batch answers no
        // records, as Kafka's `ReplicaManager.readFromLog` (checkFetchDataInfo) replaces it with
        // MemoryRecords.EMPTY; the consumer fetches that batch whole next time, where the partial
        // bytes alone make kafka-python raise RecordTooLargeError and the Java consumer a KafkaException
        const records = plan.version >= 3 && r.firstEntryIncomplete ? EMPTY : r.records;
        out.records = magic < 2 ? downConvertFetched(records, magic === 0 ? 0 : 1, p.fetchOffset) : records;
        if (r.abortedTransactions !== undefined) {
          out.abortedTransactions = r.abortedTransactions.map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset }));
        }
        if (records.length > 0) {
          minOneMessage = false;
          remaining -= records.length;
          bytes += records.length;
        }
      } catch (e) {
        out.errorCode = errorCodeOf(e);
        anyError = true;
        if (!(e instanceof OffsetOutOfRangeError)) {
          broker.logger.debug(`Fetch ${name}-${p.partition}: ${(e as Error).message}`);
        }
      }
      // KafkaApis.handleFetchRequest (maybeConvertFetchedData): a topic configured
      // compression.type=zstd answers fetches below v10 (clients without zstd, KIP-110) with
      // UNSUPPORTED_COMPRESSION_TYPE in place of whatever was read (an error included), after the
      // read and its wait, as Kafka converts the finished read. Kafka decides on the topic's config,
      // not on the batches: zstd batches a producer sent to a compression.type=producer topic are
      // returned as they are (v4+ reads magic 2, so no down-conversion applies).
      if (plan.version < 10 && broker.topics.get(name)?.config.compressionType === 'zstd') {
        Object.assign(out, { errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, abortedTransactions: null, records: EMPTY });
      }
    }
    responses.push({ topic: name ?? '', topicId: topic.topicId ?? ZERO_ID, partitions });
  }
  return { responses, bytes, anyError, interesting };
}

export const fetchHandler: ApiHandler<FetchRequest, FetchResponse> = {
  api: Fetch,
  minVersion: 0,
  maxVersion: 17,
  async handle(request, ctx) {
    const broker = ctx.broker;
    const requestedMax = request.maxBytes ?? INT32_MAX;
    const plan: FetchPlan = {
      version: ctx.apiVersion,
      isolation: request.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted',
      // Kafka caps the answer at the broker's fetch.max.bytes (KafkaApis.handleFetchRequest), and
      // kafkalite at what is left of kafkalite.queued.max.response.bytes, which answers clients do not
      // read hold (queued-bytes.ts): past it an answer carries one batch (KIP-74's first message)
      maxBytes: Math.min(requestedMax > 0 ? requestedMax : INT32_MAX, broker.config.fetchMaxBytes, broker.queuedResponses.available),
      topics: request.topics,
      ctx,
      // the replica id is in the header field up to v14, in ReplicaState from v15 (KIP-903)
      replicaAuthorized: (ctx.apiVersion >= 15 ? (request.replicaState?.replicaId ?? -1) : (request.replicaId ?? -1)) >= 0 ? clusterAuthorized(ctx, AclOperation.CLUSTER_ACTION) : undefined,
    };
    const deadline = Date.now() + Math.max(0, request.maxWaitMs);
    const minBytes = Math.max(0, request.minBytes);
    const pool = broker.fetchReadPool;
    for (;;) {
      const taken: Buffer[] = [];
      const r = readAll(broker, plan, taken);
      const wait = deadline - Date.now();
      // ReplicaManager.fetchMessages answers at once when nothing is readable or a read failed
      if (r.anyError || r.interesting === 0 || r.bytes >= minBytes || wait <= 0 || broker.isClosing) {
        // the answer refers to these buffers until the socket has taken it
        if (taken.length > 0) ctx.afterAnswer(() => taken.forEach((b) => pool.give(b)));
        // over its consumer_byte_rate quota a client gets an empty answer with the throttle time (Kafka)
        const throttleTimeMs = broker.quotas.fetch.recordAndGetThrottleTimeMs(ctx.clientId, r.bytes, { unrecordIfThrottled: true });
        return { throttleTimeMs, errorCode: ErrorCode.NONE, sessionId: 0, responses: throttleTimeMs > 0 ? [] : r.responses };
      }
      // this read is dropped (the poll waits for more): its buffers are free at once
      taken.forEach((b) => pool.give(b));
      await broker.appends.waitForAppend(wait);
    }
  },
};
