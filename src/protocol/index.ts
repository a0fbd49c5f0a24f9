/** The Kafka protocol codec: schemas, generic codec, headers, framing, error table. No I/O. */
export * from './schema.js';
export { decodeMessage, encodeMessage, encodeMessageToBuffer, ZERO_COPY_MIN } from './codec.js';
export { ProtocolError, FrameTooLargeError } from './errors.js';
export {
  readRequestHeader,
  encodeResponseFrame,
  requestHeaderVersion,
  responseHeaderVersion,
  API_VERSIONS_KEY,
  type RequestHeaderValue,
} from './header.js';
export { FrameDecoder } from './framing.js';
export { ErrorCode, KAFKA_ERRORS, errorInfo, errorName, isRetriable, type ErrorName, type KafkaErrorInfo } from './error-codes.js';
export { ApiKey, type ApiName } from './api-keys.js';
export * from './schemas/index.js';
export * as internalSchemas from './schemas/internal/index.js';
