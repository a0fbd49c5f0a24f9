/**
 * The Kafka error codes the group coordinator answers with: Kafka's one table (`Errors.java`, via
 * src/protocol/error-codes.ts) under the name the group code has always used.
 */
export { ErrorCode as GroupError } from '../../protocol/error-codes.js';
