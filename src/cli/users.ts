/**
 * `kafkalite users <data-dir> list|add|remove`: the SCRAM credentials a data directory keeps
 * (`kafkalite-scram-credentials.json`, src/broker/security/scram-store.ts), offline, with
 * kafka-configs.sh's options for `--entity-type users`:
 * - `add --entity-name alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]'`
 *   (or `--add-config-file <f>`, a properties file of the same entries, which keeps the password off
 *   the command line); iterations default to 4096 and must lie in 4096..16384, as
 *   ConfigCommand and the controller check them;
 * - `remove --entity-name alice [--delete-config SCRAM-SHA-512]` (every mechanism without it);
 * - `list [--entity-name alice]`: ConfigCommand's "SCRAM credential configs for user-principal
 *   'alice' are SCRAM-SHA-256=iterations=8192" lines.
 * Only a salt, the StoredKey, the ServerKey and the iteration count are stored, never the password.
 * A change takes the directory's lock: a running broker holds it (and its own copy of the
 * credentials), so changes are refused then; AlterUserScramCredentials changes a live broker's.
 */
import { PROCESS_IO, writeText, type CliIo } from './output.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ScramCredentialStore } from '../broker/security/scram-store.js';
import {
  credentialFromPassword,
  isScramMechanism,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanismName,
} from '../broker/security/scram-formatter.js';
import { lockDataDir } from '../storage/dir-lock.js';

export const USERS_USAGE = `Usage: kafkalite users <data-dir> (list | add | remove) [options]

Lists, adds or removes the SCRAM credentials kept in the data directory (offline; the options of
kafka-configs.sh --entity-type users).

Options:
  --entity-name <user>       the user (required for add and remove; list: only this user)
  --add-config <configs>     add: SCRAM-SHA-256=[iterations=8192,password=<p>],SCRAM-SHA-512=[password=<p>]
  --add-config-file <file>   add: the same entries from a properties file, one per line
  --delete-config <mech>     remove: SCRAM-SHA-256 or SCRAM-SHA-512 (repeatable; default both)
  -h, --help                 this help`;

/** ConfigCommand's DefaultScramIterations. */
const DEFAULT_ITERATIONS = 4096;

export interface UsersOptions {
  dir: string;
  action: 'list' | 'add' | 'remove';
  user: string | null;
  /** add: mechanism → iterations and password. */
  upsertions: { mech: ScramMechanismName; iterations: number; password: string }[];
  /** remove: the mechanisms (all when none were named). */
  deletions: ScramMechanismName[];
}

/**
 * `ConfigCommand.parseConfigsToBeAdded`: entries split on the commas outside brackets, each
 * `key=value` with the value's brackets dropped.
 */
export function parseAddConfig(text: string): Map<string, string> | { error: string } {
  const out = new Map<string, string>();
  for (const entry of text.split(/,(?=[^\]]*(?:\[|$))/)) {
    const m = /^\s*([^=]+?)\s*=\s*([\s\S]*)$/.exec(entry);
    if (m === null) return { error: 'Invalid entity config: all configs to be added must be in the format "key=val".' };
    out.set(m[1]!, m[2]!.replace(/[[\]]/g, '').trim());
  }
  return out;
}

/** A properties file's `key=value` lines (comments and blank lines skipped), as `--add-config-file` reads it. */
function readConfigFile(path: string): Map<string, string> | { error: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { error: `cannot read --add-config-file ${path}: ${(e as Error).message}` };
  }
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*([#!]|$)/.test(line)) continue;
    const m = /^\s*([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line);
    if (m === null) return { error: `--add-config-file ${path}: not a key=value line: ${line}` };
    out.set(m[1]!, m[2]!.replace(/[[\]]/g, '').trim());
  }
  return out;
}

/** `ConfigCommand.iterationsAndPasswordBytes`: `[iterations=N,]password=P`. */
function credentialSpec(mech: ScramMechanismName, value: string): { iterations: number; password: string } | { error: string } {
  const m = /^(?:iterations=(-?[0-9]*),)?password=([\s\S]*)$/.exec(value);
  if (m === null) return { error: `Invalid credential property ${mech}=${value}` };
  const iterations = m[1] !== undefined && m[1] !== '-1' ? Number(m[1]) : DEFAULT_ITERATIONS;
  if (!Number.isSafeInteger(iterations) || iterations < SCRAM_MIN_ITERATIONS) return { error: `Iterations ${m[1]} is less than the minimum ${SCRAM_MIN_ITERATIONS} required for ${mech}` };
  if (iterations > SCRAM_MAX_ITERATIONS) return { error: `Iterations ${iterations} is more than the maximum ${SCRAM_MAX_ITERATIONS} for ${mech}` };
  return { iterations, password: m[2]! };
}

export function parseUsersArgs(argv: string[]): UsersOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'entity-name': { type: 'string' },
        'add-config': { type: 'string' },
        'add-config-file': { type: 'string' },
        'delete-config': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  const [dir, action, ...extra] = parsed.positionals;
  if (dir === undefined || action === undefined || extra.length > 0) return { error: 'expected a data directory and one of list, add, remove' };
  if (action !== 'list' && action !== 'add' && action !== 'remove') return { error: `unknown action ${action}: expected list, add or remove` };
  const user = v['entity-name'] ?? null;
  if (user === '') return { error: '--entity-name must not be empty' };
  if (action !== 'list' && user === null) return { error: `${action} needs --entity-name <user>` };
  const o: UsersOptions = { dir, action, user, upsertions: [], deletions: [] };
  if (action !== 'add' && (v['add-config'] !== undefined || v['add-config-file'] !== undefined)) return { error: '--add-config and --add-config-file go with add' };
  if (action !== 'remove' && v['delete-config'] !== undefined) return { error: '--delete-config goes with remove' };
  if (action === 'add') {
    const configs = new Map<string, string>();
    for (const source of [v['add-config-file'] === undefined ? undefined : readConfigFile(v['add-config-file']), v['add-config'] === undefined ? undefined : parseAddConfig(v['add-config'])]) {
      if (source === undefined) continue;
      if (!(source instanceof Map)) return source;
      for (const [k, val] of source) configs.set(k, val);
    }
    if (configs.size === 0) return { error: 'add needs --add-config or --add-config-file' };
    for (const [key, value] of configs) {
      if (!isScramMechanism(key)) return { error: `only SCRAM credential configs (SCRAM-SHA-256, SCRAM-SHA-512) can be added to a data directory's users, not ${key}` };
      const spec = credentialSpec(key, value);
      if ('error' in spec) return spec;
      o.upsertions.push({ mech: key, ...spec });
    }
  }
  for (const mech of v['delete-config'] ?? []) {
    if (!isScramMechanism(mech.trim())) return { error: `only SCRAM credential configs (SCRAM-SHA-256, SCRAM-SHA-512) can be deleted, not ${mech}` };
    o.deletions.push(mech.trim() as ScramMechanismName);
  }
  return o;
}

/** ConfigCommand's describe line of a user's credentials. */
function describeLine(user: string, mechs: ReadonlyMap<ScramMechanismName, ScramCredential>): string {
  const text = [...mechs].sort(([a], [b]) => a.localeCompare(b)).map(([m, c]) => `${m}=iterations=${c.iterations}`).join(', ');
  return `SCRAM credential configs for user-principal '${user}' are ${text}`;
}

export function users(o: UsersOptions, io: CliIo = PROCESS_IO): number {
  if (!existsSync(o.dir) || !statSync(o.dir).isDirectory()) {
    writeText(io.stderr, `Error: ${o.dir} is not a directory\n`);
    return 1;
  }
  if (o.action === 'list') {
    const store = ScramCredentialStore.load(o.dir);
    const names = o.user === null ? store.userNames().sort() : [o.user];
    for (const user of names) {
      const mechs = store.mechanisms(user);
      if (mechs !== undefined && mechs.size > 0) writeText(io.stdout, `${describeLine(user, mechs)}\n`);
      else if (o.user !== null) writeText(io.stdout, `SCRAM credential configs for user-principal '${user}' are \n`);
    }
    return 0;
  }
  let lock;
  try {
    lock = lockDataDir(o.dir);
  } catch (e) {
    writeText(io.stderr, `Error: ${(e as Error).message}: change a running broker's users with AlterUserScramCredentials (kafka-configs.sh --bootstrap-server) instead\n`);
    return 1;
  }
  try {
    const store = ScramCredentialStore.load(o.dir);
    const user = o.user!;
    if (o.action === 'add') {
      store.apply([], o.upsertions.map((u) => ({ user, mech: u.mech, credential: credentialFromPassword(u.mech, u.password, randomBytes(32), u.iterations) })));
    } else {
      const have = store.mechanisms(user);
      const mechs = o.deletions.length > 0 ? o.deletions : [...(have?.keys() ?? [])];
      // the controller's answer to deleting what is not there (ScramControlManager)
      const missing = mechs.filter((m) => have?.get(m) === undefined);
      if (mechs.length === 0 || missing.length > 0) {
        writeText(io.stderr, `Error: Attempt to delete a user credential that does not exist (user ${user}${missing.length > 0 ? `, ${missing.join(', ')}` : ''})\n`);
        return 1;
      }
      store.apply(mechs.map((mech) => ({ user, mech })), []);
    }
    writeText(io.stdout, `Completed updating config for user ${user}.\n`);
    return 0;
  } finally {
    lock.release();
  }
}
