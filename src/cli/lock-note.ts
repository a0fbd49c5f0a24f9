/**
 * Read-only commands (`dump-log`, `verify`, `stats`, `groups`) take no lock on a data directory, so
 * they can look at a live broker's files; they say so on stderr when a broker or tool holds the
 * directory's `.lock`, because what they read may be changing under them.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { dataDirLockState } from '../storage/dir-lock.js';
import { LOCK_FILE } from '../storage/file-names.js';

/** The data directory a path is in: itself, or the nearest of its two parents holding `.lock`. */
function dataDirOf(path: string): string | undefined {
  let dir = resolve(path);
  try {
    if (!statSync(dir).isDirectory()) dir = dirname(dir);
  } catch {
    return undefined;
  }
  for (let up = 0; up < 2; up++, dir = dirname(dir)) if (existsSync(join(dir, LOCK_FILE))) return dir;
  return undefined;
}

/** One note per locked data directory among `paths` (files or directories). */
export function lockedDirNotes(paths: readonly string[]): string[] {
  const notes = new Map<string, string>();
  for (const path of paths) {
    const dir = dataDirOf(path);
    if (dir === undefined || notes.has(dir)) continue;
    const state = dataDirLockState(dir);
    if (!state.locked) continue;
    const holder = state.holderPid === undefined ? 'a running broker or tool' : `a running broker or tool (pid ${state.holderPid})`;
    notes.set(dir, `Note: ${dir} is locked by ${holder}; this command takes no lock, and what it reads may be changing`);
  }
  return [...notes.values()];
}
