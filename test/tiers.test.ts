/**
 * The tier split itself (test/tiers.ts): unit and peers partition the test files, a stale entry in
 * the list fails the run, and the runner's guard is on in the unit tier only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { filesOf, PEER_TESTS, testFiles } from './tiers.js';

const DIST_TEST = fileURLToPath(new URL('.', import.meta.url));

test('unit and peers split every test file between them; every listed file exists', () => {
  const all = testFiles(DIST_TEST);
  const unit = filesOf('unit', all);
  const peers = filesOf('peers', all);
  assert.equal(peers.length, Object.keys(PEER_TESTS).length);
  assert.deepEqual([...unit, ...peers].sort(), filesOf('all', all).sort());
  assert.equal(new Set([...unit, ...peers]).size, all.size);
  assert.ok(unit.includes(join(DIST_TEST, 'tiers.test.js')));
  assert.ok(peers.includes(join(DIST_TEST, 'record', 'corpora.test.js')));
});

test('a listed file that does not exist fails the run', () => {
  const all = testFiles(DIST_TEST);
  all.delete('record/corpora');
  assert.throws(() => filesOf('unit', all), /test\/tiers\.ts lists test files that do not exist: record\/corpora/);
});

test('the runner refuses an unknown tier', () => {
  const r = spawnSync(process.execPath, [join(DIST_TEST, 'tiers.js'), 'quick'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: node dist\/test\/tiers\.js unit\|peers\|all/);
});
