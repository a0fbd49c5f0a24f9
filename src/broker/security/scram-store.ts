/**
 * SCRAM credentials per (user, mechanism), kept in `kafkalite-scram-credentials.json` in the data
 * directory (Kafka keeps them as UserScramCredentialRecords in the metadata log). Only salt,
 * StoredKey, ServerKey and iterations are kept, never a password (ScramCredential).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfigError } from '../../errors.js';
import { atomicWriteFileSync } from '../../storage/fs-util.js';
import { isScramMechanism, type ScramCredential, type ScramMechanismName } from './scram-formatter.js';

export const SCRAM_CREDENTIALS_FILE = 'kafkalite-scram-credentials.json';

interface StoredCredential {
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

export class ScramCredentialStore {
  private readonly users = new Map<string, Map<ScramMechanismName, ScramCredential>>();

  private constructor(private readonly path: string | undefined) {}

  /** The store of a data directory (empty when it has none yet); a corrupt file fails the start. */
  static load(dataDir: string): ScramCredentialStore {
    const store = new ScramCredentialStore(join(dataDir, SCRAM_CREDENTIALS_FILE));
    const path = store.path!;
    if (!existsSync(path)) return store;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new InvalidConfigError(`${path} cannot be read: ${(e as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null) throw new InvalidConfigError(`${path}: not a JSON object`);
    for (const [user, mechs] of Object.entries(parsed)) {
      if (typeof mechs !== 'object' || mechs === null) throw new InvalidConfigError(`${path}: bad entry for ${user}`);
      for (const [mech, c] of Object.entries(mechs as Record<string, StoredCredential>)) {
        if (!isScramMechanism(mech) || typeof c?.salt !== 'string' || typeof c.iterations !== 'number') {
          throw new InvalidConfigError(`${path}: bad ${mech} credential for ${user}`);
        }
        store.put(user, mech, {
          salt: Buffer.from(c.salt, 'base64'),
          storedKey: Buffer.from(c.storedKey, 'base64'),
          serverKey: Buffer.from(c.serverKey, 'base64'),
          iterations: c.iterations,
        });
      }
    }
    return store;
  }

  get(user: string, mech: ScramMechanismName): ScramCredential | undefined {
    return this.users.get(user)?.get(mech);
  }

  /** The mechanisms a user has credentials for. */
  mechanisms(user: string): ReadonlyMap<ScramMechanismName, ScramCredential> | undefined {
    return this.users.get(user);
  }

  userNames(): string[] {
    return [...this.users.keys()];
  }

  /** Applies deletions and upsertions together, then persists (one file write). */
  apply(deletions: readonly { user: string; mech: ScramMechanismName }[], upsertions: readonly { user: string; mech: ScramMechanismName; credential: ScramCredential }[]): void {
    for (const d of deletions) {
      const m = this.users.get(d.user);
      m?.delete(d.mech);
      if (m?.size === 0) this.users.delete(d.user);
    }
    for (const u of upsertions) this.put(u.user, u.mech, u.credential);
    this.save();
  }

  private put(user: string, mech: ScramMechanismName, c: ScramCredential): void {
    let m = this.users.get(user);
    if (m === undefined) this.users.set(user, (m = new Map()));
    m.set(mech, c);
  }

  private save(): void {
    if (this.path === undefined) return;
    const out: Record<string, Record<string, StoredCredential>> = {};
    for (const [user, mechs] of this.users) {
      out[user] = {};
      for (const [mech, c] of mechs) {
        out[user][mech] = { salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations };
      }
    }
    atomicWriteFileSync(this.path, JSON.stringify(out, null, 1) + '\n');
  }
}
