/**
 * Errors of the protocol codec. A malformed request is Kafka's InvalidRequestException (error 42,
 * INVALID_REQUEST): `RequestContext.parseRequest` wraps every body-parsing failure in it, and the
 * broker closes the connection. An oversized frame is Kafka's InvalidReceiveException
 * (`NetworkReceive`: size > socket.request.max.bytes or negative), which also closes it.
 */
import { ErrorCodes, KafkaliteError, type ErrorCode, type KafkaliteErrorOptions } from '../errors.js';

/**
 * The machine code of protocol errors. src/errors.ts declares Kafka's 42 as INVALID_ARGUMENT
 * today; once it also declares INVALID_REQUEST (42) that name is used, with no change here.
 */
const INVALID_REQUEST_CODE: ErrorCode = ('INVALID_REQUEST' in ErrorCodes ? 'INVALID_REQUEST' : 'INVALID_ARGUMENT') as ErrorCode;

/** Bytes that do not decode as the (api, version) they claim to be; `position` = byte in the frame. */
export class ProtocolError extends KafkaliteError {
  constructor(message: string, options?: KafkaliteErrorOptions) {
    super(INVALID_REQUEST_CODE, message, options);
  }
}

/** A size prefix above the configured cap or negative: the connection must be closed. */
export class FrameTooLargeError extends ProtocolError {}
