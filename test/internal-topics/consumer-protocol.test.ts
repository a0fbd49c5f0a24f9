/**
 * Consumer-protocol bytes in group metadata: a version newer than the schema's is read at the
 * newest known one or refused, as the caller asks; bytes that are not the protocol read as undefined.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeConsumerProtocol } from '../../src/internal-topics/consumer-protocol.js';
import { ConsumerProtocolAssignment } from '../../src/protocol/schemas/internal/consumer-protocol.js';
import { cat, i16, i32, str } from '../helpers/classic-encoding.js';

// ConsumerProtocolAssignment (non-flexible): [topic, [partition]], userData (nullable bytes)
const body = cat(i32(1), str('t'), i32(2), i32(0), i32(3), i32(-1));

describe('consumer protocol bytes', () => {
  test('a known version decodes either way', () => {
    for (const newer of ['read-as-newest', 'refuse'] as const) {
      const a = decodeConsumerProtocol<{ assignedPartitions: unknown }>(ConsumerProtocolAssignment, cat(i16(1), body), newer);
      assert.deepEqual(a?.version, 1);
      assert.deepEqual(a?.value.assignedPartitions, [{ topic: 't', partitions: [0, 3] }]);
    }
  });

  test('a newer version reads at the newest known one, or is refused', () => {
    const newest = ConsumerProtocolAssignment.validVersions[1];
    const bytes = cat(i16(newest + 1), body);
    assert.equal(decodeConsumerProtocol(ConsumerProtocolAssignment, bytes, 'read-as-newest')?.version, newest);
    assert.equal(decodeConsumerProtocol(ConsumerProtocolAssignment, bytes, 'refuse'), undefined);
  });

  test('short, negative-version or truncated bytes read as undefined', () => {
    assert.equal(decodeConsumerProtocol(ConsumerProtocolAssignment, Buffer.from([0]), 'read-as-newest'), undefined);
    assert.equal(decodeConsumerProtocol(ConsumerProtocolAssignment, cat(i16(-1), body), 'read-as-newest'), undefined);
    assert.equal(decodeConsumerProtocol(ConsumerProtocolAssignment, cat(i16(0), body.subarray(0, 9)), 'read-as-newest'), undefined);
  });
});
