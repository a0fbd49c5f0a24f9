/**
 * The broker's reaction to a failed log directory (Kafka `ReplicaManager.handleLogDirFailure`):
 * with its only log directory offline Kafka halts the broker, and its supervisor restarts it.
 *
 * The storage side (src/storage/log-dir-failure.ts) takes the directory offline at the first I/O
 * error, so every later operation on its logs fails with KAFKA_STORAGE_ERROR and nothing more takes
 * effect. Here: the one log line naming the file and the errno, the answers already computed but
 * not yet sent whose requests ran while Produce appends were held (those appends are now never
 * written) going out as KAFKA_STORAGE_ERROR, and the halt itself (Broker.halt: the listener stops,
 * the requests in progress are answered, the logs close without the clean-shutdown marker,
 * `'error'` is emitted, and `kafkalite serve` exits non-zero).
 */
import { encodeMessage } from '../protocol/codec.js';
import { ApiKey } from '../protocol/api-keys.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { encodeResponseFrame } from '../protocol/header.js';
import type { LogDirFailure } from '../storage/log-dir-failure.js';
import type { AnyApiHandler } from './handler.js';

/** The one line logged when the log directory fails: the file, the errno, and what follows. */
export function logDirFailureLine(dir: string, failure: LogDirFailure): string {
  return `log directory ${dir} failed: ${failure.errno} on ${failure.path}; halting the broker, as Kafka halts when its only log directory is offline (${failure.error.message})`;
}

/**
 * `response` with KAFKA_STORAGE_ERROR in every error code it carries, at every level (top, topic,
 * partition), and the failure's message where it has an error message: Kafka's
 * `getErrorResponse(KafkaStorageException)` fills the same fields. A copy; the original is unchanged.
 */
export function storageErrorResponse(response: unknown, message: string): unknown {
  if (Array.isArray(response)) return response.map((v) => storageErrorResponse(v, message));
  if (typeof response !== 'object' || response === null || Buffer.isBuffer(response)) return response;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(response)) {
    if (k === 'errorCode' && typeof v === 'number') out[k] = ErrorCode.KAFKA_STORAGE_ERROR;
    else if (k === 'errorMessage') out[k] = message;
    else out[k] = storageErrorResponse(v, message);
  }
  return out;
}

/**
 * The frame answering a request with KAFKA_STORAGE_ERROR instead of `response` (Connection's
 * held answers, when the appends they were computed after are never written); undefined for
 * ApiVersions, whose answer depends on no log and is sent as it was.
 */
export function storageErrorFrame(handler: AnyApiHandler, apiKey: number, version: number, correlationId: number, response: unknown, message: string): Buffer[] | undefined {
  if (apiKey === ApiKey.ApiVersions) return undefined;
  return encodeResponseFrame(apiKey, version, correlationId, encodeMessage(handler.api.response, version, storageErrorResponse(response, message)));
}
