/**
 * WriteTxnMarkers (27): markers appended as a transaction coordinator (or an admin's
 * `abortTransaction`, KIP-664) asks (KafkaApis `handleWriteTxnMarkersRequest`). Kafka 4 serves v1
 * only. A partition not hosted here gets UNKNOWN_TOPIC_OR_PARTITION; `__consumer_offsets`
 * partitions go to the group coordinator, whose coordinator errors are sent as
 * NOT_LEADER_OR_FOLLOWER. Results are merged by producer id, as Kafka keys them.
 */
import { WriteTxnMarkers, type WritableTxnMarkerResult, type WriteTxnMarkersRequest, type WriteTxnMarkersResponse } from '../../protocol/schemas/write-txn-markers.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { OFFSETS_TOPIC } from '../../internal-topics/offsets.js';
import { errorCodeOf } from '../api-error.js';
import { writeMarker } from '../txn/marker-writer.js';

const GROUP_COORDINATOR_ERRORS = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);

export const writeTxnMarkersHandler: ApiHandler<WriteTxnMarkersRequest, WriteTxnMarkersResponse> = {
  api: WriteTxnMarkers,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const broker = ctx.broker;
    const byProducer = new Map<bigint, WritableTxnMarkerResult>();
    for (const m of request.markers) {
      let result = byProducer.get(m.producerId);
      if (result === undefined) byProducer.set(m.producerId, (result = { producerId: m.producerId, topics: [] }));
      for (const t of m.topics) {
        const partitions = t.partitionIndexes.map((partitionIndex) => {
          let errorCode: number = ErrorCode.NONE;
          try {
            writeMarker(broker, t.name, partitionIndex, { producerId: m.producerId, producerEpoch: m.producerEpoch, commit: m.transactionResult, coordinatorEpoch: m.coordinatorEpoch });
          } catch (e) {
            errorCode = errorCodeOf(e);
            if (t.name === OFFSETS_TOPIC && GROUP_COORDINATOR_ERRORS.has(errorCode)) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
          }
          return { partitionIndex, errorCode };
        });
        result.topics.push({ name: t.name, partitions });
      }
    }
    return { markers: [...byProducer.values()] };
  },
};
