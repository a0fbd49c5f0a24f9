/** Locations tests read from: the repository root and the read-only `../shared` beside it. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
/** `../shared` (override with KAFKALITE_SHARED); tests fail, never skip, when it is missing. */
export const SHARED = process.env.KAFKALITE_SHARED ?? resolve(REPO_ROOT, '..', 'shared');
export const CORPORA = join(SHARED, 'corpora');
