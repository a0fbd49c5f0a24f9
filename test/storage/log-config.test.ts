/**
 * Topic configuration: Kafka's defaults, property parsing and validators
 * (LogConfig.java / LogConfigTest), and message.format.version -> magic.
 */
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import assert from 'node:assert/strict';
import { InvalidConfigError } from '../../src/errors.js';
import { DEFAULT_LOG_CONFIG, logConfigFromProperties, messageFormatMagic } from '../../src/storage/log-config.js';

const LONG_MAX = 9223372036854775807n;

function rejects(props: Record<string, string>, re: RegExp): void {
  assert.throws(
    () => logConfigFromProperties(props),
    (err: unknown) => err instanceof InvalidConfigError && re.test(err.message) && errorName(err.kafkaErrorCode) === 'INVALID_CONFIG',
  );
}

describe('LogConfig', () => {
  test('defaults are Kafka\'s (LogConfig, timestamp.after from the 4.0 release)', () => {
    assert.deepEqual(
      { ...DEFAULT_LOG_CONFIG },
      {
        segmentBytes: 1073741824,
        segmentMs: 604800000,
        segmentJitterMs: 0,
        segmentIndexBytes: 10485760,
        indexIntervalBytes: 4096,
        flushMessages: LONG_MAX,
        flushMs: LONG_MAX,
        retentionMs: 604800000,
        retentionBytes: -1,
        cleanupPolicy: 'delete',
        deleteRetentionMs: 86400000,
        minCompactionLagMs: 0,
        maxCompactionLagMs: 9223372036854775807,
        minCleanableDirtyRatio: 0.5,
        fileDeleteDelayMs: 60000,
        maxMessageBytes: 1048588,
        compressionType: 'producer',
        compressionGzipLevel: -1,
        compressionLz4Level: 9,
        compressionZstdLevel: 3,
        messageTimestampType: 'CreateTime',
        messageTimestampBeforeMaxMs: LONG_MAX,
        messageTimestampAfterMaxMs: 3600000n,
        messageFormatVersion: '3.0-IV1',
        preallocate: false,
      },
    );
    assert.ok(Object.isFrozen(DEFAULT_LOG_CONFIG));
    assert.deepEqual(logConfigFromProperties({}), { ...DEFAULT_LOG_CONFIG });
  });

  test('every modelled property parses from Kafka\'s dotted name', () => {
    const c = logConfigFromProperties({
      'segment.bytes': '1024',
      'segment.ms': '60000',
      'segment.jitter.ms': '10',
      'segment.index.bytes': '4096',
      'index.interval.bytes': '100',
      'flush.messages': '1',
      'flush.ms': '9223372036854775807',
      'retention.ms': '-1',
      'retention.bytes': '1000000',
      'cleanup.policy': 'delete, compact',
      'delete.retention.ms': '5',
      'min.compaction.lag.ms': '6',
      'max.compaction.lag.ms': '7',
      'min.cleanable.dirty.ratio': '0.25',
      'file.delete.delay.ms': '0',
      'max.message.bytes': '2000',
      'compression.type': 'zstd',
      'compression.gzip.level': '9',
      'compression.lz4.level': '17',
      'compression.zstd.level': '-5',
      'message.timestamp.type': 'LogAppendTime',
      'message.timestamp.before.max.ms': '100',
      'message.timestamp.after.max.ms': '200',
      'message.format.version': '0.10.2',
      preallocate: 'true',
      'min.insync.replicas': '2',
      'unclean.leader.election.enable': 'false',
    });
    assert.equal(c.segmentBytes, 1024);
    assert.equal(c.segmentMs, 60000);
    assert.equal(c.segmentJitterMs, 10);
    assert.equal(c.segmentIndexBytes, 4096);
    assert.equal(c.indexIntervalBytes, 100);
    assert.equal(c.flushMessages, 1n);
    assert.equal(c.flushMs, LONG_MAX);
    assert.equal(c.retentionMs, -1);
    assert.equal(c.retentionBytes, 1000000);
    assert.equal(c.cleanupPolicy, 'compact,delete');
    assert.equal(c.deleteRetentionMs, 5);
    assert.equal(c.minCompactionLagMs, 6);
    assert.equal(c.maxCompactionLagMs, 7);
    assert.equal(c.minCleanableDirtyRatio, 0.25);
    assert.equal(c.fileDeleteDelayMs, 0);
    assert.equal(c.maxMessageBytes, 2000);
    assert.equal(c.compressionType, 'zstd');
    assert.equal(c.compressionGzipLevel, 9);
    assert.equal(c.compressionLz4Level, 17);
    assert.equal(c.compressionZstdLevel, -5);
    assert.equal(c.messageTimestampType, 'LogAppendTime');
    assert.equal(c.messageTimestampBeforeMaxMs, 100n);
    assert.equal(c.messageTimestampAfterMaxMs, 200n);
    assert.equal(c.messageFormatVersion, '0.10.2');
    assert.equal(c.preallocate, true);
    assert.equal(logConfigFromProperties({ 'cleanup.policy': 'compact' }).cleanupPolicy, 'compact');
  });

  test('Kafka\'s minimums and validators, with the property name in the error', () => {
    rejects({ 'segment.bytes': '13' }, /Invalid value 13 for configuration segment\.bytes: Value must be at least 14/);
    assert.equal(logConfigFromProperties({ 'segment.bytes': '14' }).segmentBytes, 14);
    rejects({ 'segment.bytes': '2147483648' }, /segment\.bytes: Not a number of type INT/);
    rejects({ 'segment.ms': '0' }, /segment\.ms: Value must be at least 1/);
    rejects({ 'segment.index.bytes': '3' }, /segment\.index\.bytes/);
    rejects({ 'flush.messages': '0' }, /flush\.messages/);
    rejects({ 'retention.ms': '-2' }, /retention\.ms: Value must be at least -1/);
    rejects({ 'retention.ms': 'forever' }, /retention\.ms: Not a number of type LONG/);
    rejects({ 'retention.ms': '9223372036854775808' }, /retention\.ms: Not a number of type LONG/);
    rejects({ 'max.message.bytes': '-1' }, /max\.message\.bytes/);
    rejects({ 'max.compaction.lag.ms': '0' }, /max\.compaction\.lag\.ms/);
    rejects({ 'min.cleanable.dirty.ratio': '1.5' }, /min\.cleanable\.dirty\.ratio: Value must be no less than 0 and no more than 1/);
    rejects({ 'cleanup.policy': 'compact,forever' }, /cleanup\.policy/);
    rejects({ 'compression.type': 'brotli' }, /compression\.type: String must be one of/);
    rejects({ 'compression.type': 'GZIP' }, /compression\.type/);
    rejects({ 'compression.gzip.level': '0' }, /compression\.gzip\.level: Value must be between 1 and 9 or equal to -1/);
    rejects({ 'compression.lz4.level': '18' }, /compression\.lz4\.level/);
    rejects({ 'compression.zstd.level': '23' }, /compression\.zstd\.level/);
    rejects({ 'message.timestamp.type': 'createtime' }, /message\.timestamp\.type/);
    rejects({ 'message.timestamp.after.max.ms': '-1' }, /message\.timestamp\.after\.max\.ms/);
    rejects({ 'message.format.version': '0.7.0' }, /message\.format\.version: Version 0\.7\.0 is not a valid version/);
    rejects({ 'message.format.version': '0.10' }, /message\.format\.version/);
    rejects({ preallocate: 'yes' }, /preallocate: Expected value to be either true or false/);
    rejects({ 'min.insync.replicas': '0' }, /min\.insync\.replicas/);
    rejects({ 'segment.size': '1' }, /Unknown topic config name: segment\.size/);
    rejects({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }, /conflict topic config setting min\.compaction\.lag\.ms \(10\) > max\.compaction\.lag\.ms \(5\)/);
  });

  test('the deprecated message.timestamp.difference.max.ms stands in for before/after when they are unset', () => {
    const c = logConfigFromProperties({ 'message.timestamp.difference.max.ms': '5000' });
    assert.equal(c.messageTimestampBeforeMaxMs, 5000n);
    assert.equal(c.messageTimestampAfterMaxMs, 5000n);
    const d = logConfigFromProperties({ 'message.timestamp.difference.max.ms': '5000', 'message.timestamp.after.max.ms': '10' });
    assert.equal(d.messageTimestampBeforeMaxMs, 5000n);
    assert.equal(d.messageTimestampAfterMaxMs, 10n);
  });

  test('base config is layered under the properties', () => {
    const base = logConfigFromProperties({ 'cleanup.policy': 'compact' });
    const c = logConfigFromProperties({ 'retention.ms': '1' }, base);
    assert.equal(c.cleanupPolicy, 'compact');
    assert.equal(c.retentionMs, 1);
  });

  test('messageFormatMagic: MetadataVersion.highestSupportedRecordVersion', () => {
    const cases: [string, 0 | 1 | 2][] = [
      ['0.8.0', 0],
      ['0.8.2', 0],
      ['0.8.2.2', 0],
      ['0.9.0', 0],
      ['0.9.0.1', 0],
      ['0.10.0-IV0', 1],
      ['0.10.0', 1],
      ['0.10.1-IV2', 1],
      ['0.10.2', 1],
      ['0.10.2.1', 1],
      ['0.11.0-IV0', 2],
      ['0.11.0', 2],
      ['1.0', 2],
      ['2.8.1', 2],
      ['3.0-IV1', 2],
      ['3.9', 2],
      ['4.0-IV0', 2],
    ];
    for (const [version, magic] of cases) {
      assert.equal(messageFormatMagic({ messageFormatVersion: version }), magic, version);
      assert.equal(logConfigFromProperties({ 'message.format.version': version }).messageFormatVersion, version);
    }
    assert.equal(messageFormatMagic(DEFAULT_LOG_CONFIG), 2);
    assert.throws(() => messageFormatMagic({ messageFormatVersion: 'banana' }), InvalidConfigError);
  });
});
