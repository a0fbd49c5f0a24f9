/**
 * A request-level failure the broker answers with a Kafka error code (Kafka `ApiException`
 * subclasses). Storage and codec errors already carry their code (`KafkaliteError.kafkaErrorCode`);
 * anything else is UNKNOWN_SERVER_ERROR, as Kafka maps unexpected exceptions (`Errors.forException`).
 */
import { KafkaliteError } from '../errors.js';
import { ErrorCode, errorInfo, type ErrorName } from '../protocol/error-codes.js';
import { fitStringField } from '../protocol/string-field.js';


export class ApiError extends Error {
  readonly errorCode: number;

  /**
   * `error` is a Kafka error name or code from the table (src/protocol/error-codes.ts); without
   * `message`, the table's default message for it.
   */
  constructor(error: ErrorName | number, message?: string) {
    const errorCode = typeof error === 'number' ? error : ErrorCode[error];
    const info = errorInfo(errorCode);
    if (info === undefined) throw new RangeError(`${errorCode} is not a Kafka error code`);
    super(message ?? info.message);
    this.name = 'ApiError';
    this.errorCode = errorCode;
  }
}

export function errorCodeOf(e: unknown): number {
  if (e instanceof ApiError) return e.errorCode;
  if (e instanceof KafkaliteError) return e.kafkaErrorCode;
  return ErrorCode.UNKNOWN_SERVER_ERROR;
}

/** The message for a response's error_message: cut to fit a string field (it may quote client input). */
export function errorMessageOf(e: unknown): string {
  return fitStringField(e instanceof Error ? e.message : String(e));
}
