/**
 * The codec's string writer keeps each field's last short string and its bytes (codec.ts
 * stringWriter): a repeated value must still be written as its own UTF-8 bytes, after a different
 * one, a multi-byte one, one too long to be kept, and the empty string. Checked against
 * Buffer.from(name), at the topic name's place in a Produce answer: v7 (int16 length) and v9
 * (compact: uvarint length + 1).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeMessageToBuffer } from '../../src/protocol/codec.js';
import { DeleteTopics } from '../../src/protocol/schemas/delete-topics.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { Produce } from '../../src/protocol/schemas/produce.js';

const names = ['topic-a', 'topic-b', 'topic-a', 'topic-a', 'é-topic-€', 'topic-a', 't'.repeat(100), 'topic-a', '', 'topic-a', 'topic-b'];

function answer(name: string) {
  return {
    responses: [{ name, partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 5n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null }] }],
    throttleTimeMs: 0,
  };
}

test('a Produce v7 answer carries each topic name as int16 length + its UTF-8 bytes, repeated or not', () => {
  for (const name of names) {
    const out = encodeMessageToBuffer(Produce.response, 7, answer(name));
    const bytes = Buffer.from(name, 'utf8');
    assert.equal(out.readInt32BE(0), 1, 'one topic');
    assert.equal(out.readInt16BE(4), bytes.length, name);
    assert.deepEqual(out.subarray(6, 6 + bytes.length), bytes, name);
    assert.equal(out.readInt32BE(6 + bytes.length), 1, `one partition after ${name}`);
  }
});

test('a Produce v9 answer carries each topic name as a compact string, repeated or not', () => {
  for (const name of names) {
    const out = encodeMessageToBuffer(Produce.response, 9, answer(name));
    const bytes = Buffer.from(name, 'utf8');
    assert.equal(out[0], 2, 'compact array of one topic');
    // every name here is under 127 bytes: its uvarint length + 1 is one byte
    assert.equal(out[1], bytes.length + 1, name);
    assert.deepEqual(out.subarray(2, 2 + bytes.length), bytes, name);
    assert.equal(out[2 + bytes.length], 2, `compact array of one partition after ${name}`);
  }
});

test('a missing string (undefined) is refused, before the field wrote any string as after', () => {
  // DeleteTopics v1's topicNames is an array of strings: an element is written without the
  // struct writer's default for undefined. This field writes nothing else in this file, so the
  // first encode meets its writer's cache before any string was kept.
  const encode = (topicNames: unknown[]) => encodeMessageToBuffer(DeleteTopics.request, 1, { topicNames, timeoutMs: 1 });
  assert.throws(() => encode([undefined]), InvalidArgumentError, 'before any string');
  assert.deepEqual(encode(['a']), Buffer.from([0, 0, 0, 1, 0, 1, 0x61, 0, 0, 0, 1]));
  assert.throws(() => encode([undefined]), InvalidArgumentError, 'after a string');
  assert.deepEqual(encode(['']), Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 1]));
});
