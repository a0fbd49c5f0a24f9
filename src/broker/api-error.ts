/**
 * A request-level failure the broker answers with a Kafka error code (Kafka `ApiException`
 * subclasses). Storage and codec errors already carry their code (`KafkaliteError.kafkaErrorCode`);
 * anything else is UNKNOWN_SERVER_ERROR (-1), as Kafka maps unexpected exceptions.
 */
import { KafkaliteError } from '../errors.js';

/** Kafka error codes the broker layer raises itself (`Errors.java`). */
export const ApiErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  REQUEST_TIMED_OUT: 7,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  INVALID_REQUIRED_ACKS: 21,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_CONFIG: 40,
  INVALID_REQUEST: 42,
  POLICY_VIOLATION: 44,
  INVALID_TRANSACTION_TIMEOUT: 50,
  UNKNOWN_PRODUCER_ID: 59,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  TOPIC_DELETION_DISABLED: 73,
  UNKNOWN_TOPIC_ID: 100,
} as const;

export class ApiError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function errorCodeOf(e: unknown): number {
  if (e instanceof ApiError) return e.errorCode;
  if (e instanceof KafkaliteError) return e.kafkaErrorCode;
  return ApiErrorCode.UNKNOWN_SERVER_ERROR;
}

export function errorMessageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
