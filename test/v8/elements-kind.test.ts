/**
 * Arrays the request path fills start in the elements kind they end in (src/v8/elements-kind.ts):
 * V8's %HasObjectElements needs --allow-natives-syntax, so the checks run in a child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

const DIST = join(REPO_ROOT, 'dist', 'src');

test("a new partition's leader epoch cache holds its entries in the object elements kind from the start", () => {
  const dir = mkdtempSync(join(tmpdir(), 'kl-elements-'));
  try {
    const script = `
      const { LeaderEpochFileCache } = await import(${JSON.stringify(join(DIST, 'storage', 'leader-epoch-cache.js'))});
      const { objectArray, doubleArray } = await import(${JSON.stringify(join(DIST, 'v8', 'elements-kind.js'))});
      const fresh = new LeaderEpochFileCache(${JSON.stringify(join(dir, 'leader-epoch-checkpoint'))});
      const cleared = new LeaderEpochFileCache(${JSON.stringify(join(dir, 'other-checkpoint'))});
      cleared.assign(0, 0n);
      cleared.clear();
      console.log(JSON.stringify({
        // the control: what a plain [] is, so that this test can tell the kinds apart
        literal: %HasSmiElements([]),
        fresh: %HasObjectElements(fresh.epochs),
        cleared: %HasObjectElements(cleared.epochs),
        objectArray: %HasObjectElements(objectArray()),
        doubleArray: %HasDoubleElements(doubleArray()),
      }));
    `;
    const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { literal: true, fresh: true, cleared: true, objectArray: true, doubleArray: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
