/** Locations tests read from: the repository root and the read-only `../shared` beside it. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_SHARED_IN_UNIT_TIER, UNIT_TIER } from './tier.js';

function findRepoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
/**
 * `../shared` (override with KAFKALITE_SHARED); tests fail, never skip, when it is missing. The unit
 * tier has none (test/tiers.ts): a unit test reading it fails on a path that says so.
 */
export const SHARED = UNIT_TIER ? NO_SHARED_IN_UNIT_TIER : (process.env.KAFKALITE_SHARED ?? resolve(REPO_ROOT, '..', 'shared'));
export const CORPORA = join(SHARED, 'corpora');
