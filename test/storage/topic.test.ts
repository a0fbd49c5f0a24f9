/**
 * Topic names and partition directory names (Kafka Topic, LocalLog; TopicTest and LocalLogTest's
 * parseTopicPartitionName / logDeleteDirName cases).
 */
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { InvalidArgumentError, InvalidTopicError, StorageError } from '../../src/errors.js';
import {
  deleteDirName,
  futureDirName,
  isValidTopicName,
  parseTopicPartitionName,
  partitionDirName,
  strayDirName,
  validateTopicName,
} from '../../src/storage/topic.js';

const UUID32 = '0123456789abcdef0123456789abcdef';

function assertInvalidTopic(name: string, message: string): void {
  assert.throws(
    () => validateTopicName(name),
    (e: unknown) => {
      assert.ok(e instanceof InvalidTopicError);
      assert.equal(e.code, 'INVALID_TOPIC');
      assert.equal(errorName(e.kafkaErrorCode), 'INVALID_TOPIC_EXCEPTION');
      assert.equal(e.message, message);
      return true;
    },
  );
}

describe('validateTopicName (Topic.validate)', () => {
  test('legal names', () => {
    for (const name of ['valid', 'TOPIC', 'nAmEs', 'ar6', 'VaL1d', '_0-9_.', '...', '__consumer_offsets', 'a'.repeat(249)]) {
      validateTopicName(name);
      assert.ok(isValidTopicName(name));
    }
  });

  test('Kafka\'s error texts', () => {
    assertInvalidTopic('', 'Topic name is invalid: the empty string is not allowed');
    assertInvalidTopic('.', "Topic name is invalid: '.' is not allowed");
    assertInvalidTopic('..', "Topic name is invalid: '..' is not allowed");
    const long = 'a'.repeat(250);
    assertInvalidTopic(long, `Topic name is invalid: the length of '${long}' is longer than the max allowed length 249`);
    assertInvalidTopic('a b', "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'");
  });

  test('hostile names never pass', () => {
    for (const name of ['../x', 'a/b', 'a\\b', '/etc', 'a\0b', 'é', 'a\nb', 'foo bar', 'x:y', '..\u2024', '%2e%2e']) {
      assert.throws(() => validateTopicName(name), InvalidTopicError, JSON.stringify(name));
      assert.equal(isValidTopicName(name), false);
      assert.throws(() => partitionDirName(name, 0), InvalidTopicError);
      assert.throws(() => deleteDirName(name, 0), InvalidTopicError);
    }
  });
});

describe('partition directory names', () => {
  test('partitionDirName', () => {
    assert.equal(partitionDirName('foo', 0), 'foo-0');
    assert.equal(partitionDirName('__cluster_metadata', 0), '__cluster_metadata-0');
    assert.equal(partitionDirName('a-b', 2147483647), 'a-b-2147483647');
    for (const p of [-1, 1.5, 2 ** 31, NaN]) assert.throws(() => partitionDirName('foo', p), InvalidArgumentError);
  });

  test('deleteDirName (LocalLogTest.testLogDeleteDirName)', () => {
    const name1 = deleteDirName('foo', 3);
    assert.ok(name1.length <= 255);
    assert.match(name1, /^foo-3\.[0-9a-z]{32}-delete$/);
    assert.equal(parseTopicPartitionName(name1).kind, 'delete');
    const name2 = deleteDirName('n' + 'o'.repeat(248), 5);
    assert.equal(name2.length, 255);
    assert.match(name2, /^n[o]{212}-5\.[0-9a-z]{32}-delete$/);
    assert.deepEqual(parseTopicPartitionName(name2), { topic: 'n' + 'o'.repeat(212), partition: 5, kind: 'delete' });
    assert.equal(deleteDirName('foo', 3, UUID32), `foo-3.${UUID32}-delete`);
    assert.throws(() => deleteDirName('foo', 3, '../x'), InvalidArgumentError);
  });

  test('stray names are capped too; future names are not', () => {
    assert.equal(strayDirName('n' + 'o'.repeat(248), 5).length, 255);
    assert.match(strayDirName('foo', 1), /^foo-1\.[0-9a-f]{32}-stray$/);
    const future = futureDirName('n' + 'o'.repeat(248), 5, UUID32);
    assert.equal(future, `n${'o'.repeat(248)}-5.${UUID32}-future`);
    assert.equal(future.length, 249 + 2 + 1 + 32 + 7);
  });
});

describe('parseTopicPartitionName (LocalLog)', () => {
  const expectFail = (name: string) =>
    assert.throws(
      () => parseTopicPartitionName(name),
      (e: unknown) => {
        assert.ok(e instanceof StorageError, `${name}: ${String(e)}`);
        assert.equal(
          e.message,
          `Found directory ${name}, '${name}' is not in the form of topic-partition or topic-partition.uniqueId-delete (if marked for deletion).\n` +
            "Kafka's log directories (and children) should only contain Kafka topic data.",
        );
        return true;
      },
      name,
    );

  test('testParseTopicPartitionName', () => {
    assert.deepEqual(parseTopicPartitionName('test_topic-143'), { topic: 'test_topic', partition: 143, kind: 'normal' });
    assert.deepEqual(parseTopicPartitionName('a-b-c-7'), { topic: 'a-b-c', partition: 7, kind: 'normal' });
    assert.deepEqual(parseTopicPartitionName('__cluster_metadata-0'), { topic: '__cluster_metadata', partition: 0, kind: 'normal' });
  });

  test('testParseTopicPartitionNameWithPeriodForDeletedTopic (KAFKA-5232)', () => {
    assert.deepEqual(parseTopicPartitionName(deleteDirName('foo.bar-testtopic', 42)), {
      topic: 'foo.bar-testtopic',
      partition: 42,
      kind: 'delete',
    });
  });

  test('future and stray directories', () => {
    assert.deepEqual(parseTopicPartitionName(futureDirName('foo.bar', 1)), { topic: 'foo.bar', partition: 1, kind: 'future' });
    assert.deepEqual(parseTopicPartitionName(strayDirName('foo', 2)), { topic: 'foo', partition: 2, kind: 'stray' });
  });

  test('testParseTopicPartitionNameForEmptyName', () => expectFail(''));

  test('testParseTopicPartitionNameForMissingSeparator', () => {
    expectFail('test_topic1999');
    expectFail('test_topic1999.-delete');
  });

  test('testParseTopicPartitionNameForMissingTopic', () => {
    expectFail('-1999');
    expectFail(`-1999.${UUID32}-delete`); // what logDeleteDirName gives for an empty topic
  });

  test('testParseTopicPartitionNameForMissingPartition', () => {
    expectFail('test_topic-');
    expectFail('test_topic-.-delete');
  });

  test('testParseTopicPartitionNameForInvalidPartition', () => {
    expectFail('test_topic-1999a');
    expectFail('test_topic1999a.-delete');
    expectFail('test_topic-2147483648');
    expectFail('test_topic-0x1');
  });

  test('testParseTopicPartitionNameForExistingInvalidDir', () => {
    expectFail('non_kafka_dir');
    expectFail('non_kafka_dir-delete');
    expectFail('remote-log-index-cache');
    expectFail('foo-1.abc-future x');
    expectFail('foo bar-1.abc-stray');
  });

  test('names that are not a single directory entry are refused', () => {
    expectFail('../foo-0');
    expectFail('a/b-0');
    expectFail('a\0-0');
  });

  test('the full path appears in the message when given', () => {
    assert.throws(
      () => parseTopicPartitionName('junk', '/data/junk'),
      (e: unknown) => e instanceof StorageError && e.message.startsWith("Found directory /data/junk, 'junk' is not in the form"),
    );
  });

  test('Integer.parseInt quirks are kept', () => {
    assert.equal(parseTopicPartitionName('t-+5').partition, 5);
    assert.equal(parseTopicPartitionName('t-007').partition, 7);
    assert.equal(parseTopicPartitionName('t-2147483647').partition, 2147483647);
  });
});
