/**
 * Kafka's rewriting of transaction errors for old request versions (KafkaApis): PRODUCER_FENCED
 * (90) arrived with InitProducerId v4 and AddPartitionsToTxn / AddOffsetsToTxn / EndTxn v2;
 * older clients get INVALID_PRODUCER_EPOCH, which they know.
 */
import { ErrorCode } from '../../protocol/error-codes.js';

export function fencedForVersion(code: number, version: number, firstVersionWithFenced: number): number {
  return code === ErrorCode.PRODUCER_FENCED && version < firstVersionWithFenced ? ErrorCode.INVALID_PRODUCER_EPOCH : code;
}
