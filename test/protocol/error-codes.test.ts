/**
 * The Kafka error table: the committed module is what scripts/gen-error-codes.mjs makes of
 * scripts/kafka-errors.txt; it agrees with Kafka's `Errors.java` (code, name, retriable) for the errors listed below, with
 * kafkajs's independent table wherever both name the same error, and has unique codes and names;
 * kafkalite's own error codes map into it under the Kafka names they stand for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/paths.js';
import { ErrorCode, KAFKA_ERRORS, errorInfo, errorName, isRetriable, type ErrorName } from '../../src/protocol/error-codes.js';
import { ErrorCodes, type KafkaliteErrorCode } from '../../src/errors.js';

test('re-generating from scripts/kafka-errors.txt gives the committed src/protocol/error-codes.ts byte for byte', async () => {
  const gen = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'gen-error-codes.mjs')).href)) as {
    generate: (text: string) => string;
    DATA_FILE: string;
    OUTPUT_FILE: string;
  };
  const committed = readFileSync(join(REPO_ROOT, 'src', 'protocol', 'error-codes.ts'), 'utf8');
  assert.equal(gen.OUTPUT_FILE, join(REPO_ROOT, 'src', 'protocol', 'error-codes.ts'));
  assert.equal(committed, gen.generate(readFileSync(gen.DATA_FILE, 'utf8')), 'src/protocol/error-codes.ts differs: re-run scripts/gen-error-codes.mjs');
  assert.throws(() => gen.generate('3 UNKNOWN_TOPIC_OR_PARTITION R Missing.\n2 CORRUPT_MESSAGE R Out of order.\n'), /out of order/);
  assert.throws(() => gen.generate('3 UNKNOWN_TOPIC_OR_PARTITION yes Missing.\n'), /kafka-errors.txt:1/);
});

// Kafka's Errors.java: code, name, and whether the exception is a RetriableException.
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

test('the error table agrees with Kafka\'s Errors.java', () => {
  for (const [code, name, retriable] of NOTES) {
    const info = errorInfo(code);
    assert.deepStrictEqual(info && { code: info.code, name: info.name, retriable: info.retriable }, { code, name, retriable }, `code ${code}`);
    assert.equal(errorName(code), name);
    assert.equal(isRetriable(code), retriable, name);
    assert.equal(ErrorCode[name as ErrorName], code);
  }
});

test('the error table covers -1..127 once each, with unique names, and ErrorCode names every entry', () => {
  const codes = KAFKA_ERRORS.map((e) => e.code);
  assert.deepStrictEqual(codes, Array.from({ length: 129 }, (_, i) => i - 1));
  assert.equal(new Set(KAFKA_ERRORS.map((e) => e.name)).size, KAFKA_ERRORS.length);
  assert.deepStrictEqual(Object.entries(ErrorCode), KAFKA_ERRORS.map((e) => [e.name, e.code]));
  for (const code of [-2, 128, 1.5]) {
    assert.equal(errorInfo(code), undefined);
    assert.equal(errorName(code), undefined);
    assert.equal(isRetriable(code), false);
  }
  assert.ok(Object.isFrozen(errorInfo(ErrorCode.NONE)));
});

test('every entry has a one-line default message of its own', () => {
  for (const e of KAFKA_ERRORS) {
    assert.match(e.message, /^[A-Z][^\n]{4,98}\.$/, e.name);
  }
  assert.equal(new Set(KAFKA_ERRORS.map((e) => e.message)).size, KAFKA_ERRORS.length, 'messages are distinct');
});

test("kafkalite's error codes map to the Kafka codes of the names they stand for", () => {
  const kafkaName: Record<KafkaliteErrorCode, ErrorName> = {
    OFFSET_OUT_OF_RANGE: 'OFFSET_OUT_OF_RANGE',
    CORRUPT_RECORD: 'CORRUPT_MESSAGE',
    RECORD_TOO_LARGE: 'MESSAGE_TOO_LARGE',
    INVALID_TOPIC: 'INVALID_TOPIC_EXCEPTION',
    RECORD_LIST_TOO_LARGE: 'RECORD_LIST_TOO_LARGE',
    INVALID_TIMESTAMP: 'INVALID_TIMESTAMP',
    INVALID_CONFIG: 'INVALID_CONFIG',
    OUT_OF_ORDER_SEQUENCE_NUMBER: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
    INVALID_PRODUCER_EPOCH: 'INVALID_PRODUCER_EPOCH',
    INVALID_TXN_STATE: 'INVALID_TXN_STATE',
    TRANSACTION_COORDINATOR_FENCED: 'TRANSACTION_COORDINATOR_FENCED',
    STORAGE_ERROR: 'KAFKA_STORAGE_ERROR',
    INVALID_ARGUMENT: 'INVALID_REQUEST',
    UNSUPPORTED_FOR_MESSAGE_FORMAT: 'UNSUPPORTED_FOR_MESSAGE_FORMAT',
    UNSUPPORTED_COMPRESSION: 'UNSUPPORTED_COMPRESSION_TYPE',
    INVALID_RECORD: 'INVALID_RECORD',
  };
  assert.deepStrictEqual(Object.keys(ErrorCodes).sort(), Object.keys(kafkaName).sort());
  for (const [ours, theirs] of Object.entries(kafkaName)) {
    assert.equal(errorName(ErrorCodes[ours as KafkaliteErrorCode]), theirs, ours);
  }
});

test('retriable flags agree with kafkajs 2.2.4 wherever both tables have the code under the same name', () => {
  const require = createRequire(import.meta.url);
  const kafkajsErrors = require('kafkajs/src/protocol/error.js').errorCodes as { type: string; code: number; retriable: boolean }[];
  let compared = 0;
  for (const k of kafkajsErrors) {
    const ours = errorInfo(k.code);
    if (!ours || ours.name !== k.type) continue;
    compared++;
    assert.equal(ours.retriable, k.retriable, `${k.code} ${k.type}`);
  }
  assert.ok(compared > 60, `only ${compared} codes compared`);
});
