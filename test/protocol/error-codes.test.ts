/**
 * The Kafka error table: agrees with the protocol notes §4.6 (code, name, retriable), with
 * kafkajs's independent table wherever both name the same error, and has unique codes and names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { KAFKA_ERRORS, kafkaErrorByCode, kafkaErrorByName, kafkaErrorCode } from '../../src/protocol/error-codes.js';

// Protocol notes §4.6, as printed there (R = retriable).
const NOTES: [number, string, boolean][] = [
  [-1, 'UNKNOWN_SERVER_ERROR', false], [0, 'NONE', false], [1, 'OFFSET_OUT_OF_RANGE', false], [2, 'CORRUPT_MESSAGE', true],
  [3, 'UNKNOWN_TOPIC_OR_PARTITION', true], [5, 'LEADER_NOT_AVAILABLE', true], [6, 'NOT_LEADER_OR_FOLLOWER', true],
  [7, 'REQUEST_TIMED_OUT', true], [10, 'MESSAGE_TOO_LARGE', false], [14, 'COORDINATOR_LOAD_IN_PROGRESS', true],
  [15, 'COORDINATOR_NOT_AVAILABLE', true], [16, 'NOT_COORDINATOR', true], [17, 'INVALID_TOPIC_EXCEPTION', false],
  [18, 'RECORD_LIST_TOO_LARGE', false], [19, 'NOT_ENOUGH_REPLICAS', true], [21, 'INVALID_REQUIRED_ACKS', false],
  [22, 'ILLEGAL_GENERATION', false], [23, 'INCONSISTENT_GROUP_PROTOCOL', false], [24, 'INVALID_GROUP_ID', false],
  [25, 'UNKNOWN_MEMBER_ID', false], [26, 'INVALID_SESSION_TIMEOUT', false], [27, 'REBALANCE_IN_PROGRESS', false],
  [28, 'INVALID_COMMIT_OFFSET_SIZE', false], [32, 'INVALID_TIMESTAMP', false], [33, 'UNSUPPORTED_SASL_MECHANISM', false],
  [34, 'ILLEGAL_SASL_STATE', false], [35, 'UNSUPPORTED_VERSION', false], [36, 'TOPIC_ALREADY_EXISTS', false],
  [37, 'INVALID_PARTITIONS', false], [38, 'INVALID_REPLICATION_FACTOR', false], [40, 'INVALID_CONFIG', false],
  [41, 'NOT_CONTROLLER', true], [42, 'INVALID_REQUEST', false], [45, 'OUT_OF_ORDER_SEQUENCE_NUMBER', false],
  [46, 'DUPLICATE_SEQUENCE_NUMBER', false], [47, 'INVALID_PRODUCER_EPOCH', false], [48, 'INVALID_TXN_STATE', false],
  [49, 'INVALID_PRODUCER_ID_MAPPING', false], [50, 'INVALID_TRANSACTION_TIMEOUT', false], [51, 'CONCURRENT_TRANSACTIONS', true],
  [56, 'KAFKA_STORAGE_ERROR', true], [58, 'SASL_AUTHENTICATION_FAILED', false], [59, 'UNKNOWN_PRODUCER_ID', false],
  [69, 'GROUP_ID_NOT_FOUND', false], [70, 'FETCH_SESSION_ID_NOT_FOUND', true], [74, 'FENCED_LEADER_EPOCH', true],
  [76, 'UNSUPPORTED_COMPRESSION_TYPE', false], [78, 'OFFSET_NOT_AVAILABLE', true], [79, 'MEMBER_ID_REQUIRED', false],
  [87, 'INVALID_RECORD', false], [88, 'UNSTABLE_OFFSET_COMMIT', true], [90, 'PRODUCER_FENCED', false], [100, 'UNKNOWN_TOPIC_ID', true],
];

test('the error table agrees with the protocol notes §4.6', () => {
  for (const [code, name, retriable] of NOTES) {
    assert.deepStrictEqual(kafkaErrorByCode(code), { code, name, retriable }, `code ${code}`);
    assert.equal(kafkaErrorByName(name)?.code, code);
    assert.equal(kafkaErrorCode(name), code);
  }
});

test('the error table covers -1..127 once each, with unique names', () => {
  const codes = KAFKA_ERRORS.map((e) => e.code);
  assert.deepStrictEqual(codes, Array.from({ length: 129 }, (_, i) => i - 1));
  assert.equal(new Set(KAFKA_ERRORS.map((e) => e.name)).size, KAFKA_ERRORS.length);
  assert.equal(kafkaErrorByCode(128), undefined);
  assert.throws(() => kafkaErrorCode('NO_SUCH_ERROR'));
});

test('retriable flags agree with kafkajs 2.2.4 wherever both tables have the code under the same name', () => {
  const require = createRequire(import.meta.url);
  const kafkajsErrors = require('kafkajs/src/protocol/error.js').errorCodes as { type: string; code: number; retriable: boolean }[];
  let compared = 0;
  for (const k of kafkajsErrors) {
    const ours = kafkaErrorByCode(k.code);
    if (!ours || ours.name !== k.type) continue;
    compared++;
    assert.equal(ours.retriable, k.retriable, `${k.code} ${k.type}`);
  }
  assert.ok(compared > 60, `only ${compared} codes compared`);
});
