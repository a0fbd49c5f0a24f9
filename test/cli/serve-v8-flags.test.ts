import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyServeV8Flags, SERVE_V8_FLAGS } from '../../src/cli/serve-v8-flags.js';

test('serve turns parallel scavenging off unless KAFKALITE_V8_DEFAULTS=1', () => {
  assert.deepEqual(applyServeV8Flags({ KAFKALITE_V8_DEFAULTS: '1' }), []);
  assert.deepEqual(applyServeV8Flags({}), ['--no-parallel-scavenge']);
  assert.deepEqual([...SERVE_V8_FLAGS], ['--no-parallel-scavenge']);
});
