/**
 * One error hierarchy for everything kafkalite rejects.
 *
 * Every error carries a machine-readable `code` and the Kafka protocol error code it maps to
 * (`kafkaErrorCode`, taken by Kafka name from the one error table, src/protocol/error-codes.ts), so
 * the broker can answer a client with the same code Apache Kafka would. Decoding errors also carry
 * `position`: the byte offset in the caller's buffer (or file) where decoding failed.
 */
import { ErrorCode as Kafka } from './protocol/error-codes.js';

/**
 * kafkalite's machine-readable error codes (public API) and the Kafka protocol error code each maps
 * to. Where kafkalite's name differs from Kafka's, the comment gives the reason.
 */
export const ErrorCodes = {
  /** A read or truncation outside [logStartOffset, logEndOffset]. */
  OFFSET_OUT_OF_RANGE: Kafka.OFFSET_OUT_OF_RANGE,
  /** Kafka's CORRUPT_MESSAGE: a CRC mismatch, a size below the minimum overhead, an unknown magic. */
  CORRUPT_RECORD: Kafka.CORRUPT_MESSAGE,
  /** Kafka's MESSAGE_TOO_LARGE: a batch or a decompressed record set above the configured limit. */
  RECORD_TOO_LARGE: Kafka.MESSAGE_TOO_LARGE,
  /** Kafka's INVALID_TOPIC_EXCEPTION: a topic name outside Kafka's rules (could escape the data dir). */
  INVALID_TOPIC: Kafka.INVALID_TOPIC_EXCEPTION,
  /** One append larger than a whole segment. */
  RECORD_LIST_TOO_LARGE: Kafka.RECORD_LIST_TOO_LARGE,
  /** A record timestamp outside the topic's allowed window. */
  INVALID_TIMESTAMP: Kafka.INVALID_TIMESTAMP,
  /** A topic or broker config value Kafka would refuse. */
  INVALID_CONFIG: Kafka.INVALID_CONFIG,
  /** A producer's sequence does not follow its last one. */
  OUT_OF_ORDER_SEQUENCE_NUMBER: Kafka.OUT_OF_ORDER_SEQUENCE_NUMBER,
  /** A producer epoch older than the one the log knows (fenced). */
  INVALID_PRODUCER_EPOCH: Kafka.INVALID_PRODUCER_EPOCH,
  /** E.g. a non-transactional batch inside an open transaction. */
  INVALID_TXN_STATE: Kafka.INVALID_TXN_STATE,
  /** A marker from an older coordinator epoch. */
  TRANSACTION_COORDINATOR_FENCED: Kafka.TRANSACTION_COORDINATOR_FENCED,
  /** Kafka's KAFKA_STORAGE_ERROR: a corrupt index or checkpoint, or an I/O failure in a log directory. */
  STORAGE_ERROR: Kafka.KAFKA_STORAGE_ERROR,
  /** Kafka's INVALID_REQUEST: an argument a caller passed to an encoder is out of Kafka's rules. */
  INVALID_ARGUMENT: Kafka.INVALID_REQUEST,
  /** Headers, idempotence or transactions below magic 2. */
  UNSUPPORTED_FOR_MESSAGE_FORMAT: Kafka.UNSUPPORTED_FOR_MESSAGE_FORMAT,
  /** Kafka's UNSUPPORTED_COMPRESSION_TYPE: codec ids 5-7, or a codec this runtime cannot load. */
  UNSUPPORTED_COMPRESSION: Kafka.UNSUPPORTED_COMPRESSION_TYPE,
  /** The batch's CRC is fine but its records are malformed. */
  INVALID_RECORD: Kafka.INVALID_RECORD,
} as const;

/** A kafkalite machine-readable error code, e.g. 'CORRUPT_RECORD'. */
export type KafkaliteErrorCode = keyof typeof ErrorCodes;

/**
 * The former name of `KafkaliteErrorCode`, kept for callers of the public API.
 * @deprecated Use `KafkaliteErrorCode`; `ErrorCode` in src/protocol/error-codes.ts is Kafka's table.
 */
export type ErrorCode = KafkaliteErrorCode;

export interface KafkaliteErrorOptions {
  /** Byte offset in the caller's input where the problem was found. */
  position?: number;
  cause?: unknown;
}

export class KafkaliteError extends Error {
  readonly code: KafkaliteErrorCode;
  readonly kafkaErrorCode: number;
  readonly position: number | undefined;
  /** The message without the position suffix. */
  readonly detail: string;

  constructor(code: KafkaliteErrorCode, message: string, options: KafkaliteErrorOptions = {}) {
    super(options.position === undefined ? message : `${message} (at byte ${options.position})`, {
      cause: options.cause,
    });
    this.name = new.target.name;
    this.code = code;
    this.kafkaErrorCode = ErrorCodes[code];
    this.position = options.position;
    this.detail = message;
  }

  /**
   * The same error with its position moved by `delta`: decoders of nested data (a compressed
   * stream inside a batch) report positions relative to that data, and the caller wants them in
   * terms of its own buffer.
   */
  shifted(delta: number): KafkaliteError {
    if (this.position === undefined) return this;
    const options = { position: this.position + delta, cause: this.cause };
    if (this.constructor === KafkaliteError) return new KafkaliteError(this.code, this.detail, options);
    const Ctor = this.constructor as new (message: string, options: KafkaliteErrorOptions) => KafkaliteError;
    return new Ctor(this.detail, options);
  }
}

/** Kafka's CorruptRecordException: bytes that fail CRC or minimum-size checks. */
export class CorruptRecordError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('CORRUPT_RECORD', message, options);
  }
}

/** Kafka's InvalidRecordException: structurally malformed records inside a batch. */
export class InvalidRecordError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_RECORD', message, options);
  }
}

/** Kafka's RecordTooLargeException, also raised when decompression would exceed the configured cap. */
export class RecordTooLargeError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('RECORD_TOO_LARGE', message, options);
  }
}

export class UnsupportedCompressionError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('UNSUPPORTED_COMPRESSION', message, options);
  }
}

/** Kafka's UnsupportedForMessageFormatException: a v2-only feature asked of magic 0 or 1. */
export class UnsupportedForMessageFormatError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('UNSUPPORTED_FOR_MESSAGE_FORMAT', message, options);
  }
}

export class OffsetOutOfRangeError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('OFFSET_OUT_OF_RANGE', message, options);
  }
}

export class InvalidTopicError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_TOPIC', message, options);
  }
}

/** Kafka's RecordBatchTooLargeException: an append that cannot fit in any segment. */
export class RecordListTooLargeError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('RECORD_LIST_TOO_LARGE', message, options);
  }
}

export class InvalidTimestampError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_TIMESTAMP', message, options);
  }
}

export class InvalidConfigError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_CONFIG', message, options);
  }
}

/**
 * Kafka's CorruptIndexException, IOExceptions on log files, unreadable checkpoints: the storage
 * layer cannot trust or use a file. `position` is the byte in that file when known.
 */
export class StorageError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('STORAGE_ERROR', message, options);
  }
}

/**
 * Kafka's CorruptIndexException: an index file breaks its sanity rules (`sanityCheck`). A storage
 * error, distinguished so that loading can rebuild the segment's indexes from its log, as Kafka's
 * LogLoader does, where any other storage error stops the load.
 */
export class CorruptIndexError extends StorageError {}

export class OutOfOrderSequenceError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('OUT_OF_ORDER_SEQUENCE_NUMBER', message, options);
  }
}

export class InvalidProducerEpochError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_PRODUCER_EPOCH', message, options);
  }
}

export class InvalidTxnStateError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_TXN_STATE', message, options);
  }
}

export class TransactionCoordinatorFencedError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('TRANSACTION_COORDINATOR_FENCED', message, options);
  }
}

/** A caller passed an encoder something Kafka's builders refuse (e.g. a negative timestamp other than -1). */
export class InvalidArgumentError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super('INVALID_ARGUMENT', message, options);
  }
}
