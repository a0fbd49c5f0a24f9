/**
 * The tier split itself (test/tiers.ts): unit and peers partition the test files, a stale entry in
 * the list fails the run, and the runner's guard is on in the unit tier only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { filesOf, OWN_PROCESS, PEER_TESTS, shardsOf, testFiles, UNIT_SHARDS, writeShards } from './tiers.js';

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

test('the unit tier puts every file in exactly one shard or alone in its own process', () => {
  const all = testFiles(DIST_TEST);
  const unit = filesOf('unit', all);
  const { shards, alone } = shardsOf(unit, all);
  assert.ok(shards.length > 1 && shards.length <= UNIT_SHARDS);
  assert.deepEqual([...shards.flat(), ...alone].sort(), [...unit].sort());
  assert.deepEqual(alone.sort(), Object.keys(OWN_PROCESS).map((k) => all.get(k)).sort());
  for (const k of Object.keys(OWN_PROCESS)) assert.ok(!(k in PEER_TESTS), `${k} is a peer file`);
  // a root-level beforeEach/afterEach would run around every other file's tests in a shard
  const rootEachHook = /^(?:beforeEach|afterEach)\(/m;
  for (const f of [...shards.flat()]) assert.ok(!rootEachHook.test(readFileSync(f, 'utf8')), `${f} has root-level beforeEach/afterEach hooks: list it in OWN_PROCESS`);
  // greedy by cost: four files of cost 4, 3, 2, 2 over two shards weigh 6 and 5
  const toy = new Map([['a', 'a'], ['b', 'b'], ['c', 'c'], ['d', 'd']]);
  const costs: Record<string, number> = { a: 4, b: 3, c: 2, d: 2 };
  const stale = () => shardsOf(['a', 'b', 'c', 'd'], toy, 2, (f) => costs[f]);
  assert.throws(stale, /OWN_PROCESS lists test files that do not exist/);
  for (const k of Object.keys(OWN_PROCESS)) toy.set(k, `own:${k}`);
  assert.deepEqual(shardsOf(['a', 'b', 'c', 'd'], toy, 2, (f) => costs[f]).shards, [['a', 'd'], ['b', 'c']]);
});

test('a shard fails with the failing test named, and when one of its files throws at import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-shards-'));
  try {
    const file = (name: string, body: string): string => (writeFileSync(join(dir, name), body), join(dir, name));
    const ok = file('ok.mjs', "import { test } from 'node:test'; test('passes in a shard', () => {});\n");
    const failing = file('failing.mjs', "import { test } from 'node:test'; test('fails in a shard', () => { throw new Error('boom'); });\n");
    const broken = file('broken.mjs', "throw new Error('broken at import');\n");
    const run = (files: string[]) => {
      const [shard] = writeShards(join(dir, 'shards'), [files]);
      // without NODE_TEST_CONTEXT, which would make the inner `node --test` report to this one
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'));
      return spawnSync(process.execPath, ['--test', '--test-reporter=spec', shard], { encoding: 'utf8', env });
    };
    assert.equal(run([ok]).status, 0);
    const r1 = run([ok, failing]);
    assert.equal(r1.status, 1);
    assert.match(r1.stdout, /✖ fails in a shard/);
    const r2 = run([broken, ok]);
    assert.equal(r2.status, 1);
    assert.match(r2.stdout + r2.stderr, /broken at import/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
