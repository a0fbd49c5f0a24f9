/**
 * The answer to a request in a version the broker knows but does not serve (a Kafka 3.x-only
 * version under `kafkalite.protocol.compat=4.0`): UNSUPPORTED_VERSION, in the fields Kafka's
 * `AbstractRequest.getErrorResponse` fills for the API, which is how `KafkaApis` answers a
 * request it refuses by version (as it does OffsetCommit v0 in KRaft mode). Kafka's own socket
 * server closes the connection on a version outside its range (`SocketServer.parseRequestHeader`),
 * which an old client sees only as EOF; an answer names the reason, and a version the codec does
 * not know at all still closes the connection.
 * - Produce, Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch v0-1, CreateTopics, DeleteTopics,
 *   DescribeConfigs, WriteTxnMarkers: the error in every topic / partition / resource the request
 *   named, as their `getErrorResponse` does;
 * - any other API whose response has a top-level error_code in that version: that field;
 * - otherwise (and for a Produce with acks=0, which is never answered) undefined: the caller
 *   closes the connection.
 */
import { decodeMessage } from '../protocol/codec.js';
import { ApiKey } from '../protocol/api-keys.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { inVersions, isValidVersion, type MessageSchema } from '../protocol/schema.js';
import type { ProduceRequest, ProduceResponse } from '../protocol/schemas/produce.js';
import type { FetchRequest, FetchResponse } from '../protocol/schemas/fetch.js';
import type { ListOffsetsRequest, ListOffsetsResponse } from '../protocol/schemas/list-offsets.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../protocol/schemas/offset-commit.js';
import type { OffsetFetchRequest, OffsetFetchResponse } from '../protocol/schemas/offset-fetch.js';
import type { CreateTopicsRequest, CreateTopicsResponse } from '../protocol/schemas/create-topics.js';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from '../protocol/schemas/delete-topics.js';
import type { DescribeConfigsRequest, DescribeConfigsResponse } from '../protocol/schemas/describe-configs.js';
import type { MetadataRequest, MetadataResponse } from '../protocol/schemas/metadata.js';
import type { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../protocol/schemas/write-txn-markers.js';
import type { AnyApiHandler } from './handler.js';

/**
 * The response body to send, or undefined when this version has no error to carry it (close).
 * `E` is the error (UNSUPPORTED_VERSION; ILLEGAL_SASL_STATE for a request in the middle of a SASL
 * exchange, which SaslServerAuthenticator answers with the same `getErrorResponse`).
 */
export function unsupportedVersionResponse(handler: AnyApiHandler, version: number, frame: Buffer, bodyOffset: number, E: number = ErrorCode.UNSUPPORTED_VERSION): unknown {
  const { request, response } = handler.api;
  if (!isValidVersion(request, version) || !isValidVersion(response, version)) return undefined;
  const decode = <T>(): T => decodeMessage<T>(request, version, frame, bodyOffset).value;
  switch (request.apiKey) {
    case ApiKey.Produce: {
      const r = decode<ProduceRequest>();
      if (r.acks === 0) return undefined; // acks=0 gets no answer: Kafka closes the connection on an error
      const out: ProduceResponse = {
        responses: r.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode: E, baseOffset: -1n })) })),
      };
      return out;
    }
    case ApiKey.Fetch: {
      const r = decode<FetchRequest>();
      const out: FetchResponse = {
        errorCode: E,
        responses: r.topics.map((t) => ({
          topic: t.topic ?? '',
          topicId: t.topicId ?? Buffer.alloc(16),
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: E, highWatermark: -1n, records: Buffer.alloc(0) })),
        })),
      };
      return out;
    }
    case ApiKey.ListOffsets: {
      const r = decode<ListOffsetsRequest>();
      const out: ListOffsetsResponse = {
        topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: E, oldStyleOffsets: [] })) })),
      };
      return out;
    }
    case ApiKey.OffsetCommit: {
      const r = decode<OffsetCommitRequest>();
      const out: OffsetCommitResponse = {
        topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: E })) })),
      };
      return out;
    }
    case ApiKey.OffsetFetch: {
      if (version >= 2) break; // v2+ carry a top-level error
      const r = decode<OffsetFetchRequest>();
      const out: OffsetFetchResponse = {
        topics: (r.topics ?? []).map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, metadata: '', errorCode: E })),
        })),
      };
      return out;
    }
    case ApiKey.CreateTopics: {
      const r = decode<CreateTopicsRequest>();
      const out: CreateTopicsResponse = { topics: r.topics.map((t) => ({ name: t.name, errorCode: E })) };
      return out;
    }
    case ApiKey.DeleteTopics: {
      const r = decode<DeleteTopicsRequest>();
      const out: DeleteTopicsResponse = { responses: (r.topicNames ?? []).map((name) => ({ name, errorCode: E })) };
      return out;
    }
    case ApiKey.DescribeConfigs: {
      const r = decode<DescribeConfigsRequest>();
      const out: DescribeConfigsResponse = {
        throttleTimeMs: 0,
        results: r.resources.map((res) => ({ errorCode: E, errorMessage: null, resourceType: res.resourceType, resourceName: res.resourceName, configs: [] })),
      };
      return out;
    }
    case ApiKey.Metadata: {
      // `MetadataRequest.getErrorResponse`: the error in every named topic (a null name as '')
      const r = decode<MetadataRequest>();
      const out: MetadataResponse = {
        brokers: [],
        topics: (r.topics ?? []).map((t) => ({ errorCode: E, name: t.name ?? '', topicId: t.topicId ?? Buffer.alloc(16), isInternal: false, partitions: [] })),
      };
      return out;
    }
    case ApiKey.WriteTxnMarkers: {
      const r = decode<WriteTxnMarkersRequest>();
      const out: WriteTxnMarkersResponse = {
        markers: r.markers.map((m) => ({
          producerId: m.producerId,
          topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode: E })) })),
        })),
      };
      return out;
    }
  }
  return hasTopLevelErrorCode(response, version) ? { errorCode: E } : undefined;
}

function hasTopLevelErrorCode(schema: MessageSchema, version: number): boolean {
  return schema.fields.some((f) => f.name === 'errorCode' && f.type === 'int16' && inVersions(f.versions, version) && f.tag === undefined);
}
