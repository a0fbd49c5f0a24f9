/**
 * SCRAM's key derivation (RFC 5802 §3, Kafka's ScramFormatter): SaltedPassword = Hi(password, salt, i)
 * (PBKDF2 with the mechanism's HMAC), ClientKey = HMAC(SaltedPassword, "Client Key"),
 * StoredKey = H(ClientKey), ServerKey = HMAC(SaltedPassword, "Server Key"). Kafka applies no SASLprep:
 * the password is only UTF-8 encoded (ScramFormatter.normalize).
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** Kafka's ScramMechanism enum: hash, admin-API type code, iteration bounds 4096..16384. */
export const SCRAM_MECHANISMS: Readonly<Record<ScramMechanismName, { hash: 'sha256' | 'sha512'; type: number; keyLength: number }>> = {
  'SCRAM-SHA-256': { hash: 'sha256', type: 1, keyLength: 32 },
  'SCRAM-SHA-512': { hash: 'sha512', type: 2, keyLength: 64 },
};
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

export function scramMechanismByType(type: number): ScramMechanismName | undefined {
  for (const [name, m] of Object.entries(SCRAM_MECHANISMS)) if (m.type === type) return name as ScramMechanismName;
  return undefined;
}

export function isScramMechanism(name: string): name is ScramMechanismName {
  return name === 'SCRAM-SHA-256' || name === 'SCRAM-SHA-512';
}

export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export function hmac(mech: ScramMechanismName, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(SCRAM_MECHANISMS[mech].hash, key).update(data).digest();
}

export function hash(mech: ScramMechanismName, data: Buffer): Buffer {
  return createHash(SCRAM_MECHANISMS[mech].hash).update(data).digest();
}

export function saltedPassword(mech: ScramMechanismName, password: string, salt: Buffer, iterations: number): Buffer {
  const m = SCRAM_MECHANISMS[mech];
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash);
}

/** The stored credential from a salted password (what AlterUserScramCredentials carries). */
export function credentialFromSaltedPassword(mech: ScramMechanismName, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  const clientKey = hmac(mech, salted, 'Client Key');
  return { salt, storedKey: hash(mech, clientKey), serverKey: hmac(mech, salted, 'Server Key'), iterations };
}

export function credentialFromPassword(mech: ScramMechanismName, password: string, salt: Buffer, iterations: number): ScramCredential {
  return credentialFromSaltedPassword(mech, saltedPassword(mech, password, salt, iterations), salt, iterations);
}
