/**
 * `__consumer_offsets` records read back: the key version picks the record (0-1 offset commit,
 * 2 group metadata, 3-8 consumer-group records, others skipped), values of every version come back with the fields their
 * version lacks at Kafka's defaults, undecodable bytes are a typed error naming schema, version
 * and value byte, and the replay keeps the last record per key. Records are written by hand
 * from the OffsetCommitKey/Value and GroupMetadataKey JSON definitions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRecordError } from '../../src/errors.js';
import { decodeOffsetsTopicRecord, groupMetadataKey, offsetCommitKey, offsetCommitValue } from '../../src/internal-topics/offsets.js';
import { replayOffsetsRecords } from '../../src/internal-topics/offsets-replay.js';
import { cat, i16, i32, i64, str } from '../helpers/classic-encoding.js';
import { encodeVersionPrefixed } from '../../src/internal-topics/version-prefixed.js';
import { OffsetCommitKey, OffsetCommitValue } from '../../src/protocol/schemas/internal/group-coordinator.js';

describe('__consumer_offsets records', () => {
  test('keys are written at OffsetCommitKey v1 and GroupMetadataKey v2', () => {
    assert.deepEqual(offsetCommitKey('grp', 'topic', 7), cat(i16(1), str('grp'), str('topic'), i32(7)));
    assert.deepEqual(groupMetadataKey('grp'), cat(i16(2), str('grp')));
  });

  test('an OffsetCommitKey v0 with an OffsetCommitValue v0 reads with leader epoch and expiry at -1', () => {
    const key = cat(i16(0), str('g'), str('t'), i32(2));
    const value = cat(i16(0), i64(42n), str('meta'), i64(1000n));
    assert.deepEqual(decodeOffsetsTopicRecord(key, value), {
      type: 'offset',
      group: 'g',
      topic: 't',
      partition: 2,
      value: { offset: 42n, metadata: 'meta', commitTimestamp: 1000n, leaderEpoch: -1, expireTimestamp: -1n },
    });
  });

  test('a commit with an explicit expiry is written at v1, one without at v3, and both read back', () => {
    const withExpiry = { offset: 5n, leaderEpoch: -1, metadata: '', commitTimestamp: 10n, expireTimestamp: 20n };
    assert.deepEqual(offsetCommitValue(withExpiry), cat(i16(1), i64(5n), str(''), i64(10n), i64(20n)));
    const plain = { offset: 5n, leaderEpoch: 3, metadata: 'm', commitTimestamp: 10n, expireTimestamp: -1n };
    assert.deepEqual(offsetCommitValue(plain), cat(i16(3), i64(5n), i32(3), str('m'), i64(10n)));
    const key = offsetCommitKey('g', 't', 0);
    assert.deepEqual(decodeOffsetsTopicRecord(key, offsetCommitValue(withExpiry)), { type: 'offset', group: 'g', topic: 't', partition: 0, value: withExpiry });
    assert.deepEqual(decodeOffsetsTopicRecord(key, offsetCommitValue(plain)), { type: 'offset', group: 'g', topic: 't', partition: 0, value: plain });
  });

  test('the direct OffsetCommitKey v1 / OffsetCommitValue v3 writers write what the schema codec writes', () => {
    const long = 'x'.repeat(40000);
    for (const [group, topic, partition] of [
      ['grp', 'topic', 7],
      ['', 't', 0],
      ['gr\u00fcppe-\u{1F600}', 'caf\u00e9', 2147483647],
      ['g', 'my.topic_1-2', -1],
    ] as const) {
      assert.deepEqual(offsetCommitKey(group, topic, partition), encodeVersionPrefixed(OffsetCommitKey, 1, { group, topic, partition }));
    }
    for (const o of [
      { offset: 5n, leaderEpoch: 3, metadata: 'm', commitTimestamp: 10n, expireTimestamp: -1n },
      { offset: -1n, leaderEpoch: -1, metadata: '', commitTimestamp: 0n, expireTimestamp: -1n },
      { offset: 2n ** 63n - 1n, leaderEpoch: 2147483647, metadata: 'm\u00e9ta-\u{1F600}', commitTimestamp: 1_700_000_000_000n, expireTimestamp: -1n },
    ]) {
      assert.deepEqual(offsetCommitValue(o), encodeVersionPrefixed(OffsetCommitValue, 3, o));
    }
    // past an int16 length the codec answers, as before
    assert.throws(() => offsetCommitKey(long, 't', 0));
    assert.throws(() => offsetCommitValue({ offset: 1n, leaderEpoch: 0, metadata: long, commitTimestamp: 1n, expireTimestamp: -1n }));
  });

  test('tombstones read as null values; key versions 3-8 are consumer-group records, later ones are skipped', () => {
    assert.deepEqual(decodeOffsetsTopicRecord(offsetCommitKey('g', 't', 1), null), { type: 'offset', group: 'g', topic: 't', partition: 1, value: null });
    assert.deepEqual(decodeOffsetsTopicRecord(groupMetadataKey('g'), null), { type: 'group', group: 'g', value: null });
    const consumerGroup = decodeOffsetsTopicRecord(cat(i16(3), str('g')), null);
    assert.deepEqual([consumerGroup?.type, consumerGroup?.type === 'consumerGroup' ? consumerGroup.group : undefined], ['consumerGroup', 'g']);
    assert.equal(decodeOffsetsTopicRecord(cat(i16(9), str('g')), null), undefined);
  });

  test('a truncated value is an InvalidRecordError naming its schema, version and value byte', () => {
    const value = cat(i16(3), i64(1n), i32(0), i16(10), Buffer.from('abc'));
    assert.throws(
      () => decodeOffsetsTopicRecord(offsetCommitKey('g', 't', 0), value),
      (e: unknown) => e instanceof InvalidRecordError && /^Cannot decode __consumer_offsets value \(OffsetCommitValue v3\) at value byte \d+: /.test(e.message),
    );
    assert.throws(() => decodeOffsetsTopicRecord(Buffer.from([1]), null), /__consumer_offsets key: 1 bytes, no int16 version/);
  });

  test('the replay keeps the last record per key; tombstones remove offsets and groups', () => {
    const o = (offset: bigint) => ({ offset, leaderEpoch: -1, metadata: '', commitTimestamp: 0n, expireTimestamp: -1n });
    const replayed = replayOffsetsRecords([
      { type: 'offset', group: 'a', topic: 't', partition: 0, value: o(1n) },
      { type: 'offset', group: 'a', topic: 't', partition: 0, value: o(2n) },
      { type: 'offset', group: 'a', topic: 't', partition: 1, value: o(3n) },
      { type: 'offset', group: 'a', topic: 't', partition: 1, value: null },
      { type: 'offset', group: 'b', topic: 't', partition: 0, value: o(4n) },
      { type: 'offset', group: 'b', topic: 't', partition: 0, value: null },
    ]);
    assert.deepEqual([...replayed.keys()], ['a']);
    assert.deepEqual(replayed.get('a'), { stored: null, consumer: null, offsets: [{ topic: 't', partition: 0, value: o(2n) }] });
  });
});
