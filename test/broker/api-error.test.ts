/**
 * ApiError takes a Kafka error by name or by code from the one table, defaults its message to the
 * table's, and refuses a code Kafka does not define; errorCodeOf maps kafkalite's own errors through
 * the same table and anything else to UNKNOWN_SERVER_ERROR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, errorCodeOf } from '../../src/broker/api-error.js';
import { CorruptRecordError, StorageError } from '../../src/errors.js';
import { ErrorCode, errorInfo, errorName } from '../../src/protocol/error-codes.js';

test('ApiError by name and by code carry the same Kafka code', () => {
  const byName = new ApiError('TOPIC_ALREADY_EXISTS', "Topic 't' already exists.");
  const byCode = new ApiError(ErrorCode.TOPIC_ALREADY_EXISTS, "Topic 't' already exists.");
  assert.equal(byName.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
  assert.equal(byCode.errorCode, byName.errorCode);
  assert.equal(byName.message, "Topic 't' already exists.");
  assert.equal(byName.name, 'ApiError');
});

test("ApiError without a message uses the table's default message", () => {
  const e = new ApiError('INVALID_REQUIRED_ACKS');
  assert.equal(e.message, errorInfo(ErrorCode.INVALID_REQUIRED_ACKS)!.message);
  assert.notEqual(e.message, '');
});

test('ApiError refuses a code outside the table', () => {
  assert.throws(() => new ApiError(128, 'no such code'), RangeError);
  assert.throws(() => new ApiError(-2), RangeError);
});

test('errorCodeOf: ApiError, kafkalite errors through the table, anything else UNKNOWN_SERVER_ERROR', () => {
  assert.equal(errorName(errorCodeOf(new ApiError('POLICY_VIOLATION', 'no'))), 'POLICY_VIOLATION');
  assert.equal(errorName(errorCodeOf(new CorruptRecordError('bad crc'))), 'CORRUPT_MESSAGE');
  assert.equal(errorName(errorCodeOf(new StorageError('bad index'))), 'KAFKA_STORAGE_ERROR');
  assert.equal(errorName(errorCodeOf(new Error('boom'))), 'UNKNOWN_SERVER_ERROR');
  assert.equal(errorName(errorCodeOf('not even an Error')), 'UNKNOWN_SERVER_ERROR');
});
