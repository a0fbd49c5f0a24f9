/** fitStringField: a response string built from client input never exceeds a STRING field's 32,767 UTF-8 bytes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fitStringField, MAX_STRING_FIELD_BYTES } from '../../src/protocol/string-field.js';

describe('fitStringField', () => {
  test('a string that fits is returned as is, up to exactly 32,767 bytes', () => {
    assert.equal(fitStringField('short'), 'short');
    const exact = 'x'.repeat(MAX_STRING_FIELD_BYTES);
    assert.equal(fitStringField(exact), exact);
  });

  test("a longer one keeps its start and its end around '...'", () => {
    const s = `Topic name is invalid: the length of '${'a'.repeat(40000)}' is longer than the max allowed length 249`;
    const out = fitStringField(s);
    assert.ok(Buffer.byteLength(out) <= MAX_STRING_FIELD_BYTES);
    assert.ok(Buffer.byteLength(out) >= MAX_STRING_FIELD_BYTES - 4, 'uses the room it has');
    assert.match(out, /^Topic name is invalid: the length of 'a+\.\.\.a+' is longer than the max allowed length 249$/);
  });

  test('multi-byte text is cut on character boundaries (no split surrogate pair, no replacement characters)', () => {
    for (const unit of ['é', '€', '😀']) {
      const out = fitStringField(unit.repeat(30000), 1000);
      assert.ok(Buffer.byteLength(out) <= 1000, unit);
      assert.equal(Buffer.from(out, 'utf8').toString('utf8'), out, 'round-trips through UTF-8');
      assert.ok(!out.includes('\ufffd'));
      assert.equal(out.replace('...', '').replaceAll(unit, ''), '', `only whole ${unit} characters`);
    }
  });
});
