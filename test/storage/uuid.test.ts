/** Kafka Uuid (Uuid.java): base64url string form, reserved ids, randomUuid rules. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { METADATA_TOPIC_ID, ONE_UUID, ZERO_UUID, isZeroUuid, parseUuid, randomUuid, uuidToString } from '../../src/storage/uuid.js';

describe('Uuid', () => {
  test('reserved ids', () => {
    assert.deepEqual(parseUuid(ZERO_UUID), Buffer.alloc(16));
    const one = Buffer.alloc(16);
    one[15] = 1;
    assert.deepEqual(parseUuid(ONE_UUID), one);
    assert.equal(METADATA_TOPIC_ID, ONE_UUID);
    assert.ok(isZeroUuid(ZERO_UUID));
    assert.ok(!isZeroUuid(ONE_UUID));
  });

  test('randomUuid: 22 base64url chars, type 4, never reserved, never a leading dash', () => {
    for (let i = 0; i < 5000; i++) {
      const id = randomUuid();
      assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      assert.notEqual(id, ZERO_UUID);
      assert.notEqual(id, ONE_UUID);
      const bytes = parseUuid(id);
      assert.equal(bytes[6]! >> 4, 4); // version 4, as java.util.UUID.randomUUID
      assert.equal(bytes[8]! >> 6, 2); // IETF variant
      assert.equal(uuidToString(bytes), id);
    }
  });

  test('parseUuid round-trips and accepts padding like Java\'s URL decoder', () => {
    const id = 'v9meXjI1RVKB-NSvF0GXDA';
    assert.equal(uuidToString(parseUuid(id)), id);
    assert.deepEqual(parseUuid(id + '=='), parseUuid(id));
  });

  test('parseUuid refuses what Uuid.fromString refuses', () => {
    const bad = [
      '',
      'AAAA',
      'AAAAAAAAAAAAAAAAAAAAA', // 21 chars: 15 bytes
      'AAAAAAAAAAAAAAAAAAAAAAA', // 23 chars: a lone trailing char
      'AAAAAAAAAAAAAAAAAAAAAAAA', // 24 chars: 18 bytes
      'AAAAAAAAAAAAAAAAAAAAAAAAA', // too long
      'AAAAAAAAAAAAAAAAAAAA+/', // standard, not URL-safe, alphabet
      'AAAAAAAAAAAAAAAAAAAA A',
      'AAAAAAAAAAAAAAAAAAAAA=',
      '../../../../../etc/pass',
    ];
    for (const s of bad) assert.throws(() => parseUuid(s), InvalidArgumentError, s);
    assert.throws(() => parseUuid('A'.repeat(30)), /prefix `AAAAAAAAAAAAAAAAAAAAAAAA` is too long/);
    assert.throws(() => parseUuid('AAAA'), /decoded as 3 bytes, which is not equal to the expected 16 bytes/);
  });

  test('uuidToString needs 16 bytes', () => {
    assert.throws(() => uuidToString(Buffer.alloc(15)), InvalidArgumentError);
  });
});
