/**
 * One error hierarchy for everything kafkalite rejects.
 *
 * Every error carries a machine-readable `code` and the Kafka protocol error code it maps to
 * (`kafkaErrorCode`, from Kafka's `Errors.java` table), so the broker can answer a client with the
 * same code Apache Kafka would. Decoding errors also carry `position`: the byte offset in the
 * caller's buffer (or file) where decoding failed.
 */

/** Machine-readable error codes, each mapped 1:1 to a Kafka protocol error code. */
export const ErrorCodes = {
  /** Kafka OFFSET_OUT_OF_RANGE (1): a read or truncation outside [logStartOffset, logEndOffset]. */
  OFFSET_OUT_OF_RANGE: 1,
  /** Kafka CORRUPT_MESSAGE (2): a CRC mismatch, a size below the minimum overhead, an unknown magic. */
  CORRUPT_RECORD: 2,
  /** Kafka MESSAGE_TOO_LARGE (10): a batch or a decompressed record set above the configured limit. */
  RECORD_TOO_LARGE: 10,
  /** Kafka INVALID_TOPIC_EXCEPTION (17): a topic name outside Kafka's rules (could escape the data dir). */
  INVALID_TOPIC: 17,
  /** Kafka RECORD_LIST_TOO_LARGE (18): one append larger than a whole segment. */
  RECORD_LIST_TOO_LARGE: 18,
  /** Kafka INVALID_TIMESTAMP (32): a record timestamp outside the topic's allowed window. */
  INVALID_TIMESTAMP: 32,
  /** Kafka INVALID_CONFIG (40): a topic or broker config value Kafka would refuse. */
  INVALID_CONFIG: 40,
  /** Kafka OUT_OF_ORDER_SEQUENCE_NUMBER (45): a producer's sequence does not follow its last one. */
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  /** Kafka INVALID_PRODUCER_EPOCH (47): a producer epoch older than the one the log knows (fenced). */
  INVALID_PRODUCER_EPOCH: 47,
  /** Kafka INVALID_TXN_STATE (48): e.g. a non-transactional batch inside an open transaction. */
  INVALID_TXN_STATE: 48,
  /** Kafka TRANSACTION_COORDINATOR_FENCED (52): a marker from an older coordinator epoch. */
  TRANSACTION_COORDINATOR_FENCED: 52,
  /** Kafka KAFKA_STORAGE_ERROR (56): a corrupt index or checkpoint, or an I/O failure in a log directory. */
  STORAGE_ERROR: 56,
  /** Kafka INVALID_REQUEST (42): an argument a caller passed to an encoder is out of Kafka's rules. */
  INVALID_ARGUMENT: 42,
  /** Kafka UNSUPPORTED_FOR_MESSAGE_FORMAT (43): headers, idempotence or transactions below magic 2. */
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  /** Kafka UNSUPPORTED_COMPRESSION_TYPE (76): codec ids 5-7, or a codec this runtime cannot load. */
  UNSUPPORTED_COMPRESSION: 76,
  /** Kafka INVALID_RECORD (87): the batch's CRC is fine but its records are malformed. */
  INVALID_RECORD: 87,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export interface KafkaliteErrorOptions {
  /** Byte offset in the caller's input where the problem was found. */
  position?: number;
  cause?: unknown;
}

export class KafkaliteError extends Error {
  readonly code: ErrorCode;
  readonly kafkaErrorCode: number;
  readonly position: number | undefined;
  /** The message without the position suffix. */
  readonly detail: string;

  constructor(code: ErrorCode, message: string, options: KafkaliteErrorOptions = {}) {
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
